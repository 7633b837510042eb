"""Custom ops: ``autograd.Function`` with ``ctx.save_for_backward`` checked like built-ins.

Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call ``.apply``.
The forward runs without recording; the outputs get one node named ``<Class>Backward``. Tensors
saved with ``ctx.save_for_backward`` record their version, and ``ctx.saved_tensors`` in backward
raises torch's error if one was modified in place since (or was freed by an earlier backward).
The outputs get the history torch gives them: an input returned as-is comes back as a view of
itself, an output marked non-differentiable gets none, and backward gets zeros for an output that
got no gradient (``None`` after ``ctx.set_materialize_grads(False)``). ``@once_differentiable``
(``autograd/once_differentiable.py``) marks a backward that may not be differentiated.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ownership.autograd.function_ctx import FunctionBase, FunctionCtx, as_tuple
from ownership.autograd.once_differentiable import once_differentiable
from ownership.core import grad_mode, inplace_rules
from ownership.core.autograd.engine import validate_outputs
from ownership.core.autograd.node import Node, gradient_edge
from ownership.core.autograd.saved import SavedTensor
from ownership.core.autograd.view_history import CreationMeta, rebase_history
from ownership.core.storage import is_engine_tensor
from ownership.ops.common import written_fresh
from ownership.ops.type_names import tp_name

__all__ = ["BackwardFunction", "Function", "FunctionCtx", "backward_class", "once_differentiable"]


def _is_tensor(x: Any) -> bool:
    return is_engine_tensor(x) and hasattr(x, "_grad_fn")


class BackwardFunction(Node, FunctionBase, FunctionCtx):
    """The node of a custom Function's outputs, which is also the ``ctx`` its forward and
    backward get, as in torch (``ctx is y.grad_fn``): what forward sets on it (``ctx.k = 2``)
    the node shows, and ``y.grad_fn.saved_tensors`` unpacks as backward does. Each Function has
    its own subclass (:func:`backward_class`), whose instances take the attributes forward sets;
    the ctx's methods and attributes are torch's (:mod:`ownership.autograd.function_ctx`)."""

    keeps_unneeded = True

    __slots__ = (
        "_cls",
        "_dirty",
        "_for_forward",
        "_freed",
        "_in_shapes",
        "_materialize",
        "_materialize_non_diff",
        "_n_args",
        "_non_diff",
        "_positions",
        "_saved",
        "_shapes",
        "_to_save",
        "needs_input_grad",
    )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """torch's refusal: a custom Function's node is not callable (its ``apply`` is)."""
        raise TypeError(f"'{type(self).__name__}' object is not callable")

    def __init__(self, cls: type, args: tuple[Any, ...]) -> None:
        positions = [i for i, a in enumerate(args) if _is_tensor(a)]
        super().__init__((), 1)  # the edges are set before forward if the outputs are recorded
        self._positions = positions
        self._cls = cls
        self._n_args = len(args)
        self._in_shapes = [tuple(args[i]._data.shape) for i in positions]
        self._shapes: list[Any] = []
        self._to_save = self._dirty = self._non_diff = self._for_forward = None
        self._saved = None
        self._freed = False
        self._materialize = self._materialize_non_diff = True
        self.needs_input_grad = tuple(_is_tensor(a) and a.requires_grad for a in args)

    def name(self) -> str:
        return f"{self._cls.__name__}Backward"

    def __repr__(self) -> str:
        """torch's: the default repr of its Python class, ``torch.autograd.function``'s."""
        return f"<torch.autograd.function.{BackwardFunction.name(self)} object at {hex(id(self))}>"

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        filled: list[Any] = []
        for g, like in zip(grads, self._shapes, strict=True):
            if g is None and like is not None and self._materialize:
                shape, np_dtype, dtype, wrap, diff = like
                if not (diff or self._materialize_non_diff):
                    filled.append(g)
                    continue
                # torch's ``at::zeros`` fills an empty tensor in place
                g = written_fresh(wrap(np.zeros(shape, np_dtype), dtype))
            filled.append(g)
        res = self._cls.backward(self, *filled)  # type: ignore[attr-defined]
        if not isinstance(res, tuple):
            res = (res,)
        name = BackwardFunction.name(self)  # not an attribute forward may have set on its ctx
        if len(res) > self._n_args and all(g is None for g in res[self._n_args :]):
            res = res[: self._n_args]  # torch ignores trailing None gradients
        if len(res) != self._n_args:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients (expected "
                f"{self._n_args}, got {len(res)})"
            )
        _check_gradient_types(name, res, self._positions)
        out = [res[i] for i in self._positions]
        validate_outputs(self, out, self._in_shapes)  # the engine's check, with these shapes
        return out

    def release(self) -> None:
        self._freed = True
        self._saved = None


def _check_gradient_types(name: str, grads: Sequence[Any], positions: Sequence[int]) -> None:
    """torch's checks of what a custom backward returned, in its order: ``None`` for an argument
    that was not a tensor, and a tensor or ``None`` for one that was."""
    for i, g in enumerate(grads):
        if i not in positions:
            if g is not None:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position "
                    f"{i + 1}, but the corresponding forward input was not a Variable"
                )
        elif g is not None and not _is_tensor(g):
            raise RuntimeError(f"expected Variable or None (got {tp_name(g)})")


_BACKWARD_CLASSES: weakref.WeakKeyDictionary[type, type[BackwardFunction]] = (
    weakref.WeakKeyDictionary()
)


def backward_class(cls: type) -> type[BackwardFunction]:
    """The class of the nodes of the custom Function ``cls``, one per Function as torch makes
    it: named ``<Class>Backward`` (``type(y.grad_fn).__name__``, and the name an unknown
    attribute's AttributeError gives)."""
    node_cls = _BACKWARD_CLASSES.get(cls)
    if node_cls is None:
        name = f"{cls.__name__}Backward"
        # no ``__slots__``: the attributes a forward sets on its ctx go in the node's dict
        node_cls = type(name, (BackwardFunction,), {"__qualname__": name, "_forward_cls": cls})
        _BACKWARD_CLASSES[cls] = node_cls
    return node_cls


class Function:
    """Base class of custom differentiable ops (``forward``/``backward`` static methods)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """torch's DeprecationWarning: a Function is used through its class (``F.apply``)."""
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions "
            "are all static, so you should invoke them on the class itself. "
            "Instantiating an autograd function will raise an "
            "error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """torch's refusal of the legacy style, calling an instance (``F()(x)``)."""
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        """Compute the outputs (runs without recording a graph)."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        """Gradients of the inputs (one per forward argument, None for non-tensors)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward and, if any input requires grad, attach a ``<Class>Backward`` node.

        As torch's ``_process_backward_mode_ad``: the inputs' edges are read before forward,
        tensors marked dirty get a version bump, each output gets its history from
        ``_set_history``, views among the outputs may not be written in place (two
        differentiable outputs make them a multi-output node's), a dirty input must be returned,
        and the saved tensors are recorded last.
        """
        ctx = backward_class(cls)(cls, args)  # the node to be, if the outputs are recorded
        record = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        if record:  # forward sees its node's edges already, as in torch
            ctx._edges = tuple(gradient_edge(a) for a in args if _is_tensor(a))
        with grad_mode.no_grad():
            raw = cls.forward(ctx, *args, **kwargs)
        outs = raw if isinstance(raw, tuple) else (raw,)
        to_save, non_diff, dirty = _marks(ctx, record)
        node = ctx if record else None
        if node is not None:
            node.num_outputs = len(outs)
        fixed = []
        n_diff = 0
        for i, o in enumerate(outs):
            if _is_tensor(o):
                is_input = any(o is a for a in args)
                is_dirty = any(o is d for d in dirty)
                diff = (
                    node is not None
                    and not any(o is n for n in non_diff)
                    and o.dtype.is_floating_point  # the engine's differentiable types
                )
                o = _set_history(o, i, node, is_input, is_dirty, diff, len(outs))
                if not (is_input and is_dirty) and o._base is not None:
                    o._creation_meta = CreationMeta.IN_CUSTOM_FUNCTION
                n_diff += diff
                if node is not None:
                    node._shapes.append((o._data.shape, o._data.dtype, o.dtype, o._wrap, diff))
            elif node is not None:
                node._shapes.append(None)
            fixed.append(o)
        if n_diff > 1:  # torch: a view among several differentiable outputs
            for o in fixed:
                if _is_tensor(o) and o._base is not None:
                    o._creation_meta = CreationMeta.MULTI_OUTPUT_NODE
        if not all(any(d is o for o in outs) for d in dirty):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the Function."
            )
        outs = tuple(fixed)
        if node is not None:
            ctx._saved = [
                None
                if t is None
                else SavedTensor(
                    t,
                    any(t is o for o in outs),
                    names_owner=True,
                    saved_by=BackwardFunction.name(node),
                )
                for t in to_save
            ]
        return outs if isinstance(raw, tuple) else outs[0]


def _marks(ctx: BackwardFunction, record: bool) -> tuple[tuple[Any, ...], ...]:
    """What forward saved, marked non-differentiable and marked dirty, checked in torch's order
    (``to_save`` a tuple, of tensors if the node is recorded; then ``non_differentiable``; then
    ``dirty_tensors``, whose tensors get their version bump); the ctx forgets them (the node
    keeps only what it saves). torch's messages end where its format lost their arguments."""
    to_save = as_tuple(ctx._to_save, "to_save")
    for k, t in enumerate(to_save if record else ()):
        if t is not None and not _is_tensor(t):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {k} is of type "
                f"{tp_name(t)}"
            )
    non_diff = as_tuple(ctx._non_diff, "non_differentiable")
    if not all(_is_tensor(n) for n in non_diff):
        raise RuntimeError("mark_non_differentiable only accepts variable arguments, but got ")
    dirty = as_tuple(ctx._dirty, "dirty_tensors")
    for d in dirty:
        if not _is_tensor(d):
            raise RuntimeError("mark_dirty can only accept variables, but argument ")
        d._version_counter.bump()
    ctx._to_save = ctx._dirty = ctx._non_diff = ctx._for_forward = None
    return to_save, non_diff, dirty


def _view_of_itself(o: Any) -> Any:
    """``o.view_as(o)`` made under ``no_grad``: what torch returns for an input returned as-is,
    so that the output can get a history of its own while sharing the input's memory."""
    with grad_mode.no_grad():
        return o._view(tuple(o._data.shape), o._stride(), o._offset)


def _set_history(
    o: Any, nr: int, node: BackwardFunction | None, is_input: bool, dirty: bool, diff: bool, n: int
) -> Any:
    """The output ``nr`` of a custom Function as torch's ``set_history`` makes it (``diff``: it
    gets a gradient edge to ``node``): an input returned as-is comes back as a view of itself (a
    detached alias if it is not differentiable yet requires grad), a dirty input takes the
    node as its history (rebased if it is a view), a non-differentiable output is detached."""
    if not diff:
        if not o.requires_grad:
            return _view_of_itself(o) if is_input and not dirty else o
        if is_input:
            return o._detach()
        if o._base is None:
            o._detach_()
        return o  # a view of an input that requires grad keeps requiring it, as under no_grad
    assert node is not None
    if dirty:
        _check_dirty(o, is_input, n)
        if o._base is not None:
            o._output_nr = 0
            rebase_history(o, node)
            return o
    elif is_input:
        o = _view_of_itself(o)
    o._grad_fn = node
    o._output_nr = nr
    o._requires_grad = True
    if o._base is not None:  # its history is this node, whatever forward wrote
        o._view_version = o._version_counter.value
    return o


def _check_dirty(o: Any, is_input: bool, n_out: int) -> None:
    """torch's checks of an output marked dirty, before its history is rewritten."""
    if not is_input:
        msg = (
            "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that "
            "have been mutated should be passed to ctx.mark_dirty()."
        )
        if o._base is not None:
            raise RuntimeError(msg)
        warnings.warn(msg, UserWarning, stacklevel=1)  # torch's names its function.py
    if o._base is not None:
        if n_out != 1:
            raise RuntimeError(_VIEW_TWO_OUTPUTS)
        inplace_rules.check_inplace(o)
    elif o.is_leaf and o.requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad has been used in an in-place operation."
        )


_VIEW_TWO_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one doing "
    "the inplace that returns a single Tensor and a second one that does the other operations). "
    "You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change."
)
