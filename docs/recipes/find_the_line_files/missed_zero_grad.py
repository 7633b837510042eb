import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for _ in range(3):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
