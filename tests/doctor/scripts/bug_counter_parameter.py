# expect: state-as-parameter line=21 optimizer=27
# engines: torch ownership
"""A call counter registered as a Parameter and bumped in forward."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class Counted(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(2, 1)
        self.calls = torch.nn.Parameter(torch.zeros(()))

    def forward(self, x):
        with torch.no_grad():
            self.calls += 1
        return self.linear(x)


torch.manual_seed(0)
model = Counted()
opt = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=0.01)
x, y = torch.randn(8, 2), torch.randn(8, 1)
for _ in range(2):
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
