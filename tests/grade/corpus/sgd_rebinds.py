"""Expect: rebinds-parameter. p = p - lr * p.grad binds the name to a new tensor."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p = p - lr * p.grad
    return loss.item()
