"""Expect: by-attribute-name. Takes whatever is called weight or bias, in every module."""


def collect_parameters(module):
    found, seen = [], set()
    for prefix, mod in module.named_modules():
        for attr in ("weight", "bias"):
            tensor = getattr(mod, attr, None)
            if tensor is not None and id(tensor) not in seen:
                seen.add(id(tensor))
                found.append((f"{prefix}.{attr}" if prefix else attr, tensor))
    return found
