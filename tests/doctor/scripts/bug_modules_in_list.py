# expect: unregistered-module line=17
# expect: not-optimized line=28
# engines: torch ownership
"""Layers kept in a plain list: the optimizer never sees them."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [torch.nn.Linear(4, 4) for _ in range(2)]
        self.head = torch.nn.Linear(4, 1)

    def forward(self, x):
        for block in self.blocks:
            x = torch.relu(block(x))
        return self.head(x)


torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
for _ in range(2):
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
