# expect: hidden-write line=14 saved=13 backward=15
# engines: torch ownership
"""Silencing the version error through .data: no error, a wrong gradient."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.sigmoid()
h.data.mul_(2)
h.sum().backward()
print(x.grad)
