"""Expect: passed. Gradients set to None by hand; p.sub_ under no_grad."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    params = list(model.parameters())
    for p in params:
        p.grad = None
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in params:
            p.sub_(lr * p.grad)
    return float(loss.detach())
