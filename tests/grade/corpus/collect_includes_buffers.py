"""Expect: includes-buffers. Walks the buffers' registry as well as the parameters'."""


def collect_parameters(module, prefix="", seen=None):
    seen = set() if seen is None else seen
    found = []
    for name, tensor in [*module._parameters.items(), *module._buffers.items()]:
        if tensor is not None and id(tensor) not in seen:
            seen.add(id(tensor))
            found.append((prefix + name, tensor))
    for name, child in module._modules.items():
        if child is not None and id(child) not in seen:
            seen.add(id(child))
            found += collect_parameters(child, prefix + name + ".", seen)
    return found
