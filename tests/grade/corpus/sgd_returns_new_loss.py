"""Expect: wrong-loss. Returns the loss after the update, not the step's loss."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    model.zero_grad()
    loss_fn(model(x), y).backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
        return loss_fn(model(x), y).item()
