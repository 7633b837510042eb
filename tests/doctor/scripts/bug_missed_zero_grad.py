# expect: stale-grad line=19 backward=18
# engines: torch ownership
"""A forgotten zero_grad: every step applies the sum of all past gradients."""

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
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
