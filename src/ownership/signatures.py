"""torch's signatures of the methods and functions whose arguments the engine checks as torch does.

Each :class:`~ownership.arguments.Parser` holds the overloads exactly as torch 2.13 prints them in
its ``TypeError`` messages; the method or function parses its ``*args, **kwargs`` with it, so a
float dim, a list where a tensor belongs or a missing argument is refused with torch's words.

>>> SUM.parse((), {"dim": 0})
(1, {'dim': (0,), 'keepdim': False, 'dtype': None})
"""

from __future__ import annotations

from typing import Any

from ownership.arguments import Parser

# ---------------------------------------------------------------- Tensor methods
SIZE = Parser("size", "(int dim = None)")
TYPE = Parser(
    "type",
    "(object dtype = None, bool non_blocking = False, *, torch.memory_format memory_format = None)",
)
SUM = Parser(
    "sum",
    "(*, torch.dtype dtype = None)",
    "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)",
)
MEAN = Parser(
    "mean",
    "(*, torch.dtype dtype = None)",
    "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)",
)
MAX = Parser("max", "()", "(Tensor other)", "(int dim, bool keepdim = False)")
MIN = Parser("min", "()", "(Tensor other)", "(int dim, bool keepdim = False)")
ARGMAX = Parser("argmax", "(int dim = None, bool keepdim = False)")
ARGMIN = Parser("argmin", "(int dim = None, bool keepdim = False)")
SOFTMAX = Parser("softmax", "(int dim, torch.dtype dtype = None)")
LOG_SOFTMAX = Parser("log_softmax", "(int dim, torch.dtype dtype = None)")
UNSQUEEZE = Parser("unsqueeze", "(int dim)")
SQUEEZE = Parser("squeeze", "()", "(int dim)", "(tuple of ints dim)")
TRANSPOSE = Parser("transpose", "(int dim0, int dim1)")
SELECT = Parser("select", "(int dim, int index)")
RESIZE_ = Parser("resize_", "(tuple of ints size, *, torch.memory_format memory_format = None)")
RESIZE_AS_ = Parser(
    "resize_as_", "(Tensor the_template, *, torch.memory_format memory_format = None)"
)
VIEW = Parser("view", "(torch.dtype dtype)", "(tuple of ints size)")
RESHAPE = Parser("reshape", "(tuple of ints shape)")
PERMUTE = Parser("permute", "(tuple of ints dims)")
EXPAND = Parser("expand", "(tuple of ints size, *, bool implicit = False)")
CHUNK = Parser("chunk", "(int chunks, int dim = 0)")
UNSAFE_CHUNK = Parser("unsafe_chunk", "(int chunks, int dim = 0)")
UNSAFE_SPLIT = Parser("unsafe_split", "(int split_size, int dim = 0)")
UNSAFE_SPLIT_WITH_SIZES = Parser(
    "unsafe_split_with_sizes", "(tuple of ints split_sizes, int dim = 0)"
)
VAR_OVERLOADS = (
    "(tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False)",
    "(tuple of ints[1]? dim = None, *, Number correction = None, bool keepdim = False)",
    "(bool unbiased = True)",
)
"""``var``'s three overloads (``var_mean``'s too): only the second takes ``correction``."""
VAR = Parser("var", *VAR_OVERLOADS)
STD = Parser("std", *VAR_OVERLOADS)
DIAGONAL = Parser("diagonal", "(int offset = 0, int dim1 = 0, int dim2 = 1)")
NARROW = Parser("narrow", "(int dim, Tensor start, int length)", "(int dim, int start, int length)")
UNBIND = Parser("unbind", "(int dim = 0)")
FLATTEN = Parser("flatten", "(int start_dim = 0, int end_dim = -1)")
SPLIT = Parser(
    "split",
    "(Tensor input, int split_size, int dim = 0)",
    "(Tensor input, tuple of ints split_size, int dim = 0)",
)
SPLIT_WITH_SIZES = Parser(
    "split_with_sizes", "(Tensor input, tuple of ints split_sizes, int dim = 0)"
)

ADD = Parser("add", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True)
SUB = Parser("sub", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True)
MUL = Parser("mul", "(Tensor other)", numbers_as_tensors=True)
DIV = Parser(
    "div",
    "(Tensor other)",
    "(Tensor other, *, str? rounding_mode)",
    "(Number other, *, str? rounding_mode)",
    numbers_as_tensors=True,
)
POW = Parser("pow", "(Tensor exponent)", "(Number exponent)")
CLAMP = Parser(
    "clamp", "(Tensor min = None, Tensor max = None)", "(Number min = None, Number max = None)"
)
ADD_ = Parser("add_", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True)
SUB_ = Parser("sub_", "(Tensor other, *, Number alpha = 1)", numbers_as_tensors=True, hidden=True)
MUL_ = Parser("mul_", "(Tensor other)", numbers_as_tensors=True)
DIV_ = Parser(
    "div_",
    "(Tensor other)",
    "(Tensor other, *, str? rounding_mode)",
    "(Number other, *, str? rounding_mode)",
    numbers_as_tensors=True,
)
POW_ = Parser("pow_", "(Tensor exponent)", "(Number exponent)")
FILL_ = Parser("fill_", "(Tensor value)", "(Number value)")
CLAMP_ = Parser(
    "clamp_", "(Tensor min = None, Tensor max = None)", "(Number min = None, Number max = None)"
)
MASKED_FILL = Parser("masked_fill", "(Tensor mask, Tensor value)", "(Tensor mask, Number value)")
MASKED_FILL_ = Parser("masked_fill_", "(Tensor mask, Tensor value)", "(Tensor mask, Number value)")
SORT = Parser(
    "sort",
    "(*, bool? stable, int dim = -1, bool descending = False)",
    "(int dim = -1, bool descending = False)",
)
ARGSORT = Parser(
    "argsort",
    "(*, bool stable, int dim = -1, bool descending = False)",
    "(int dim = -1, bool descending = False)",
)
TOPK = Parser("topk", "(int k, int dim = -1, bool largest = True, bool sorted = True)")
NAN_TO_NUM = Parser("nan_to_num", "(float? nan = None, float? posinf = None, float? neginf = None)")
NAN_TO_NUM_ = Parser(
    "nan_to_num_", "(float? nan = None, float? posinf = None, float? neginf = None)"
)
ISCLOSE = Parser(
    "isclose", "(Tensor other, float rtol = 1e-05, float atol = 1e-08, bool equal_nan = False)"
)
ALLCLOSE = Parser(
    "allclose", "(Tensor other, float rtol = 1e-05, float atol = 1e-08, bool equal_nan = False)"
)
CUMPROD = Parser("cumprod", "(int dim, *, torch.dtype dtype = None)")
CUMPROD_ = Parser("cumprod_", "(int dim, *, torch.dtype dtype = None)")
NANSUM = Parser(
    "nansum",
    "(tuple of ints[1]? dim = None, bool keepdim = False, *, torch.dtype dtype = None)",
)
REPEAT = Parser("repeat", "(tuple of ints repeats)")
GATHER = Parser("gather", "(int dim, Tensor index, *, bool sparse_grad = False)")
INDEX_SELECT = Parser("index_select", "(int dim, Tensor index)")
FLIP = Parser("flip", "(tuple of ints dims)")
AMAX = Parser("amax", "(tuple of ints[1]? dim = None, bool keepdim = False)")
ALL = Parser(
    "all",
    "()",
    "(tuple of ints dim = None, bool keepdim = False)",
    "(int dim, bool keepdim = False)",
)
ANY = Parser(
    "any",
    "()",
    "(tuple of ints dim = None, bool keepdim = False)",
    "(int dim, bool keepdim = False)",
)
AMIN = Parser("amin", "(tuple of ints[1]? dim = None, bool keepdim = False)")
TRIL = Parser("tril", "(int diagonal = 0)")
TRIU = Parser("triu", "(int diagonal = 0)")
TRIL_ = Parser("tril_", "(int diagonal = 0)")
TRIU_ = Parser("triu_", "(int diagonal = 0)")
LOGSUMEXP = Parser("logsumexp", "(tuple of ints[1] dim, bool keepdim = False)")
REQUIRES_GRAD_ = Parser("requires_grad_", "(bool requires_grad = True)")
COMPARE = {
    name: Parser(name, "(Tensor other)", "(Number other)")
    for name in ("eq", "ne", "lt", "le", "gt", "ge")
}

# ---------------------------------------------------------------- torch.* functions
OUT = "*, Tensor out = None"
FN_SUM = Parser(
    "sum",
    "(Tensor input, *, torch.dtype dtype = None)",
    "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None)",
)
FN_MEAN = Parser(
    "mean",
    "(Tensor input, *, torch.dtype dtype = None)",
    "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None)",
)
FN_MAX = Parser(
    "max",
    f"(Tensor input, {OUT})",
    f"(Tensor input, Tensor other, {OUT})",
    "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)",
)
FN_MIN = Parser(
    "min",
    f"(Tensor input, {OUT})",
    f"(Tensor input, Tensor other, {OUT})",
    "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)",
)
FN_ARGMAX = Parser("argmax", f"(Tensor input, int dim = None, bool keepdim = False, {OUT})")
FN_ARGMIN = Parser("argmin", f"(Tensor input, int dim = None, bool keepdim = False, {OUT})")
FN_SOFTMAX = Parser("softmax", "(Tensor input, int dim, torch.dtype dtype = None)")
FN_LOG_SOFTMAX = Parser("log_softmax", "(Tensor input, int dim, torch.dtype dtype = None)")
FN_ADD = Parser(
    "add",
    "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
    numbers_as_tensors=True,
    hidden=True,
)
FN_SUB = Parser(
    "sub",
    "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
    numbers_as_tensors=True,
    hidden=True,
)
FN_MUL = Parser("mul", f"(Tensor input, Tensor other, {OUT})", numbers_as_tensors=True)
FN_DIV = Parser(
    "div",
    f"(Tensor input, Tensor other, {OUT})",
    "(Tensor input, Tensor other, *, str? rounding_mode, Tensor out = None)",
    "(Tensor input, Number other, *, str? rounding_mode)",
    numbers_as_tensors=True,
)
FN_POW = Parser(
    "pow",
    f"(Tensor input, Tensor exponent, {OUT})",
    f"(Number self, Tensor exponent, {OUT})",
    f"(Tensor input, Number exponent, {OUT})",
)
FN_MATMUL = Parser("matmul", f"(Tensor input, Tensor other, {OUT})")
FN_MM = Parser(
    "mm",
    f"(Tensor input, Tensor mat2, {OUT})",
    f"(Tensor input, Tensor mat2, torch.dtype out_dtype, {OUT})",
)
FN_BMM = Parser(
    "bmm",
    f"(Tensor input, Tensor mat2, {OUT})",
    f"(Tensor input, Tensor mat2, torch.dtype out_dtype, {OUT})",
)
FN_MV = Parser("mv", f"(Tensor input, Tensor vec, {OUT})")
FN_DOT = Parser("dot", f"(Tensor input, Tensor tensor, {OUT})")
FN_CLAMP, FN_CLIP = (
    Parser(
        name,
        f"(Tensor input, Tensor min = None, Tensor max = None, {OUT})",
        f"(Tensor input, Number min = None, Number max = None, {OUT})",
    )
    for name in ("clamp", "clip")
)
FN_WHERE = Parser(
    "where",
    "(Tensor condition)",
    f"(Tensor condition, Tensor input, Tensor other, {OUT})",
    "(Tensor condition, Number self, Tensor other)",
    "(Tensor condition, Tensor input, Number other)",
    "(Tensor condition, Number self, Number other)",
)
FN_EQ = Parser("eq", f"(Tensor input, Tensor other, {OUT})", f"(Tensor input, Number other, {OUT})")
PROMOTE_TYPES = Parser("promote_types", "(torch.dtype type1, torch.dtype type2)")
FN_CAT = Parser("cat", f"(tuple of Tensors tensors, int dim = 0, {OUT})")
FN_STACK = Parser("stack", f"(tuple of Tensors tensors, int dim = 0, {OUT})")


def unary(name: str, out: bool = True) -> Parser:
    """The signature of a one-tensor function ``torch.<name>(input, *, out=None)`` (without
    ``out`` if not ``out``)."""
    return Parser(name, f"(Tensor input, {OUT})" if out else "(Tensor input)")


# ---------------------------------------------------------------- factories
FACTORY = (
    "*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
)
SIZED = {
    **{
        name: Parser(name, f"(tuple of ints size, {FACTORY}") for name in ("zeros", "ones", "empty")
    },
    **{
        name: Parser(
            name,
            f"(tuple of ints size, *, torch.Generator generator, {FACTORY[3:]}",
            f"(tuple of ints size, {FACTORY}",
        )
        for name in ("rand", "randn")
    },
}
NEW_OPTIONS = FACTORY.replace("Tensor out = None, ", "")
"""The keywords of a tensor's ``new_*`` methods: a factory's, without ``out``."""
SIZED.update(
    {
        name: Parser(name, f"(tuple of ints size, {NEW_OPTIONS}")
        for name in ("new_zeros", "new_ones", "new_empty")
    }
)
NEW_FULL = Parser("new_full", f"(tuple of ints size, Number fill_value, {NEW_OPTIONS}")
LIKE_OPTIONS = (
    "torch.memory_format memory_format = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)"
)
RANDOM_LIKE = {
    name: Parser(
        name,
        f"(Tensor input, *, torch.Generator generator, {LIKE_OPTIONS}",
        f"(Tensor input, *, {LIKE_OPTIONS}",
    )
    for name in ("rand_like", "randn_like")
}
EYE = Parser("eye", f"(int n, {FACTORY}", f"(int n, int m, {FACTORY}")
ARANGE = Parser(
    "arange",
    f"(Number end, {FACTORY}",
    "(Number start, Number end, " + FACTORY.replace("Tensor out = None, ", ""),
    f"(Number start, Number end, Number step = 1, {FACTORY}",
)
LINSPACE = Parser(
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
FULL = Parser("full", f"(tuple of ints size, Number fill_value, {FACTORY}")
EMPTY_STRIDED = Parser(
    "empty_strided",
    "(tuple of ints size, tuple of ints stride, " + FACTORY.replace("Tensor out = None, ", ""),
)
RANDPERM = Parser(
    "randperm",
    f"(int n, *, torch.Generator generator, {FACTORY[3:]}",
    f"(int n, {FACTORY}",
)
RANDINT = Parser(
    "randint",
    f"(int high, tuple of ints size, *, torch.Generator generator, {FACTORY[3:]}",
    f"(int high, tuple of ints size, {FACTORY}",
    f"(int low, int high, tuple of ints size, *, torch.Generator generator, {FACTORY[3:]}",
    f"(int low, int high, tuple of ints size, {FACTORY}",
)


def given(**options: Any) -> dict[str, Any]:
    """The keywords a call gave of ``options``, those that are None left out: a factory's own
    keyword defaults are None, and torch's messages list only the keywords a call wrote."""
    return {k: v for k, v in options.items() if v is not None}


def sizes(name: str, size: tuple[Any, ...], **options: Any) -> dict[str, Any]:
    """The arguments of a factory call ``name(*size, **options)`` as torch parses them (its
    ``dtype`` a dtype or None), the size never negative; ``options`` are the keywords given
    (``dtype``, ``device``, ``generator``; one that is None is left out).

    >>> sizes("ones", (2, 3))["size"], sizes("ones", ([2, 3],), dtype=float)["dtype"]
    ((2, 3), torch.float64)
    >>> sizes("ones", (2, -1))
    Traceback (most recent call last):
    ...
    RuntimeError: Trying to create tensor with negative dimension -1: [2, -1]
    """
    bound: dict[str, Any] = SIZED[name].parse(size, given(**options))[1]
    non_negative(bound["size"], name)
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
