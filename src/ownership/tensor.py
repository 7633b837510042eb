"""The Tensor: a numpy view over a :class:`~ownership.storage.Storage`, plus autograd metadata.

This layer owns what a tensor *is* (its storage, version counter, view relationship, leaf
status, ``.grad``, ``.data``, ``detach``) and the rules for writing into one in place
(:meth:`Tensor._begin_inplace` / :meth:`Tensor._end_inplace`). The ops themselves live in
:mod:`ownership.ops` and are reached through the registry :data:`OPS`, so that this file never
imports a higher layer.

>>> import numpy as np
>>> t = Tensor._wrap(np.array([1.0, 2.0], dtype=np.float32))
>>> t, t._version, t.is_leaf
(tensor([1., 2.]), 0, True)
"""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership import dtypes, grad_mode, layout, printing
from ownership.autograd import engine
from ownership.autograd.node import Node, gradient_edge
from ownership.autograd.saved import short_name
from ownership.autograd.view_nodes import AsStridedBackward0, CopySlices
from ownership.dtypes import dtype as DType
from ownership.layout import Size
from ownership.storage import Storage, storage_for

OPS: dict[str, Callable[..., Any]] = {}
"""Op implementations by name, filled in by :mod:`ownership.ops` when the package is imported."""

# creation meta of views (torch's CreationMeta)
DEFAULT = "DEFAULT"
NO_GRAD_MODE = "NO_GRAD_MODE"
MULTI_OUTPUT = "MULTI_OUTPUT_NODE"

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)


def _op(name: str) -> Callable[..., Tensor]:
    return OPS[name]


class Device:
    """The only device: the CPU (prints like ``device(type='cpu')``)."""

    type = "cpu"

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"

    def __eq__(self, other: object) -> bool:
        return str(other) == "cpu"

    def __hash__(self) -> int:
        return hash("cpu")


CPU = Device()


class Tensor:
    """An n-dimensional array that may share memory with others and may record a graph."""

    __slots__ = (
        "__weakref__",
        "_acc",
        "_base",
        "_creation_meta",
        "_data",
        "_grad",
        "_grad_fn",
        "_offset",
        "_output_nr",
        "_requires_grad",
        "_retains_grad",
        "_storage",
        "_view_version",
        "dtype",
    )
    __array_priority__ = 1000

    _data: NDArray[Any]
    _storage: Storage
    _offset: builtins.int
    dtype: DType
    _requires_grad: builtins.bool
    _grad_fn: Node | None
    _output_nr: builtins.int
    _grad: Tensor | None
    _base: Tensor | None
    _creation_meta: str
    _view_version: builtins.int
    _retains_grad: builtins.bool
    _acc: Any

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _wrap(arr: NDArray[Any], dtype: DType | None = None) -> Tensor:
        """A new tensor (fresh storage, version 0) over a freshly computed array, without copying."""
        if type(arr) is not np.ndarray:
            arr = np.asarray(arr)
        arr, storage = storage_for(arr)
        t = object.__new__(Tensor)
        t._data = arr
        t._storage = storage
        t._offset = 0
        t.dtype = dtype if dtype is not None else dtypes.from_numpy_dtype(arr.dtype)
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
        t._grad = None
        t._base = None
        t._creation_meta = DEFAULT
        t._view_version = 0
        t._retains_grad = False
        t._acc = None
        return t

    def _alias(self, storage: Storage, cls: type[Tensor] | None = None) -> Tensor:
        """A new non-view tensor object over the same array and the given storage object."""
        t = object.__new__(cls if cls is not None else Tensor)
        t._data = self._data
        t._storage = storage
        t._offset = self._offset
        t.dtype = self.dtype
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
        t._grad = None
        t._base = None
        t._creation_meta = DEFAULT
        t._view_version = 0
        t._retains_grad = False
        t._acc = None
        return t

    def _view(
        self, shape: Sequence[builtins.int], strides: Sequence[builtins.int], offset: builtins.int
    ) -> Tensor:
        """A view of this tensor's storage (shares memory and version counter; ``_base`` is the root).

        Only the tensor-level part: the op that creates the view attaches its ``grad_fn``.
        """
        t = object.__new__(Tensor)
        t._data = layout.strided(self._storage.buffer, shape, strides, offset)
        t._storage = self._storage
        t._offset = offset
        t.dtype = self.dtype
        t._requires_grad = self._requires_grad
        t._grad_fn = None
        t._output_nr = 0
        t._grad = None
        base = self._base if self._base is not None else self
        t._base = base
        meta = self._creation_meta
        if not grad_mode._state.enabled:
            meta = NO_GRAD_MODE
        t._creation_meta = meta
        t._view_version = self._storage.counter.value
        t._retains_grad = False
        t._acc = None
        return t

    @classmethod
    def _make_subclass(cls, data: Tensor, requires_grad: builtins.bool = False) -> Tensor:
        """An instance of ``cls`` aliasing ``data``'s storage and version counter: a leaf.

        This is what ``nn.Parameter`` uses; it works the same under ``no_grad``.
        """
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t = data._alias(data._storage, cls)
        t._requires_grad = builtins.bool(requires_grad)
        return t

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        """The sizes, as a ``torch.Size``."""
        return Size(self._data.shape)

    def size(self, dim: builtins.int | None = None) -> Any:
        """``shape``, or the size of one dimension."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[layout.wrap_dim(dim, self._data.ndim)]

    @property
    def ndim(self) -> builtins.int:
        """Number of dimensions."""
        return self._data.ndim

    def dim(self) -> builtins.int:
        """Number of dimensions."""
        return self._data.ndim

    def numel(self) -> builtins.int:
        """Number of elements."""
        return int(self._data.size)

    def nelement(self) -> builtins.int:
        """Number of elements."""
        return int(self._data.size)

    def element_size(self) -> builtins.int:
        """Bytes per element."""
        return int(self._data.itemsize)

    def stride(self, dim: builtins.int | None = None) -> Any:
        """Strides in elements (all of them, or of one dimension)."""
        item = self._data.itemsize
        st = tuple(s // item for s in self._data.strides)
        if dim is None:
            return st
        return st[layout.wrap_dim(dim, self._data.ndim)]

    def storage_offset(self) -> builtins.int:
        """Offset of element 0 in the storage, in elements."""
        return self._offset

    def data_ptr(self) -> builtins.int:
        """Byte address of element 0 (equal for aliases of the same element)."""
        return self._storage.address() + self._offset * self._data.itemsize

    def untyped_storage_size(self) -> builtins.int:
        """Size of the underlying storage in bytes."""
        return self._storage.nbytes()

    def is_contiguous(self) -> builtins.bool:
        """Row-major with torch's rule (size-1 dimensions do not matter)."""
        return layout.is_contiguous(self._data.shape, self.stride())

    def is_floating_point(self) -> builtins.bool:
        """Whether the dtype is a floating dtype."""
        return builtins.bool(self.dtype.is_floating_point)

    @property
    def device(self) -> Device:
        """Always the CPU."""
        return CPU

    @property
    def is_cuda(self) -> builtins.bool:
        """Always False."""
        return False

    @property
    def _version(self) -> builtins.int:
        """The version counter shared by every alias of this storage (bumped by in-place ops)."""
        return self._storage.counter.value

    # ------------------------------------------------------------------ autograd metadata
    @property
    def grad_fn(self) -> Node | None:
        """The node that created this tensor (None for leaves)."""
        if self._base is not None and self._view_version != self._storage.counter.value:
            self._refresh_view_grad_fn()
        return self._grad_fn

    def _geometry(self) -> tuple[tuple[builtins.int, ...], tuple[builtins.int, ...], int]:
        return (tuple(self._data.shape), self.stride(), self._offset)

    def _refresh_view_grad_fn(self) -> None:
        """After the storage changed, a differentiable view's grad_fn becomes a window on its base.

        Views that may not be rebased (multi-output, made under no_grad) refuse here, when they
        are next used, with torch's "its base or another view of its base" messages.
        """
        base = self._base
        assert base is not None
        if self._grad_fn is None and not base._requires_grad:
            self._view_version = self._storage.counter.value
            return
        meta = self._creation_meta
        if meta == MULTI_OUTPUT:
            fn = self._grad_fn
            name = short_name(fn.name()) if fn is not None else "None"
            raise RuntimeError(
                f"Output {self._output_nr} of {name} is a view and its base or another view of its "
                "base has been modified inplace. This view is the output of a function that returns "
                "multiple views. Such functions do not allow the output views to be modified "
                "inplace. You should replace the inplace operation by an out-of-place one."
            )
        if meta == NO_GRAD_MODE:
            raise RuntimeError(
                "A view was created in no_grad mode and its base or another view of its base has "
                "been modified inplace with grad mode enabled. Given that this use case is "
                "ambiguous and error-prone, it is forbidden. You can clarify your code by moving "
                "both the view and the inplace either both inside the no_grad block (if you don't "
                "want the inplace to be tracked) or both outside (if you want the inplace to be "
                "tracked)."
            )
        self._view_version = self._storage.counter.value
        self._set_grad_fn(
            AsStridedBackward0(
                gradient_edge(base),
                base._geometry(),
                self._geometry(),
                int(self._storage.buffer.size),
            )
        )

    def _set_grad_fn(self, node: Node) -> None:
        """Give this tensor a new history (output 0 of ``node``), moving a ``retain_grad`` along."""
        old = self._grad_fn
        if self._retains_grad and old is not None and old._retained is not None:
            old._retained.pop(self._output_nr, None)
        self._grad_fn = node
        self._output_nr = 0
        self._requires_grad = True
        if self._retains_grad:
            node.retain(0, self)

    @property
    def is_leaf(self) -> builtins.bool:
        """True when the tensor has no ``grad_fn`` (created by the user, or not requiring grad)."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> builtins.bool:
        """Whether operations on this tensor are recorded (a view also when its base does)."""
        if self._requires_grad:
            return True
        base = self._base
        return base is not None and base._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: builtins.bool) -> None:
        if value and not self.dtype.is_floating_point:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: builtins.bool = True) -> Tensor:
        """Set ``requires_grad`` of a leaf (in place); returns self."""
        if not self.is_leaf:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient of a leaf (None until a backward reaches it)."""
        if not self._retains_grad and self._requires_grad and self.grad_fn is not None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_c_name(value.dtype)}' to a tensor "
                    f"with grad_dtype '{self.dtype.short}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                    "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
                    "caution. Diverging the dtypes of a tensor and its gradient may break downstream "
                    "systems that assume they match."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                    f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                    "the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    def retain_grad(self) -> None:
        """Make a non-leaf tensor keep its gradient in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        fn = self.grad_fn
        if fn is None or self._retains_grad:
            return
        fn.retain(self._output_nr, self)
        self._retains_grad = True

    @property
    def retains_grad(self) -> builtins.bool:
        """Whether :meth:`retain_grad` was called on this non-leaf tensor."""
        return self._retains_grad

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Sequence[Tensor] | None = None,
    ) -> None:
        """Accumulate the gradient of this tensor into the ``.grad`` of the leaves it depends on."""
        given = gradient is not None
        if gradient is None:
            if self._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not self._requires_grad:
                raise RuntimeError(
                    "element 0 of tensors does not require grad and does not have a grad_fn"
                )
            gradient = Tensor._wrap(np.ones_like(self._data), self.dtype)
        elif gradient._data.shape != self._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {gradient.shape} and output[0] "
                f"has a shape of {self.shape}."
            )
        keep = create_graph if retain_graph is None else retain_graph
        engine.run_backward([self], [gradient], keep, create_graph, inputs, user_given=[given])

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """Not supported by this engine."""
        raise NotImplementedError("register_hook is not supported by ownership")

    # ------------------------------------------------------------------ aliasing
    def detach(self) -> Tensor:
        """A new leaf sharing storage *and version counter*: later in-place writes are still seen."""
        t = self._alias(self._storage)
        return t

    def detach_(self) -> Tensor:
        """Make this tensor a leaf that does not require grad, in place."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                "function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    @property
    def data(self) -> Tensor:
        """An alias of the same memory with a *new* version counter (mutations go unnoticed)."""
        return self._alias(self._storage.alias_with_new_counter())

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data
        self._storage = Storage(value._storage.buffer, self._storage.counter)
        self._offset = value._offset
        self.dtype = value.dtype

    # ------------------------------------------------------------------ in-place protocol
    def _check_inplace(self) -> None:
        """torch's check_inplace, for an in-place op that will be recorded."""
        if self._base is not None:
            meta = self._creation_meta
            if meta == MULTI_OUTPUT:
                fn = self.grad_fn
                name = short_name(fn.name()) if fn is not None else "None"
                raise RuntimeError(
                    f"Output {self._output_nr} of {name} is a view and is being modified inplace. "
                    "This view is the output of a function that returns multiple views. Such "
                    "functions do not allow the output views to be modified inplace. You should "
                    "replace the inplace operation by an out-of-place one."
                )
            if meta == NO_GRAD_MODE:
                raise RuntimeError(
                    "A view was created in no_grad mode and is being modified inplace with grad "
                    "mode enabled. Given that this use case is ambiguous and error-prone, it is "
                    "forbidden. You can clarify your code by moving both the view and the inplace "
                    "either both inside the no_grad block (if you don't want the inplace to be "
                    "tracked) or both outside (if you want the inplace to be tracked)."
                )
            if self._requires_grad and self._base.is_leaf and self._base._requires_grad:
                raise RuntimeError(
                    "a view of a leaf Variable that requires grad is being used in an in-place "
                    "operation."
                )
        if self._requires_grad and self.is_leaf:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )

    def _check_writable(
        self,
        result_shape: tuple[builtins.int, ...],
        result_dtype: DType,
        check_overlap: builtins.bool = True,
    ) -> None:
        """Errors an in-place write raises in any grad mode: growth, overlap, narrowing cast."""
        if result_shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(result_shape)}"
            )
        if not dtypes.can_cast(result_dtype, self.dtype):
            raise RuntimeError(
                f"result type {result_dtype.short} can't be cast to the desired output type "
                f"{self.dtype.short}"
            )
        if check_overlap and layout.has_internal_overlap(self._data.shape, self.stride()):
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a "
                "single memory location. Please clone() the tensor before performing the operation."
            )

    def _set_history_inplace(self, node: Node) -> None:
        """After a recorded in-place op: this tensor's history becomes ``node`` (via CopySlices for views)."""
        base = self._base
        if base is None:
            self._set_grad_fn(node)
            return
        size = int(self._storage.buffer.size)
        base._set_grad_fn(
            CopySlices(gradient_edge(base), node, base._geometry(), self._geometry(), size)
        )
        self._requires_grad = True
        self._view_version = -1
        self._refresh_view_grad_fn()

    # ------------------------------------------------------------------ conversion
    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(-1)[0].item()

    def tolist(self) -> Any:
        """Nested Python lists (a number for a 0-d tensor)."""
        return self._data.tolist()

    def numpy(self, *, force: builtins.bool = False) -> NDArray[Any]:
        """A numpy array sharing memory with this tensor (refused when grad is required)."""
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        arr = self._data if dtype is None else self._data.astype(dtype)
        return arr

    def __float__(self) -> builtins.float:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self.item())

    def __int__(self) -> builtins.int:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __bool__(self) -> builtins.bool:
        if self._data.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __index__(self) -> builtins.int:
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __len__(self) -> builtins.int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self._data.shape[0])

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(OPS["unbind"](self, 0))

    def __hash__(self) -> builtins.int:
        return id(self)

    def __repr__(self) -> str:
        d = self.dtype
        default = d is dtypes.get_default_dtype() or d is dtypes.int64 or d is dtypes.bool_
        fn = self.grad_fn
        if fn is not None:
            grad = f"grad_fn=<{printing_name(fn)}>"
        elif self._requires_grad:
            grad = "requires_grad=True"
        else:
            grad = None
        return printing.tensor_repr(
            self._data, d.is_floating_point, None if default else f"dtype={d!r}", grad
        )

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return repr(self)

    def __deepcopy__(self, memo: dict[builtins.int, Any]) -> Tensor:
        t = Tensor._wrap(self._data.copy(), self.dtype)
        if self._requires_grad and self.is_leaf:
            t._requires_grad = True
        memo[id(self)] = t
        return t

    # ------------------------------------------------------------------ ops (see ownership.ops)
    def __add__(self, other: Any) -> Tensor:
        return _op("add")(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return _op("add")(self, other)

    def __sub__(self, other: Any) -> Tensor:
        return _op("sub")(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _op("rsub")(self, other)

    def __mul__(self, other: Any) -> Tensor:
        return _op("mul")(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _op("mul")(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return _op("div")(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _op("rdiv")(self, other)

    def __pow__(self, other: Any) -> Tensor:
        return _op("pow")(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return _op("rpow")(self, other)

    def __matmul__(self, other: Tensor) -> Tensor:
        if not isinstance(other, Tensor):
            return NotImplemented
        return _op("matmul")(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return _op("matmul")(other, self)

    def __neg__(self) -> Tensor:
        return _op("neg")(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _op("abs")(self)

    def __iadd__(self, other: Any) -> Tensor:
        return _op("add_")(self, other)

    def __isub__(self, other: Any) -> Tensor:
        return _op("sub_")(self, other)

    def __imul__(self, other: Any) -> Tensor:
        return _op("mul_")(self, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return _op("div_")(self, other)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _op("eq")(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _op("ne")(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return _op("lt")(self, other)

    def __le__(self, other: Any) -> Tensor:
        return _op("le")(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _op("gt")(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _op("ge")(self, other)

    def __invert__(self) -> Tensor:
        return _op("logical_not")(self)

    def __and__(self, other: Any) -> Tensor:
        return _op("logical_and")(self, other)

    def __or__(self, other: Any) -> Tensor:
        return _op("logical_or")(self, other)

    def __getitem__(self, index: Any) -> Tensor:
        return _op("getitem")(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        OPS["setitem"](self, index, value)

    def add(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """``self + alpha * other``."""
        return _op("add")(self, other, alpha=alpha)

    def sub(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """``self - alpha * other``."""
        return _op("sub")(self, other, alpha=alpha)

    def mul(self, other: Any) -> Tensor:
        """``self * other``."""
        return _op("mul")(self, other)

    def div(self, other: Any) -> Tensor:
        """``self / other``."""
        return _op("div")(self, other)

    def pow(self, exponent: Any) -> Tensor:
        """``self ** exponent``."""
        return _op("pow")(self, exponent)

    def neg(self) -> Tensor:
        """``-self``."""
        return _op("neg")(self)

    def exp(self) -> Tensor:
        """Elementwise exponential (saves its result)."""
        return _op("exp")(self)

    def log(self) -> Tensor:
        """Elementwise natural log (saves its input)."""
        return _op("log")(self)

    def sqrt(self) -> Tensor:
        """Elementwise square root (saves its result)."""
        return _op("sqrt")(self)

    def abs(self) -> Tensor:
        """Elementwise absolute value (saves its input)."""
        return _op("abs")(self)

    def sigmoid(self) -> Tensor:
        """Elementwise logistic function (saves its result)."""
        return _op("sigmoid")(self)

    def tanh(self) -> Tensor:
        """Elementwise tanh (saves its result)."""
        return _op("tanh")(self)

    def relu(self) -> Tensor:
        """Elementwise max(x, 0) (saves its result)."""
        return _op("relu")(self)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:
        """Elementwise clamp into [min, max] (saves its input)."""
        return _op("clamp")(self, min, max)

    clip = clamp

    def sum(
        self, dim: Any = None, keepdim: builtins.bool = False, *, dtype: DType | None = None
    ) -> Tensor:
        """Sum of all elements, or over ``dim``."""
        return _op("sum")(self, dim, keepdim, dtype=dtype)

    def mean(
        self, dim: Any = None, keepdim: builtins.bool = False, *, dtype: DType | None = None
    ) -> Tensor:
        """Mean of all elements, or over ``dim``."""
        return _op("mean")(self, dim, keepdim, dtype=dtype)

    def max(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        """Maximum of all elements, or ``(values, indices)`` over ``dim``."""
        return OPS["max"](self, dim, keepdim)

    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        """Minimum of all elements, or ``(values, indices)`` over ``dim``."""
        return OPS["min"](self, dim, keepdim)

    def argmax(self, dim: builtins.int | None = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the maximum (flattened when ``dim`` is None)."""
        return _op("argmax")(self, dim, keepdim)

    def softmax(self, dim: builtins.int) -> Tensor:
        """Softmax over ``dim`` (saves its result)."""
        return _op("softmax")(self, dim)

    def log_softmax(self, dim: builtins.int) -> Tensor:
        """Log-softmax over ``dim`` (stable; saves its result)."""
        return _op("log_softmax")(self, dim)

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product with torch's 1-D/2-D rules."""
        return _op("matmul")(self, other)

    def mm(self, other: Tensor) -> Tensor:
        """2-D matrix product."""
        return _op("mm")(self, other)

    def mv(self, vec: Tensor) -> Tensor:
        """Matrix @ vector."""
        return _op("mv")(self, vec)

    def dot(self, other: Tensor) -> Tensor:
        """1-D dot product."""
        return _op("dot")(self, other)

    def eq(self, other: Any) -> Tensor:
        """Elementwise ``==`` as a bool tensor."""
        return _op("eq")(self, other)

    def ne(self, other: Any) -> Tensor:
        """Elementwise ``!=`` as a bool tensor."""
        return _op("ne")(self, other)

    def lt(self, other: Any) -> Tensor:
        """Elementwise ``<``."""
        return _op("lt")(self, other)

    def le(self, other: Any) -> Tensor:
        """Elementwise ``<=``."""
        return _op("le")(self, other)

    def gt(self, other: Any) -> Tensor:
        """Elementwise ``>``."""
        return _op("gt")(self, other)

    def ge(self, other: Any) -> Tensor:
        """Elementwise ``>=``."""
        return _op("ge")(self, other)

    def all(self) -> Tensor:
        """Whether all elements are true."""
        return _op("all")(self)

    def any(self) -> Tensor:
        """Whether any element is true."""
        return _op("any")(self)

    def clone(self) -> Tensor:
        """A copy with fresh storage (version 0), differentiable (``CloneBackward0``)."""
        return _op("clone")(self)

    def contiguous(self) -> Tensor:
        """Self when already contiguous, else a contiguous copy."""
        return _op("contiguous")(self)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert to a dtype (``"cpu"`` device arguments are accepted and ignored)."""
        return _op("to")(self, *args, **kwargs)

    def type_as(self, other: Tensor) -> Tensor:
        """Convert to ``other``'s dtype."""
        return _op("to")(self, other.dtype)

    def float(self) -> Tensor:
        """Convert to float32."""
        return _op("to")(self, dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return _op("to")(self, dtypes.float64)

    def long(self) -> Tensor:
        """Convert to int64."""
        return _op("to")(self, dtypes.int64)

    def int(self) -> Tensor:
        """Convert to int32."""
        return _op("to")(self, dtypes.int32)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return _op("to")(self, dtypes.bool_)

    def cpu(self) -> Tensor:
        """Self: the engine is CPU only."""
        return self

    def new_zeros(
        self, *size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Zeros with this tensor's dtype by default."""
        return _op("zeros")(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(
        self, *size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Ones with this tensor's dtype by default."""
        return _op("ones")(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_tensor(
        self, data: Any, dtype: DType | None = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """A new tensor from data with this tensor's dtype by default."""
        return _op("tensor")(data, dtype=dtype or self.dtype, requires_grad=requires_grad)

    # views
    def view(self, *shape: Any) -> Tensor:
        """Same storage, new shape (fails when the strides do not allow it)."""
        return _op("view")(self, *shape)

    def view_as(self, other: Tensor) -> Tensor:
        """``view(other.shape)``."""
        return _op("view")(self, other.shape)

    def reshape(self, *shape: Any) -> Tensor:
        """A view when the strides allow it, else a copy."""
        return _op("reshape")(self, *shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        """``reshape(other.shape)``."""
        return _op("reshape")(self, other.shape)

    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = -1) -> Tensor:
        """Merge dimensions ``start_dim..end_dim`` (a view when possible)."""
        return _op("flatten")(self, start_dim, end_dim)

    def t(self) -> Tensor:
        """Transpose of a tensor of at most 2 dimensions (a view)."""
        return _op("t")(self)

    @property
    def T(self) -> Tensor:
        """All dimensions reversed (a view)."""
        return _op("T")(self)

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped (a view)."""
        return _op("transpose")(self, -2, -1)

    def transpose(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """Two dimensions swapped (a view)."""
        return _op("transpose")(self, dim0, dim1)

    def permute(self, *dims: Any) -> Tensor:
        """Dimensions reordered (a view)."""
        return _op("permute")(self, *dims)

    def expand(self, *sizes: Any) -> Tensor:
        """Size-1 dimensions repeated with stride 0 (a view; writing into it is refused)."""
        return _op("expand")(self, *sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        """``expand(other.shape)``."""
        return _op("expand")(self, other.shape)

    def unsqueeze(self, dim: builtins.int) -> Tensor:
        """A new size-1 dimension at ``dim`` (a view)."""
        return _op("unsqueeze")(self, dim)

    def squeeze(self, dim: Any = None) -> Tensor:
        """Size-1 dimensions removed (a view)."""
        return _op("squeeze")(self, dim)

    def narrow(self, dim: builtins.int, start: builtins.int, length: builtins.int) -> Tensor:
        """Elements ``start..start+length`` of ``dim`` (a view)."""
        return _op("narrow")(self, dim, start, length)

    def select(self, dim: builtins.int, index: builtins.int) -> Tensor:
        """Index ``index`` of ``dim``, removing it (a view)."""
        return _op("select")(self, dim, index)

    def unbind(self, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """All slices along ``dim`` (multi-output views: refuse in-place with grad on)."""
        return OPS["unbind"](self, dim)

    def split(self, split_size: Any, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """Pieces of ``split_size`` (or the given sizes) along ``dim`` (multi-output views)."""
        return OPS["split"](self, split_size, dim)

    def chunk(self, chunks: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """``chunks`` nearly equal pieces along ``dim`` (multi-output views)."""
        return OPS["chunk"](self, chunks, dim)

    # in-place
    def add_(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """In place ``self += alpha * other``; bumps the version once."""
        return _op("add_")(self, other, alpha=alpha)

    def sub_(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """In place ``self -= alpha * other``."""
        return _op("sub_")(self, other, alpha=alpha)

    def mul_(self, other: Any) -> Tensor:
        """In place ``self *= other``."""
        return _op("mul_")(self, other)

    def div_(self, other: Any) -> Tensor:
        """In place ``self /= other``."""
        return _op("div_")(self, other)

    def pow_(self, exponent: Any) -> Tensor:
        """In place ``self **= exponent``."""
        return _op("pow_")(self, exponent)

    def zero_(self) -> Tensor:
        """Fill with zeros in place."""
        return _op("zero_")(self)

    def fill_(self, value: Any) -> Tensor:
        """Fill with ``value`` in place."""
        return _op("fill_")(self, value)

    def copy_(self, src: Any) -> Tensor:
        """Copy ``src`` (a tensor, numpy array or torch tensor, broadcastable) into self."""
        return _op("copy_")(self, src)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:
        """Clamp in place."""
        return _op("clamp_")(self, min, max)

    clip_ = clamp_

    def relu_(self) -> Tensor:
        """ReLU in place."""
        return _op("relu_")(self)

    def sigmoid_(self) -> Tensor:
        """Sigmoid in place (saves the new value)."""
        return _op("sigmoid_")(self)

    def exp_(self) -> Tensor:
        """Exponential in place (saves the new value)."""
        return _op("exp_")(self)

    def tanh_(self) -> Tensor:
        """Tanh in place (saves the new value)."""
        return _op("tanh_")(self)

    def neg_(self) -> Tensor:
        """Negate in place."""
        return _op("neg_")(self)

    def normal_(
        self, mean: builtins.float = 0.0, std: builtins.float = 1.0, *, generator: Any = None
    ) -> Tensor:
        """Fill with normal samples in place."""
        return _op("normal_")(self, mean, std, generator=generator)

    def uniform_(
        self, a: builtins.float = 0.0, b: builtins.float = 1.0, *, generator: Any = None
    ) -> Tensor:
        """Fill with uniform samples in place."""
        return _op("uniform_")(self, a, b, generator=generator)


def _c_name(d: DType) -> str:
    return {
        "float64": "double",
        "float32": "float",
        "int64": "long",
        "int32": "int",
        "bool": "bool",
    }[d.name]


def printing_name(fn: Node | None) -> str:
    """The node name shown in reprs and view errors (``CopySlices``, ``MulBackward0``, ...)."""
    if fn is None:
        return "None"
    return fn.name().rsplit("::", 1)[-1]
