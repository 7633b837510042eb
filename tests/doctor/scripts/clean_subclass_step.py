# expect: nothing
# engines: torch ownership
"""An optimizer subclass whose step() calls its base's, zeroed every step; a gradient penalty
taken with autograd.grad before the backward."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class LoggedSGD(torch.optim.SGD):
    steps = 0

    def step(self, closure=None):
        self.steps += 1
        return super().step(closure)


torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = LoggedSGD(model.parameters(), lr=0.01)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(3):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    (penalty,) = torch.autograd.grad(loss, model.weight, create_graph=True)
    (loss + penalty.pow(2).sum()).backward()
    opt.step()
assert opt.steps == 3
