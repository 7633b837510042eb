import torch

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.sigmoid()
h.data.mul_(2)
h.sum().backward()
print(x.grad)
