# expect: nothing
# engines: torch ownership
"""Stop-gradient on purpose: the second view's embedding is a constant target."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 3)
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
x = torch.randn(8, 4)
for _ in range(3):
    z1 = encoder(x)
    z2 = encoder(x + 0.1).detach()
    loss = ((z1 - z2) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
