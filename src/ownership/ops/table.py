"""The op table: every op the Tensor methods reach, under the name they reach it by.

Each name here is the implementation itself, so its signature is declared once, where it is
defined. :mod:`ownership.core.op_registry` gives the tensor layer this module as the type of its
table (``ops.add(self, other)`` is checked by mypy against :func:`ownership.ops.arithmetic.add`),
and fills the table from it at the first lookup. An op is reachable from a Tensor method or an
``ownership`` function only through a name listed here.
"""

from __future__ import annotations

import builtins as _builtins
from types import FunctionType as _Function

from ownership.core.tensor import Tensor as _Tensor
from ownership.core.tensor_autograd import TensorAutograd as _Autograd
from ownership.core.tensor_metadata import TensorMetadata as _Metadata
from ownership.ops.arithmetic import add, div, mul, rdiv, reciprocal, sub
from ownership.ops.bitwise import (
    bitwise_and,
    bitwise_and_,
    bitwise_left_shift,
    bitwise_left_shift_,
    bitwise_or,
    bitwise_or_,
    bitwise_right_shift,
    bitwise_right_shift_,
    bitwise_xor,
    bitwise_xor_,
    shift_of_number,
)
from ownership.ops.closeness import allclose, isclose
from ownership.ops.common import read_histories as read_histories
from ownership.ops.comparison import (
    eq,
    ge,
    gt,
    invert,
    isfinite,
    isinf,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    lt,
    ne,
    where,
)
from ownership.ops.copying import clone, contiguous, to
from ownership.ops.creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    empty_strided,
    eye,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from ownership.ops.diagonal import diagonal
from ownership.ops.dropout import dropout
from ownership.ops.extrema import clamp_max, clamp_max_, clamp_min, clamp_min_, maximum, minimum
from ownership.ops.extreme_values import amax, amin, logsumexp
from ownership.ops.indexing import embed, getitem, setitem
from ownership.ops.initialisers import constant_, kaiming_uniform_  # torch functions (nn/init.py)
from ownership.ops.inplace import add_, div_, mul_, sub_
from ownership.ops.inplace_fills import (
    bernoulli,
    bernoulli_,
    copy_,
    fill_,
    normal_,
    uniform_,
    zero_,
)
from ownership.ops.inplace_unary import (
    abs_,
    clamp_,
    cos_,
    exp_,
    log_,
    neg_,
    relu_,
    sigmoid_,
    sin_,
    sqrt_,
    tanh_,
)
from ownership.ops.inplace_views import as_strided_, squeeze_, t_, transpose_, unsqueeze_
from ownership.ops.integer_division import (
    div_rounded,
    div_rounded_,
    floor_divide,
    floor_divide_,
    remainder,
    remainder_,
    rfloordiv,
    rremainder,
)
from ownership.ops.joining import cat, stack
from ownership.ops.leaky_relu import leaky_relu, leaky_relu_
from ownership.ops.linalg import bmm, dot, matmul, mm, mv
from ownership.ops.loss import cross_entropy, mse_loss, nll_loss
from ownership.ops.masking import masked_fill, masked_fill_
from ownership.ops.moments import std, std_mean, var, var_mean
from ownership.ops.multi_views import chunk, split, unbind
from ownership.ops.nan_sums import nansum
from ownership.ops.nn_ops import addmm, batch_norm, linear
from ownership.ops.nonfinite import nan_to_num, nan_to_num_
from ownership.ops.outer import outer
from ownership.ops.power import power as pow
from ownership.ops.power import rpow
from ownership.ops.power_inplace import pow_
from ownership.ops.products import prod
from ownership.ops.random_factories import rand, rand_like, randint, randn, randn_like, randperm
from ownership.ops.reduction import all_of as all
from ownership.ops.reduction import any_of as any
from ownership.ops.reduction import argmax, argmin, mean
from ownership.ops.reduction import max_of as max
from ownership.ops.reduction import min_of as min
from ownership.ops.reduction import sum_of as sum
from ownership.ops.repetition import repeat
from ownership.ops.resizing import resize_, resize_as_
from ownership.ops.rounding import ceil, ceil_, floor, floor_, round_, trunc, trunc_
from ownership.ops.rounding import rounded as round
from ownership.ops.rsub import rsub
from ownership.ops.running_products import cumprod, cumprod_
from ownership.ops.scans import cumsum, cumsum_
from ownership.ops.selection import flip, gather, index_select
from ownership.ops.softmax import log_softmax, softmax
from ownership.ops.sorting import argsort, sort, topk
from ownership.ops.special_unary import erf, erf_, expm1, expm1_, log1p, log1p_
from ownership.ops.statistics import _threshold, norm, threshold, threshold_
from ownership.ops.tensor_conversion import TensorConversion as _Conversion
from ownership.ops.tensor_operators import TensorOperators as _Operators
from ownership.ops.triangles import tril, tril_, triu, triu_
from ownership.ops.unary import absolute as abs
from ownership.ops.unary import (
    clamp,
    cos,
    exp,
    log,
    neg,
    positive,
    relu,
    sigmoid,
    sign,
    sin,
    sqrt,
    tanh,
)
from ownership.ops.views import (
    alias,
    expand,
    flatten,
    narrow,
    permute,
    reshape,
    select,
    squeeze,
    transpose,
    unsqueeze,
    view,
)
from ownership.ops.views import big_t as T
from ownership.ops.views import matrix_t as mT
from ownership.ops.views import slice_dim as slice
from ownership.ops.views import transpose_2d as t
from ownership.ops.written_methods import (
    bool,
    cpu,
    double,
    expand_as,
    float,
    int,
    is_contiguous,
    long,
    new_empty,
    new_full,
    new_ones,
    new_tensor,
    new_zeros,
    reshape_as,
    square,
    square_,
    type,
    type_as,
    view_as,
)


def _named(*classes: _builtins.type) -> frozenset[str]:
    """The names this module gives the methods of ``classes`` (``stride`` for
    ``TensorMetadata._stride``, ``__rdiv__`` for ``TensorOperators.__rtruediv__``), each
    written once, where it is given (the module's ``type``, ``any``... are ops: the builtins
    are named as such)."""
    return frozenset(
        name
        for name, value in globals().items()
        if isinstance(value, _Function)
        and _builtins.any(vars(cls).get(value.__name__) is value for cls in classes)
    )


# the methods of a tensor's own state, core's (``TensorMetadata._stride``...), by torch's names
__repr__ = _Tensor._repr
backward = _Autograd._backward
data_ptr = _Metadata._data_ptr
detach = _Autograd._detach
detach_ = _Autograd._detach_
dim = _Metadata._dim
element_size = _Metadata._element_size
is_floating_point = _Metadata._is_floating_point
is_inference = _Autograd._is_inference
numel = _Metadata._numel
requires_grad_ = _Autograd._requires_grad_
retain_grad = _Autograd._retain_grad
size = _Metadata._size
storage_offset = _Metadata._storage_offset
stride = _Metadata._stride
untyped_storage = _Metadata._untyped_storage

OWN_STATE = _named(_Tensor, _Autograd, _Metadata)
"""The methods of a tensor's own state (its sizes, strides, storage, autograd flags, repr), written in
core under a private name (``_stride``), which core and the ops call; the Tensor's public method
calls the op here, as torch's function mode sees it (``x.stride()``: ``stride``)."""

# the ways out of the engine (ops/tensor_conversion.py), by the names torch's mode sees
__array__ = _Conversion.__array__
__bool__ = _Conversion.__bool__
__contains__ = _Conversion.__contains__
__float__ = _Conversion.__float__
__index__ = _Conversion.__index__
__int__ = _Conversion.__int__
__len__ = _Conversion.__len__
item = _Conversion.item
numpy = _Conversion.numpy
tolist = _Conversion.tolist

CONVERSIONS = _named(_Conversion)
"""The methods a tensor leaves the engine by (a Python number, lists, a numpy array), each seen
by torch's function mode under its own name (``float(x)``: ``__float__``)."""

# the operators torch's function mode sees by their own name (torch/_tensor.py's, or the C
# method's: ``x[i]`` is ``__getitem__``, ``2 / x`` is ``__rdiv__``), not by the op each calls
# (``x + y`` is ``add``): the Tensor calls each through the table (ops/methods.py)
__and__ = _Operators.__and__
__eq__ = _Operators.__eq__
__floordiv__ = _Operators.__floordiv__
__getitem__ = _Operators.__getitem__
__iand__ = _Operators.__iand__
__ilshift__ = _Operators.__ilshift__
__invert__ = _Operators.__invert__
__ior__ = _Operators.__ior__
__irshift__ = _Operators.__irshift__
__ixor__ = _Operators.__ixor__
__lshift__ = _Operators.__lshift__
__or__ = _Operators.__or__
__rdiv__ = _Operators.__rtruediv__
__rfloordiv__ = _Operators.__rfloordiv__
__rlshift__ = _Operators.__rlshift__
__rmatmul__ = _Operators.__rmatmul__
__rmod__ = _Operators.__rmod__
__rpow__ = _Operators.__rpow__
__rrshift__ = _Operators.__rrshift__
__rshift__ = _Operators.__rshift__
__rsub__ = _Operators.__rsub__
__setitem__ = _Operators.__setitem__
__xor__ = _Operators.__xor__

OPERATORS = _named(_Operators)
"""The operators above, by the name torch's mode sees: each calls an op quieted itself, and
what it does with a foreign operand (numpy's operator, its warnings) stays numpy's."""

NO_ARITHMETIC = (
    frozenset(
        {
            "T",
            "alias",
            "cpu",
            "expand",
            "expand_as",
            "flatten",
            "is_contiguous",
            "mT",
            "narrow",
            "permute",
            "positive",
            "reshape",
            "reshape_as",
            "select",
            "slice",
            "squeeze",
            "t",
            "transpose",
            "unsqueeze",
            "view",
            "view_as",
        }
    )
    | OPERATORS
    | OWN_STATE
    | CONVERSIONS
)
"""The ops that compute no element: new sizes, strides and an offset over the same memory (or,
for ``reshape``, a copy made by ``clone``, itself quieted; ``view_as``, ``reshape_as`` and
``expand_as`` are ``view``, ``reshape`` and ``expand`` of another tensor's shape; ``cpu`` is
the tensor itself, as is ``positive``'s, or ``to``'s copy, itself quieted; ``is_contiguous``
reads strides), and the
:data:`OPERATORS`, which call an op, the methods of :data:`OWN_STATE` (``backward`` runs
ops, each quieted itself) and the :data:`CONVERSIONS`. numpy has no floating-point error to
report from them, so :mod:`ownership.core.op_registry` installs them without its ``quiet`` wrapper
(the numpy error state would be set and reset around them for nothing)."""

NOT_DIFFERENTIATED = frozenset(
    {
        "all",
        "allclose",
        "any",
        "arange",
        "argmax",
        "argmin",
        "as_tensor",
        "bitwise_and",
        "bitwise_and_",
        "bitwise_left_shift",
        "bitwise_left_shift_",
        "bitwise_or",
        "bitwise_or_",
        "bitwise_right_shift",
        "bitwise_right_shift_",
        "bitwise_xor",
        "bitwise_xor_",
        "chunk",
        "empty",
        "empty_like",
        "empty_strided",
        "eq",
        "eye",
        "full",
        "full_like",
        "ge",
        "getitem",
        "gt",
        "invert",
        "isclose",
        "isfinite",
        "isinf",
        "isnan",
        "le",
        "linspace",
        "logical_and",
        "logical_not",
        "logical_or",
        "lt",
        "ne",
        "new_empty",
        "new_full",
        "new_ones",
        "new_tensor",
        "new_zeros",
        "ones",
        "ones_like",
        "outer",
        "rand",
        "rand_like",
        "randint",
        "randn",
        "randn_like",
        "randperm",
        "resize_",
        "resize_as_",
        "setitem",
        "shift_of_number",
        "tensor",
        "zeros",
        "zeros_like",
    }
)
"""The ops whose inputs' edges :func:`ownership.core.op_registry.edges_first` does not read when
their own checks fail: those torch does not differentiate (comparisons, tests, bitwise and
logical ops, factories; ``resize_`` refuses a tensor that requires grad by itself), those that
check their arguments before any differentiable op runs (``chunk``'s count, ``outer``'s
dims), and indexing, which
reads its input's edge where torch does (:mod:`ownership.ops.indexing`)."""

NN_FUNCTIONAL = frozenset(
    {
        "_threshold",
        "batch_norm",
        "cross_entropy",
        "dropout",
        "leaky_relu",
        "leaky_relu_",
        "linear",
        "mse_loss",
        "nll_loss",
    }
)
"""The ops of ``torch.nn.functional`` (:mod:`ownership.nn.functional` calls them through the
table), each under the name torch's function mode sees it by: ``F.threshold`` is torch's Python
function ``_threshold``; ``F.leaky_relu``, ``F.dropout`` and ``F.threshold`` take ``inplace``
(torch's mode sees one call either way)."""

NO_AUTOGRAD_KERNEL = (NN_FUNCTIONAL - {"linear"}) | {"norm", "matmul", "__rmatmul__"}
"""The ops torch writes as Python functions (``linear`` is C++), and ``matmul`` (``@``), a C++
op made of others with no autograd kernel of its own: their own refusals (a dropout
probability, a reduction's name, a batch of one per channel, a norm's order, a 0-d operand of
``@``) come before any autograd kernel reads the inputs' edges, so
:func:`ownership.core.op_registry.edges_first` reads none; the ops they call read theirs."""

__all__ = [
    "T",
    "_threshold",
    "abs",
    "abs_",
    "add",
    "add_",
    "addmm",
    "alias",
    "all",
    "allclose",
    "amax",
    "amin",
    "any",
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "as_strided_",
    "as_tensor",
    "batch_norm",
    "bernoulli",
    "bernoulli_",
    "bitwise_and",
    "bitwise_and_",
    "bitwise_left_shift",
    "bitwise_left_shift_",
    "bitwise_or",
    "bitwise_or_",
    "bitwise_right_shift",
    "bitwise_right_shift_",
    "bitwise_xor",
    "bitwise_xor_",
    "bmm",
    "bool",
    "cat",
    "ceil",
    "ceil_",
    "chunk",
    "clamp",
    "clamp_",
    "clamp_max",
    "clamp_max_",
    "clamp_min",
    "clamp_min_",
    "clone",
    "constant_",
    "contiguous",
    "copy_",
    "cos",
    "cos_",
    "cpu",
    "cross_entropy",
    "cumprod",
    "cumprod_",
    "cumsum",
    "cumsum_",
    "diagonal",
    "div",
    "div_",
    "div_rounded",
    "div_rounded_",
    "dot",
    "double",
    "dropout",
    "embed",
    "empty",
    "empty_like",
    "empty_strided",
    "eq",
    "erf",
    "erf_",
    "exp",
    "exp_",
    "expand",
    "expand_as",
    "expm1",
    "expm1_",
    "eye",
    "fill_",
    "flatten",
    "flip",
    "float",
    "floor",
    "floor_",
    "floor_divide",
    "floor_divide_",
    "full",
    "full_like",
    "gather",
    "ge",
    "getitem",
    "gt",
    "index_select",
    "int",
    "invert",
    "is_contiguous",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "kaiming_uniform_",
    "le",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "linspace",
    "log",
    "log1p",
    "log1p_",
    "log_",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "logsumexp",
    "long",
    "lt",
    "mT",
    "masked_fill",
    "masked_fill_",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mm",
    "mse_loss",
    "mul",
    "mul_",
    "mv",
    "nan_to_num",
    "nan_to_num_",
    "nansum",
    "narrow",
    "ne",
    "neg",
    "neg_",
    "new_empty",
    "new_full",
    "new_ones",
    "new_tensor",
    "new_zeros",
    "nll_loss",
    "norm",
    "normal_",
    "ones",
    "ones_like",
    "outer",
    "permute",
    "positive",
    "pow",
    "pow_",
    "prod",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "randperm",
    "rdiv",
    "reciprocal",
    "relu",
    "relu_",
    "remainder",
    "remainder_",
    "repeat",
    "reshape",
    "reshape_as",
    "resize_",
    "resize_as_",
    "rfloordiv",
    "round",
    "round_",
    "rpow",
    "rremainder",
    "rsub",
    "select",
    "setitem",
    "shift_of_number",
    "sigmoid",
    "sigmoid_",
    "sign",
    "sin",
    "sin_",
    "slice",
    "softmax",
    "sort",
    "split",
    "sqrt",
    "sqrt_",
    "square",
    "square_",
    "squeeze",
    "squeeze_",
    "stack",
    "std",
    "std_mean",
    "sub",
    "sub_",
    "sum",
    "t",
    "t_",
    "tanh",
    "tanh_",
    "tensor",
    "threshold",
    "threshold_",
    "to",
    "topk",
    "transpose",
    "transpose_",
    "tril",
    "tril_",
    "triu",
    "triu_",
    "trunc",
    "trunc_",
    "type",
    "type_as",
    "unbind",
    "uniform_",
    "unsqueeze",
    "unsqueeze_",
    "var",
    "var_mean",
    "view",
    "view_as",
    "where",
    "zero_",
    "zeros",
    "zeros_like",
]
__all__ += sorted(OWN_STATE | CONVERSIONS | OPERATORS)  # the names of methods, above
__all__.sort()
