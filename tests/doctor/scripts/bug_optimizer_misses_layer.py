# expect: not-optimized line=14
# engines: torch ownership
"""The optimizer is built from one layer only: the other trains nothing."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
opt = torch.optim.SGD(model[2].parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
for _ in range(2):
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
