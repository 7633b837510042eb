"""Module forward hooks: code that runs around ``forward`` without changing the module's class.

- ``register_forward_pre_hook(hook)``: ``hook(module, args)`` runs before ``forward``; a value
  it returns replaces the positional arguments (a non-tuple is wrapped in a 1-tuple). With
  ``with_kwargs=True``: ``hook(module, args, kwargs)`` returning ``None`` or ``(args, kwargs)``.
- ``register_forward_hook(hook)``: ``hook(module, args, output)`` runs after ``forward``; a
  value it returns replaces the output. With ``with_kwargs=True``: ``hook(module, args,
  kwargs, output)``.

Hooks run in registration order (``prepend=True`` puts one first); each returns a
:class:`~ownership.autograd.hooks.RemovableHandle`. A hook that keeps the output keeps it
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

from ownership._tensor import Tensor
from ownership.autograd.hooks import RemovableHandle
from ownership.nn.backward_hooks import BackwardHook

if TYPE_CHECKING:
    from ownership.nn.module import Module

__all__ = ["call_with_hooks", "new_hook_dicts", "register"]

HOOK_DICTS = (
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
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
    module: Module, kind: str, hook: Callable[..., Any], prepend: bool, with_kwargs: bool
) -> RemovableHandle:
    """Add ``hook`` to the module's hook dict ``kind`` (``'_forward_hooks'``...); a forward
    hook's ``with_kwargs`` flag goes in the ``<kind>_with_kwargs`` dict beside it."""
    hooks: OrderedDict[int, Any] = module.__dict__[kind]
    flags: OrderedDict[int, Any] | None = module.__dict__.get(kind + "_with_kwargs")
    handle = RemovableHandle(hooks) if flags is None else RemovableHandle(hooks, flags)
    hooks[handle.id] = hook
    if with_kwargs and flags is not None:
        flags[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def call_with_hooks(module: Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``module(*args, **kwargs)`` with its pre-hooks, ``forward``, then its forward hooks.

    With backward hooks, the arguments the pre-hooks leave pass through a
    ``BackwardHook``'s input node before ``forward``, and
    the result the forward hooks leave through its output node (torch's order).
    """
    hooks, pre_hooks = module.__dict__["_backward_hooks"], module.__dict__["_backward_pre_hooks"]
    backward = None
    if hooks or pre_hooks:
        backward = BackwardHook(module, list(hooks.values()), list(pre_hooks.values()))
    pre, pre_kw = (
        module.__dict__["_forward_pre_hooks"],
        module.__dict__["_forward_pre_hooks_with_kwargs"],
    )
    for hook_id, hook in list(pre.items()):
        if hook_id in pre_kw:
            both = hook(module, args, kwargs)
            if both is not None:
                if not (isinstance(both, tuple) and len(both) == 2):
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {both}."
                    )
                args, kwargs = both
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    if backward is not None:
        args = backward.setup_input_hook(args)
    output = module.forward(*args, **kwargs)
    post, post_kw = module.__dict__["_forward_hooks"], module.__dict__["_forward_hooks_with_kwargs"]
    for hook_id, hook in list(post.items()):
        if hook_id in post_kw:
            replaced = hook(module, args, kwargs, output)
        else:
            replaced = hook(module, args, output)
        if replaced is not None:
            output = replaced
    if backward is not None:
        if not isinstance(output, Tensor | tuple):
            warnings.warn(
                "For backward hooks to be called, module output should be a Tensor or a tuple of "
                f"Tensors but received {type(output)}",
                UserWarning,
                stacklevel=3,
            )
        output = backward.setup_output_hook(output)
    return output
