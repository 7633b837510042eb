"""Expect: wrong-names. Right walk, but each name is only the last part of the path."""


def collect_parameters(module, seen=None):
    seen = set() if seen is None else seen
    found = []
    for name, param in module._parameters.items():
        if param is not None and id(param) not in seen:
            seen.add(id(param))
            found.append((name, param))
    for child in module._modules.values():
        if child is not None and id(child) not in seen:
            seen.add(id(child))
            found += collect_parameters(child, seen)
    return found
