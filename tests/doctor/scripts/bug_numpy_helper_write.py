# expect: hidden-write line=14 alias=19 saved=18 backward=20
# engines: torch ownership
"""A helper in the script writes through the numpy array it is given: the write is its line."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


def normalise(values):
    values /= abs(values).max()


x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.exp()
normalise(h.detach().numpy())
h.sum().backward()
print(x.grad)
