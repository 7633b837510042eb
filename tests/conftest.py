"""The whole test tree: pytest prints the SIMD kernels numpy and torch run in this session.

Shared helpers live in the ``support`` package (``tests/support/``), importable because
``pyproject.toml`` puts ``tests`` on pytest's ``pythonpath``; see ``tests/README.md``.
"""

from support import kernels


def pytest_report_header() -> str:
    """The SIMD kernels numpy and torch run in this session (see tests/support/kernels.py)."""
    return kernels.summary()
