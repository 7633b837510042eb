# expect: hidden-write line=15 alias=14 saved=13 backward=16
# engines: torch ownership
"""A write through a numpy array that shares the saved tensor's memory."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.exp()
array = h.detach().numpy()
array *= 2
h.sum().backward()
print(x.grad)
