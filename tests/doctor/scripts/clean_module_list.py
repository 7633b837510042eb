# expect: nothing
# engines: torch ownership
"""Sub-modules held in nn.ModuleList and nn.ModuleDict, and a plain list of tensors (not modules)."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(2)])
        self.heads = torch.nn.ModuleDict({"a": torch.nn.Linear(4, 1), "b": torch.nn.Linear(4, 1)})
        self.shapes = [(4, 4), (4, 1)]
        self.scales = [torch.ones(4), torch.ones(4)]

    def forward(self, x):
        for block, scale in zip(self.blocks, self.scales, strict=True):
            x = torch.relu(block(x)) * scale
        return self.heads["a"](x) + self.heads["b"](x)


torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
for _ in range(2):
    opt.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    opt.step()
