"""Tensor autograd properties: ``grad_fn``, ``requires_grad``, ``backward``, ``detach``, ``data``.

Inherited by :class:`~ownership.core.tensor.Tensor`. The methods have private names
(``_detach``), as :mod:`~ownership.core.tensor_metadata`'s do: the public ones call them through
the op table.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

import ownership.core.inference_mode as inference_mode  # the module, not the mode
from ownership.core.autograd import engine
from ownership.core.autograd import node as graph_node
from ownership.core.autograd.engine import (
    check_roots,
    engine_flag,
    gradients_given,
    make_seeds,
    note_dtype_change,
    note_shape_change,
)
from ownership.core.autograd.node import NO_ACCUMULATOR, Node
from ownership.core.dtypes import dtype as DType
from ownership.core.storage import rekeyed

if TYPE_CHECKING:
    from ownership.core.storage import Storage, VersionCounter
    from ownership.core.tensor import Tensor


class TensorAutograd:
    """The autograd properties and methods of :class:`~ownership.core.tensor.Tensor`."""

    __slots__ = ()
    _data: NDArray[Any]
    _offset: builtins.int
    dtype: DType
    _requires_grad: builtins.bool
    _output_nr: builtins.int
    _base: Tensor | None
    _retains_grad: builtins.bool
    # set on the class by ownership.installation.install (parity)
    register_hook: Callable[[Callable[[Tensor], Tensor | None]], Any]
    register_post_accumulate_grad_hook: Callable[[Callable[[Tensor], None]], Any]
    grad_dtype: DType | None
    grad: Tensor | None  # over the slot ``_grad``, with torch's checks (parity)
    if TYPE_CHECKING:  # what the Tensor holds, read and written here
        _lazy_counter: VersionCounter | None
        _lazy_storage: Storage | None

        @property
        def _version_counter(self) -> VersionCounter: ...

        def _node(self) -> Node | None: ...

        def _alias(self, counter: VersionCounter, cls: type[Tensor] | None = None) -> Tensor: ...

    @property
    def grad_fn(self) -> Node | None:
        """The node that created this tensor (None for leaves), as torch shows it."""
        return graph_node.shown(self._node())  # type: ignore[no-any-return]

    @grad_fn.setter
    def grad_fn(self, value: Any) -> None:
        raise AttributeError("attribute 'grad_fn' of 'torch._C.TensorBase' objects is not writable")

    @grad_fn.deleter
    def grad_fn(self) -> None:
        raise AttributeError("attribute 'grad_fn' of 'torch._C.TensorBase' objects is not writable")

    def _set_grad_fn(self: Any, node: Node) -> None:
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
    def output_nr(self) -> builtins.int:
        """Which output of its ``grad_fn`` this tensor is (0 for single-output nodes)."""
        return self._output_nr

    @property
    def is_leaf(self) -> builtins.bool:
        """True when the tensor has no ``grad_fn`` (created by the user, or not requiring grad)."""
        return self._node() is None

    @property
    def requires_grad(self) -> builtins.bool:
        """Whether operations on this tensor are recorded (a view also when its base does)."""
        return self._requires_grad or (self._base is not None and self._base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value: builtins.bool) -> None:
        if not isinstance(value, builtins.bool):  # before any other check, as torch's setter
            raise RuntimeError("requires_grad must be a bool")
        if value and not self.dtype.is_floating_point:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self._requires_grad_(value)

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")

    def _requires_grad_(self: Any, requires_grad: builtins.bool = True) -> Tensor:
        """Set ``requires_grad`` of a leaf (in place); returns self."""
        if not isinstance(requires_grad, builtins.bool):
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{type(requires_grad).__name__}"
            )
        if self._history is not None:  # not a leaf
            if requires_grad:
                return self  # type: ignore[no-any-return]
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._is_inference() and not inference_mode._state.enabled:
            raise RuntimeError(inference_mode.REQUIRES_GRAD_MESSAGE)
        self._requires_grad = bool(requires_grad)
        return self  # type: ignore[no-any-return]

    def _retain_grad(self: Any) -> None:
        """Make a non-leaf tensor keep its gradient in ``.grad`` during backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._history is None or self._retains_grad:  # a leaf by the grad_fn it holds
            return
        fn = self._node()
        if fn is not None:
            fn.retain(self._output_nr, self)
            self._retains_grad = True

    @property
    def retains_grad(self) -> builtins.bool:
        """Whether :meth:`retain_grad` was called on this non-leaf tensor."""
        return self._retains_grad

    def _backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
    ) -> None:
        """Accumulate this tensor's gradient into its leaves' ``.grad`` (``inputs``' only)."""
        if inputs is not None:
            inputs = [inputs] if isinstance(inputs, TensorAutograd) else list(inputs)
            if not inputs:
                raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        if gradient is not None and not isinstance(gradient, TensorAutograd):
            grads = gradients_given(gradient, 1)  # one per output; a number: Python's TypeError
            if not grads:
                raise RuntimeError("got 1 tensors and 0 gradients")
            gradient = grads[0]
        # torch's order: the seed, then the engine's flags, then the root's checks
        (gradient,) = make_seeds([self], [gradient])
        keep = engine_flag(create_graph if retain_graph is None else retain_graph)
        create_graph = engine_flag(create_graph)
        check_roots([self], [gradient])
        engine.run_backward([self], [gradient], keep, create_graph, inputs)

    def _is_inference(self) -> builtins.bool:
        """Whether this is an inference tensor (made in inference mode: no version counter)."""
        counter = self._lazy_counter
        return counter is not None and counter.inference

    def _detach(self) -> Tensor:
        """A new leaf sharing storage *and version counter*: later in-place writes are seen."""
        return self._alias(self._version_counter.shared())

    def _detach_(self: Any) -> Tensor:
        """Make this tensor a leaf that does not require grad, in place."""
        if inference_mode._state.enabled or self._is_inference():
            return self  # type: ignore[no-any-return]
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
        return self  # type: ignore[no-any-return]

    @property
    def data(self) -> Tensor:
        """An alias of the same memory with a *new* version counter (mutations go unnoticed)."""
        return self._alias(self._version_counter.fresh())

    @data.setter
    def data(self: Any, value: Tensor) -> None:
        if not isinstance(value, TensorAutograd):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self.requires_grad and not value.dtype.is_floating_point:
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                "dtype"
            )
        if value._data.shape != self._data.shape:
            note_shape_change(self, tuple(self._data.shape))  # autograd's metadata keeps it
        self._data = value._data
        if not value._data.ndim:  # torch's shallow copy: the leftover size too
            self._leftover_size = getattr(value, "_leftover_size", 0)
        self._lazy_storage = value._storage  # the counter stays this tensor's
        self._offset = value._offset
        if value.dtype is not self.dtype:  # torch's set_data: a new type, a new accumulator
            note_dtype_change(self)  # autograd's metadata keeps the old one
            self._acc = NO_ACCUMULATOR
        self.dtype = value.dtype
        self._lazy_counter = rekeyed(self._version_counter, value._is_inference())

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")
