"""Expect: loss-not-returned, no-zero-grad, wrong-sign. Three slips at once."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p += lr * p.grad
    return loss
