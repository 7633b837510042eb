import torch


def normalise(values):
    values /= abs(values).max()


x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.exp()
normalise(h.detach().numpy())
h.sum().backward()
print(x.grad)
