"""Expect: rebinds-parameter, tracked-update. Writes a computed tensor into the registry."""


def sgd_step(model, loss_fn, x, y, lr):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if p is not None:
                module._parameters[name] = p - lr * p.grad
    return loss.item()
