# expect: nothing
# engines: torch ownership
"""State kept in buffers and written in forward (a counter, a running mean, BatchNorm)."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class Tracked(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)
        self.norm = torch.nn.BatchNorm1d(3)
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))
        self.register_buffer("running_mean", torch.zeros(3))

    def forward(self, x):
        self.calls += 1
        with torch.no_grad():
            self.running_mean.mul_(0.9).add_(0.1 * x.mean(dim=0))
        return self.norm(self.linear(x))


torch.manual_seed(0)
model = Tracked()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
for _ in range(3):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()
