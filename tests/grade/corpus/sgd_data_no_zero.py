"""Expect: data-update, no-zero-grad. Through .data, and the old gradients stay."""


def sgd_step(model, loss_fn, x, y, lr):
    loss = loss_fn(model(x), y)
    loss.backward()
    for p in model.parameters():
        p.data.sub_(lr * p.grad)
    return loss.item()
