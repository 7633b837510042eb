"""Expect: tracked-update. The in-place update runs with grad mode on."""


def sgd_step(model, loss_fn, x, y, lr):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for p in model.parameters():
        p -= lr * p.grad
    return loss.item()
