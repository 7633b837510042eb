# expect: state-as-parameter line=22 optimizer=29
# engines: torch ownership
"""A call counter registered as a Parameter and bumped in forward; the loss depends on it (a
warm-up factor), so it gets a gradient and the optimizer moves it."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class Counted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(2, 1)
        self.calls = torch.nn.Parameter(torch.zeros(()))

    def forward(self, x):
        with torch.no_grad():
            self.calls += 1
        warm_up = torch.clamp(self.calls / 10, max=1.0)  # ramps up over 10 calls
        return self.linear(x) * warm_up


torch.manual_seed(0)
model = Counted()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 2), torch.randn(8, 1)
for _ in range(2):
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
print(model.calls)
