"""Expect: passed. Existing gradients zeroed in place; update with copy_ under no_grad."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p - lr * p.grad)
    return loss.item()
