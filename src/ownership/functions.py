"""The ``torch.*`` functions of the Tensor's ops, made from the same declarations as its methods.

A declaration of :mod:`ownership.ops.methods` names, beside its method, torch's signatures of the
function ``torch.<name>`` (``function=``; most are the method's, after ``Tensor input`` and
with ``out=`` last) and whether it writes ``out=`` (``writes_out=``): :func:`made` makes the
function from it, and :data:`FUNCTIONS` holds them all, by name. ``torch.maximum`` is the
declaration of ``x.maximum`` and nothing else.

A function of a declared op that does more than parse and call its input's method is written by
hand and declared in the same entry (``function=add``, as ``method=`` declares a hand-written
method): :data:`FUNCTIONS` holds it too. Those are in ``ownership.math_functions``,
``ownership.reduction_functions``, ``ownership.product_functions`` and
``ownership.view_functions``. The functions of no declared op are written here: ``rsub``,
``threshold``, ``promote_types``, ``is_tensor``, and those of core's own Tensor methods
(``detach``, ``detach_``, ``numel``, ``is_floating_point``). The factories, ``bernoulli``,
``cat``, ``stack`` and ``norm`` are ops of the table themselves, each called through it by name
(:func:`~ownership.ops.methods.of_table`)."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from ownership.core import op_registry
from ownership.core.binder import Signatures
from ownership.core.dtypes import dtype
from ownership.core.dtypes import promote_types as _promote_types
from ownership.core.surface import Declared
from ownership.core.tensor import Tensor
from ownership.ops import signatures as sig
from ownership.ops import table
from ownership.ops.argument_values import tensor_arg
from ownership.ops.methods import DECLARED, function_texts, of_table
from ownership.ops.op_table import OpTable
from ownership.ops.out_variants import with_out

ops: OpTable[Tensor] = op_registry.ops


def is_tensor(obj: Any) -> builtins.bool:
    """True when ``obj`` is an ownership Tensor."""
    return isinstance(obj, Tensor)


def is_inference(input: Any) -> bool:
    """``torch.is_inference(t)``: whether ``t`` is an inference tensor (``t.is_inference()``)."""
    tensor_arg("is_inference", input)
    return builtins.bool(input.is_inference())


def made(declared: Declared, name: str) -> Callable[..., Any]:
    """The function ``torch.<name>`` of a declaration (``name`` is its method's name or an
    alias): the hand-written one it declares, or torch's function signatures
    (``declared.function``, :func:`~ownership.ops.methods.function_texts`) parsed, then the
    method ``input.<name>(...)`` with the other arguments by name. ``out=`` is written when the
    declaration ``writes_out`` (:func:`ownership.ops.out_variants.with_out`), else the parser
    refuses it (:func:`ownership.ops.out_variants.refuse_out`).

    >>> import ownership
    >>> print(ownership.maximum.__doc__)
    ``torch.maximum(input, ...)``: the method ``input.maximum(...)`` (ownership.ops.methods).
    """
    if declared.written_function is not None:
        return declared.written_function
    assert declared.function is not None
    own = declared.signatures.texts if declared.signatures else ()
    parser = Signatures(name, *function_texts(own, declared.function))

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


tensor = of_table(table.tensor)
as_tensor = of_table(table.as_tensor)
zeros = of_table(table.zeros)
ones = of_table(table.ones)
full = of_table(table.full)
empty = of_table(table.empty)
empty_strided = of_table(table.empty_strided)
zeros_like = of_table(table.zeros_like)
ones_like = of_table(table.ones_like)
full_like = of_table(table.full_like)
empty_like = of_table(table.empty_like)
arange = of_table(table.arange)
linspace = of_table(table.linspace)
eye = of_table(table.eye)
rand = of_table(table.rand)
randn = of_table(table.randn)
randint = of_table(table.randint)
randperm = of_table(table.randperm)
rand_like = of_table(table.rand_like)
randn_like = of_table(table.randn_like)
bernoulli = of_table(table.bernoulli)
cat = of_table(table.cat)
stack = of_table(table.stack)
norm = of_table(table.norm)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: made(declared, name)
    for declared in DECLARED
    if declared.function is not None or declared.written_function is not None
    for name in (declared.name, *declared.aliases)
}
"""The ``torch.*`` functions made from the Tensor's declarations (:data:`DECLARED`), by name."""

square = FUNCTIONS["square"]
square_ = FUNCTIONS["square_"]
neg = FUNCTIONS["neg"]
neg_ = FUNCTIONS["neg_"]
positive = FUNCTIONS["positive"]
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
    return ops.threshold_(a["input"], a["threshold"], a["value"])


_THRESHOLD_ = Signatures("threshold_", "(Tensor input, Number threshold, Number value)")


detach = _of_core("detach")
detach_ = _of_core("detach_")


is_floating_point = _of_core("is_floating_point")
numel = _of_core("numel")


def promote_types(*args: Any, **kwargs: Any) -> dtype:
    """torch.promote_types."""
    a = sig.PROMOTE_TYPES.parse(args, kwargs)[1]
    return _promote_types(a["type1"], a["type2"])
