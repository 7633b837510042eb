# expect: nothing
# engines: torch ownership
"""Checkpoints done right: saved at once each epoch, the best one copied, a state_dict taken for
a look before training and dropped."""

import copy
import io
import os

if os.environ.get("DOCTOR_ENGINE") == "ownership":
    import ownership as torch
else:
    import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
names = list(model.state_dict())
initial = model.state_dict()
print(sorted(initial), float(initial["weight"].sum()))
best, best_loss = None, float("inf")
for _ in range(4):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    torch.save(model.state_dict(), io.BytesIO())
    if loss.item() < best_loss:
        best, best_loss = copy.deepcopy(model.state_dict()), loss.item()
moved = (model.weight - best["weight"]).abs().sum()
torch.save({"model": best, "loss": best_loss}, io.BytesIO())
model.load_state_dict(best)
