"""Expect: zero-after-backward. The optimizer's zero_grad between backward and step."""

import torch


def sgd_step(model, loss_fn, x, y, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    return loss.item()
