"""Expect: passed. Recursion over named_children(), parameters kept once by identity."""


def collect_parameters(module):
    found, seen = [], set()

    def visit(mod, prefix):
        for name, param in mod._parameters.items():
            if param is not None and id(param) not in seen:
                seen.add(id(param))
                found.append((prefix + name, param))
        for name, child in mod.named_children():
            if id(child) not in seen:
                seen.add(id(child))
                visit(child, f"{prefix}{name}.")

    visit(module, "")
    return found
