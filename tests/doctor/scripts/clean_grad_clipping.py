# expect: nothing
# engines: torch ownership
"""Gradient clipping in a correct loop: by norm, by value, by hand; gradients set by hand from
autograd.grad each step (fresh, so nothing to zero); gradients reset by hand to zeros."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(3):
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.1)
    torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
    for p in model.parameters():
        p.grad = p.grad.clamp(-0.01, 0.01)
    opt.step()
params = list(model.parameters())
for _ in range(3):
    grads = torch.autograd.grad(torch.nn.functional.mse_loss(model(x), y), params)
    for p, g in zip(params, grads, strict=True):
        p.grad = g.clamp(-0.01, 0.01)
    opt.step()
for _ in range(3):  # zeroed by hand: a new gradient of zeros
    for p in params:
        p.grad = torch.zeros_like(p.grad)
    torch.nn.functional.mse_loss(model(x), y).backward()
    opt.step()
