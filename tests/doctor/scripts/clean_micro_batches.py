# expect: nothing
# engines: torch ownership
"""Intentional accumulation over micro-batches, one step per batch, zeroed after the step."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(2):
    for chunk in range(4):
        xs, ys = x[chunk * 4 : chunk * 4 + 4], y[chunk * 4 : chunk * 4 + 4]
        (((model(xs) - ys) ** 2).mean() / 4).backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
