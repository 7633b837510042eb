"""Expect: by-attribute-name, not-recursive. Looks for weight and bias one level down."""


def collect_parameters(module):
    found, seen = [], set()
    for prefix, mod in [("", module), *((n + ".", c) for n, c in module.named_children())]:
        for attr in ("weight", "bias"):
            tensor = getattr(mod, attr, None)
            if tensor is not None and id(tensor) not in seen:
                seen.add(id(tensor))
                found.append((prefix + attr, tensor))
    return found
