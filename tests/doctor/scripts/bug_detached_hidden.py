# expect: no-grad-path line=20 backward=31 step=32
# engines: torch ownership
"""A detached hidden activation: the first layer never gets a gradient."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 1)

    def forward(self, x):
        h = torch.relu(self.fc1(x)).detach()
        return self.fc2(h)


torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(3):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
