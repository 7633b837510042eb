"""The declarations of the ``torch`` functions and factories whose arguments the engine checks as
torch does, those of the Tensor methods written by hand (``type``, ``new_*``, ``var``), and the
rules of a sized call (:func:`bind_sized`).

Each :class:`~ownership.core.binder.Signatures` holds a function's overloads exactly as torch 2.13
prints them in its ``TypeError`` messages (data: the function's declaration); the function binds
its ``*args, **kwargs`` through it, with torch's parser once installed (parity). The Tensor
methods that core writes declare theirs beside them (:mod:`ownership.core.tensor_metadata`).

>>> FN_SUM.parse((), {})
Traceback (most recent call last):
...
TypeError: sum() received an invalid combination of arguments - got (), but expected one of:
 * (Tensor input, *, torch.dtype dtype = None)
 * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)
<BLANKLINE>
"""

from __future__ import annotations

from typing import Any

from ownership.core.binder import Signatures

# ---------------------------------------------------------------- Tensor methods written by hand
TYPE = Signatures(
    "type",
    "(object dtype = None, bool non_blocking = False, *, torch.memory_format memory_format = None)",
)
VIEW_AS, RESHAPE_AS, EXPAND_AS, TYPE_AS = (
    Signatures(name, "(Tensor other)") for name in ("view_as", "reshape_as", "expand_as", "type_as")
)
FLOAT, DOUBLE, LONG, INT, BOOL, CPU = (
    Signatures(name, "(*, torch.memory_format memory_format = None)")
    for name in ("float", "double", "long", "int", "bool", "cpu")
)
"""The conversions, which take only a ``memory_format`` (``to``'s)."""
IS_CONTIGUOUS = Signatures(
    "is_contiguous", "(*, torch.memory_format memory_format = contiguous_format)"
)
"""``is_contiguous``'s: a format (None is refused: the default is a format, not None)."""
VAR_OVERLOADS = (
    "(tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False)",
    "(tuple of ints[1]? dim = None, *, Number correction = None, bool keepdim = False)",
    "(bool unbiased = True)",
)
"""``var``'s three overloads (``var_mean``'s too): only the second takes ``correction``."""


# ---------------------------------------------------------------- new_* methods
FACTORY = (
    "*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
)
"""The keywords of torch's factories (``zeros``, ``eye``, ...: their declarations below)."""
NEW_OPTIONS = FACTORY.replace("Tensor out = None, ", "")
"""The keywords of a tensor's ``new_*`` methods: a factory's, without ``out``."""
NEW_ZEROS, NEW_ONES, NEW_EMPTY = (
    Signatures(name, f"(tuple of ints size, {NEW_OPTIONS}")
    for name in ("new_zeros", "new_ones", "new_empty")
)
NEW_FULL = Signatures("new_full", f"(tuple of ints size, Number fill_value, {NEW_OPTIONS}")


def given(**options: Any) -> dict[str, Any]:
    """The keywords a call gave of ``options``, those that are None left out: a factory's own
    keyword defaults are None, and torch's messages list only the keywords a call wrote.

    >>> given(dtype=None, device="cpu")
    {'device': 'cpu'}
    """
    return {k: v for k, v in options.items() if v is not None}


def bind_sized(declared: Signatures, size: tuple[Any, ...], **options: Any) -> dict[str, Any]:
    """The arguments of a call ``declared(*size, **options)`` of a function whose first parameter
    is a size (``new_zeros``, ``torch.zeros``): bound by its declaration (its ``dtype`` a dtype
    or None once the parser is installed), the size never negative (:func:`non_negative`);
    ``options`` are the keywords given (``dtype``, ``device``, ``generator``; one that is None
    is left out).

    >>> bind_sized(NEW_ZEROS, ((2, 3),))["size"]
    (2, 3)
    >>> bind_sized(NEW_ZEROS, ((2, -1),))
    Traceback (most recent call last):
    ...
    RuntimeError: Trying to create tensor with negative dimension -1: [2, -1]
    """
    bound: dict[str, Any] = declared.parse(size, given(**options))[1]
    non_negative(bound["size"], declared.name)
    return bound


def non_negative(shape: tuple[int, ...], name: str = "") -> None:
    """torch's error for a negative dimension in a new tensor's shape."""
    for s in shape:
        if s < 0 and name == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )


# ---------------------------------------------------------------- torch.* functions
OUT = "*, Tensor out = None"
FN_SUM = Signatures(
    "sum",
    "(Tensor input, *, torch.dtype dtype = None)",
    "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None)",
)
FN_MEAN = Signatures(
    "mean",
    "(Tensor input, *, torch.dtype dtype = None)",
    "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None)",
)
FN_MAX = Signatures(
    "max",
    f"(Tensor input, {OUT})",
    f"(Tensor input, Tensor other, {OUT})",
    "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)",
)
FN_MIN = Signatures(
    "min",
    f"(Tensor input, {OUT})",
    f"(Tensor input, Tensor other, {OUT})",
    "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)",
)
FN_ADD = Signatures(
    "add",
    "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
    numbers_as_tensors=True,
    hidden=True,
)
FN_SUB = Signatures(
    "sub",
    "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
    numbers_as_tensors=True,
    hidden=True,
)
FN_MUL = Signatures("mul", f"(Tensor input, Tensor other, {OUT})", numbers_as_tensors=True)
FN_DIV = Signatures(
    "div",
    f"(Tensor input, Tensor other, {OUT})",
    "(Tensor input, Tensor other, *, str? rounding_mode, Tensor out = None)",
    "(Tensor input, Number other, *, str? rounding_mode)",
    numbers_as_tensors=True,
)
FN_POW = Signatures(
    "pow",
    f"(Tensor input, Tensor exponent, {OUT})",
    f"(Number self, Tensor exponent, {OUT})",
    f"(Tensor input, Number exponent, {OUT})",
)
FN_MATMUL = Signatures("matmul", f"(Tensor input, Tensor other, {OUT})")
FN_MM = Signatures(
    "mm",
    f"(Tensor input, Tensor mat2, {OUT})",
    f"(Tensor input, Tensor mat2, torch.dtype out_dtype, {OUT})",
)
FN_BMM = Signatures(
    "bmm",
    f"(Tensor input, Tensor mat2, {OUT})",
    f"(Tensor input, Tensor mat2, torch.dtype out_dtype, {OUT})",
)
FN_MV = Signatures("mv", f"(Tensor input, Tensor vec, {OUT})")
FN_DOT = Signatures("dot", f"(Tensor input, Tensor tensor, {OUT})")
FN_WHERE = Signatures(
    "where",
    "(Tensor condition)",
    f"(Tensor condition, Tensor input, Tensor other, {OUT})",
    "(Tensor condition, Number self, Tensor other)",
    "(Tensor condition, Tensor input, Number other)",
    "(Tensor condition, Number self, Number other)",
)
PROMOTE_TYPES = Signatures("promote_types", "(torch.dtype type1, torch.dtype type2)")
FN_CAT = Signatures("cat", f"(tuple of Tensors tensors, int dim = 0, {OUT})")
FN_STACK = Signatures("stack", f"(tuple of Tensors tensors, int dim = 0, {OUT})")


# ---------------------------------------------------------------- factories
# (their keywords, FACTORY, and the size rules are core's: the new_* methods share them)
SIZED = {
    **{
        name: Signatures(name, f"(tuple of ints size, {FACTORY}")
        for name in ("zeros", "ones", "empty")
    },
    **{
        name: Signatures(
            name,
            f"(tuple of ints size, *, torch.Generator generator, {FACTORY[3:]}",
            f"(tuple of ints size, {FACTORY}",
        )
        for name in ("rand", "randn")
    },
}
LIKE_OPTIONS = (
    "torch.memory_format memory_format = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)"
)
RANDOM_LIKE = {
    name: Signatures(
        name,
        f"(Tensor input, *, torch.Generator generator, {LIKE_OPTIONS}",
        f"(Tensor input, *, {LIKE_OPTIONS}",
    )
    for name in ("rand_like", "randn_like")
}
EYE = Signatures("eye", f"(int n, {FACTORY}", f"(int n, int m, {FACTORY}")
ARANGE = Signatures(
    "arange",
    f"(Number end, {FACTORY}",
    "(Number start, Number end, " + FACTORY.replace("Tensor out = None, ", ""),
    f"(Number start, Number end, Number step = 1, {FACTORY}",
)
LINSPACE = Signatures(
    "linspace",
    *(
        f"({a} start, {b} end, int steps, {FACTORY}"
        for a, b in (
            ("Tensor", "Tensor"),
            ("Number", "Tensor"),
            ("Tensor", "Number"),
            ("Number", "Number"),
        )
    ),
)
FULL = Signatures("full", f"(tuple of ints size, Number fill_value, {FACTORY}")
EMPTY_STRIDED = Signatures(
    "empty_strided",
    "(tuple of ints size, tuple of ints stride, " + FACTORY.replace("Tensor out = None, ", ""),
)
RANDPERM = Signatures(
    "randperm",
    f"(int n, *, torch.Generator generator, {FACTORY[3:]}",
    f"(int n, {FACTORY}",
)
RANDINT = Signatures(
    "randint",
    f"(int high, tuple of ints size, *, torch.Generator generator, {FACTORY[3:]}",
    f"(int high, tuple of ints size, {FACTORY}",
    f"(int low, int high, tuple of ints size, *, torch.Generator generator, {FACTORY[3:]}",
    f"(int low, int high, tuple of ints size, {FACTORY}",
)


def sizes(name: str, size: tuple[Any, ...], **options: Any) -> dict[str, Any]:
    """The arguments of a factory call ``name(*size, **options)`` as torch parses them
    (:func:`bind_sized` with ``name``'s declaration).

    >>> sizes("ones", (2, 3))["size"], sizes("ones", ([2, 3],), dtype=float)["dtype"]
    ((2, 3), torch.float64)
    >>> sizes("ones", (2, -1))
    Traceback (most recent call last):
    ...
    RuntimeError: Trying to create tensor with negative dimension -1: [2, -1]
    """
    return bind_sized(SIZED[name], size, **options)
