# expect: nothing
# engines: torch ownership
"""A numpy array sharing a saved tensor's memory, only read: backward is right, nothing to report."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.exp()
array = h.detach().numpy()
total = float(array.sum())
scaled = array * 2
h.sum().backward()
print(total, scaled, x.grad)
