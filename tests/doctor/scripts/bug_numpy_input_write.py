# expect: hidden-write line=16 alias=15 saved=14 backward=17
# engines: torch ownership
"""An input saved by a product, then changed through its numpy() array: w's gradient is wrong."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([0.5, -1.0, 2.0])
y = w * x
pixels = x.numpy()
pixels[:] = 0.0
y.sum().backward()
print(w.grad)
