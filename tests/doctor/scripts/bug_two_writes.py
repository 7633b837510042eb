# expect: inplace-write line=16 write=16,18 saved=15 backward=19
# engines: torch ownership
"""Two writes after the save, one before: the finding names exactly the two after."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
a = x * 1
a.add_(1)
b = a.exp()
b.mul_(3)
y = b.sum()
b.sub_(1)
y.backward()
