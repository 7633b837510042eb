"""Expect: uses-builtin. Asks the framework for the answer."""


def collect_parameters(module):
    return list(module.named_parameters())
