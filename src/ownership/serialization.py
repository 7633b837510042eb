"""``save`` and ``load`` in torch's own file format, so a checkpoint crosses engines both ways.

A file is torch's zip archive (stored, each record 64-byte aligned, all under one folder named
after the file): ``data.pkl``, a pickle (protocol 2) of the object in which each storage is a
persistent id ``('storage', torch.FloatStorage, key, 'cpu', numel)``, and ``data/<key>``, that
storage's raw bytes, beside the records ``.format_version``, ``.storage_alignment``,
``byteorder``, ``version`` and ``.data/serialization_id``. A tensor is pickled as torch pickles
it: ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)``; a
Parameter as ``_rebuild_parameter(data, requires_grad, hooks)``; a dtype as the global
``torch.float32``.

What aliasing survives is torch's: every storage is written once, so tensors that shared one
(a state dict's entry and a view of it, two slices of one tensor) load over one storage again,
each with its offset and strides, as leaves at version 1 (torch's ``set_``), a Parameter as a
Parameter.

``load(..., weights_only=True)``, torch 2.6's default, builds only tensors, Parameters, dtypes,
containers and plain Python values (:data:`ALLOWED` and what :func:`add_safe_globals` adds), and
refuses any other global with torch's ``UnpicklingError``. Only torch's zip format is read (not
its legacy format of before 1.6); ``map_location`` may only name the CPU.

``nn.Parameter`` belongs to a higher layer (nn above parity): as torch's ``Parameter`` names its
own rebuild, nn gives its class here, through :func:`install` (called by
:func:`ownership.installation.install`), and this module pickles, rebuilds and allows it.

>>> import io, ownership
>>> f = io.BytesIO()
>>> x = ownership.arange(6.0)
>>> ownership.save({"x": x, "tail": x[3:]}, f)
>>> _ = f.seek(0)
>>> loaded = ownership.load(f)
>>> loaded["tail"].storage_offset(), loaded["tail"].untyped_storage().data_ptr() == loaded[
...     "x"].untyped_storage().data_ptr()
(3, True)
"""

from __future__ import annotations

import _compat_pickle
import codecs
import collections
import contextlib
import io
import os
import pickle
import secrets
import sys
import warnings
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from ownership.autograd.graph import registered_hooks
from ownership.core import dtypes, layout
from ownership.core.dtypes import dtype as DType
from ownership.core.layout import Size
from ownership.core.storage import Storage, VersionCounter
from ownership.core.tensor import Tensor
from ownership.ops.devices import Device

__all__ = [
    "ALLOWED",
    "SAVING",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]

ALIGNMENT = 64
"""torch's ``.storage_alignment``: each record's data starts at a multiple of 64 bytes."""

_STORAGES = {d.legacy.replace("Tensor", "Storage"): d for d in dtypes.ALL}
"""``torch.FloatStorage`` ... : the storage type a persistent id names, by its dtype."""


class _Global:
    """A global of torch's written by name into the pickle (``torch._utils _rebuild_tensor_v2``),
    so the file names torch's functions without importing torch."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> Any:  # pickle asks that a reduction's function be callable
        raise TypeError(f"{self.module}.{self.name} is torch's, named in a file, never called")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")
_DTYPES = {d: _Global("torch", d.name) for d in dtypes.ALL}
_STORAGE_TYPES = {d: _Global("torch", name) for name, d in _STORAGES.items()}


class _NoParameter:
    """No object is one: the Parameter class until :func:`install` gives nn's."""


_parameter: Any = _NoParameter
"""nn's ``Parameter``, given by :func:`install`."""


def install(parameter: type[Tensor]) -> None:
    """Take ``parameter`` (``ownership.nn.Parameter``) as the class pickled as torch's
    ``_rebuild_parameter``, rebuilt from it and allowed as ``torch.nn.parameter.Parameter``.
    Called once, by :func:`ownership.installation.install`."""
    global _parameter
    _parameter = _TORCH[_PARAMETER] = ALLOWED[_PARAMETER] = parameter


_PythonPickler: Any = pickle._Pickler
"""The Python pickler (not the C one): its ``save`` can be extended to write a global by name."""


class _Writer(_PythonPickler):  # type: ignore[misc]
    """torch's pickling of a checkpoint: tensors, Parameters, dtypes, sizes and the CPU device
    as torch's globals, each storage once, as a persistent id."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file, protocol=2)
        self.storages: dict[int, tuple[str, Storage]] = {}

    def save(self, obj: Any, save_persistent_id: bool = True) -> None:
        if isinstance(obj, dtypes.dtype):
            obj = _DTYPES[obj]
        if isinstance(obj, _Global):
            memo = self.memo.get(id(obj))
            if memo is not None:
                self.write(self.get(memo[0]))
                return
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            self.memoize(obj)
            return
        super().save(obj, save_persistent_id)

    def persistent_id(self, obj: Any) -> Any:
        if not isinstance(obj, _SavedStorage):
            return None
        storage = obj.storage
        key, _ = self.storages.setdefault(id(storage), (str(len(self.storages)), storage))
        return ("storage", _STORAGE_TYPES[obj.dtype], key, "cpu", storage.buffer.size)

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, _parameter):
            hooks = collections.OrderedDict()  # type: ignore[var-annotated]
            return _REBUILD_PARAMETER, (obj.detach(), obj.requires_grad, hooks)
        if isinstance(obj, Tensor):
            saved = _SavedStorage(obj._storage, obj.dtype)
            size, stride = tuple(obj.shape), tuple(obj.stride())
            hooks = collections.OrderedDict()
            return _REBUILD_TENSOR, (
                saved,
                obj.storage_offset(),
                size,
                stride,
                obj.requires_grad,
                hooks,
            )
        if isinstance(obj, Size):
            return _SIZE, (tuple(obj),)
        if isinstance(obj, Device):
            return _DEVICE, ("cpu",)
        return NotImplemented


class _SavedStorage:
    """A tensor's storage as the pickle meets it (its persistent id names its dtype)."""

    __slots__ = ("dtype", "storage")

    def __init__(self, storage: Storage, dtype: dtypes.dtype) -> None:
        self.storage, self.dtype = storage, dtype


def _archive_name(f: Any) -> str:
    """torch's folder inside the zip: the file's name up to its first dot, else ``archive``."""
    if isinstance(f, str | os.PathLike):
        return os.path.basename(os.fspath(f)).split(".", 1)[0]
    return "archive"


class _Zip:
    """torch's ``PyTorchStreamWriter``: stored records, each one's data 64-byte aligned (a
    padding extra field ``FB`` in its local header, as torch's)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.buffer = io.BytesIO()
        self.zip = zipfile.ZipFile(self.buffer, "w", zipfile.ZIP_STORED)

    def write(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(f"{self.folder}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
        start = self.buffer.tell() + 30 + len(info.filename.encode())
        pad = -(start + 4) % ALIGNMENT
        info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
        self.zip.writestr(info, data)

    def close(self) -> bytes:
        self.zip.close()
        return self.buffer.getvalue()


SAVING: list[Callable[[Any], AbstractContextManager[object]]] = []
"""Observers of :func:`save` for the tools above the engine (the doctor), which it calls without
importing them: each is called with the object saved, and the context it returns stays open while
the object is written. While the list is empty a save costs one truth test."""


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2) -> None:
    """Write ``obj`` (a tensor, a state dict, an optimizer's state dict, any dict of them) to
    the path or binary file ``f`` in torch's zip format: the file loads in torch too."""
    if SAVING:  # a tool watching (:data:`SAVING`): the write inside each observer's context
        with contextlib.ExitStack() as watching:
            for observe in list(SAVING):
                watching.enter_context(observe(obj))
            _save(obj, f, pickle_module)
    else:
        _save(obj, f, pickle_module)


def _save(obj: Any, f: Any, pickle_module: Any) -> None:
    """:func:`save`'s write (``pickle_protocol`` is torch's argument: the file is protocol 2)."""
    if pickle_module is not None and pickle_module is not pickle:
        raise RuntimeError("save(pickle_module=...) is not supported by ownership")
    data = io.BytesIO()
    writer = _Writer(data)
    writer.dump(obj)
    archive = _Zip(_archive_name(f))
    archive.write("data.pkl", data.getvalue())
    archive.write(".format_version", b"1")
    archive.write(".storage_alignment", str(ALIGNMENT).encode())
    archive.write("byteorder", sys.byteorder.encode())
    for key, storage in writer.storages.values():
        archive.write(f"data/{key}", storage.buffer.tobytes())
    archive.write("version", b"3\n")
    archive.write(".data/serialization_id", str(secrets.randbits(128)).zfill(40).encode())
    content = archive.close()
    if isinstance(f, str | os.PathLike):
        with open(f, "wb") as out:
            out.write(content)
    else:
        f.write(content)


# ---------------------------------------------------------------- loading
def _rebuild_tensor_v2(
    storage: tuple[np.ndarray[Any, Any], Storage, dtypes.dtype],
    offset: int,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    requires_grad: bool,
    hooks: Any,
    metadata: Any = None,
) -> Tensor:
    """torch's ``_rebuild_tensor_v2``: a leaf over the loaded storage (version 1)."""
    _, shared, dtype = storage
    t: Tensor = rebuild_tensor(
        Tensor, StorageArgument(shared), offset, size, stride, dtype, requires_grad
    )
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, hooks: Any) -> Any:
    """torch's ``_rebuild_parameter``: a Parameter over the loaded tensor."""
    return _parameter(data, requires_grad)


def _rebuild_parameter_with_state(
    data: Tensor, requires_grad: bool, hooks: Any, state: dict[str, Any]
) -> Any:
    """torch's ``_rebuild_parameter_with_state``: the Parameter, then its Python attributes."""
    param = _rebuild_parameter(data, requires_grad, hooks)
    for name, value in state.items():
        setattr(param, name, value)
    return param


def _device(kind: Any, index: Any = None) -> Device:
    if str(kind).split(":")[0] != "cpu":
        raise RuntimeError(f"ownership loads onto the CPU only, not {kind!r}")
    return Device(kind, index)


_PARAMETER = ("torch.nn.parameter", "Parameter")

_TORCH: dict[tuple[str, str], Any] = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
    _PARAMETER: _NoParameter,  # nn's Parameter, given by install()
    ("torch", "Size"): Size,
    ("torch", "device"): _device,
    **{("torch", d.name): d for d in dtypes.ALL},
    **{("torch", name): name for name in _STORAGES},
}
"""torch's globals a checkpoint names, and what the engine builds for each."""

ALLOWED: dict[tuple[str, str], Any] = {
    **_TORCH,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("collections", "Counter"): collections.Counter,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "complex"): complex,
    ("_codecs", "encode"): codecs.encode,  # bytes, in protocol 2
}
"""What ``weights_only=True`` builds (as torch's ``_get_allowed_globals``, for the values the
engine has): tensors, Parameters, dtypes, sizes, the CPU device, containers, Python values."""

_SAFE: dict[tuple[str, str], Any] = {}


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these classes or functions in ``load(..., weights_only=True)`` (torch's
    ``torch.serialization.add_safe_globals``)."""
    for g in safe_globals:
        _SAFE[(g.__module__, g.__qualname__)] = g


def get_safe_globals() -> list[Any]:
    """The globals :func:`add_safe_globals` allowed."""
    return list(_SAFE.values())


def clear_safe_globals() -> None:
    """Forget the globals :func:`add_safe_globals` allowed."""
    _SAFE.clear()


@contextlib.contextmanager
def safe_globals(globals_: list[Any]) -> Iterator[None]:
    """Allow these globals inside the ``with`` block only."""
    before = dict(_SAFE)
    add_safe_globals(globals_)
    try:
        yield
    finally:
        _SAFE.clear()
        _SAFE.update(before)


def _refused(module: str, name: str) -> pickle.UnpicklingError:
    """torch's refusal of a global that ``weights_only=True`` does not allow, word for word."""
    full = f"{module}.{name}"
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, \x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. "
        "\n\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
        "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
        "`False` will likely succeed, but it can result in arbitrary code execution. Do it only "
        "if you got the file from a trusted source.\n\t(2) Alternatively, to load with "
        "`weights_only=True` please check the recommended steps in the following error "
        f"message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {full} was not an "
        "allowed global by default. Please use `torch.serialization.add_safe_globals"
        f"([{full}])` or the `torch.serialization.safe_globals([{full}])` context manager to "
        "allowlist this global if you trust this class/function.\n\nCheck the documentation "
        "of torch.load to learn more about types accepted by default with weights_only "
        "https://pytorch.org/docs/stable/generated/torch.load.html."
    )


class _Reader(pickle.Unpickler):
    """torch's unpickling of ``data.pkl``: torch's globals as the engine's, each storage read
    once from its record (so tensors that shared one share it again)."""

    def __init__(self, file: IO[bytes], archive: zipfile.ZipFile, folder: str, weights_only: bool):
        super().__init__(file, encoding="utf-8")
        self.archive, self.folder, self.weights_only = archive, folder, weights_only
        self.loaded: dict[str, tuple[np.ndarray[Any, Any], Storage, dtypes.dtype]] = {}

    def find_class(self, module: str, name: str) -> Any:
        # protocol 2 names Python 3's builtins by their Python 2 names (``__builtin__.set``)
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        key = (module, name)
        if key in _TORCH:
            return _TORCH[key]
        if key in ALLOWED:
            return ALLOWED[key]
        if key in _SAFE:
            return _SAFE[key]
        if self.weights_only:
            raise _refused(module, name)
        if module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError(f"ownership cannot load torch's {module}.{name}")
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        kind, storage_type, key, _location, numel = pid
        if kind != "storage" or storage_type not in _STORAGES:
            raise pickle.UnpicklingError(f"ownership cannot load a storage of type {storage_type}")
        if key not in self.loaded:
            dtype = _STORAGES[storage_type]
            raw = self.archive.read(f"{self.folder}/data/{key}")
            buffer = np.frombuffer(raw, dtype=dtype.np, count=numel).copy()
            self.loaded[key] = (buffer, Storage(buffer), dtype)
        return self.loaded[key]


def _cpu_only(map_location: Any) -> None:
    """``map_location`` may only keep the tensors on the CPU (the engine's only device)."""
    if map_location is None or isinstance(map_location, Device):
        return
    if isinstance(map_location, str) and map_location.split(":")[0] == "cpu":
        return
    if type(map_location).__name__ == "device" and getattr(map_location, "type", None) == "cpu":
        return
    raise RuntimeError(f"load(map_location={map_location!r}) is not supported by ownership")


def load(
    f: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Read what :func:`save` (or ``torch.save``) wrote to the path or binary file ``f``.

    ``weights_only`` (default True, as torch's since 2.6) builds only the globals of
    ``serialization.ALLOWED`` and those ``add_safe_globals`` allowed; ``map_location`` may name
    the CPU only."""
    _cpu_only(map_location)
    if pickle_module is not None and pickle_module is not pickle:
        raise RuntimeError("load(pickle_module=...) is not supported by ownership")
    if isinstance(f, str | os.PathLike):
        with open(f, "rb") as source:
            content = source.read()
    else:
        content = f.read()
    if not zipfile.is_zipfile(io.BytesIO(content)):
        raise RuntimeError("ownership reads torch's zip format only (that of torch.save since 1.6)")
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        folder = archive.namelist()[0].split("/", 1)[0]
        data = io.BytesIO(archive.read(f"{folder}/data.pkl"))
        reader = _Reader(data, archive, folder, weights_only is not False)
        return reader.load()


# ``copy.deepcopy`` and ``pickle`` of a tensor, as torch does them (the Tensor's ``__deepcopy__``
# and ``__reduce_ex__``, set on the class by :func:`ownership.installation.install`). Both rebuild
# the tensor the way torch does, with ``set_`` on a new storage: the copy is a leaf at version 1
# with the original's offset, sizes and strides over a copy of the *whole* storage.
#
# - ``deepcopy`` refuses a non-leaf (torch's message), copies ``.grad`` and ``requires_grad``, and
#   copies each storage once per ``deepcopy`` call: a base and its view copied together still
#   share memory (each with its own version counter, as after torch's ``set_``).
# - ``pickle`` keeps ``requires_grad`` but not ``.grad`` nor the graph (a non-leaf comes back as a
#   leaf), and pickles each tensor's storage separately, as torch does.
# - ``copy.copy`` rebuilds from the same reduction without pickling it: the copy is a new leaf (at
#   version 1, with its own counter, ``requires_grad`` kept, no ``.grad``) over the *same*
#   storage, as torch's (its storage argument is the storage itself; :class:`StorageArgument`).

DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
    "the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
)


class StorageArgument:
    """The storage a reduced tensor is rebuilt over: ``copy.copy`` hands it to
    :func:`rebuild_tensor` as it is (the copy shares the storage), ``pickle`` writes a copy of its
    memory, one per tensor (torch pickles a new storage wrapper per tensor: two views of one
    storage come back apart)."""

    __slots__ = ("storage",)

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def __reduce__(self) -> tuple[Any, tuple[NDArray[Any]]]:
        return (_argument_over, (self.storage.buffer.copy(),))


def _argument_over(buffer: NDArray[Any]) -> StorageArgument:
    return StorageArgument(Storage(buffer))


def rebuild_tensor(
    cls: Any,
    source: StorageArgument,
    offset: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    dtype: DType,
    requires_grad: bool,
    state: dict[str, Any] | None = None,
) -> Any:
    """A leaf of class ``cls`` at version 1 over ``source``'s storage (torch's ``set_`` on a new
    tensor): an inference tensor when rebuilt in inference mode, as every new tensor is there."""
    counter = VersionCounter.new()
    counter.bump()  # the write of torch's set_ (an inference tensor keeps no version)
    storage = source.storage
    arr = layout.strided(storage.buffer, shape, strides, offset)
    t = cls._plain(cls, arr, storage, offset, dtype, counter)
    t.requires_grad = requires_grad  # the setter's checks, as torch's _rebuild_tensor_v2
    if state:
        t.__dict__.update(state)
    return t


def _whole(t: Any) -> tuple[NDArray[Any], int, tuple[int, ...], tuple[int, ...]]:
    """The flat buffer behind ``t`` with ``t``'s offset, sizes and strides into it."""
    return t._storage.buffer, t._offset, tuple(t._data.shape), tuple(t._stride())


def deepcopy_tensor(t: Any, memo: dict[Any, Any]) -> Any:
    """torch's ``Tensor.__deepcopy__``."""
    if not t.is_leaf:
        raise RuntimeError(DEEPCOPY_NON_LEAF)
    if id(t) in memo:
        return memo[id(t)]
    buffer, offset, shape, strides = _whole(t)
    copies = memo.setdefault("ownership.storages", {})  # one copy per storage per deepcopy
    entry = copies.get(id(buffer))
    if entry is None:
        entry = copies[id(buffer)] = (buffer, np.array(buffer, copy=True))  # keeps id(buffer) alive
    state = getattr(t, "__dict__", None)
    new = rebuild_tensor(type(t), _argument_over(entry[1]), offset, shape, strides, t.dtype, False)
    if t.requires_grad:  # requires_grad_()'s checks, as torch's (an integer view of a leaf)
        new._requires_grad_()
    if t._grad is not None:
        new._grad = deepcopy_tensor(t._grad, memo)
    if state:
        import copy

        new.__dict__.update(copy.deepcopy(state, memo))
    memo[id(t)] = new
    return new


def reduce_tensor(t: Any) -> tuple[Any, tuple[Any, ...]]:
    """torch's ``Tensor.__reduce_ex__``: storage, offset, sizes, strides and ``requires_grad``;
    as torch, it warns of each hook ``register_hook`` gave ``t`` (hooks are not kept)."""
    for hook in registered_hooks(t):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, "
                "you can decorate the function with @torch.utils.hooks.unserializable_hook to "
                "suppress this warning",
                stacklevel=1,  # torch's names its own _tensor.py: this one, the engine's
            )
    _, offset, shape, strides = _whole(t)
    state = getattr(t, "__dict__", None) or None
    source = StorageArgument(t._storage)
    return (
        rebuild_tensor,
        (type(t), source, offset, shape, strides, t.dtype, t.requires_grad, state),
    )


class TensorCopying:
    """The Tensor's copy and pickle protocol, set on :class:`~ownership.core.tensor.Tensor` by
    :func:`ownership.installation.install`."""

    def __deepcopy__(self, memo: dict[Any, Any]) -> Tensor:
        """torch's deepcopy (see :func:`deepcopy_tensor`)."""
        copied: Tensor = deepcopy_tensor(self, memo)
        return copied

    def __reduce_ex__(self, proto: Any) -> Any:
        """torch's pickling (see :func:`reduce_tensor`)."""
        return reduce_tensor(self)
