"""Expect: passed. An explicit stack instead of recursion (children pushed in reverse)."""


def collect_parameters(module):
    found, seen_params, seen_modules = [], set(), {id(module)}
    stack = [("", module)]
    while stack:
        prefix, mod = stack.pop()
        for name, param in mod._parameters.items():
            if param is not None and id(param) not in seen_params:
                seen_params.add(id(param))
                found.append((prefix + name, param))
        children = []
        for name, child in mod._modules.items():
            if child is not None and id(child) not in seen_modules:
                seen_modules.add(id(child))
                children.append((prefix + name + ".", child))
        stack.extend(reversed(children))
    return found
