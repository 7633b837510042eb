"""The ``torch.*`` reductions written by hand: ``sum`` and ``mean`` (an overload without ``out``),
``max`` and ``min`` (overloads that reach different ops) and ``var_mean``/``std_mean`` (one node,
two outputs). The other reductions (``argmax``, ``softmax``, ``var``, ``all``...) are made from
their declarations in :mod:`ownership.ops.methods` (:mod:`ownership.functions`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ownership.core import op_registry
from ownership.core.binder import Signatures
from ownership.core.tensor import Tensor
from ownership.ops import signatures as sig
from ownership.ops.op_table import OpTable

ops: OpTable[Tensor] = op_registry.ops


def sum(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.sum(input, dim=None, keepdim=False, *, dtype=None)``."""
    _, a = sig.FN_SUM.parse(args, kwargs)
    return cast(Tensor, a["input"].sum(*_dim_args(a), dtype=a["dtype"]))


def mean(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.mean(input, dim=None, keepdim=False, *, dtype=None)``."""
    _, a = sig.FN_MEAN.parse(args, kwargs)
    return cast(Tensor, a["input"].mean(*_dim_args(a), dtype=a["dtype"]))


def _dim_args(a: dict[str, Any]) -> tuple[Any, ...]:
    return (a["dim"], a["keepdim"]) if "dim" in a else ()


def max(*args: Any, **kwargs: Any) -> Any:
    """``torch.max(input)``, ``torch.max(input, other)`` or ``torch.max(input, dim, keepdim)``."""
    a = sig.FN_MAX.parse(args, kwargs)[1]
    return a["input"].max(*[a[k] for k in ("other", "dim", "keepdim") if k in a])


def min(*args: Any, **kwargs: Any) -> Any:
    """``torch.min(input)``, ``torch.min(input, other)`` or ``torch.min(input, dim, keepdim)``."""
    a = sig.FN_MIN.parse(args, kwargs)[1]
    return a["input"].min(*[a[k] for k in ("other", "dim", "keepdim") if k in a])


def _with_mean(name: str) -> Callable[..., tuple[Tensor, Tensor]]:
    """``torch.var_mean`` or ``torch.std_mean``: the overloads of :meth:`Tensor.var`, both
    results outputs of one node."""
    parser = Signatures(name, *(f"(Tensor input, {s[1:]}" for s in sig.VAR_OVERLOADS))

    def function(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
        which, a = parser.parse(args, kwargs)
        unbiased = None if which == 1 else a["unbiased"]  # (see ops.moments._correction)
        found: tuple[Tensor, Tensor] = getattr(ops, name)(
            a["input"],
            a.get("dim"),
            unbiased,
            a.get("keepdim", False),
            correction=a.get("correction"),
        )
        return found

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: {name[:3]} and mean, one node (two outputs)."
    return function


var_mean = _with_mean("var_mean")
std_mean = _with_mean("std_mean")
