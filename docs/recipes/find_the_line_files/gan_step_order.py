import torch

torch.manual_seed(0)
G, D = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt_G = torch.optim.SGD(G.parameters(), lr=0.1)
opt_D = torch.optim.SGD(D.parameters(), lr=0.1)
z, real = torch.randn(4, 2), torch.randn(4, 2)

fake = G(z)
d_fake = D(fake)
loss_D = D(fake.detach()).mean() - D(real).mean()
opt_D.zero_grad()
loss_D.backward()
opt_D.step()
loss_G = -d_fake.mean()
opt_G.zero_grad()
loss_G.backward()
opt_G.step()
