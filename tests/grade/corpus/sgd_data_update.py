"""Expect: data-update. Right values, written through .data."""


def sgd_step(model, loss_fn, x, y, lr):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss.item()
