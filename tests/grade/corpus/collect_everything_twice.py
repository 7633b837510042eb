"""Expect: includes-buffers, tied-twice. Buffers too, and no memory of what was seen."""


def collect_parameters(module, prefix=""):
    found = []
    for name, tensor in [*module._parameters.items(), *module._buffers.items()]:
        if tensor is not None:
            found.append((prefix + name, tensor))
    for name, child in module._modules.items():
        if child is not None:
            found += collect_parameters(child, prefix + name + ".")
    return found
