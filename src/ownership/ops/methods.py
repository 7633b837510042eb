"""The Tensor surface: one declaration per method, beside its op (:mod:`ownership.core.surface`).

Each entry of :data:`DECLARED` gives a method's name, torch's signatures of it as torch prints
them (its argument errors are torch's: :class:`~ownership.core.binder.Signatures`), the op it
calls, and what it means; ``inplace=`` declares its in-place variant with the same signatures.
``function=`` declares the ``torch.<name>`` function of the same op (its signatures: most are
the method's after ``Tensor input``, :data:`~ownership.core.surface.INPUT`, and with ``out=``
last, :data:`~ownership.core.surface.INPUT_OUT`), which :mod:`ownership.functions` makes.
``x.maximum`` is the declaration ``declare("maximum", "(Tensor other)", op=table.maximum, ...)``
and nothing else: :func:`ownership.installation.install` makes the method from it. A method that
needs more than binding is written by hand (:mod:`ownership.ops.written_methods`) and declared
here with ``method=``, as are the operators (:mod:`ownership.ops.tensor_operators`). The
properties ``T`` and ``mT`` and the methods of a tensor's own state (``backward``, ``detach``, ``.grad``, ``size()``...) are the Tensor's
(:mod:`ownership.core.tensor`).

>>> import ownership
>>> ownership.Tensor.maximum.__doc__
'The elementwise larger of ``self`` and the tensor ``other``: ``maximum(other)``.'
>>> print(ownership.Tensor.mul_.__source__.strip())
def mul_(self=UNBOUND, *args, **kwargs):
    if not isinstance(self, Tensor):
        unbound("mul_", self)
    return ops.mul_(self, D.parse(args, kwargs)[1]["other"])
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

from ownership import math_functions as arithmetic
from ownership import product_functions as products
from ownership import reduction_functions as reductions
from ownership import view_functions as views
from ownership.core import op_registry
from ownership.core.binder import Binding, Signatures
from ownership.core.surface import INPUT, INPUT_OUT, UNBOUND, Declared, declare, no_arguments
from ownership.core.tensor import Tensor
from ownership.core.tensor_metadata import SIZE
from ownership.ops import signatures as sig
from ownership.ops import table
from ownership.ops import written_methods as written
from ownership.ops.tensor_conversion import METHODS as CONVERSIONS
from ownership.ops.tensor_operators import METHODS as OPERATORS
from ownership.ops.unbound_calls import (
    PYTHON_METHODS,
    PythonArguments,
    of_tensor_base,
    refusal_of_self,
)

OTHER = ("(Tensor other)", "(Number other)")
"""The signatures of a binary op whose ``other`` is a tensor or a number."""
OVER_DIM = ("(int dim, *, torch.dtype dtype = None)",)
"""The signature of a running op along ``dim`` (``cumsum``, ``cumprod``)."""


MOMENTS = (
    "(Tensor input, tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False, *, "
    "Tensor out = None)",
    "(Tensor input, tuple of ints[1]? dim = None, *, Number correction = None, "
    "bool keepdim = False, Tensor out = None)",
    "(Tensor input, bool unbiased = True)",
)
"""torch's signatures of the functions ``torch.var`` and ``torch.std``."""


POINTWISE: dict[str, Any] = {"function": INPUT_OUT, "writes_out": True}
"""The function of a pointwise op: ``torch.<name>(input, ..., *, out=None)``, writing ``out``
(``torch.maximum(x, y, out=z)``)."""
UNARY: dict[str, Any] = {**POINTWISE, "function_returns": "Tensor"}
"""The same of one tensor (``torch.exp(x, out=y)``)."""
EXACT_OUT: dict[str, Any] = {**UNARY, "same_dtype": True}
"""The same, where ``out`` must have the result's dtype (torch's kernels of ``abs``, ``neg``,
``sign``, ``floor``... keep the input's dtype and cast nothing)."""


def function_texts(texts: Sequence[str], function: Sequence[str] | str) -> tuple[str, ...]:
    """torch's signatures of the function of a method whose signatures are ``texts``:
    ``function`` itself, or, for :data:`INPUT` (:data:`INPUT_OUT`), each of ``texts`` after
    ``Tensor input`` (and with ``out=`` last).

    >>> function_texts(("(Tensor other)", "(Number other)"), INPUT_OUT)
    ('(Tensor input, Tensor other, *, Tensor out = None)', '(Tensor input, Number other, *, Tensor out = None)')
    >>> function_texts((), INPUT)
    ('(Tensor input)',)
    """
    if function not in (INPUT, INPUT_OUT):
        return (function,) if isinstance(function, str) else tuple(function)
    made = []
    for text in texts or ("()",):
        inner = text[1:-1]
        params = INPUT + (f", {inner}" if inner else "")
        if function == INPUT_OUT:
            params += (
                ", Tensor out = None" if "*" in inner.split(", ") else ", *, Tensor out = None"
            )
        made.append(f"({params})")
    return tuple(made)


def no_tensor_bound(bound: dict[str, Any]) -> bool:
    """Whether a call's bounds (``clamp``'s ``min`` and ``max``) are all numbers or None: torch's
    kernel then keeps the input's dtype, and ``out`` must have it."""
    return not any(isinstance(bound.get(k), Tensor) for k in ("min", "max"))


P = ParamSpec("P")
R = TypeVar("R")


def by_hand(
    method: Callable[..., Any],
    *aliases: str,
    returns: str = "Tensor",
    of: Signatures | None = None,
    function: Sequence[str] | str | Callable[..., Any] | None = None,
    **options: Any,
) -> Declared:
    """The declaration of a method written by hand (:mod:`ownership.ops.written_methods`), and of
    its torch function: ``function`` (with ``options``) as :class:`Declared` takes it, derived
    from ``of``, the signatures the method parses."""
    if function is not None and not callable(function):
        function = function_texts(of.texts if of else (), function)
    return Declared(
        method.__name__,
        (),
        None,
        method=method,
        aliases=aliases,
        returns=returns,
        function=function,
        **options,
    )


def of_table(op: Callable[P, R], method_of: Binding | None = None) -> Callable[P, R]:
    """The function that calls ``op``, an op of :mod:`ownership.ops.table`, by the name the table
    lists it under: each call looks the op up in the table
    (:data:`~ownership.core.op_registry.ops`), so it runs as every op runs, numpy's reports made
    torch's, and passes the table's one observer point (:func:`~ownership.core.op_registry.watch`)
    under that name, as torch's function mode sees ``torch.<name>`` (or, for the ops of
    ``NN_FUNCTIONAL``, ``torch.nn.functional``'s function). ``method_of``: the signatures of the
    method ``op`` is, which torch's argument parser checks before its mode sees the call, so the
    arguments after ``self`` are checked first and a call they refuse passes no observer (a call
    without any only when the method refuses one, as ``view_as()``; a method that takes none is
    :class:`NoArguments`). A method called on the class without a tensor first
    (``Tensor.stride()``, ``Tensor.stride(1)``) is refused as torch's is
    (:func:`~ownership.ops.unbound_calls.refusal_of_self`).

    >>> import ownership
    >>> ownership.zeros.__wrapped__ is table.zeros
    True
    """
    names = [name for name in table.__all__ if getattr(table, name) is op]
    if not names:
        raise ValueError(f"{op.__name__} is no op of ownership.ops.table")
    name = names[0]

    checks = method_of is not None and _refuses_no_arguments(method_of)
    filled = vars(op_registry.ops)  # the table's own entries (a name's module attribute, as
    # ``__eq__``, is not one of them): empty until the table is filled

    @functools.wraps(op)
    def function(*args: P.args, **kwargs: P.kwargs) -> R:
        if method_of is not None and (checks or kwargs or len(args) != 1):
            refused = refusal_of_self(method_of, args)
            if refused is not None:
                raise TypeError(refused)
            method_of.parse(args[1:], kwargs)
        installed: Callable[P, R] | None = filled.get(name)
        if installed is None:  # the table is not filled yet
            installed = op_registry.OPS[name]
        try:
            return installed(*args, **kwargs)
        except AttributeError:  # ``Tensor.stride(1)``: 1 has no strides
            refused = None if method_of is None else refusal_of_self(method_of, args)
            if refused is None:
                raise
            raise TypeError(refused) from None

    return function


def _refuses_no_arguments(method_of: Binding) -> bool:
    """Whether ``method_of`` refuses a call without arguments (``view_as()``): such a call is
    checked too, where one that binds (``stride()``) needs no check."""
    try:
        method_of.parse((), {})
    except TypeError:
        return True
    return False


class NoArguments:
    """torch's argument parser of a method that takes no argument, as :func:`of_table` takes it:
    ``x.detach(1)`` is ``TensorBase.detach() takes no arguments (1 given)``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Nothing, or torch's TypeError for any argument."""
        if args:
            no_arguments(self.name, args)
        if kwargs:
            raise TypeError(f"TensorBase.{self.name}() takes no keyword arguments")
        return 0, {}


def _backward_parameters(
    self: Any,
    gradient: Any = None,
    retain_graph: Any = None,
    create_graph: Any = False,
    inputs: Any = None,
) -> None:
    """``Tensor.backward``'s parameters (torch's ``_tensor.py``)."""


def _repr_parameters(self: Any) -> None:
    """``Tensor.__repr__``'s parameters (torch's also takes ``tensor_contents=``, which the
    engine does not)."""


def own_state(
    op: Callable[..., Any],
    name: str | None = None,
    *,
    takes_none: bool = False,
    method_of: Binding | None = None,
) -> Declared:
    """The declaration of a method of a tensor's own state, ``op``, written in core under a
    private name (``TensorMetadata._stride``; :data:`~ownership.ops.table.OWN_STATE`): called
    through the table under torch's name of it (:func:`of_table`). ``name``: the method's, when
    not the op's (``nelement``, torch's ``numel``). Its arguments are checked first as torch's
    parser checks them: none when it ``takes_none`` (:class:`NoArguments`), else by ``method_of``
    (None: the method checks its own)."""
    name = name or next(name for name in table.OWN_STATE if getattr(table, name) is op)
    function = of_table(op, NoArguments(name) if takes_none else method_of)
    function.__name__ = function.__qualname__ = name
    return by_hand(function)


def operator(method: Callable[..., Any], method_of: Binding | None = None) -> Declared:
    """The declaration of the operator or conversion ``method``
    (:mod:`ownership.ops.tensor_operators`, :mod:`ownership.ops.tensor_conversion`): called
    through the table (:func:`of_table`, its arguments checked first by ``method_of``) when the
    table lists it, as torch's function mode sees it by its own name (``x[i]`` as
    ``__getitem__``), and under the table's other name of it (``__rtruediv__`` as ``__rdiv__``,
    torch's). One torch writes in Python
    (:data:`~ownership.ops.unbound_calls.PYTHON_METHODS`) is named as torch's; one of torch's C
    methods is refused on the class without a tensor first as torch's is: by its own check (its
    ``self`` defaults to :data:`~ownership.core.surface.UNBOUND`, as the operators'), else by
    :func:`~ownership.ops.unbound_calls.of_tensor_base`'s."""
    names = [name for name in table.__all__ if getattr(table, name) is method]
    called = of_table(method, method_of) if names else method
    if method.__name__ in PYTHON_METHODS:  # Python's refusals name it as torch's
        method.__qualname__ = PYTHON_METHODS[method.__name__]
    elif not (method_of or _checks_self(method)):
        called = of_tensor_base(called, method.__name__)
    return by_hand(called, *(name for name in names if name != method.__name__))


def _checks_self(method: Callable[..., Any]) -> bool:
    """Whether ``method`` checks its own ``self`` (it defaults to ``UNBOUND``)."""
    return inspect.signature(method).parameters["self"].default is UNBOUND


FIRST_CHECKS: dict[str, Binding] = {
    "item": NoArguments("item"),
    "tolist": NoArguments("tolist"),
    "numpy": Signatures("numpy", "(*, bool force = False)"),
}
"""torch's argument parsers of the conversions that take arguments from a call (``x.item(1)``),
checked before the table, as :func:`of_table` checks them."""


DECLARED: list[Declared] = [
    # ------------------------------------------------------------ arithmetic
    *declare(
        "add",
        "(Tensor other, *, Number alpha = 1)",
        op=table.add,
        function=arithmetic.add,
        keywords=("alpha",),
        args=("other",),
        numbers_as_tensors=True,
        hidden=True,
        doc="``self + alpha * other``: ``add(other, *, alpha=1)``.",
    ),
    by_hand(of_tensor_base(written.add_)),
    *declare(
        "sub",
        "(Tensor other, *, Number alpha = 1)",
        op=table.sub,
        function=arithmetic.sub,
        keywords=("alpha",),
        args=("other",),
        numbers_as_tensors=True,
        hidden=True,
        doc="``self - alpha * other``: ``sub(other, *, alpha=1)``.",
        inplace=table.sub_,
        inplace_doc="In place ``self -= alpha * other``.",
    ),
    *declare(
        "mul",
        "(Tensor other)",
        op=table.mul,
        function=arithmetic.mul,
        numbers_as_tensors=True,
        doc="``self * other``.",
        inplace=table.mul_,
        inplace_doc="In place ``self *= other``.",
    ),
    by_hand(of_tensor_base(written.div), function=arithmetic.div),
    by_hand(of_tensor_base(written.div_)),
    *declare(
        "pow",
        "(Tensor exponent)",
        "(Number exponent)",
        op=table.pow,
        function=arithmetic.pow,
        doc="``self ** exponent``.",
        inplace=table.pow_,
        inplace_doc="In place ``self **= exponent``.",
    ),
    *declare(
        "floor_divide",
        *OTHER,
        op=table.floor_divide,
        function=arithmetic.floor_divide,
        doc="``self // other``, rounded down: ``floor_divide(other)``.",
        inplace=table.floor_divide_,
        inplace_doc="``self //= other``: ``floor_divide_(other)``.",
    ),
    *declare(
        "remainder",
        *OTHER,
        op=table.remainder,
        function=arithmetic.remainder,
        doc="``self % other``, with the divisor's sign: ``remainder(other)``.",
        inplace=table.remainder_,
        inplace_doc="``self %= other``: ``remainder_(other)``.",
    ),
    by_hand(of_table(table.square, NoArguments("square")), **UNARY),
    by_hand(of_table(table.square_, NoArguments("square_")), function=INPUT),
    # ------------------------------------------------------------ pointwise, one tensor
    *declare(
        "neg",
        op=table.neg,
        **EXACT_OUT,
        inplace_function=True,
        doc="``-self``.",
        inplace=table.neg_,
        inplace_doc="Negate in place.",
    ),
    *declare(
        "positive",
        op=table.positive,
        function=INPUT,
        function_returns="Tensor",
        doc="``self`` itself (``+self``), refused for a bool tensor.",
    ),
    *declare(
        "exp",
        op=table.exp,
        **UNARY,
        inplace_function=True,
        doc="Elementwise exponential (saves its result).",
        inplace=table.exp_,
        inplace_doc="Exponential in place (saves the new value).",
    ),
    *declare(
        "log",
        op=table.log,
        **UNARY,
        inplace_function=True,
        doc="Elementwise natural log (saves its input).",
        inplace=table.log_,
        inplace_doc="Natural log in place (saves the value before the write).",
    ),
    *declare(
        "sqrt",
        op=table.sqrt,
        **UNARY,
        inplace_function=True,
        doc="Elementwise square root (saves its result).",
        inplace=table.sqrt_,
        inplace_doc="Square root in place (saves the new value).",
    ),
    *declare(
        "abs",
        op=table.abs,
        **EXACT_OUT,
        inplace_function=True,
        aliases=("absolute",),
        doc="Elementwise absolute value (saves its input).",
        inplace=table.abs_,
        inplace_doc="Absolute value in place (saves the value before the write).",
    ),
    *declare(
        "sign",
        op=table.sign,
        **EXACT_OUT,
        doc="Elementwise -1, 0 or 1 (``SignBackward0``: a zero gradient).",
    ),
    *declare(
        "reciprocal",
        op=table.reciprocal,
        **POINTWISE,
        doc="Elementwise ``1 / self`` (saves its result); integers give the default float dtype.",
    ),
    *declare(
        "sigmoid",
        op=table.sigmoid,
        **UNARY,
        inplace_function=True,
        doc="Elementwise logistic function (saves its result).",
        inplace=table.sigmoid_,
        inplace_doc="Sigmoid in place (saves the new value).",
    ),
    *declare(
        "tanh",
        op=table.tanh,
        **UNARY,
        inplace_function=True,
        doc="Elementwise tanh (saves its result).",
        inplace=table.tanh_,
        inplace_doc="Tanh in place (saves the new value).",
    ),
    *declare(
        "sin",
        op=table.sin,
        **UNARY,
        inplace_function=True,
        doc="Elementwise sine (saves its input).",
        inplace=table.sin_,
        inplace_doc="Sine in place (saves the value before the write).",
    ),
    *declare(
        "cos",
        op=table.cos,
        **UNARY,
        inplace_function=True,
        doc="Elementwise cosine (saves its input).",
        inplace=table.cos_,
        inplace_doc="Cosine in place (saves the value before the write).",
    ),
    *declare(
        "relu",
        op=table.relu,
        function=INPUT,
        function_returns="Tensor",
        inplace_function=True,
        doc="Elementwise max(x, 0) (saves its result).",
        inplace=table.relu_,
        inplace_doc="ReLU in place.",
    ),
    *declare(
        "floor",
        op=table.floor,
        **EXACT_OUT,
        inplace_function=True,
        doc="The largest whole number not above each element.",
        inplace=table.floor_,
    ),
    *declare(
        "ceil",
        op=table.ceil,
        **EXACT_OUT,
        inplace_function=True,
        doc="The smallest whole number not below each element.",
        inplace=table.ceil_,
    ),
    *declare(
        "trunc",
        op=table.trunc,
        **EXACT_OUT,
        inplace_function=True,
        doc="Each element with its fraction dropped (toward zero).",
        inplace=table.trunc_,
    ),
    by_hand(
        of_tensor_base(written.round),
        of=written.ROUND,
        function=INPUT_OUT,
        writes_out=True,
        same_dtype=True,
    ),
    by_hand(of_tensor_base(written.round_), of=written.ROUND_, function=INPUT),
    *declare(
        "log1p",
        op=table.log1p,
        **UNARY,
        inplace_function=True,
        doc="``log(1 + self)``, exact near 0.",
        inplace=table.log1p_,
    ),
    *declare(
        "expm1",
        op=table.expm1,
        **UNARY,
        inplace_function=True,
        doc="``exp(self) - 1``, exact near 0.",
        inplace=table.expm1_,
    ),
    *declare(
        "erf",
        op=table.erf,
        **UNARY,
        inplace_function=True,
        doc="The error function of each element.",
        inplace=table.erf_,
    ),
    *declare(
        "nan_to_num",
        "(float? nan = None, float? posinf = None, float? neginf = None)",
        op=table.nan_to_num,
        function=INPUT_OUT,
        inplace_function=True,
        doc="NaN, +inf and -inf replaced: ``nan_to_num(nan=0.0, posinf=None, neginf=None)``.",
        inplace=table.nan_to_num_,
    ),
    # ------------------------------------------------------------ pointwise, two tensors
    *declare(
        "maximum",
        "(Tensor other)",
        op=table.maximum,
        **POINTWISE,
        doc="The elementwise larger of ``self`` and the tensor ``other``: ``maximum(other)``.",
    ),
    *declare(
        "minimum",
        "(Tensor other)",
        op=table.minimum,
        **POINTWISE,
        doc="The elementwise smaller of ``self`` and the tensor ``other``: ``minimum(other)``.",
    ),
    *declare(
        "clamp",
        "(Tensor min = None, Tensor max = None)",
        "(Number min = None, Number max = None)",
        op=table.clamp,
        **POINTWISE,
        same_dtype=no_tensor_bound,
        function_returns="Tensor",
        aliases=("clip",),
        doc="Elementwise clamp into [min, max] (saves its input): ``clamp(min=None, max=None)``.",
    ),
    *declare(
        "clamp_",
        "(Tensor min = None, Tensor max = None)",
        "(Number min = None, Number max = None)",
        op=table.clamp_,
        function=INPUT,
        aliases=("clip_",),
        doc="Clamp in place: ``clamp_(min=None, max=None)``.",
    ),
    *declare(
        "clamp_min",
        "(Tensor min)",
        "(Number min)",
        op=table.clamp_min,
        **POINTWISE,
        same_dtype=no_tensor_bound,
        inplace_function=True,
        doc="``clamp(min=min)``: ``clamp_min(min)``, a number or a tensor.",
        inplace=table.clamp_min_,
        inplace_doc="``clamp_min`` in place: ``clamp_min_(min)``.",
    ),
    *declare(
        "clamp_max",
        "(Tensor max)",
        "(Number max)",
        op=table.clamp_max,
        **POINTWISE,
        same_dtype=no_tensor_bound,
        inplace_function=True,
        doc="``clamp(max=max)``: ``clamp_max(max)``, a number or a tensor.",
        inplace=table.clamp_max_,
        inplace_doc="``clamp_max`` in place: ``clamp_max_(max)``.",
    ),
    *declare(
        "masked_fill",
        "(Tensor mask, Tensor value)",
        "(Tensor mask, Number value)",
        op=table.masked_fill,
        function=INPUT,
        doc="``value`` where ``mask`` is True: ``masked_fill(mask, value)``.",
        inplace=table.masked_fill_,
        inplace_doc="Write ``value`` where ``mask`` is True: ``masked_fill_(mask, value)``.",
    ),
    by_hand(of_tensor_base(written.where), function=arithmetic.where),
    # ------------------------------------------------------------ comparisons and logic
    *declare(
        "eq",
        *OTHER,
        op=table.eq,
        **UNARY,
        doc="Elementwise ``==`` as a bool tensor.",
    ),
    *declare(
        "ne",
        *OTHER,
        op=table.ne,
        **POINTWISE,
        doc="Elementwise ``!=`` as a bool tensor.",
    ),
    *declare(
        "lt", *OTHER, op=table.lt, function=INPUT_OUT, writes_out=True, doc="Elementwise ``<``."
    ),
    *declare(
        "le", *OTHER, op=table.le, function=INPUT_OUT, writes_out=True, doc="Elementwise ``<=``."
    ),
    *declare(
        "gt", *OTHER, op=table.gt, function=INPUT_OUT, writes_out=True, doc="Elementwise ``>``."
    ),
    *declare(
        "ge", *OTHER, op=table.ge, function=INPUT_OUT, writes_out=True, doc="Elementwise ``>=``."
    ),
    *declare(
        "isnan",
        op=table.isnan,
        function=INPUT,
        function_returns="Tensor",
        doc="Where the elements are NaN, as a bool tensor (never recorded).",
    ),
    *declare(
        "isinf",
        op=table.isinf,
        function=INPUT,
        function_returns="Tensor",
        doc="Where the elements are ``inf`` or ``-inf``, as a bool tensor.",
    ),
    *declare(
        "isfinite",
        op=table.isfinite,
        function=INPUT,
        function_returns="Tensor",
        doc="Where the elements are neither NaN nor infinite, as a bool tensor.",
    ),
    *declare(
        "isclose",
        "(Tensor other, float rtol = 1e-05, float atol = 1e-08, bool equal_nan = False)",
        op=table.isclose,
        function=INPUT,
        doc="Elementwise ``|self - other| <= atol + rtol * |other|`` (a bool tensor):\n"
        "``isclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)``.",
    ),
    *declare(
        "allclose",
        "(Tensor other, float rtol = 1e-05, float atol = 1e-08, bool equal_nan = False)",
        op=table.allclose,
        function=INPUT,
        returns="builtins.bool",
        doc="Whether ``isclose`` holds for every element (a Python bool):\n"
        "``allclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)``.",
    ),
    by_hand(of_tensor_base(written.equal), function=arithmetic.equal, returns="builtins.bool"),
    *declare(
        "logical_and",
        "(Tensor other)",
        op=table.logical_and,
        **POINTWISE,
        doc="Elementwise ``and`` as a bool tensor: ``logical_and(other)``.",
    ),
    *declare(
        "logical_or",
        "(Tensor other)",
        op=table.logical_or,
        **POINTWISE,
        doc="Elementwise ``or`` as a bool tensor: ``logical_or(other)``.",
    ),
    *declare(
        "logical_not",
        op=table.logical_not,
        **POINTWISE,
        doc="Elementwise ``not`` as a bool tensor (``x == 0``, any dtype).",
    ),
    *declare(
        "bitwise_and",
        *OTHER,
        op=table.bitwise_and,
        **POINTWISE,
        doc="``self & other`` of bool or integer tensors: ``bitwise_and(other)``.",
        inplace=table.bitwise_and_,
        inplace_doc="``self &= other`` in place: ``bitwise_and_(other)``.",
    ),
    *declare(
        "bitwise_or",
        *OTHER,
        op=table.bitwise_or,
        **POINTWISE,
        doc="``self | other`` of bool or integer tensors: ``bitwise_or(other)``.",
        inplace=table.bitwise_or_,
        inplace_doc="``self |= other`` in place: ``bitwise_or_(other)``.",
    ),
    *declare(
        "bitwise_xor",
        *OTHER,
        op=table.bitwise_xor,
        **POINTWISE,
        doc="``self ^ other`` of bool or integer tensors: ``bitwise_xor(other)``.",
        inplace=table.bitwise_xor_,
        inplace_doc="``self ^= other`` in place: ``bitwise_xor_(other)``.",
    ),
    *declare(
        "bitwise_left_shift",
        *OTHER,
        op=table.bitwise_left_shift,
        function=arithmetic.bitwise_left_shift,
        doc="``self << other`` of integer tensors: ``bitwise_left_shift(other)``.",
        inplace=table.bitwise_left_shift_,
        inplace_doc="``self <<= other`` in place: ``bitwise_left_shift_(other)``.",
    ),
    *declare(
        "bitwise_right_shift",
        *OTHER,
        op=table.bitwise_right_shift,
        function=arithmetic.bitwise_right_shift,
        doc="``self >> other`` of integer tensors: ``bitwise_right_shift(other)``.",
        inplace=table.bitwise_right_shift_,
        inplace_doc="``self >>= other`` in place: ``bitwise_right_shift_(other)``.",
    ),
    # ------------------------------------------------------------ reductions
    by_hand(of_tensor_base(written.sum), function=reductions.sum),
    by_hand(of_tensor_base(written.mean), function=reductions.mean),
    by_hand(of_tensor_base(written.max), function=reductions.max, returns="Any"),
    by_hand(of_tensor_base(written.min), function=reductions.min, returns="Any"),
    by_hand(
        of_tensor_base(written.prod),
        function=(
            "(Tensor input, *, torch.dtype dtype = None)",
            "(Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)",
        ),
    ),
    by_hand(of_tensor_base(written.std), function=MOMENTS),
    by_hand(of_tensor_base(written.var), function=MOMENTS),
    by_hand(written.norm),
    *declare(
        "argmax",
        "(int dim = None, bool keepdim = False)",
        op=table.argmax,
        function=INPUT_OUT,
        function_returns="Tensor",
        doc="Index of the maximum (flattened when ``dim`` is None): "
        "``argmax(dim=None, keepdim=False)``.",
    ),
    *declare(
        "argmin",
        "(int dim = None, bool keepdim = False)",
        op=table.argmin,
        function=INPUT_OUT,
        function_returns="Tensor",
        doc="Index of the minimum (flattened when ``dim`` is None): "
        "``argmin(dim=None, keepdim=False)``.",
    ),
    *declare(
        "amax",
        "(tuple of ints[1]? dim = None, bool keepdim = False)",
        op=table.amax,
        function=INPUT_OUT,
        doc="The largest value over ``dim`` (all dims by default): ``amax(dim=[], keepdim=False)``.",
    ),
    *declare(
        "amin",
        "(tuple of ints[1]? dim = None, bool keepdim = False)",
        op=table.amin,
        function=INPUT_OUT,
        doc="The smallest value over ``dim`` (all dims by default): "
        "``amin(dim=[], keepdim=False)``.",
    ),
    *declare(
        "all",
        "()",
        "(tuple of ints dim = None, bool keepdim = False)",
        "(int dim, bool keepdim = False)",
        op=table.all,
        function=INPUT_OUT,
        args=("dim=None", "keepdim=False"),
        doc="Whether every element is true (a bool tensor), over all dims or over ``dim``:\n"
        "``all()``, ``all(dim=None, keepdim=False)`` with ``dim`` an int or a tuple of ints.",
    ),
    *declare(
        "any",
        "()",
        "(tuple of ints dim = None, bool keepdim = False)",
        "(int dim, bool keepdim = False)",
        op=table.any,
        function=INPUT_OUT,
        args=("dim=None", "keepdim=False"),
        doc="Whether some element is true (a bool tensor), over all dims or over ``dim``:\n"
        "``any()``, ``any(dim=None, keepdim=False)`` with ``dim`` an int or a tuple of ints.",
    ),
    *declare(
        "nansum",
        "(tuple of ints[1]? dim = None, bool keepdim = False, *, torch.dtype dtype = None)",
        op=table.nansum,
        function=INPUT_OUT,
        args=("dim", "keepdim"),
        keywords=("dtype",),
        doc="The sum with NaN as 0: ``nansum(dim=None, keepdim=False, *, dtype=None)``.",
    ),
    *declare(
        "logsumexp",
        "(tuple of ints[1] dim, bool keepdim = False)",
        op=table.logsumexp,
        function=INPUT_OUT,
        doc="``log(sum(exp(self), dim))`` without overflow: ``logsumexp(dim, keepdim=False)``.",
    ),
    *declare(
        "softmax",
        "(int dim, torch.dtype dtype = None)",
        op=table.softmax,
        function=INPUT,
        function_returns="Tensor",
        doc="Softmax over ``dim`` (saves its result): ``softmax(dim, dtype=None)``.",
    ),
    *declare(
        "log_softmax",
        "(int dim, torch.dtype dtype = None)",
        op=table.log_softmax,
        function=INPUT,
        function_returns="Tensor",
        doc="Log-softmax over ``dim`` (stable; saves its result): ``log_softmax(dim, dtype=None)``.",
    ),
    *declare(
        "cumsum",
        *OVER_DIM,
        op=table.cumsum,
        function=INPUT_OUT,
        doc="Running sums along ``dim``: ``cumsum(dim, *, dtype=None)``.",
        inplace=table.cumsum_,
        inplace_doc="``cumsum`` in place: ``cumsum_(dim, *, dtype=None)``.",
    ),
    *declare(
        "cumprod",
        *OVER_DIM,
        op=table.cumprod,
        function=INPUT_OUT,
        doc="Running products along ``dim``: ``cumprod(dim, *, dtype=None)``.",
        inplace=table.cumprod_,
        inplace_doc="``cumprod`` in place: ``cumprod_(dim, *, dtype=None)``.",
    ),
    # ------------------------------------------------------------ sorting and selection
    by_hand(
        of_tensor_base(written.sort),
        returns="Any",
        function=(
            "(Tensor input, *, bool? stable, int dim = -1, bool descending = False, "
            "tuple of Tensors out = None)",
            "(Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)",
        ),
    ),
    *declare(
        "argsort",
        "(*, bool stable, int dim = -1, bool descending = False)",
        "(int dim = -1, bool descending = False)",
        op=table.argsort,
        function=(
            "(Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)",
            "(Tensor input, int dim = -1, bool descending = False)",
        ),
        args=("dim", "descending", "stable=False"),
        doc="The indices of ``sort``: ``argsort(dim=-1, descending=False, *, stable=False)``.",
    ),
    *declare(
        "topk",
        "(int k, int dim = -1, bool largest = True, bool sorted = True)",
        op=table.topk,
        function="(Tensor input, int k, int dim = -1, bool largest = True, bool sorted = True, *, "
        "tuple of Tensors out = None)",
        returns="Any",
        doc="The ``k`` largest (or smallest) along ``dim`` with their indices:\n"
        "``topk(k, dim=-1, largest=True, sorted=True)``.",
    ),
    *declare(
        "gather",
        "(int dim, Tensor index, *, bool sparse_grad = False)",
        op=table.gather,
        function=INPUT_OUT,
        doc="``self`` read at ``index`` along ``dim``: ``gather(dim, index, *, sparse_grad=False)``.",
    ),
    *declare(
        "index_select",
        "(int dim, Tensor index)",
        op=table.index_select,
        function=INPUT_OUT,
        doc="The slices along ``dim`` at a vector of indices: ``index_select(dim, index)``.",
    ),
    *declare(
        "flip",
        "(tuple of ints dims)",
        op=table.flip,
        function=INPUT,
        doc="The elements in reverse order along each of ``dims``, a new tensor: ``flip(*dims)``.",
    ),
    *declare(
        "repeat",
        "(tuple of ints repeats)",
        op=table.repeat,
        doc="The tensor tiled along each dim, a new tensor: ``repeat(*repeats)``.",
    ),
    *declare(
        "tril",
        "(int diagonal = 0)",
        op=table.tril,
        function=INPUT_OUT,
        doc="The lower triangle of the last two dims, zeros above: ``tril(diagonal=0)``.",
        inplace=table.tril_,
        inplace_doc="``tril`` in place: ``tril_(diagonal=0)``.",
    ),
    *declare(
        "triu",
        "(int diagonal = 0)",
        op=table.triu,
        function=INPUT_OUT,
        doc="The upper triangle of the last two dims, zeros below: ``triu(diagonal=0)``.",
        inplace=table.triu_,
        inplace_doc="``triu`` in place: ``triu_(diagonal=0)``.",
    ),
    # ------------------------------------------------------------ views (``T``, ``mT``: core/tensor.py)
    *declare(
        "view",
        "(torch.dtype dtype)",
        "(tuple of ints size)",
        op=table.view,
        args=("size=None",),
        keywords=("dtype=None",),
        doc="Same storage, new shape (fails when the strides do not allow it).",
    ),
    *declare(
        "reshape",
        "(tuple of ints shape)",
        op=table.reshape,
        function=INPUT,
        doc="A view when the strides allow it, else a copy.",
    ),
    *declare(
        "transpose",
        "(int dim0, int dim1)",
        op=table.transpose,
        function=INPUT,
        doc="Two dimensions swapped (a view): ``transpose(dim0, dim1)``.",
    ),
    *declare(
        "permute",
        "(tuple of ints dims)",
        op=table.permute,
        function=INPUT,
        doc="Dimensions reordered (a view).",
    ),
    *declare(
        "expand",
        "(tuple of ints size, *, bool implicit = False)",
        op=table.expand,
        args=("size",),
        doc="Size-1 dimensions repeated with stride 0 (a view; writing into it is refused).",
    ),
    *declare(
        "unsqueeze",
        "(int dim)",
        op=table.unsqueeze,
        function=INPUT,
        doc="A new size-1 dimension at ``dim`` (a view): ``unsqueeze(dim)``.",
    ),
    *declare(
        "squeeze",
        "()",
        "(int dim)",
        "(tuple of ints dim)",
        op=table.squeeze,
        function=INPUT,
        args=("dim=None",),
        doc="Size-1 dimensions removed (a view): ``squeeze()``, ``squeeze(dim)``, ``squeeze(dims)``.",
    ),
    *declare(
        "select",
        "(int dim, int index)",
        op=table.select,
        function=INPUT,
        doc="Index ``index`` of ``dim``, removing it (a view): ``select(dim, index)``.",
    ),
    *declare(
        "t",
        op=table.t,
        function=INPUT,
        doc="Transpose of a tensor of at most 2 dimensions (a view).",
    ),
    by_hand(of_tensor_base(written.swapdims)),
    by_hand(of_tensor_base(written.swapaxes)),
    *declare(
        "flatten",
        "(int start_dim = 0, int end_dim = -1)",
        op=table.flatten,
        function=INPUT,
        doc="Merge dimensions ``start_dim..end_dim`` (a view when possible).",
    ),
    *declare(
        "diagonal",
        "(int offset = 0, int dim1 = 0, int dim2 = 1)",
        op=table.diagonal,
        function=INPUT,
        doc="The diagonal of two dims as one last dim (a view): ``diagonal(offset=0, dim1=0,\n"
        "dim2=1)``.",
    ),
    by_hand(of_tensor_base(written.narrow), of=written.NARROW, function=INPUT),
    # ops of the table, called by name: torch's mode sees ``view_as``, not ``view``
    by_hand(of_table(table.view_as, sig.VIEW_AS)),
    by_hand(of_table(table.reshape_as, sig.RESHAPE_AS)),
    by_hand(of_table(table.expand_as, sig.EXPAND_AS)),
    *declare(
        "unbind",
        "(int dim = 0)",
        op=table.unbind,
        function=INPUT,
        returns="tuple[Tensor, ...]",
        doc="All slices along ``dim`` (multi-output views: refuse in-place with grad on).",
    ),
    *declare(
        "chunk",
        "(int chunks, int dim = 0)",
        op=table.chunk,
        function=INPUT,
        returns="tuple[Tensor, ...]",
        doc="``chunks`` nearly equal pieces along ``dim`` (multi-output views).",
    ),
    by_hand(written.split, function=views.split),
    by_hand(of_tensor_base(written.split_with_sizes)),
    by_hand(of_tensor_base(written.unsafe_chunk), of=written.UNSAFE_CHUNK, function=INPUT),
    by_hand(of_tensor_base(written.unsafe_split), of=written.UNSAFE_SPLIT, function=INPUT),
    by_hand(
        of_tensor_base(written.unsafe_split_with_sizes),
        of=written.UNSAFE_SPLIT_WITH_SIZES,
        function=INPUT,
    ),
    # ------------------------------------------------------------ matrix products (BLAS)
    by_hand(of_tensor_base(written.matmul), function=products.matmul),
    by_hand(of_tensor_base(written.mm), function=products.mm),
    by_hand(of_tensor_base(written.mv), function=products.mv),
    *declare(
        "bmm",
        "(Tensor mat2)",
        op=table.bmm,
        function=products.bmm,
        doc="Batched matrix product of two 3-D tensors: ``bmm(mat2)``.",
    ),
    by_hand(of_tensor_base(written.addmm), function=products.addmm),
    by_hand(of_tensor_base(written.dot), function=products.dot),
    *declare(
        "outer",
        "(Tensor vec2)",
        op=table.outer,
        function=INPUT_OUT,
        doc="The outer product with the vector ``vec2``: ``outer(vec2)``.",
    ),
    # ------------------------------------------------------------ writes in place
    *declare("zero_", op=table.zero_, function=INPUT, doc="Fill with zeros in place."),
    *declare(
        "fill_",
        "(Tensor value)",
        "(Number value)",
        op=table.fill_,
        function=INPUT,
        doc="Fill with ``value`` in place.",
    ),
    by_hand(of_tensor_base(written.copy_)),
    by_hand(of_tensor_base(written.normal_)),
    by_hand(of_tensor_base(written.uniform_)),
    by_hand(of_tensor_base(written.bernoulli_)),
    by_hand(of_tensor_base(written.bernoulli)),
    *declare(
        "t_", op=table.t_, doc="Transpose in place: new geometry, version + 1 (``TBackward1``)."
    ),
    by_hand(of_tensor_base(written.transpose_)),
    by_hand(of_tensor_base(written.swapdims_)),
    by_hand(of_tensor_base(written.swapaxes_)),
    by_hand(of_tensor_base(written.squeeze_)),
    by_hand(of_tensor_base(written.unsqueeze_)),
    by_hand(
        of_tensor_base(written.as_strided_),
        function="(Tensor input, tuple of ints size, tuple of ints stride, int storage_offset = None)",
    ),
    *declare(
        "resize_",
        "(tuple of ints size, *, torch.memory_format memory_format = None)",
        op=table.resize_,
        doc="New sizes in place, the storage grown when too small (see\n"
        "``ownership.ops.resizing``); bumps the version only when the sizes change.",
    ),
    *declare(
        "resize_as_",
        "(Tensor the_template, *, torch.memory_format memory_format = None)",
        op=table.resize_as_,
        function=INPUT,
        doc="``resize_(the_template.shape)``.",
    ),
    # ------------------------------------------------------------ copies, conversions, new tensors
    by_hand(of_tensor_base(written.clone), function=INPUT),
    by_hand(of_tensor_base(written.contiguous)),
    by_hand(of_tensor_base(written.to)),
    # the conversions: ops of the table, called by name (torch's mode sees ``float``, not ``to``)
    by_hand(of_table(table.type_as, sig.TYPE_AS)),
    by_hand(of_tensor_base(of_table(table.type)), returns="Any"),
    by_hand(of_table(table.float, sig.FLOAT)),
    by_hand(of_table(table.double, sig.DOUBLE)),
    by_hand(of_table(table.long, sig.LONG)),
    by_hand(of_table(table.int, sig.INT)),
    by_hand(of_table(table.bool, sig.BOOL)),
    by_hand(of_table(table.cpu, sig.CPU)),
    by_hand(of_table(table.is_contiguous, sig.IS_CONTIGUOUS)),
    # the new_* methods: ops of the table, called by name (torch's mode sees ``new_zeros``)
    by_hand(of_tensor_base(of_table(table.new_zeros))),
    by_hand(of_tensor_base(of_table(table.new_ones))),
    by_hand(of_tensor_base(of_table(table.new_empty))),
    by_hand(of_tensor_base(of_table(table.new_full))),
    by_hand(of_tensor_base(of_table(table.new_tensor))),
    # ------------------------------------------------------------ a tensor's own state (core's)
    own_state(
        table.__repr__,
        method_of=PythonArguments(_repr_parameters, "Tensor.__repr__"),
    ),
    own_state(table.size, method_of=SIZE),
    own_state(table.stride, method_of=Signatures("stride", "(int dim = None)")),
    own_state(table.dim, takes_none=True),
    own_state(table.numel, takes_none=True),
    own_state(table.numel, "nelement", takes_none=True),
    own_state(table.element_size, takes_none=True),
    own_state(table.storage_offset, takes_none=True),
    own_state(table.data_ptr, takes_none=True),
    own_state(table.untyped_storage, takes_none=True),
    own_state(table.is_floating_point, takes_none=True),
    own_state(
        table.requires_grad_,
        method_of=Signatures("requires_grad_", "(bool requires_grad = True)"),
    ),
    own_state(table.retain_grad, takes_none=True),
    own_state(
        table.backward,
        method_of=PythonArguments(_backward_parameters, "Tensor.backward"),
    ),
    own_state(table.is_inference, takes_none=True),
    own_state(table.detach, takes_none=True),
    own_state(table.detach_, takes_none=True),
    # ------------------------------------------------------------ leaving the engine
    *(operator(method, FIRST_CHECKS.get(method.__name__)) for method in CONVERSIONS),
    # ------------------------------------------------------------ operators: x + y, x[i], x += y
    *(operator(method) for method in OPERATORS),
]
"""Every declared Tensor method, by op family."""
