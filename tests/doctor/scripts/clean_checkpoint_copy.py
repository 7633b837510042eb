# expect: nothing
# engines: torch ownership
"""A checkpoint kept as a copy, then restored; a state_dict saved at once."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

import copy

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
best = copy.deepcopy(model.state_dict())
for _ in range(3):
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
snapshot = {k: v.clone() for k, v in model.state_dict().items()}
model.load_state_dict(best)
model.load_state_dict(snapshot)
