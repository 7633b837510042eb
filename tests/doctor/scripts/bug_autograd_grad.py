# expect: inplace-write line=14 write=14 saved=13 backward=15
# engines: torch ownership
"""The version error raised through torch.autograd.grad instead of backward()."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.sigmoid()
h.mul_(2)
(grad,) = torch.autograd.grad(h.sum(), x)
