"""Shared set-up of the engine tests.

- The helpers beside the tests are importable (``from engine_gradients import plain``).
- A guard: a program that is broken under torch itself (NameError and the like) is a broken test,
  not a pass, even though both engines would raise the same error.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch

import differential

sys.path.insert(0, str(Path(__file__).parent))

_BROKEN = ("NameError", "SyntaxError", "UnboundLocalError", "ImportError")


@pytest.fixture(autouse=True)
def _programs_must_run_under_torch(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail a test whose program raises NameError & co. under torch (it would pass vacuously)."""
    original = differential.run

    def checked(program: Any, engine: ModuleType) -> Any:
        result = original(program, engine)
        raised = result.facts
        if engine is torch and isinstance(raised, differential.Raised):
            assert raised.kind not in _BROKEN, f"the program is broken under torch: {raised}"
        return result

    monkeypatch.setattr(differential, "run", checked)
    yield
