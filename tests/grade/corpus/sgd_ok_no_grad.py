"""Expect: passed. zero_grad, forward, loss, backward, then the update under no_grad."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    return loss.item()
