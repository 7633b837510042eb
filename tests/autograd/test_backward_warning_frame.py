"""``backward(create_graph=True)`` warns of the reference cycle from the same frame whether
it is ``Tensor.backward`` (which runs the engine's one-root path itself) or
``autograd.backward`` (through ``run_backward``)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import pytest

import ownership
from ownership.core.warn_once import is_warn_always_enabled, set_warn_always


def _warned_from(call: str) -> list[Any]:
    x = ownership.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if call == "method":
            y.backward(create_graph=True)
        else:
            ownership.autograd.backward(y, create_graph=True)
    return [(w.filename, w.lineno) for w in seen if "reference cycle" in str(w.message)]


def _through(call: str) -> list[Any]:
    return _warned_from(call)  # the frame both paths point at: this function's line


@pytest.mark.parametrize("call", ["method", "function"])
def test_the_create_graph_warning_points_at_one_frame(call: str) -> None:
    was = is_warn_always_enabled()
    set_warn_always(True)
    try:
        where = _through(call)
    finally:
        set_warn_always(was)
    assert where == [(__file__, _through.__code__.co_firstlineno + 1)]


def _in_fresh_interpreters(program: str) -> dict[str, str]:
    """What ``program`` prints run with each engine's name as its argument, each in a fresh
    interpreter (a warn-once is given once per process)."""
    return {
        engine: subprocess.run(
            [sys.executable, "-c", program, engine], capture_output=True, text=True, check=True
        ).stdout
        for engine in ("torch", "ownership")
    }


_ONCE_AFTER_ALWAYS = """
import sys, warnings
t = __import__(sys.argv[1])
def warned():
    x = t.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        (x * x).sum().backward(create_graph=True)
    return sum("reference cycle" in str(w.message) for w in seen)
t.set_warn_always(True)
given = [warned()]
t.set_warn_always(False)
print(given + [warned(), warned()])
"""


def test_a_warning_given_while_warn_always_is_on_does_not_use_up_the_once() -> None:
    """torch's ``TORCH_WARN_ONCE`` marks a warning given only when warn-always is off: after
    warnings given under ``set_warn_always(True)``, the first one without it is still given.
    Each engine runs in a fresh interpreter (the once is per process)."""
    printed = _in_fresh_interpreters(_ONCE_AFTER_ALWAYS)
    assert printed["torch"] == "[1, 1, 0]\n"
    assert printed["ownership"] == printed["torch"]


_SCALAR_ONCE = """
import sys, warnings
t = __import__(sys.argv[1])
x = t.ones(1, requires_grad=True)
def warned(convert):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        convert(x)
    return len(seen)
t.set_warn_always(True)
given = [warned(float), warned(float), warned(int), warned(lambda v: v.item())]
t.set_warn_always(False)
print(given + [warned(float), warned(float), warned(bool)])
"""


def test_the_scalar_conversion_warning_is_a_warn_once() -> None:
    """``float(x)`` of a tensor that requires grad warns once per process, every time under
    warn-always, which uses up no once (each engine in a fresh interpreter)."""
    printed = _in_fresh_interpreters(_SCALAR_ONCE)
    assert printed["torch"] == "[1, 1, 0, 0, 1, 0, 0]\n"
    assert printed["ownership"] == printed["torch"]
