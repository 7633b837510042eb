"""Module backward hooks: code that sees (and may replace) the gradients around a module.

- ``register_full_backward_pre_hook(hook)``: ``hook(module, grad_output)`` runs when the
  gradients of the module's outputs are known, before they flow into the module; a tuple it
  returns replaces ``grad_output``.
- ``register_full_backward_hook(hook)``: ``hook(module, grad_input, grad_output)`` runs once the
  gradients of the module's inputs are known; a tuple it returns replaces ``grad_input``.

Both are tuples with one entry per positional argument (per output), ``None`` where that is not
a tensor or got no gradient. This works as torch's ``BackwardHook``: each call of a hooked
module passes its tensor arguments, and then its tensor outputs, through an identity node named
``BackwardHookFunctionBackward``. The module computes with *views* of its inputs and returns
views of its outputs, made as a custom Function's outputs are (an input returned as-is): such a
view may not be modified in place, so ``nn.ReLU(inplace=True)`` right after a hooked module is
refused with torch's error.

>>> import ownership
>>> lin = ownership.nn.Linear(2, 1)
>>> seen = []
>>> _ = lin.register_full_backward_hook(lambda m, gin, gout: seen.append((gin, gout)))
>>> y = lin(ownership.ones(3, 2, requires_grad=True))
>>> y.grad_fn
<BackwardHookFunctionBackward object at 0x...>
>>> y.sum().backward()
>>> [[tuple(g.shape) for g in grads] for grads in seen[0]]
[[(3, 2)], [(3, 1)]]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ownership.core import grad_mode
from ownership.core.autograd.node import Node, gradient_edge
from ownership.core.autograd.view_history import CreationMeta
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.nn.module_state import _WrappedHook
from ownership.ops.creation import zeros

__all__ = ["BackwardHook", "hook_legacy"]

Grads = tuple[Any, ...]

_NO_INPUT_NEEDS_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHookFunctionBackward(Node):
    """The identity node a hooked module's inputs (or outputs) pass through; ``on_grads`` sees
    the gradients arriving at it (``None`` where none arrived) and says what flows on; a custom
    Function's node in torch (``BackwardHookFunction``), so its hooks see all it returns."""

    keeps_unneeded = True

    __slots__ = ("_on_grads",)

    def __init__(self, tensors: Sequence[Tensor], on_grads: Callable[[Grads], Grads]) -> None:
        super().__init__(tuple(gradient_edge(t) for t in tensors), len(tensors))
        self._on_grads = on_grads

    def name(self) -> str:
        return "BackwardHookFunctionBackward"

    def apply(self, grads: Grads) -> Sequence[Any]:
        return self._on_grads(grads)


def _pack_with_none(indices: Sequence[int], values: Sequence[Any], size: int) -> Grads:
    """``values`` at ``indices`` of a ``size``-tuple of ``None``."""
    packed: list[Any] = [None] * size
    for i, value in zip(indices, values, strict=True):
        packed[i] = value
    return tuple(packed)


def _wrap(args: tuple[Any, ...], on_grads: Callable[[Grads], Grads]) -> tuple[Any, list[int]]:
    """``args`` with each tensor replaced by a view of it, output of a new identity node.

    Returns the new args (of ``args``'s own tuple type) and the positions of the tensors; the
    args themselves when no tensor requires grad or grad mode is off (positions empty).
    """
    positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
    tensors = [args[i] for i in positions]
    if not (any(t.requires_grad for t in tensors) and grad_mode.is_grad_enabled()):
        return args, []
    node = BackwardHookFunctionBackward(tensors, on_grads)
    wrapped = list(args)
    for nr, (i, tensor) in enumerate(zip(positions, tensors, strict=True)):
        view = tensor._view(tuple(tensor._data.shape), tensor.stride(), tensor._offset)
        view._creation_meta = CreationMeta.IN_CUSTOM_FUNCTION  # returned as-is by a Function
        if tensor.requires_grad:  # else non-differentiable: a view without history
            view._grad_fn = node
            view._output_nr = nr
            view._requires_grad = True
        wrapped[i] = view
    if type(args) is tuple:
        return tuple(wrapped), positions
    return type(args)(*wrapped), positions


class BackwardHook:
    """One call of a hooked module: its inputs and outputs pass through identity nodes, and the
    user's hooks run when the gradients reach them (torch's ``torch.utils.hooks.BackwardHook``).

    ``hooks`` and ``pre_hooks`` are the module's hooks when it was called: one removed later
    still runs for this call's backward.
    """

    def __init__(self, module: Any, hooks: list[Any], pre_hooks: list[Any]) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: Grads | None = None
        self.n_inputs = 0
        self.input_positions: list[int] = []
        self.input_like: list[tuple[tuple[int, ...], Any]] = []  # shapes and dtypes, not tensors
        self.n_outputs = 0
        self.output_positions: list[int] = []

    def setup_input_hook(self, args: tuple[Any, ...]) -> Any:
        """The module's positional args, each tensor through the input node."""
        wrapped, self.input_positions = _wrap(args, self._on_input_grads)
        self.n_inputs = len(args)
        self.input_like = [(tuple(args[i].shape), args[i].dtype) for i in self.input_positions]
        return wrapped

    def setup_output_hook(self, result: Any) -> Any:
        """The module's result (a tensor or a tuple), each tensor through the output node."""
        if not isinstance(result, tuple):
            wrapped, self.output_positions = _wrap((result,), self._on_output_grads)
            self.n_outputs = 1
            return wrapped[0]
        wrapped, self.output_positions = _wrap(result, self._on_output_grads)
        self.n_outputs = len(result)
        return wrapped

    def _on_output_grads(self, grads: Grads) -> Grads:
        """The gradients of the outputs: the pre-hooks see (and may replace) them; they are
        kept for the hooks, which run now if no input needs a gradient."""
        self.grad_outputs = _pack_with_none(self.output_positions, grads, self.n_outputs)
        for pre_hook in self.pre_hooks:
            replaced = pre_hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of grad_output, got "
                    f"{len(replaced)}, but expected {len(self.grad_outputs)}"
                )
            self.grad_outputs = replaced
        grad_outputs = self.grad_outputs
        if not self.input_positions:
            warn_at_user(_NO_INPUT_NEEDS_GRAD)  # torch's names the user's backward() call
            grad_inputs = _pack_with_none([], [], self.n_inputs)
            for hook in self.hooks:
                res = hook(self.module, grad_inputs, grad_outputs)
                if res is not None and not (
                    isinstance(res, tuple) and all(el is None for el in res)
                ):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_positions)

    def _on_input_grads(self, grads: Grads) -> Grads:
        """The gradients of the inputs (zeros where none arrived): the hooks see (and may
        replace) them, with the outputs' gradients the output node kept."""
        grad_input = tuple(
            zeros(shape, dtype=dtype).zero_() if g is None else g  # torch's are filled: version 1
            for g, (shape, dtype) in zip(grads, self.input_like, strict=True)
        )
        if self.grad_outputs is None:  # reached without passing through the outputs
            return grad_input
        res = _pack_with_none(self.input_positions, grad_input, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, got "
                    f"{len(out)}, but expected {len(res)}"
                )
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_positions)


def hook_legacy(module: Any, hooks: list[Any], args: tuple[Any, ...], result: Any) -> None:
    """The legacy ``register_backward_hook`` hooks of one call: on the ``grad_fn`` of the
    result's first tensor, as ``hook(module, grad_inputs, grad_outputs)`` of that one node
    (torch's non-full hooks), with torch's ``FutureWarning`` where that node is not the whole
    module."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_WrappedHook(hook, module, True))
    _warn_non_full(args, result, grad_fn)


_LEGACY = "Using non-full backward hooks on a Module that does not {} is deprecated and will be "
_LEGACY_END = "Please use register_full_backward_hook to get the documented behavior."


def _warn_non_full(inputs: Any, result: Any, grad_fn: Any) -> None:
    """torch's ``_maybe_warn_non_full_backward_hook``: what a legacy hook will miss."""
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        _future(
            _LEGACY.format("return a single Tensor or a tuple of Tensors")
            + "removed in future versions. This hook will be missing some of the grad_output. "
            + _LEGACY_END
        )
        return
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        _future(
            _LEGACY.format("take as input a single Tensor or a tuple of Tensors")
            + "removed in future versions. This hook will be missing some of the grad_input. "
            + _LEGACY_END
        )
        return
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_grad_fn or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        _future(
            "Using a non-full backward hook when outputs are nested in python data structure "
            "is deprecated and will be removed in future versions. This hook will be missing "
            "some grad_output."
        )
    elif len(out_grad_fn) > 1:
        _future(
            "Using a non-full backward hook when outputs are generated by different autograd "
            "Nodes is deprecated and will be removed in future versions. This hook will be "
            "missing some grad_output. " + _LEGACY_END
        )
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {
        n[0] for n in grad_fn.next_functions
    }:
        _future(
            "Using a non-full backward hook when the forward contains multiple autograd Nodes "
            "is deprecated and will be removed in future versions. This hook will be missing "
            "some grad_input. " + _LEGACY_END
        )


def _future(message: str) -> None:
    warnings.warn(message, FutureWarning, stacklevel=5)
