"""Expect: missing-parameters. Returns nothing at all."""


def collect_parameters(module):
    return []
