"""Module-level functions of the ``torch`` namespace that are thin wrappers of Tensor methods:
arithmetic, ``clamp``, ``where``, elementwise functions, comparisons and the in-place forms, and the
two wrappers the other ``*_functions`` modules build theirs with (``_method``, ``_unary``). The
pointwise arithmetic and the ``_unary`` functions take ``out=`` (``ownership.out_argument``).

Reductions are in ``ownership.reduction_functions``, products in
``ownership.product_functions``, functions of shape in ``ownership.view_functions``, the
math beyond ``+ - * /`` in ``ownership.math_functions``."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ownership.core import op_registry
from ownership.core.binder import Signatures
from ownership.core.dtypes import dtype, int64
from ownership.core.dtypes import promote_types as _promote_types
from ownership.core.op_registry import quiet
from ownership.core.tensor import Tensor
from ownership.ops import signatures as sig
from ownership.ops import statistics
from ownership.ops.op_table import OpTable
from ownership.ops.out_variants import with_out

ops: OpTable[Tensor] = op_registry.ops


def is_tensor(obj: Any) -> builtins.bool:
    """True when ``obj`` is an ownership Tensor."""
    return isinstance(obj, Tensor)


def _number_or_tensor(x: Any) -> Tensor:
    """A Python number given where torch's ``Tensor input`` also takes numbers: a 0-d tensor."""
    return x if isinstance(x, Tensor) else ops.tensor(x)


def add(*args: Any, **kwargs: Any) -> Tensor:
    """``input + alpha * other``; either may be a Python number (``torch.add(1, 2)``)."""
    a = sig.FN_ADD.parse(args, kwargs)[1]
    return _number_or_tensor(a["input"]).add(_operand(a["other"]), alpha=a["alpha"])


def sub(*args: Any, **kwargs: Any) -> Tensor:
    """``input - alpha * other``; either may be a Python number."""
    a = sig.FN_SUB.parse(args, kwargs)[1]
    return _number_or_tensor(a["input"]).sub(_operand(a["other"]), alpha=a["alpha"])


def mul(*args: Any, **kwargs: Any) -> Tensor:
    """``input * other``; either may be a Python number."""
    a = sig.FN_MUL.parse(args, kwargs)[1]
    return _number_or_tensor(a["input"]).mul(_operand(a["other"]))


def div(*args: Any, **kwargs: Any) -> Tensor:
    """``input / other`` (true division), or rounded (``rounding_mode``); either may be a Python
    number."""
    overload, a = sig.FN_DIV.parse(args, kwargs)
    if overload:
        mode = a["rounding_mode"]
        return _number_or_tensor(a["input"]).div(_operand(a["other"]), rounding_mode=mode)
    return _number_or_tensor(a["input"]).div(_operand(a["other"]))


def pow(*args: Any, **kwargs: Any) -> Tensor:
    """``input ** exponent``; the base or the exponent may be a Python number."""
    overload, a = sig.FN_POW.parse(args, kwargs)
    if overload == 1:
        return cast(Tensor, a["exponent"].__rpow__(a["self"]))
    return cast(Tensor, a["input"].pow(a["exponent"]))


# the pointwise arithmetic writes ``out=`` (the other functions' parsers refuse it)
add = with_out(sig.FN_ADD, add)
sub = with_out(sig.FN_SUB, sub)
mul = with_out(sig.FN_MUL, mul)
div = with_out(sig.FN_DIV, div)
pow = with_out(sig.FN_POW, pow)


def _operand(x: Any) -> Any:
    """A number operand stays a Python number (torch's wrapped number), a tensor stays a tensor."""
    return x.item() if isinstance(x, np.generic) else x


def clamp(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.clamp(input, min=None, max=None)``."""
    a = sig.FN_CLAMP.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].clamp(a["min"], a["max"]))


def clip(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.clip``: :func:`clamp` under its own name (torch's messages say ``clip()``)."""
    a = sig.FN_CLIP.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].clamp(a["min"], a["max"]))


def where(*args: Any, **kwargs: Any) -> Tensor | tuple[Tensor, ...]:
    """``input`` where ``condition`` holds, else ``other``.
    ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``: the indices of its non-zero elements, per dimension."""
    overload, a = sig.FN_WHERE.parse(args, kwargs)
    if overload == 0:  # torch.where(condition) is nonzero(condition, as_tuple=True)
        found = np.nonzero(np.atleast_1d(a["condition"]._data))
        return tuple(Tensor._wrap(i.astype(np.int64), int64) for i in found)
    operands = (a["condition"], a.get("input", a.get("self")), a["other"])
    return ops.where(*operands)


_NO_OUT = frozenset({"isnan", "isinf", "isfinite", "relu"})
"""The one-tensor functions torch gives no ``out=`` at all."""

_SAME_DTYPE_OUT = frozenset({"abs", "absolute", "neg", "sign", "floor", "ceil", "trunc"})
"""The one-tensor functions whose ``out`` must have the result's dtype (torch's kernels of
these keep the input's dtype and cast nothing)."""


def _unary(name: str) -> Callable[..., Tensor]:
    """``torch.<name>(input, *, out=None)``: the method ``input.<name>()``, or written into
    ``out`` (:mod:`ownership.out_argument`)."""
    parser = sig.unary(name, out=name not in _NO_OUT)

    def function(*args: Any, **kwargs: Any) -> Tensor:
        return cast(Tensor, getattr(parser.parse(args, kwargs)[1]["input"], name)())

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input)``: the method ``input.{name}()``."
    if name in _NO_OUT:
        return function
    return with_out(parser, function, same_dtype=name in _SAME_DTYPE_OUT)


abs = _unary("abs")
absolute = _unary("absolute")
cos = _unary("cos")
exp = _unary("exp")
log = _unary("log")
neg = _unary("neg")
relu = _unary("relu")
sigmoid = _unary("sigmoid")
sign = _unary("sign")
sin = _unary("sin")
sqrt = _unary("sqrt")
tanh = _unary("tanh")


def _no_tensor_bound(bound: dict[str, Any]) -> builtins.bool:
    """Whether a call's bounds (``clamp``'s ``min`` and ``max``) are all numbers or None: torch's
    kernel then keeps the input's dtype, and ``out`` must have it."""
    return not any(isinstance(bound.get(k), Tensor) for k in ("min", "max"))


def _method(
    name: str,
    *signatures: str,
    writes_out: builtins.bool = False,
    same_dtype: builtins.bool | Callable[[dict[str, Any]], builtins.bool] = False,
) -> Callable[..., Any]:
    """``torch.<name>(input, ...)``: torch's ``signatures`` parsed, then ``input.<name>(...)``.

    ``out=`` is written when ``writes_out`` (a pointwise function: ``ownership.out_argument``,
    ``same_dtype`` as ``with_out`` takes it), else refused by the parser
    (``ownership.ops.out_variants.refuse_out``).
    """
    parser = Signatures(name, *signatures)

    def function(*args: Any, **kwargs: Any) -> Any:
        given = dict(parser.parse(args, kwargs)[1])
        given.pop("out", None)  # None: with_out took a given one, or the parser refused it
        return getattr(given.pop("input"), name)(**given)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: the method ``input.{name}(...)``."
    return with_out(parser, function, same_dtype) if writes_out else function


_COMPARE = (f"(Tensor input, Tensor other, {sig.OUT})", f"(Tensor input, Number other, {sig.OUT})")
ne = _method("ne", *_COMPARE, writes_out=True)
lt = _method("lt", *_COMPARE, writes_out=True)
le = _method("le", *_COMPARE, writes_out=True)
gt = _method("gt", *_COMPARE, writes_out=True)
ge = _method("ge", *_COMPARE, writes_out=True)
bitwise_and = _method("bitwise_and", *_COMPARE, writes_out=True)
bitwise_or = _method("bitwise_or", *_COMPARE, writes_out=True)
bitwise_xor = _method("bitwise_xor", *_COMPARE, writes_out=True)


def _shift(name: str) -> Callable[..., Any]:
    """``torch.<name>``, a shift: ``input.<name>(other)``, or, for a number ``self`` before a
    tensor ``other`` (``bitwise_left_shift(3, x)``), the number shifted by each element."""
    parser = Signatures(name, _COMPARE[0], "(Number self, Tensor other)", _COMPARE[1])

    def function(*args: Any, **kwargs: Any) -> Any:
        given = dict(parser.parse(args, kwargs)[1])
        given.pop("out", None)  # None: with_out took a given one
        if "self" in given:
            return ops.shift_of_number(given["self"], given["other"], name.endswith("right_shift"))
        return getattr(given["input"], name)(given["other"])

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, other)``: the method ``input.{name}(other)``."
    return with_out(parser, function)


bitwise_left_shift = _shift("bitwise_left_shift")
bitwise_right_shift = _shift("bitwise_right_shift")
_RSUB = Signatures(
    "rsub",
    "(Tensor input, Tensor other, *, Number alpha = 1)",
    "(Tensor input, Number other, Number alpha = 1)",
)


def rsub(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.rsub(input, other, alpha=1)``: ``other - alpha * input``."""
    given = _RSUB.parse(args, kwargs)[1]
    return ops.rsub(given["input"], given["other"], alpha=given["alpha"])


logical_and = _method("logical_and", f"(Tensor input, Tensor other, {sig.OUT})", writes_out=True)
logical_or = _method("logical_or", f"(Tensor input, Tensor other, {sig.OUT})", writes_out=True)
logical_not = _method("logical_not", f"(Tensor input, {sig.OUT})", writes_out=True)
isnan = _unary("isnan")
isinf = _unary("isinf")
isfinite = _unary("isfinite")
reciprocal = _method("reciprocal", f"(Tensor input, {sig.OUT})", writes_out=True)
# in place, as torch also spells them: torch.relu_(x) is x.relu_()
abs_ = _method("abs_", "(Tensor input)")
cos_ = _method("cos_", "(Tensor input)")
exp_ = _method("exp_", "(Tensor input)")
log_ = _method("log_", "(Tensor input)")
neg_ = _method("neg_", "(Tensor input)")
relu_ = _method("relu_", "(Tensor input)")
sigmoid_ = _method("sigmoid_", "(Tensor input)")
sin_ = _method("sin_", "(Tensor input)")
sqrt_ = _method("sqrt_", "(Tensor input)")
tanh_ = _method("tanh_", "(Tensor input)")
zero_ = _method("zero_", "(Tensor input)")
resize_as_ = _method(
    "resize_as_",
    "(Tensor input, Tensor the_template, *, torch.memory_format memory_format = None)",
)
fill_ = _method("fill_", "(Tensor input, Tensor value)", "(Tensor input, Number value)")
masked_fill = _method(
    "masked_fill",
    "(Tensor input, Tensor mask, Tensor value)",
    "(Tensor input, Tensor mask, Number value)",
)
clamp_ = _method(
    "clamp_",
    "(Tensor input, Tensor min = None, Tensor max = None)",
    "(Tensor input, Number min = None, Number max = None)",
)
sort = _method(
    "sort",
    "(Tensor input, *, bool? stable, int dim = -1, bool descending = False, "
    "tuple of Tensors out = None)",
    "(Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)",
)
argsort = _method(
    "argsort",
    "(Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)",
    "(Tensor input, int dim = -1, bool descending = False)",
)
topk = _method(
    "topk",
    "(Tensor input, int k, int dim = -1, bool largest = True, bool sorted = True, *, "
    "tuple of Tensors out = None)",
)
_CLOSE = "float rtol = 1e-05, float atol = 1e-08, bool equal_nan = False"
isclose = _method("isclose", f"(Tensor input, Tensor other, {_CLOSE})")
allclose = _method("allclose", f"(Tensor input, Tensor other, {_CLOSE})")
square = _unary("square")
square_ = _method("square_", "(Tensor input)")
nan_to_num = _method(
    "nan_to_num",
    "(Tensor input, float? nan = None, float? posinf = None, float? neginf = None, *, "
    "Tensor out = None)",
)
nan_to_num_ = _method(
    "nan_to_num_", "(Tensor input, float? nan = None, float? posinf = None, float? neginf = None)"
)
gather = _method(
    "gather",
    "(Tensor input, int dim, Tensor index, *, bool sparse_grad = False, Tensor out = None)",
)
index_select = _method("index_select", f"(Tensor input, int dim, Tensor index, {sig.OUT})")
flip = _method("flip", "(Tensor input, tuple of ints dims)")
floor = _unary("floor")
log1p = _unary("log1p")
expm1 = _unary("expm1")
erf = _unary("erf")
log1p_ = _method("log1p_", "(Tensor input)")
expm1_ = _method("expm1_", "(Tensor input)")
erf_ = _method("erf_", "(Tensor input)")
ceil = _unary("ceil")
trunc = _unary("trunc")
floor_ = _method("floor_", "(Tensor input)")
ceil_ = _method("ceil_", "(Tensor input)")
trunc_ = _method("trunc_", "(Tensor input)")
round = _method(
    "round",
    f"(Tensor input, {sig.OUT})",
    "(Tensor input, *, int decimals, Tensor out = None)",
    writes_out=True,
    same_dtype=True,
)
round_ = _method("round_", "(Tensor input)", "(Tensor input, *, int decimals)")
tril = _method("tril", f"(Tensor input, int diagonal = 0, {sig.OUT})")
triu = _method("triu", f"(Tensor input, int diagonal = 0, {sig.OUT})")


def threshold(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.threshold(input, threshold, value)``: ``input`` where above ``threshold``, else ``value``."""
    a = _THRESHOLD.parse(args, kwargs)[1]
    return ops.threshold(a["input"], a["threshold"], a["value"])


_THRESHOLD = Signatures("threshold", f"(Tensor input, Number threshold, Number value, {sig.OUT})")


def threshold_(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.threshold_``: :func:`threshold` written into ``input``."""
    a = _THRESHOLD_.parse(args, kwargs)[1]
    return _quiet_threshold_(a["input"], a["threshold"], a["value"])


_THRESHOLD_ = Signatures("threshold_", "(Tensor input, Number threshold, Number value)")
_quiet_threshold_ = quiet(statistics.threshold_)


clone = _method("clone", "(Tensor input)")
detach = _method("detach", "(Tensor input)")


def equal(*args: Any, **kwargs: Any) -> bool:
    """Same shape and same values."""
    a = _EQUAL.parse(args, kwargs)[1]
    x, y = a["input"], a["other"]
    return x.shape == y.shape and bool((x == y).all())


_EQUAL = Signatures("equal", "(Tensor input, Tensor other)")


is_floating_point = _method("is_floating_point", "(Tensor input)")
numel = _method("numel", "(Tensor input)")


def eq(*args: Any, **kwargs: Any) -> Tensor:
    """Elementwise ``==``: ``torch.eq(input, other)``."""
    a = sig.FN_EQ.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].eq(a["other"]))


eq = with_out(sig.FN_EQ, eq)
clamp = with_out(sig.FN_CLAMP, clamp, same_dtype=_no_tensor_bound)
clip = with_out(sig.FN_CLIP, clip, same_dtype=_no_tensor_bound)


def promote_types(*args: Any, **kwargs: Any) -> dtype:
    """torch.promote_types."""
    a = sig.PROMOTE_TYPES.parse(args, kwargs)[1]
    return _promote_types(a["type1"], a["type2"])
