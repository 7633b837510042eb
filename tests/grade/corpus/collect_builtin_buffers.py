"""Expect: includes-buffers, tied-twice, uses-builtin. state_dict(): buffers, tied names."""


def collect_parameters(module):
    return list(module.state_dict(keep_vars=True).items())
