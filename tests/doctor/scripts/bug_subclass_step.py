# expect: stale-grad line=32 backward=31
# engines: torch ownership
"""An optimizer subclass with a step() of its own, and no zeroing between steps."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class PlainSGD(torch.optim.Optimizer):
    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    def step(self, closure=None):
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.add_(p.grad, alpha=-group["lr"])


torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = PlainSGD(model.parameters(), lr=0.01)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(3):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
