"""Expect: zero-after-backward. Clears the gradients it is about to use."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p.grad.zero_()
            p -= lr * p.grad
    return loss.item()
