# expect: stale-grad line=21 backward=17
# engines: torch ownership
"""Gradients clipped by hand (a new .grad computed from the old) and never zeroed."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(3):
    ((model(x) - y) ** 2).mean().backward()
    for p in model.parameters():
        p.grad = p.grad.clamp(-0.5, 0.5)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
