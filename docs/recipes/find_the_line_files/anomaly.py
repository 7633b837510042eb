import torch

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    h = x.sigmoid()
    h.mul_(2)
    h.sum().backward()
