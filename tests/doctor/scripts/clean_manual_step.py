# expect: nothing
# engines: torch ownership
"""Optimizer steps under no_grad: a hand-written SGD update, and an optimizer stepped inside no_grad."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(5, 3)
for _ in range(3):
    loss = (x @ w).pow(2).mean() + model(x).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
        opt.step()
    opt.zero_grad()
