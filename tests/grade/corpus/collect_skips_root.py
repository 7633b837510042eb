"""Expect: missing-parameters. Only the children's parameters: the root's own are left out."""


def collect_parameters(module, prefix="", seen=None):
    seen = set() if seen is None else seen
    found = []
    for name, child in module._modules.items():
        for pname, param in child._parameters.items():
            if param is not None and id(param) not in seen:
                seen.add(id(param))
                found.append((prefix + name + "." + pname, param))
        found += collect_parameters(child, prefix + name + ".", seen)
    return found
