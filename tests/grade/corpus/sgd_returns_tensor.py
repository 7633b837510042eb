"""Expect: loss-not-returned. Returns the loss tensor, graph and all."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    return loss
