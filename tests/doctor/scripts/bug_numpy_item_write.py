# expect: hidden-write line=15 saved=14 backward=17
# engines: torch ownership
"""An item assigned straight into an input's numpy() array, after a product saved the input."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([0.5, -1.0, 2.0])
y = w * x
x.numpy()[0] = 5.0
loss = y.sum()
loss.backward()
print(w.grad)
