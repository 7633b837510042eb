"""Which ``torch`` functions write a given ``out=`` tensor, and the refusal of the others.

``torch.mul(a, b, out=c)`` writes its result into ``c``. The ops declare which functions do
(:func:`with_out`, around the function) and refuse ``out`` everywhere else
(:func:`refuse_out`); the writing itself, torch's order of checks, the resize and its warning, is
parity's (:func:`ownership.out_argument.write_out`), given here as the writer by
:func:`ownership.installation.install`. Until then (the ops without parity) a given ``out`` is
refused.

>>> import ownership
>>> c = ownership.zeros(2)
>>> ownership.mul(ownership.tensor([1.0, 2.0]), 3, out=c) is c, c
(True, tensor([3., 6.]))
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ownership.core.binder import Signatures
from ownership.core.tensor import Tensor

__all__ = ["WRITES_OUT", "install", "refuse_out", "with_out"]

WRITES_OUT: set[str] = set()
"""The names of the functions that write ``out`` (made by :func:`with_out`)."""


def refuse_out(name: str) -> None:
    """The engine's refusal of ``out=`` where it does not write it: torch writes the result into
    the given tensor; the engine's functions other than those of :func:`with_out` compute results
    only into new tensors, so they say so rather than ignore ``out`` (torch's parser refuses it
    once the arguments bind: :class:`ownership.arguments.Parser`).

    >>> import ownership
    >>> ownership.sum(ownership.ones(2, 3), 0, out=ownership.zeros(3))
    Traceback (most recent call last):
    RuntimeError: sum(out=...) is not supported by ownership
    """
    raise RuntimeError(f"{name}(out=...) is not supported by ownership")


class Writer(Protocol):
    """:func:`ownership.out_argument.write_out`'s signature."""

    def __call__(
        self,
        name: str,
        out: Tensor,
        inputs: Sequence[Any],
        compute: Callable[[], Tensor],
        same_dtype: bool = False,
    ) -> Tensor: ...


def _refusing(
    name: str,
    out: Tensor,
    inputs: Sequence[Any],
    compute: Callable[[], Tensor],
    same_dtype: bool = False,
) -> Tensor:
    refuse_out(name)
    raise AssertionError("unreachable")  # pragma: no cover


_write_out: Writer = _refusing


def install(writer: Writer) -> None:
    """Take ``writer`` as the writer of ``out`` (called once, by
    :func:`ownership.installation.install`, with :func:`ownership.out_argument.write_out`)."""
    global _write_out
    _write_out = writer


def with_out(
    declaration: Signatures,
    fn: Callable[..., Tensor],
    same_dtype: bool | Callable[[dict[str, Any]], bool] = False,
) -> Callable[..., Tensor]:
    """The function ``fn`` (which binds its arguments through ``declaration``) taking torch's
    ``out=``: without one (or with None) ``fn`` itself; with one, ``fn``'s arguments bound whole
    (torch's argument errors first, ``out``'s own type among them), then the writer.
    ``same_dtype``: the writer's, or a test of the bound arguments that gives it (the overloads
    of one function may differ: ``clamp`` of numbers casts nothing, of tensors casts)."""
    declaration.writes_out = True  # this function writes ``out``: its binding no longer refuses one
    declaration.bind()
    WRITES_OUT.add(declaration.name)

    @functools.wraps(fn)
    def function(*args: Any, **kwargs: Any) -> Tensor:
        if kwargs and kwargs.get("out") is not None:
            bound = declaration.parse(args, kwargs)[1]
            out = bound["out"]
            rest = {k: v for k, v in kwargs.items() if k != "out"}
            inputs = [v for k, v in bound.items() if k != "out"]
            exact = same_dtype(bound) if callable(same_dtype) else same_dtype
            return _write_out(declaration.name, out, inputs, lambda: fn(*args, **rest), exact)
        return fn(*args, **kwargs)

    return function
