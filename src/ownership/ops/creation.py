"""Making tensors: from data (lists, numpy arrays, torch tensors), filled, ranges.

``tensor()`` accepts numpy arrays and torch tensors without importing torch: anything with
``detach().cpu().numpy()`` or ``__array__`` is read through numpy (``Tensor.copy_`` takes a tensor
only, as torch's does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core import dtypes, layout
from ownership.core.dtypes import dtype as DType
from ownership.core.dtypes import missing
from ownership.core.storage import Storage, VersionCounter
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.ops import checks, python_data, range_factories
from ownership.ops import signatures as sig
from ownership.ops.argument_values import tensor_arg as _like_arg
from ownership.ops.common import scalar_dtype
from ownership.ops.dtype_arguments import dtype_arg
from ownership.ops.memory_formats import format_strides, preserve_format
from ownership.ops.resizing import LentStorage
from ownership.ops.type_names import tp_name


def to_numpy(data: Any) -> NDArray[Any]:
    """The values of ``data`` as a numpy array (shares memory when it can; no dtype change)."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        return data
    if hasattr(data, "detach") and hasattr(data, "numpy"):  # a torch tensor, read lazily
        return np.asarray(data.detach().cpu().numpy())
    if hasattr(data, "__array__") and not isinstance(data, list | tuple):
        return np.asarray(data)
    if isinstance(data, list | tuple) and any(isinstance(x, Tensor) for x in data):
        return np.array([to_numpy(x) for x in data])
    return np.array(data)


def _infer(data: Any, arr: NDArray[Any]) -> DType:
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, np.ndarray | np.generic) or hasattr(data, "detach"):
        return dtypes.from_numpy_dtype(arr.dtype)  # an array's dtype, kept or refused
    kind = arr.dtype.kind
    if kind == "b":
        return dtypes.bool_
    if kind in "iu":
        return dtypes.int64
    if kind == "f":
        return dtypes.get_default_dtype()
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def tensor(
    *args: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **keywords: Any
) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (default dtype float32 for Python floats).

    As torch's, ``data`` is the one positional argument (``tensor(x, torch.float64)`` is refused
    in torch's words, never a dtype read by numpy), or the keyword ``data``."""
    if len(args) > 1:
        raise TypeError(f"tensor() takes 1 positional argument but {len(args)} were given")
    if not args and "data" not in keywords:
        raise TypeError('tensor() missing 1 required positional arguments: "data"')
    unexpected = [k for k in keywords if k != "data"]
    if unexpected:
        raise TypeError(f"tensor() got an unexpected keyword argument '{unexpected[0]}'")
    if args and keywords:
        raise TypeError("tensor() got multiple values for argument 'data'")
    data = args[0] if args else keywords["data"]
    given = dtype_arg("tensor", dtype)
    checks.check_device(device, "tensor")
    requires_grad_arg("tensor", requires_grad, nullable=False)
    if isinstance(data, Tensor):
        warn_at_user(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor)."
        )
    if not (isinstance(data, Tensor | np.ndarray | np.generic) or hasattr(data, "__array__")):
        given, data = python_data.read(data, given)  # torch's errors for bad Python data
    arr = to_numpy(data)
    dt = given or _infer(data, arr)
    return _leaf(np.array(arr, dtype=dt.np, copy=True), dt, requires_grad)


def requires_grad_arg(name: str, requires_grad: Any, *, nullable: bool = True) -> None:
    """torch's parser's refusal of a ``requires_grad=`` that is not a Python bool (a numpy bool,
    an int): ``zeros(): argument 'requires_grad' must be bool, not int``. ``nullable``: None is
    taken too, as by the factories' ``bool? requires_grad`` (``tensor()``'s is not)."""
    if type(requires_grad) is not bool and not (nullable and requires_grad is None):
        raise TypeError(
            f"{name}(): argument 'requires_grad' must be bool, not {tp_name(requires_grad)}"
        )


def _leaf(arr: NDArray[Any], dt: DType, requires_grad: bool) -> Tensor:
    return _requiring(Tensor._wrap(arr, dt), requires_grad)


def _requiring(t: Tensor, requires_grad: bool) -> Tensor:
    """A new leaf ``t`` made to require grad as a factory's ``requires_grad=True`` asks (torch's
    refusal for a dtype that is not floating point)."""
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = True
    return t


def full(
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value``."""
    a = sig.FULL.parse((size, fill_value), sig.given(dtype=dtype, device=device))[1]
    checks.check_device(device, "full")
    requires_grad_arg("full", requires_grad)
    shape = a["size"]
    sig.non_negative(shape)
    dt = a["dtype"] or scalar_dtype(fill_value)
    checks.fits(dt, fill_value)
    return _leaf(np.full(shape, fill_value, dtype=dt.np), dt, requires_grad)


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros (default dtype float32)."""
    a = sig.sizes("zeros", size, dtype=dtype, device=device)
    checks.check_device(device, "zeros")
    requires_grad_arg("zeros", requires_grad)
    dt = a["dtype"] or dtypes.get_default_dtype()
    return _leaf(np.zeros(a["size"], dtype=dt.np), dt, requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones (default dtype float32)."""
    a = sig.sizes("ones", size, dtype=dtype, device=device)
    checks.check_device(device, "ones")
    requires_grad_arg("ones", requires_grad)
    dt = a["dtype"] or dtypes.get_default_dtype()
    return _leaf(np.ones(a["size"], dtype=dt.np), dt, requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor (zeros here, for reproducibility)."""
    a = sig.sizes("empty", size, dtype=dtype, device=device)
    checks.check_device(device, "empty")
    requires_grad_arg("empty", requires_grad)
    dt = a["dtype"] or dtypes.get_default_dtype()
    return _leaf(np.zeros(a["size"], dtype=dt.np), dt, requires_grad)


def empty_strided(*args: Any, **kwargs: Any) -> Tensor:
    """A new leaf of ``size`` with exactly the element strides ``stride``, over a storage just
    large enough for them (its values are uninitialised in torch: zeros here); ``device``,
    ``layout`` and ``pin_memory`` checked as every factory's."""
    a = sig.EMPTY_STRIDED.parse(args, kwargs)[1]
    shape, strides = a["size"], a["stride"]
    if len(shape) != len(strides):
        raise RuntimeError(
            f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
            f"({len(strides)})"
        )
    sig.non_negative(shape)
    if any(s < 0 for s in strides):
        raise RuntimeError(
            "Storage size calculation overflowed with sizes="
            f"[{', '.join(map(str, shape))}] and strides=[{', '.join(map(str, strides))}]"
        )
    checks.tensor_options("empty_strided", a["device"], a["layout"], a["pin_memory"])
    dt = a["dtype"] or dtypes.get_default_dtype()
    if 0 in shape:
        return _leaf(layout.empty_strided(shape, strides, dt.np), dt, a["requires_grad"])
    # the storage torch allocates: one past the last element's offset (gaps and repeats kept)
    buffer = np.zeros(1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True)), dt.np)
    arr = layout.strided(buffer, shape, strides, 0)
    t = Tensor._plain(Tensor, arr, Storage(buffer), 0, dt, VersionCounter())
    return _requiring(t, a["requires_grad"])


def _like(
    name: str, t: Tensor, fill: Any, dtype: Any, requires_grad: bool, options: dict[str, Any]
) -> Tensor:
    """``fill`` with ``t``'s shape and dtype (or ``dtype``), laid out as torch's
    ``preserve_format`` lays it out (:func:`~ownership.core.layout.preserved`) or in the
    ``memory_format`` of ``options``, whose ``device``, ``layout`` and ``pin_memory`` are
    checked (:func:`~ownership.ops.checks.tensor_options`)."""
    _like_arg(name, t)
    dt = dtype_arg(name, dtype) or t.dtype
    fmt = checks.tensor_options(name, **options)
    if fmt is None or fmt is preserve_format:
        arr = layout.preserved(t._data, t._stride(), dt.np)
    else:
        shape = t._data.shape
        arr = layout.dense_with_strides(shape, format_strides(fmt, shape), dt.np)
    if arr.size:
        arr[...] = fill
    return _leaf(arr, dt, requires_grad)


def zeros_like(
    t: Tensor, *, dtype: Any = None, requires_grad: bool = False, **options: Any
) -> Tensor:
    """Zeros with ``t``'s shape, dtype and layout (``device=``, ``layout=``,
    ``memory_format=``, ``pin_memory=`` as torch reads them)."""
    return _like("zeros_like", t, 0, dtype, requires_grad, options)


def ones_like(
    t: Tensor, *, dtype: Any = None, requires_grad: bool = False, **options: Any
) -> Tensor:
    """Ones with ``t``'s shape, dtype and layout (options as :func:`zeros_like`)."""
    return _like("ones_like", t, 1, dtype, requires_grad, options)


def empty_like(
    t: Tensor, *, dtype: Any = None, requires_grad: bool = False, **options: Any
) -> Tensor:
    """Like :func:`zeros_like`."""
    return _like("empty_like", t, 0, dtype, requires_grad, options)


def full_like(
    t: Tensor, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False, **options: Any
) -> Tensor:
    """``fill_value`` with ``t``'s shape, dtype and layout (options as :func:`zeros_like`)."""
    _like_arg("full_like", t)
    made = full(t._data.shape, fill_value, dtype=dtype_arg("full_like", dtype) or t.dtype)
    return _like("full_like", t, made._data, made.dtype, requires_grad, options)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``start, start+step, ...`` below ``end``; int64 for integer arguments, else float32; each
    value as torch's kernel computes it (``ownership.ops.range_factories``)."""
    given = (start,) if end is None else (start, end) if step == 1 else (start, end, step)
    dt = sig.ARANGE.parse(given, sig.given(dtype=dtype, device=device))[1]["dtype"]
    checks.check_device(device, "arange")
    if end is None:
        start, end = 0, start
    if dt is None:
        isint = all(isinstance(v, int | np.integer) for v in (start, end, step))
        dt = dtypes.int64 if isint else dtypes.get_default_dtype()
    checks.not_for_bool("arange_cpu", dt)  # the kernel's dtype first, then its range
    checks.arange_range(start, end, step)
    if np.isinf(step):  # torch's length is ceil((end - start) / step): 0 for an infinite step
        return _leaf(np.zeros(0, dtype=dt.np), dt, requires_grad)
    n = range_factories.arange_length(start, end, step, dt)
    return _leaf(range_factories.arange_values(start, step, n, dt), dt, requires_grad)


def linspace(*args: Any, **kwargs: Any) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (numbers, or 0-d tensors read as
    their numbers, as torch's); ``out=`` is refused, the device checked, the layout ignored."""
    a = sig.LINSPACE.parse(args, kwargs)[1]
    checks.check_device(a.get("device"), "linspace")
    dtype, requires_grad = a["dtype"], a["requires_grad"]
    start, end, steps = a["start"], a["end"], a["steps"]
    for name in ("start", "end"):
        if isinstance(a[name], Tensor) and a[name].ndim:
            raise RuntimeError(
                "linspace only supports 0-dimensional start and end tensors, but got "
                f"{name} with {a[name].ndim} dimension(s)."
            )
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = dtype or dtypes.get_default_dtype()
    checks.not_for_bool("linspace_cpu", dt)
    return _leaf(range_factories.linspace_values(start, end, steps, dt), dt, requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The identity matrix."""
    dt = sig.EYE.parse((n,) if m is None else (n, m), sig.given(dtype=dtype, device=device))[1][
        "dtype"
    ]
    checks.check_device(device, "eye")
    for name, value in (("n", n), ("m", m)):
        if value is not None and value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    dt = dt or dtypes.get_default_dtype()
    return _leaf(np.eye(n, m, dtype=dt.np), dt, requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing its memory where torch does: a tensor of the dtype asked
    is returned as it is (else converted with ``to``), a numpy array of the dtype asked is
    :func:`from_numpy`'s; anything else, or another dtype, is a copy as :func:`tensor` makes."""
    dt = dtype_arg("as_tensor", dtype)
    checks.check_device(device, "as_tensor")
    if isinstance(data, Tensor):
        return data if dt is None or dt is data.dtype else data.to(dt)
    if isinstance(data, np.ndarray) and (dt is None or data.dtype == dt.np):
        return from_numpy(data)
    return tensor(data, dtype=dt)


def from_numpy(arr: NDArray[Any]) -> Tensor:
    """A tensor sharing memory with a numpy array; anything else (a torch tensor too) is
    refused with torch's TypeError."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {tp_name(arr)})")
    if not arr.flags.c_contiguous:
        raise missing(
            "from_numpy of a non-contiguous array (torch shares it with its strides)",
            "C-contiguous arrays (np.ascontiguousarray(arr) makes one)",
        )
    if not arr.flags.writeable:
        arr = checks.writable(arr)
    t = Tensor._wrap(arr, dtypes.from_numpy_dtype(arr.dtype))
    t._lazy_storage = LentStorage(None, t._data)
    return t
