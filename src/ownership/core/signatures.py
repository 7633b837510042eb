"""The declarations of the Tensor methods whose arguments the engine checks as torch does.

Each :class:`~ownership.core.binder.Signatures` holds a method's overloads exactly as torch 2.13
prints them in its ``TypeError`` messages: data, the declaration of the method. The method binds
its ``*args, **kwargs`` through it (``SUM.parse(args, kwargs)``); the binder installed, torch's
parser (parity), refuses a float dim, a list where a tensor belongs or a missing argument with
torch's words. The declarations of the ``torch`` functions are the ops': :mod:`ownership.ops.signatures`.

>>> SUM.parse((), {"dim": 0})
(1, {'dim': (0,), 'keepdim': False, 'dtype': None})
"""

from __future__ import annotations

from typing import Any

from ownership.core.binder import Signatures

# ---------------------------------------------------------------- Tensor methods
SIZE = Signatures("size", "(int dim = None)")
TYPE = Signatures(
    "type",
    "(object dtype = None, bool non_blocking = False, *, torch.memory_format memory_format = None)",
)
SUM = Signatures(
    "sum",
    "(*, torch.dtype dtype = None)",
    "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)",
)
MEAN = Signatures(
    "mean",
    "(*, torch.dtype dtype = None)",
    "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)",
)
MAX = Signatures("max", "()", "(Tensor other)", "(int dim, bool keepdim = False)")
MIN = Signatures("min", "()", "(Tensor other)", "(int dim, bool keepdim = False)")
ARGMAX = Signatures("argmax", "(int dim = None, bool keepdim = False)")
ARGMIN = Signatures("argmin", "(int dim = None, bool keepdim = False)")
SOFTMAX = Signatures("softmax", "(int dim, torch.dtype dtype = None)")
LOG_SOFTMAX = Signatures("log_softmax", "(int dim, torch.dtype dtype = None)")
UNSQUEEZE = Signatures("unsqueeze", "(int dim)")
SQUEEZE = Signatures("squeeze", "()", "(int dim)", "(tuple of ints dim)")
TRANSPOSE = Signatures("transpose", "(int dim0, int dim1)")
SELECT = Signatures("select", "(int dim, int index)")
RESIZE_ = Signatures("resize_", "(tuple of ints size, *, torch.memory_format memory_format = None)")
RESIZE_AS_ = Signatures(
    "resize_as_", "(Tensor the_template, *, torch.memory_format memory_format = None)"
)
VIEW = Signatures("view", "(torch.dtype dtype)", "(tuple of ints size)")
RESHAPE = Signatures("reshape", "(tuple of ints shape)")
PERMUTE = Signatures("permute", "(tuple of ints dims)")
EXPAND = Signatures("expand", "(tuple of ints size, *, bool implicit = False)")
CHUNK = Signatures("chunk", "(int chunks, int dim = 0)")
UNSAFE_CHUNK = Signatures("unsafe_chunk", "(int chunks, int dim = 0)")
UNSAFE_SPLIT = Signatures("unsafe_split", "(int split_size, int dim = 0)")
UNSAFE_SPLIT_WITH_SIZES = Signatures(
    "unsafe_split_with_sizes", "(tuple of ints split_sizes, int dim = 0)"
)
VAR_OVERLOADS = (
    "(tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False)",
    "(tuple of ints[1]? dim = None, *, Number correction = None, bool keepdim = False)",
    "(bool unbiased = True)",
)
"""``var``'s three overloads (``var_mean``'s too): only the second takes ``correction``."""
VAR = Signatures("var", *VAR_OVERLOADS)
STD = Signatures("std", *VAR_OVERLOADS)
DIAGONAL = Signatures("diagonal", "(int offset = 0, int dim1 = 0, int dim2 = 1)")
NARROW = Signatures(
    "narrow", "(int dim, Tensor start, int length)", "(int dim, int start, int length)"
)
UNBIND = Signatures("unbind", "(int dim = 0)")
FLATTEN = Signatures("flatten", "(int start_dim = 0, int end_dim = -1)")
SPLIT = Signatures(
    "split",
    "(Tensor input, int split_size, int dim = 0)",
    "(Tensor input, tuple of ints split_size, int dim = 0)",
)
SPLIT_WITH_SIZES = Signatures(
    "split_with_sizes", "(Tensor input, tuple of ints split_sizes, int dim = 0)"
)

ADD = Signatures("add", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True)
SUB = Signatures("sub", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True)
MUL = Signatures("mul", "(Tensor other)", numbers_as_tensors=True)
DIV = Signatures(
    "div",
    "(Tensor other)",
    "(Tensor other, *, str? rounding_mode)",
    "(Number other, *, str? rounding_mode)",
    numbers_as_tensors=True,
)
POW = Signatures("pow", "(Tensor exponent)", "(Number exponent)")
CLAMP = Signatures(
    "clamp", "(Tensor min = None, Tensor max = None)", "(Number min = None, Number max = None)"
)
ADD_ = Signatures(
    "add_", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True
)
SUB_ = Signatures(
    "sub_", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True
)
MUL_ = Signatures("mul_", "(Tensor other)", numbers_as_tensors=True)
DIV_ = Signatures(
    "div_",
    "(Tensor other)",
    "(Tensor other, *, str? rounding_mode)",
    "(Number other, *, str? rounding_mode)",
    numbers_as_tensors=True,
)
POW_ = Signatures("pow_", "(Tensor exponent)", "(Number exponent)")
FILL_ = Signatures("fill_", "(Tensor value)", "(Number value)")
CLAMP_ = Signatures(
    "clamp_", "(Tensor min = None, Tensor max = None)", "(Number min = None, Number max = None)"
)
MASKED_FILL = Signatures(
    "masked_fill", "(Tensor mask, Tensor value)", "(Tensor mask, Number value)"
)
MASKED_FILL_ = Signatures(
    "masked_fill_", "(Tensor mask, Tensor value)", "(Tensor mask, Number value)"
)
SORT = Signatures(
    "sort",
    "(*, bool? stable, int dim = -1, bool descending = False)",
    "(int dim = -1, bool descending = False)",
)
ARGSORT = Signatures(
    "argsort",
    "(*, bool stable, int dim = -1, bool descending = False)",
    "(int dim = -1, bool descending = False)",
)
TOPK = Signatures("topk", "(int k, int dim = -1, bool largest = True, bool sorted = True)")
NAN_TO_NUM = Signatures(
    "nan_to_num", "(float? nan = None, float? posinf = None, float? neginf = None)"
)
NAN_TO_NUM_ = Signatures(
    "nan_to_num_", "(float? nan = None, float? posinf = None, float? neginf = None)"
)
ISCLOSE = Signatures(
    "isclose", "(Tensor other, float rtol = 1e-05, float atol = 1e-08, bool equal_nan = False)"
)
ALLCLOSE = Signatures(
    "allclose", "(Tensor other, float rtol = 1e-05, float atol = 1e-08, bool equal_nan = False)"
)
CUMPROD = Signatures("cumprod", "(int dim, *, torch.dtype dtype = None)")
CUMPROD_ = Signatures("cumprod_", "(int dim, *, torch.dtype dtype = None)")
NANSUM = Signatures(
    "nansum",
    "(tuple of ints[1]? dim = None, bool keepdim = False, *, torch.dtype dtype = None)",
)
REPEAT = Signatures("repeat", "(tuple of ints repeats)")
GATHER = Signatures("gather", "(int dim, Tensor index, *, bool sparse_grad = False)")
INDEX_SELECT = Signatures("index_select", "(int dim, Tensor index)")
FLIP = Signatures("flip", "(tuple of ints dims)")
AMAX = Signatures("amax", "(tuple of ints[1]? dim = None, bool keepdim = False)")
ALL = Signatures(
    "all",
    "()",
    "(tuple of ints dim = None, bool keepdim = False)",
    "(int dim, bool keepdim = False)",
)
ANY = Signatures(
    "any",
    "()",
    "(tuple of ints dim = None, bool keepdim = False)",
    "(int dim, bool keepdim = False)",
)
AMIN = Signatures("amin", "(tuple of ints[1]? dim = None, bool keepdim = False)")
TRIL = Signatures("tril", "(int diagonal = 0)")
TRIU = Signatures("triu", "(int diagonal = 0)")
TRIL_ = Signatures("tril_", "(int diagonal = 0)")
TRIU_ = Signatures("triu_", "(int diagonal = 0)")
LOGSUMEXP = Signatures("logsumexp", "(tuple of ints[1] dim, bool keepdim = False)")
REQUIRES_GRAD_ = Signatures("requires_grad_", "(bool requires_grad = True)")
COMPARE = {
    name: Signatures(name, "(Tensor other)", "(Number other)")
    for name in ("eq", "ne", "lt", "le", "gt", "ge")
}


# ---------------------------------------------------------------- new_* methods
FACTORY = (
    "*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
)
"""The keywords of torch's factories (``zeros``, ``eye``, ...; their declarations are the ops':
:mod:`ownership.ops.signatures`)."""
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
