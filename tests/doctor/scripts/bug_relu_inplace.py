# expect: inplace-write line=21 write=21 saved=20 backward=26
# engines: torch ownership
"""nn.ReLU(inplace=True) after a sigmoid: the write is the line in forward that calls the ReLU."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)
        self.act = torch.nn.ReLU(inplace=True)

    def forward(self, x):
        h = torch.sigmoid(self.linear(x))
        return self.act(h)


torch.manual_seed(0)
net = Net()
net(torch.randn(2, 3)).sum().backward()
