# expect: nothing
# engines: torch ownership
"""Learning-rate schedulers stepped after the optimizer (a chain of two, and a plateau one)."""

import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
warmup = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=2)
decay = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
plateau_opt = torch.optim.SGD(model.parameters(), lr=0.01)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(plateau_opt, patience=0)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(4):
    for o in (opt, plateau_opt):
        o.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        o.step()
    warmup.step()
    decay.step()
    plateau.step(loss.item())
