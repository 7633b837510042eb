"""Expect: passed. The optimizer does the zeroing and the update."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
