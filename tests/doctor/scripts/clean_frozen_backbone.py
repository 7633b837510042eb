# expect: nothing
# engines: torch ownership
"""A frozen backbone: requires_grad_(False), the optimizer given every parameter or only the head."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
backbone = torch.nn.Linear(4, 8)
head = torch.nn.Linear(8, 1)
backbone.requires_grad_(False)
model = torch.nn.Sequential(backbone, torch.nn.ReLU(), head)
opt_all = torch.optim.SGD(model.parameters(), lr=0.1)
opt_head = torch.optim.SGD(head.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
for opt in (opt_all, opt_head, opt_all):
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
