# expect: checkpoint-alias line=22 read=27 stored=28
# engines: torch ownership
"""The "best" state_dict kept when the loss improved, then compared and saved at the end: it
holds the last weights, not the best ones."""

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
best, best_loss = None, float("inf")
for _ in range(4):
    loss = ((model(x) - y) ** 2).mean()
    if loss.item() < best_loss:  # the weights that gave this loss
        best, best_loss = model.state_dict(), loss.item()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(best_loss)
moved = (model.weight - best["weight"]).abs().sum()
torch.save({"model": best, "loss": best_loss}, io.BytesIO())
