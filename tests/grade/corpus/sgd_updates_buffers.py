"""Expect: updates-buffers. Steps every floating tensor of the model, buffers included."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for t in [*model.parameters(), *model.buffers()]:
            if t.is_floating_point():
                grad = t.grad if t.grad is not None else torch.zeros_like(t)
                t -= lr * grad
    return loss.item()
