"""The whole test tree: pytest prints the SIMD kernels numpy and torch run in this session.

Shared helpers live in the ``support`` package (``tests/support/``), importable because
``pyproject.toml`` puts ``tests`` on pytest's ``pythonpath``; see ``tests/README.md``.

What collection makes (torch, the modules, tens of thousands of test items and their parameters)
lives as long as the session, so it is frozen (``gc.freeze``) as it is made: the cyclic collector's
full collections then walk only what the tests made since, not that heap again and again
(``--collect-only`` of the suite: 7.1 -> 4.6 s of CPU).
"""

import gc

import pytest

from support import kernels


def pytest_report_header() -> str:
    """The SIMD kernels numpy and torch run in this session (see tests/support/kernels.py)."""
    return kernels.summary()


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """Freeze what each collector made, so later collections of the cyclic GC skip it."""
    gc.freeze()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Collect the garbage collection left, once (so none escapes the collector and pytest's
    check of unraisable exceptions), then freeze what remains for the rest of the session."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
