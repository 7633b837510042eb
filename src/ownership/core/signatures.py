"""The signatures of the Tensor's own methods (``size``, ``type``, ``requires_grad_``, ``new_*``),
and the rules of a sized call.

Each :class:`~ownership.core.binder.Signatures` holds a method's overloads exactly as torch 2.13
prints them in its ``TypeError`` messages: data, the declaration of the method. The method binds
its ``*args, **kwargs`` through it (``SIZE.parse(args, kwargs)``); the binder installed, torch's
parser (parity), refuses a float dim, a list where a tensor belongs or a missing argument with
torch's words. The methods that are ops declare theirs with them (:mod:`ownership.ops.methods`);
the declarations of the ``torch`` functions are the ops' too: :mod:`ownership.ops.signatures`.

>>> SIZE.parse((0,), {})
(0, {'dim': 0})
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
VAR_OVERLOADS = (
    "(tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False)",
    "(tuple of ints[1]? dim = None, *, Number correction = None, bool keepdim = False)",
    "(bool unbiased = True)",
)
"""``var``'s three overloads (``var_mean``'s too): only the second takes ``correction``."""

REQUIRES_GRAD_ = Signatures("requires_grad_", "(bool requires_grad = True)")


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
