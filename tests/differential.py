"""Run one program under torch and under ownership and compare what a learner would see.

A *program* is a function of one argument, the engine module (``torch`` or ``ownership``), that
returns anything made of tensors, numbers, strings, ``None``, tuples, lists and dicts. :func:`same`
runs it under both engines and compares, recursively:

- tensors: values (with tolerance), dtype name, shape, ``requires_grad``, ``is_leaf``,
  ``grad_fn`` name and ``_version``;
- everything else: equality;
- a raised exception: the class name, and the message (equal, or a given part of it).

Set ``OWNERSHIP_DIFF_SELF=1`` to run the second side with torch too: this checks that a test is
right about torch before the engine exists.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import torch

Program = Callable[[ModuleType], Any]


def _ownership() -> ModuleType:
    if os.environ.get("OWNERSHIP_DIFF_SELF") == "1":
        return torch
    import ownership

    return ownership


@dataclass(frozen=True)
class Raised:
    """What a program raised: the exception's class name and its message."""

    kind: str
    message: str


@dataclass(frozen=True)
class TensorFacts:
    values: np.ndarray
    dtype: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    version: int


def _is_tensor(obj: Any) -> bool:
    return hasattr(obj, "_version") and hasattr(obj, "detach") and hasattr(obj, "shape")


def _dtype_name(dtype: Any) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def facts(obj: Any) -> Any:
    """Turn a program's result into plain comparable data."""
    if _is_tensor(obj):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = np.array(obj.detach().numpy(), copy=True)
        return TensorFacts(
            values=values,
            dtype=_dtype_name(obj.dtype),
            requires_grad=bool(obj.requires_grad),
            is_leaf=bool(obj.is_leaf),
            grad_fn=None if obj.grad_fn is None else obj.grad_fn.name(),
            version=int(obj._version),
        )
    if isinstance(obj, (tuple, list)):
        return (
            type(obj)(facts(o) for o in obj)
            if type(obj) in (tuple, list)
            else [facts(o) for o in obj]
        )
    if isinstance(obj, dict):
        return {k: facts(v) for k, v in obj.items()}
    if hasattr(obj, "name") and callable(obj.name) and hasattr(obj, "next_functions"):
        return f"<node {obj.name()}>"
    if isinstance(obj, (np.floating, np.integer, np.bool_)):
        return obj.item()
    if hasattr(obj, "is_floating_point") and not _is_tensor(obj):  # a dtype
        return _dtype_name(obj)
    if type(obj).__module__.startswith(("torch", "ownership")) and "dtype" in type(obj).__name__:
        return _dtype_name(obj)
    return obj


def run(program: Program, engine: ModuleType) -> Any:
    """The facts of ``program(engine)``, or :class:`Raised` if it raised."""
    try:
        return facts(program(engine))
    except Exception as exc:  # the exception is the result being compared
        return Raised(type(exc).__name__, str(exc))


def _compare(a: Any, b: Any, path: str, rtol: float, atol: float) -> list[str]:
    if isinstance(a, TensorFacts) and isinstance(b, TensorFacts):
        out = []
        for field in ("dtype", "requires_grad", "is_leaf", "grad_fn", "version"):
            if getattr(a, field) != getattr(b, field):
                out.append(
                    f"{path}.{field}: torch {getattr(a, field)!r} != ownership {getattr(b, field)!r}"
                )
        if a.values.shape != b.values.shape:
            out.append(f"{path}.shape: torch {a.values.shape} != ownership {b.values.shape}")
        elif not np.allclose(a.values, b.values, rtol=rtol, atol=atol, equal_nan=True):
            out.append(f"{path}.values:\n torch     {a.values!r}\n ownership {b.values!r}")
        return out
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: torch has {len(a)} items, ownership {len(b)}"]
        return [
            e
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for e in _compare(x, y, f"{path}[{i}]", rtol, atol)
        ]
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return [f"{path}: keys torch {list(a)} != ownership {list(b)}"]
        return [e for k in a for e in _compare(a[k], b[k], f"{path}[{k!r}]", rtol, atol)]
    if isinstance(a, float) and isinstance(b, float):
        return (
            []
            if np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
            else [f"{path}: torch {a!r} != ownership {b!r}"]
        )
    if a != b:
        return [f"{path}: torch {a!r} != ownership {b!r}"]
    return []


def same(
    program: Program,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    message: str | None = "equal",
) -> Any:
    """Assert that ``program`` behaves the same under torch and ownership; return torch's facts.

    ``message`` says how an exception's message is compared: ``"equal"`` (the default), a regular
    expression both messages must match, or ``None`` (class only).
    """
    expected = run(program, torch)
    got = run(program, _ownership())
    if isinstance(expected, Raised) or isinstance(got, Raised):
        assert isinstance(expected, Raised) and isinstance(got, Raised), (
            f"torch gave {expected!r}\nownership gave {got!r}"
        )
        assert expected.kind == got.kind, f"torch raised {expected}\nownership raised {got}"
        if message == "equal":
            assert expected.message == got.message, (
                f"messages differ\n torch:     {expected.message}\n ownership: {got.message}"
            )
        elif message is not None:
            assert re.search(message, expected.message), f"torch's message: {expected.message}"
            assert re.search(message, got.message), f"ownership's message: {got.message}"
        return expected
    problems = _compare(expected, got, "result", rtol, atol)
    assert not problems, "\n".join(problems)
    return expected
