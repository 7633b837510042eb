"""Expect: missing-parameters. Takes what requires grad: a frozen Parameter is left out."""


def collect_parameters(module, prefix="", seen=None):
    seen = set() if seen is None else seen
    found = []
    for name, t in [*module._parameters.items(), *module._buffers.items()]:
        if t is not None and t.requires_grad and id(t) not in seen:
            seen.add(id(t))
            found.append((prefix + name, t))
    for name, child in module._modules.items():
        if child is not None and id(child) not in seen:
            seen.add(id(child))
            found += collect_parameters(child, prefix + name + ".", seen)
    return found
