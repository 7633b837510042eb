"""The ``torch.*`` functions of the Tensor's ops, made from the same declarations as its methods.

A declaration of :mod:`ownership.ops.methods` names, beside its method, torch's signatures of the
function ``torch.<name>`` (``function=``; most are the method's, after ``Tensor input`` and
with ``out=`` last) and whether it writes ``out=`` (``writes_out=``): :func:`made` makes the
function from it, and :data:`FUNCTIONS` holds them all, by name. ``torch.maximum`` is the
declaration of ``x.maximum`` and nothing else.

The functions that do more than parse and call their input's method are written here by hand:
the arithmetic whose first operand may be a number (``torch.add(1, x)``, ``pow``, the shifts),
``where`` (alone: ``nonzero``), ``rsub``, ``threshold``, ``equal``, ``promote_types``, and the
functions of core's own Tensor methods (``detach``, ``numel``, ``is_floating_point``). The other
hand-written ones are in ``ownership.reduction_functions``, ``ownership.product_functions``,
``ownership.view_functions`` and ``ownership.math_functions``."""

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
from ownership.core.surface import INPUT_OUT, Declared, function_texts
from ownership.core.tensor import Tensor
from ownership.ops import signatures as sig
from ownership.ops import statistics
from ownership.ops.methods import DECLARED, OTHER
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


def made(declared: Declared, name: str) -> Callable[..., Any]:
    """The function ``torch.<name>`` of a declaration (``name`` is its method's name or an
    alias): torch's function signatures (``declared.function``) parsed, then the method
    ``input.<name>(...)`` with the other arguments by name. ``out=`` is written when the
    declaration ``writes_out`` (:func:`ownership.ops.out_variants.with_out`), else the parser
    refuses it (:func:`ownership.ops.out_variants.refuse_out`).

    >>> import ownership
    >>> print(ownership.maximum.__doc__)
    ``torch.maximum(input, ...)``: the method ``input.maximum(...)`` (ownership.ops.methods).
    """
    assert declared.function is not None
    parser = Signatures(name, *declared.function)

    def function(*args: Any, **kwargs: Any) -> Any:
        given = dict(parser.parse(args, kwargs)[1])
        given.pop("out", None)  # None: with_out took a given one, or the parser refused it
        return getattr(given.pop("input"), name)(**given)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"``torch.{name}(input, ...)``: the method ``input.{name}(...)`` (ownership.ops.methods)."
    )
    function.__annotations__ = {"args": "Any", "kwargs": "Any", "return": declared.function_returns}
    if declared.writes_out:
        return with_out(parser, function, declared.same_dtype)
    return function


FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: made(declared, name)
    for declared in DECLARED
    if declared.function is not None
    for name in (declared.name, *declared.aliases)
}
"""The ``torch.*`` functions made from the Tensor's declarations (:data:`DECLARED`), by name."""

square = FUNCTIONS["square"]
square_ = FUNCTIONS["square_"]
neg = FUNCTIONS["neg"]
neg_ = FUNCTIONS["neg_"]
exp = FUNCTIONS["exp"]
exp_ = FUNCTIONS["exp_"]
log = FUNCTIONS["log"]
log_ = FUNCTIONS["log_"]
sqrt = FUNCTIONS["sqrt"]
sqrt_ = FUNCTIONS["sqrt_"]
abs = FUNCTIONS["abs"]
absolute = FUNCTIONS["absolute"]
abs_ = FUNCTIONS["abs_"]
sign = FUNCTIONS["sign"]
reciprocal = FUNCTIONS["reciprocal"]
sigmoid = FUNCTIONS["sigmoid"]
sigmoid_ = FUNCTIONS["sigmoid_"]
tanh = FUNCTIONS["tanh"]
tanh_ = FUNCTIONS["tanh_"]
sin = FUNCTIONS["sin"]
sin_ = FUNCTIONS["sin_"]
cos = FUNCTIONS["cos"]
cos_ = FUNCTIONS["cos_"]
relu = FUNCTIONS["relu"]
relu_ = FUNCTIONS["relu_"]
floor = FUNCTIONS["floor"]
floor_ = FUNCTIONS["floor_"]
ceil = FUNCTIONS["ceil"]
ceil_ = FUNCTIONS["ceil_"]
trunc = FUNCTIONS["trunc"]
trunc_ = FUNCTIONS["trunc_"]
round = FUNCTIONS["round"]
round_ = FUNCTIONS["round_"]
log1p = FUNCTIONS["log1p"]
log1p_ = FUNCTIONS["log1p_"]
expm1 = FUNCTIONS["expm1"]
expm1_ = FUNCTIONS["expm1_"]
erf = FUNCTIONS["erf"]
erf_ = FUNCTIONS["erf_"]
nan_to_num = FUNCTIONS["nan_to_num"]
nan_to_num_ = FUNCTIONS["nan_to_num_"]
maximum = FUNCTIONS["maximum"]
minimum = FUNCTIONS["minimum"]
clamp = FUNCTIONS["clamp"]
clip = FUNCTIONS["clip"]
clamp_ = FUNCTIONS["clamp_"]
clamp_min = FUNCTIONS["clamp_min"]
clamp_min_ = FUNCTIONS["clamp_min_"]
clamp_max = FUNCTIONS["clamp_max"]
clamp_max_ = FUNCTIONS["clamp_max_"]
masked_fill = FUNCTIONS["masked_fill"]
eq = FUNCTIONS["eq"]
ne = FUNCTIONS["ne"]
lt = FUNCTIONS["lt"]
le = FUNCTIONS["le"]
gt = FUNCTIONS["gt"]
ge = FUNCTIONS["ge"]
isnan = FUNCTIONS["isnan"]
isinf = FUNCTIONS["isinf"]
isfinite = FUNCTIONS["isfinite"]
isclose = FUNCTIONS["isclose"]
allclose = FUNCTIONS["allclose"]
logical_and = FUNCTIONS["logical_and"]
logical_or = FUNCTIONS["logical_or"]
logical_not = FUNCTIONS["logical_not"]
bitwise_and = FUNCTIONS["bitwise_and"]
bitwise_or = FUNCTIONS["bitwise_or"]
bitwise_xor = FUNCTIONS["bitwise_xor"]
prod = FUNCTIONS["prod"]
std = FUNCTIONS["std"]
var = FUNCTIONS["var"]
argmax = FUNCTIONS["argmax"]
argmin = FUNCTIONS["argmin"]
amax = FUNCTIONS["amax"]
amin = FUNCTIONS["amin"]
all = FUNCTIONS["all"]
any = FUNCTIONS["any"]
nansum = FUNCTIONS["nansum"]
logsumexp = FUNCTIONS["logsumexp"]
softmax = FUNCTIONS["softmax"]
log_softmax = FUNCTIONS["log_softmax"]
cumsum = FUNCTIONS["cumsum"]
cumprod = FUNCTIONS["cumprod"]
sort = FUNCTIONS["sort"]
argsort = FUNCTIONS["argsort"]
topk = FUNCTIONS["topk"]
gather = FUNCTIONS["gather"]
index_select = FUNCTIONS["index_select"]
flip = FUNCTIONS["flip"]
tril = FUNCTIONS["tril"]
triu = FUNCTIONS["triu"]
reshape = FUNCTIONS["reshape"]
transpose = FUNCTIONS["transpose"]
permute = FUNCTIONS["permute"]
unsqueeze = FUNCTIONS["unsqueeze"]
squeeze = FUNCTIONS["squeeze"]
select = FUNCTIONS["select"]
t = FUNCTIONS["t"]
flatten = FUNCTIONS["flatten"]
diagonal = FUNCTIONS["diagonal"]
narrow = FUNCTIONS["narrow"]
unbind = FUNCTIONS["unbind"]
chunk = FUNCTIONS["chunk"]
unsafe_chunk = FUNCTIONS["unsafe_chunk"]
unsafe_split = FUNCTIONS["unsafe_split"]
unsafe_split_with_sizes = FUNCTIONS["unsafe_split_with_sizes"]
outer = FUNCTIONS["outer"]
zero_ = FUNCTIONS["zero_"]
fill_ = FUNCTIONS["fill_"]
as_strided_ = FUNCTIONS["as_strided_"]
resize_as_ = FUNCTIONS["resize_as_"]
clone = FUNCTIONS["clone"]


def _of_core(name: str) -> Callable[..., Any]:
    """``torch.<name>(input)``: the method ``input.<name>()`` of core's Tensor (not declared in
    :mod:`ownership.ops.methods`: a tensor's own state)."""
    parser = Signatures(name, "(Tensor input)")

    def function(*args: Any, **kwargs: Any) -> Any:
        return getattr(parser.parse(args, kwargs)[1]["input"], name)()

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input)``: the method ``input.{name}()``."
    return function


def _shift(name: str) -> Callable[..., Any]:
    """``torch.<name>``, a shift: ``input.<name>(other)``, or, for a number ``self`` before a
    tensor ``other`` (``bitwise_left_shift(3, x)``), the number shifted by each element."""
    parser = Signatures(
        name,
        *function_texts(OTHER[:1], INPUT_OUT),
        "(Number self, Tensor other)",
        *function_texts(OTHER[1:], INPUT_OUT),
    )

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


detach = _of_core("detach")


def equal(*args: Any, **kwargs: Any) -> bool:
    """Same shape and same values."""
    a = _EQUAL.parse(args, kwargs)[1]
    x, y = a["input"], a["other"]
    return x.shape == y.shape and bool((x == y).all())


_EQUAL = Signatures("equal", "(Tensor input, Tensor other)")


is_floating_point = _of_core("is_floating_point")
numel = _of_core("numel")


def promote_types(*args: Any, **kwargs: Any) -> dtype:
    """torch.promote_types."""
    a = sig.PROMOTE_TYPES.parse(args, kwargs)[1]
    return _promote_types(a["type1"], a["type2"])
