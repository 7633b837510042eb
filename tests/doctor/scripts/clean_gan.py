# expect: nothing
# engines: torch ownership
"""A GAN in the right order: each network's backward before the other's step."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
G = torch.nn.Linear(2, 2)
D = torch.nn.Linear(2, 1)
opt_G = torch.optim.SGD(G.parameters(), lr=0.1)
opt_D = torch.optim.SGD(D.parameters(), lr=0.1)
for _ in range(3):
    z, real = torch.randn(4, 2), torch.randn(4, 2)
    fake = G(z)
    loss_D = D(fake.detach()).mean() - D(real).mean()
    opt_D.zero_grad()
    loss_D.backward()
    opt_D.step()
    loss_G = -D(fake).mean()
    opt_G.zero_grad()
    loss_G.backward()
    opt_G.step()
