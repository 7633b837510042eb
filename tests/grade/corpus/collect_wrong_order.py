"""Expect: wrong-order. Children first, then the module's own parameters (post-order)."""


def collect_parameters(module, prefix="", seen=None):
    seen = set() if seen is None else seen
    found = []
    for name, child in module._modules.items():
        if child is not None and id(child) not in seen:
            seen.add(id(child))
            found += collect_parameters(child, prefix + name + ".", seen)
    for name, param in module._parameters.items():
        if param is not None and id(param) not in seen:
            seen.add(id(param))
            found.append((prefix + name, param))
    return found
