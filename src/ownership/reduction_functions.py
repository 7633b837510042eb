"""The ``torch.*`` reductions: sums, means, extremes and their indices, softmax, variance and
standard deviation (with their means), ``all``/``any``. Each parses torch's signatures and calls
the method of its input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ownership.core import op_registry
from ownership.core.binder import Signatures
from ownership.core.tensor import Tensor
from ownership.functions import _method
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


def argmax(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.argmax(input, dim=None, keepdim=False)``."""
    a = sig.FN_ARGMAX.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].argmax(a["dim"], a["keepdim"]))


def argmin(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.argmin(input, dim=None, keepdim=False)``."""
    a = sig.FN_ARGMIN.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].argmin(a["dim"], a["keepdim"]))


def softmax(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.softmax(input, dim, dtype=None)``."""
    a = sig.FN_SOFTMAX.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].softmax(a["dim"], a["dtype"]))


def log_softmax(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.log_softmax(input, dim, dtype=None)``."""
    a = sig.FN_LOG_SOFTMAX.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].log_softmax(a["dim"], a["dtype"]))


_TRUTH = (
    f"(Tensor input, {sig.OUT})",
    f"(Tensor input, tuple of ints dim = None, bool keepdim = False, {sig.OUT})",
    f"(Tensor input, int dim, bool keepdim = False, {sig.OUT})",
)
all = _method("all", *_TRUTH)
any = _method("any", *_TRUTH)

amax = _method(
    "amax", f"(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, {sig.OUT})"
)
amin = _method(
    "amin", f"(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, {sig.OUT})"
)
logsumexp = _method(
    "logsumexp", f"(Tensor input, tuple of ints[1] dim, bool keepdim = False, {sig.OUT})"
)

_MOMENT_OVERLOADS = (
    f"(Tensor input, tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False, {sig.OUT})",
    "(Tensor input, tuple of ints[1]? dim = None, *, Number correction = None, "
    "bool keepdim = False, Tensor out = None)",
    "(Tensor input, bool unbiased = True)",
)
var = _method("var", *_MOMENT_OVERLOADS)
std = _method("std", *_MOMENT_OVERLOADS)


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
