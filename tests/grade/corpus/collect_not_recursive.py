"""Expect: not-recursive. Looks at the module and its direct children only."""


def collect_parameters(module):
    found, seen = [], set()
    mods = [("", module)] + [(name + ".", child) for name, child in module._modules.items()]
    for prefix, mod in mods:
        if mod is None:
            continue
        for name, param in mod._parameters.items():
            if param is not None and id(param) not in seen:
                seen.add(id(param))
                found.append((prefix + name, param))
    return found
