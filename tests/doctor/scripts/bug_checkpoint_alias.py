# expect: checkpoint-alias line=16 read=21 loaded=22
# engines: torch ownership
"""The "best" state_dict kept aside is the live model: restoring it restores nothing."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
best = model.state_dict()
for _ in range(3):
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
print(torch.equal(best["weight"], model.weight))
model.load_state_dict(best)
