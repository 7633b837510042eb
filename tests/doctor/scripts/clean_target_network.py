# expect: nothing
# engines: torch ownership
"""A target network: detached targets, a Polyak update under no_grad, no optimizer of its own."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

import copy

torch.manual_seed(0)
online = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
target = copy.deepcopy(online)
opt = torch.optim.SGD(online.parameters(), lr=0.1)
s, s2, r = torch.randn(8, 4), torch.randn(8, 4), torch.randn(8)
for _ in range(3):
    q = online(s).max(dim=1).values
    q_next = target(s2).max(dim=1).values.detach()
    q_stop = online(s2).max(dim=1).values.detach()
    loss = ((q - (r + 0.9 * torch.minimum(q_next, q_stop))) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for p_t, p in zip(target.parameters(), online.parameters(), strict=True):
            p_t.mul_(0.99).add_(0.01 * p)
