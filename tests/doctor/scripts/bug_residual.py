# expect: inplace-write line=20 write=20 saved=19 backward=27
# engines: torch ownership
"""A residual `+=` writes the output of a ReLU, which ReLU saved for its backward."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)

    def forward(self, x):
        out = torch.relu(self.linear(x))
        out += x
        return out


torch.manual_seed(0)
block = Block()
loss = block(torch.randn(2, 3)).pow(2).sum()
loss.backward()
