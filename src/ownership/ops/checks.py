"""torch's refusals of bad arguments, checked before any numpy call can fail in its own words.

Each check raises what torch 2.13 raises (class and message) for the same input: sizes that are
negative or not ints, joins (``cat``, ``stack``) of tensors that do not fit, ``split`` and ``chunk``
sizes, ranges that ``arange`` cannot make, reductions over an empty dim. numpy never gets to
answer a question torch answers first.

>>> chunks(Tensor._wrap(np.zeros(3)), 0)
Traceback (most recent call last):
...
RuntimeError: chunk expects `chunks` to be greater than 0, got: 0
"""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import layout
from ownership.core.dtypes import missing
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.ops.devices import check_device as check_device
from ownership.ops.devices import pin_memory as pin_memory
from ownership.ops.type_names import tp_name


def not_for_bool(kernel: str, dt: Any) -> None:
    """torch's refusal of a factory whose kernel has no bool version (``arange_cpu``,
    ``linspace_cpu``, ``randperm``) asked for a bool tensor."""
    if dt.name == "bool":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def join(tensors: Sequence[Tensor], dim: int, stacking: bool) -> int:
    """Check the inputs of ``cat`` (or ``stack``) as torch does; the wrapped ``dim``.

    ``cat`` skips 1-D empty tensors in its shape checks (torch's legacy rule) and refuses 0-d ones;
    ``stack`` wants equal shapes and wraps ``dim`` over one more dimension.
    """
    if stacking:
        if not tensors:
            raise RuntimeError("stack expects a non-empty TensorList")
        first = tensors[0]._data.shape
        d = layout.wrap_dim(dim, len(first) + 1)
        for i, t in enumerate(tensors):
            if t._data.shape != first:
                raise RuntimeError(
                    f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 "
                    f"and {list(t._data.shape)} at entry {i}"
                )
        return d
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [(i, t._data.shape) for i, t in enumerate(tensors) if t._data.shape != (0,)]
    if not kept:  # only 1-D empty tensors: torch checks nothing, the result is empty
        return 0
    ref = kept[0][1]
    d = layout.wrap_dim(dim, len(ref))
    for i, shape in kept[1:]:
        if len(shape) != len(ref):
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {len(ref)} and {len(shape)}"
            )
        for k, (a, b) in enumerate(zip(ref, shape, strict=True)):
            if k != d and a != b:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {a} but "
                    f"got size {b} for tensor number {i} in the list."
                )
    return d


def split_sizes(t: Tensor, split_size: Any, d: int) -> None:
    """torch's refusals of ``split``: a 0-d input, a negative or zero size, negative sizes."""
    if t._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    size = t._data.shape[d]
    if isinstance(split_size, list | tuple):
        if any(s < 0 for s in split_size):
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={list(split_size)}"
            )
        return
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    if split_size == 0 and size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )


def chunks(t: Tensor, n: int) -> None:
    """torch's refusals of ``chunk``: a 0-d input, a non-positive number of chunks."""
    if t._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if n <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {n}")


def _number(x: Any) -> str:
    """A bound of a range as torch's message prints it (``0``, ``0.5``, ``inf``, ``nan``)."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def arange_range(start: Any, end: Any, step: Any) -> None:
    """torch's refusals of ``arange``: infinite or NaN bounds, step 0, a step of the wrong sign."""
    lo, hi, st = float(start), float(end), float(step)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"unsupported range: {_number(start)} -> {_number(end)}")
    if st == 0 or math.isnan(st):
        raise RuntimeError("step must be nonzero")
    if (st > 0 and hi < lo) or (st < 0 and hi > lo):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def reduce_dim(name: str, t: Tensor, dim: int | None) -> None:
    """torch's IndexError for ``argmax``/``max``-like reductions of an empty tensor."""
    shape = t._data.shape
    if dim is None:
        if t._data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        return
    if shape and shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


_warned = {"readonly": False}


def writable(arr: NDArray[Any]) -> NDArray[Any]:
    """A view of a read-only numpy array that torch would write through, with torch's warning.

    torch does not honour numpy's read-only flag: it warns (once per program, as torch does)
    and lets in-place ops write.
    """
    if not _warned["readonly"]:
        _warned["readonly"] = True
        warn_at_user(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You may "
            "want to copy the array to protect its data or make it writable before converting it "
            "to a tensor. This type of warning will be suppressed for the rest of this program."
        )
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.owndata:  # memory of another object (bytes, a mapped file): kept read-only
        return arr
    # numpy's own heap memory, only flagged read-only: a writable array over the same bytes,
    # which keeps the caller's array (and its flag) alive and unchanged
    raw = (ctypes.c_char * arr.nbytes).from_address(arr.ctypes.data)
    raw.owner = arr  # type: ignore[attr-defined]
    out: NDArray[Any] = np.frombuffer(memoryview(raw), dtype=arr.dtype).reshape(arr.shape)
    return out


_C_NAMES = {"int64": "int64_t", "int32": "int", "float32": "float"}
CPP_TYPES = {
    "bool": "bool",
    "int32": "int",
    "int64": "long int",
    "float32": "float",
    "float64": "double",
}
"""Each dtype's C++ type as torch's messages spell it on Linux (g++'s ``long int`` for int64)."""


def assigned(dt: Any, value: Any) -> None:
    """torch's refusals of ``t[i] = value``: not a tensor or a number, an int beyond int64, or a
    number the dtype cannot hold (checked before the index, as torch does)."""
    if not isinstance(value, Tensor | int | float | bool | complex | np.number | np.bool_):
        raise TypeError(f"can't assign a {tp_name(value)} to a torch.{dt.legacy}")
    if type(value) is int and not -(2**63) <= value < 2**63:  # read as a C long long first
        raise ValueError("Overflow when unpacking long long")
    fits(dt, value)


@functools.cache
def float_max(np_dtype: Any) -> float:
    """The largest finite number of a floating numpy dtype (its ``finfo``, read once)."""
    return float(np.finfo(np_dtype).max)


def fits(dt: Any, value: Any) -> None:
    """torch's error when a Python number is written into a dtype that cannot hold it: NaN, inf
    or too large for an integer dtype, a finite number beyond float32's range for float32, a
    complex number whose imaginary part is not 0 (else its real part is checked)."""
    if dt.name not in _C_NAMES or isinstance(value, bool | np.bool_ | Tensor):
        return
    if isinstance(value, complex | np.complexfloating):
        if value.imag != 0:
            raise RuntimeError(
                f"value cannot be converted to type {_C_NAMES[dt.name]} without overflow"
            )
        value = value.real
    if not isinstance(value, int | float | np.integer | np.floating):
        return
    number = float(value) if isinstance(value, float | np.floating) else int(value)
    ok: bool
    if dt.is_floating_point:
        ok = not math.isfinite(number) or abs(number) <= float_max(dt.np)
    else:
        info = np.iinfo(dt.np)  # a float is compared with the bound as a double: 2.0**63 fits
        top = float(info.max) if isinstance(number, float) else int(info.max)
        ok = math.isfinite(number) and int(info.min) <= number <= top
    if not ok:
        raise RuntimeError(
            f"value cannot be converted to type {_C_NAMES[dt.name]} without overflow"
        )


check_pin_memory = pin_memory  # (a name a parameter may shadow)


def tensor_options(
    function: str,
    device: Any = None,
    layout: Any = None,
    pin_memory: Any = False,
    memory_format: Any = None,
) -> Any:
    """The tensor options of the factory ``function`` (``zeros_like(x, device=...)``...)
    checked, one rule each: the device (:func:`~ownership.ops.devices.check_device`); the ``layout`` (the
    engine's tensors are strided: ``torch.strided`` or ``None``; a sparse or other layout is out
    of its scope); pinned memory (:func:`~ownership.ops.devices.pin_memory`). Returns the
    ``memory_format`` asked (``None``: not given)."""
    check_device(device, function)
    if layout is not None and str(layout) != "torch.strided":
        raise missing(f"the {layout} layout", "strided tensors only (layout=torch.strided)")
    check_pin_memory(pin_memory)
    return memory_format
