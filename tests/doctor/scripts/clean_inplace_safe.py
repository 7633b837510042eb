# expect: nothing
# engines: torch ownership
"""In-place writes that no backward needs: on a result nobody saved, and after backward."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x + 1
h.mul_(2)
y = (h * x).sum()
y.backward()
h.add_(1)
print(x.grad)
