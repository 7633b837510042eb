"""Expect: tied-twice. Right recursion, but nothing remembers what was already listed."""


def collect_parameters(module, prefix=""):
    found = []
    for name, param in module._parameters.items():
        if param is not None:
            found.append((prefix + name, param))
    for name, child in module._modules.items():
        if child is not None:
            found += collect_parameters(child, prefix + name + ".")
    return found
