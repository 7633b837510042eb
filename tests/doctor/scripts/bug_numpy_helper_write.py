# expect: hidden-write line=15 alias=21 saved=20 backward=23
# engines: torch ownership
"""A helper in the script writes through the numpy array it is given: the write is its line."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch


def normalise(values):
    peak = abs(values).max()
    values /= peak
    return peak


x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.exp()
array = h.detach().numpy()
print(normalise(array))
h.sum().backward()
print(x.grad)
