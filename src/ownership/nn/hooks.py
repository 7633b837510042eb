"""Module forward hooks: code that runs around ``forward`` without changing the module's class.

- ``register_forward_pre_hook(hook)``: ``hook(module, args)`` runs before ``forward``; a value
  it returns replaces the positional arguments (a non-tuple is wrapped in a 1-tuple). With
  ``with_kwargs=True``: ``hook(module, args, kwargs)`` returning ``None`` or ``(args, kwargs)``.
- ``register_forward_hook(hook)``: ``hook(module, args, output)`` runs after ``forward``; a
  value it returns replaces the output. With ``with_kwargs=True``: ``hook(module, args,
  kwargs, output)``.

Hooks run in registration order (``prepend=True`` puts one first); each returns a
:class:`~ownership.autograd.graph.RemovableHandle`. A hook that keeps the output keeps it
*with its graph*: until it is ``detach()``-ed, the saved tensors of the whole forward stay
alive with it.

>>> import ownership
>>> seen = []
>>> layer = ownership.nn.Linear(2, 1)
>>> handle = layer.register_forward_hook(lambda mod, args, out: seen.append(out.detach()))
>>> _ = layer(ownership.ones(3, 2))
>>> handle.remove()
>>> _ = layer(ownership.ones(3, 2))
>>> len(seen), seen[0].shape, seen[0].requires_grad
(1, torch.Size([3, 1]), False)
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ownership.autograd.graph import RemovableHandle
from ownership.core.tensor import Tensor
from ownership.nn.backward_hooks import BackwardHook, hook_legacy

if TYPE_CHECKING:
    from ownership.nn.module import Module

__all__ = ["call_with_hooks", "new_hook_dicts", "register"]

HOOK_DICTS = (
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_backward_hooks",  # the full backward hooks: see ownership.nn.backward_hooks
    "_backward_pre_hooks",
    "_state_dict_hooks",  # the state_dict hooks: registered in ownership.nn.module_state
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


def new_hook_dicts() -> dict[str, OrderedDict[int, Any]]:
    """The empty hook registries every module starts with (attribute name -> dict)."""
    return {name: OrderedDict() for name in HOOK_DICTS}


def register(
    module: Module,
    kind: str,
    hook: Callable[..., Any],
    prepend: bool,
    with_kwargs: bool,
    always_call: bool = False,
) -> RemovableHandle:
    """Add ``hook`` to the module's hook dict ``kind`` (``'_forward_hooks'``...); a forward
    hook's ``with_kwargs`` flag goes in the ``<kind>_with_kwargs`` dict beside it, a forward
    hook's ``always_call`` flag in ``_forward_hooks_always_called``."""
    hooks: OrderedDict[int, Any] = module.__dict__[kind]
    flags: OrderedDict[int, Any] | None = module.__dict__.get(kind + "_with_kwargs")
    always: OrderedDict[int, Any] | None = module.__dict__.get(kind + "_always_called")
    extra = [d for d in (flags, always) if d is not None]
    handle = RemovableHandle(hooks, *extra)
    hooks[handle.id] = hook
    if with_kwargs and flags is not None:
        flags[handle.id] = True
    if always_call and always is not None:
        always[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def call_with_hooks(module: Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``module(*args, **kwargs)`` with its pre-hooks, ``forward``, then its forward hooks.

    With full backward hooks, the arguments the pre-hooks leave pass through a
    ``BackwardHook``'s input node before ``forward``, and the result the forward hooks leave
    through its output node (torch's order); legacy backward hooks go on the result's
    ``grad_fn`` (:func:`~ownership.nn.backward_hooks.hook_legacy`). When anything raises,
    the forward hooks registered with ``always_call=True`` that have not run yet run (with
    the arguments as the pre-hooks left them and the latest result, ``None`` if ``forward``
    raised), each one's own error turned into a warning, and the error goes on.
    """
    call = _Call(args, kwargs)
    try:
        return _run_hooks(module, call)
    except Exception:
        _run_always_called(module, call)
        raise


class _Call:
    """One hooked call's state, as far as it got: the arguments, the result, the always-called
    forward hooks that already ran."""

    __slots__ = ("args", "kwargs", "ran", "result")

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.args, self.kwargs = args, kwargs
        self.result: Any = None
        self.ran: set[int] = set()


def _run_hooks(module: Module, call: _Call) -> Any:
    own = module.__dict__
    full = own.get("_is_full_backward_hook") is True
    hooks, pre_hooks = own["_backward_hooks"], own["_backward_pre_hooks"]
    backward = None
    if (hooks and full) or pre_hooks:
        backward = BackwardHook(
            module, list(hooks.values()) if full else [], list(pre_hooks.values())
        )
    pre, pre_kw = own["_forward_pre_hooks"], own["_forward_pre_hooks_with_kwargs"]
    for hook_id, hook in list(pre.items()):
        if hook_id in pre_kw:
            both = hook(module, call.args, call.kwargs)
            if both is not None:
                if not (isinstance(both, tuple) and len(both) == 2):
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {both}."
                    )
                call.args, call.kwargs = both
        else:
            result = hook(module, call.args)
            if result is not None:
                call.args = result if isinstance(result, tuple) else (result,)
    if backward is not None:
        call.args = backward.setup_input_hook(call.args)
    call.result = module.forward(*call.args, **call.kwargs)
    post, post_kw = own["_forward_hooks"], own["_forward_hooks_with_kwargs"]
    always = own["_forward_hooks_always_called"]
    for hook_id, hook in list(post.items()):
        if hook_id in always:
            call.ran.add(hook_id)
        _forward_hook(module, hook_id in post_kw, hook, call)
    if backward is not None:
        if not isinstance(call.result, Tensor | tuple):
            warnings.warn(
                "For backward hooks to be called, module output should be a Tensor or a tuple of "
                f"Tensors but received {type(call.result)}",
                UserWarning,
                stacklevel=1,  # torch's names its own module.py: this one names the engine's
            )
        call.result = backward.setup_output_hook(call.result)
    if hooks and not full:
        hook_legacy(module, list(hooks.values()), call.args, call.result)
    return call.result


def _forward_hook(module: Module, with_kwargs: bool, hook: Callable[..., Any], call: _Call) -> None:
    """Run one forward hook on the call as it stands; a value it returns replaces the result."""
    if with_kwargs:
        replaced = hook(module, call.args, call.kwargs, call.result)
    else:
        replaced = hook(module, call.args, call.result)
    if replaced is not None:
        call.result = replaced


def _run_always_called(module: Module, call: _Call) -> None:
    """The ``always_call=True`` forward hooks that have not run, after an error (torch's
    ``_call_impl``): one that raises is reported by a warning, and the next one runs."""
    own = module.__dict__
    post, post_kw = own["_forward_hooks"], own["_forward_hooks_with_kwargs"]
    for hook_id, hook in list(post.items()):
        if hook_id not in own["_forward_hooks_always_called"] or hook_id in call.ran:
            continue
        try:
            _forward_hook(module, hook_id in post_kw, hook, call)
        except Exception as e:
            warnings.warn(
                "module forward hook with ``always_call=True`` raised an exception that was "
                f"silenced as another error was raised in forward: {e}",
                UserWarning,
                stacklevel=1,  # torch's names its own module.py: this one names the engine's
            )
