"""A module's saved state: ``state_dict``, ``load_state_dict``, extra state and their hooks.

The rules of saving and loading live in ``ownership.nn.state_dict``; this base class of
:class:`~ownership.nn.Module` gives them their methods and keeps the four hook registries:

- ``register_state_dict_pre_hook(hook)``: ``hook(module, prefix, keep_vars)`` runs before the
  module saves its own entries;
- ``register_state_dict_post_hook(hook)``: ``hook(module, state_dict, prefix, local_metadata)``
  runs after the module and its children are saved; it may change ``state_dict`` in place
  and must return ``None``;
- ``register_load_state_dict_pre_hook(hook)``: ``hook(module, state_dict, prefix,
  local_metadata, strict, missing_keys, unexpected_keys, error_msgs)`` runs before the module
  loads its own entries, and may change ``state_dict`` (its own copy) first;
- ``register_load_state_dict_post_hook(hook)``: ``hook(module, incompatible_keys)`` runs after
  the module and its children are loaded; it may change the two key lists in place, and so
  decide whether a strict load fails, but must return ``None``.

Each runs on the module it is registered on, in registration order, and returns a
:class:`~ownership.autograd.graph.RemovableHandle`. torch's two older private forms still in
use are here too: ``_register_state_dict_hook(hook)`` (a post-hook whose returned dict, if any,
replaces the state dict) and ``_register_load_state_dict_pre_hook(hook, with_module=False)`` (a
pre-hook called without the module unless ``with_module``); the public pre-hook is the private
one with the module, held weakly (:class:`_WrappedHook`), as in torch.

>>> import ownership
>>> lin = ownership.nn.Linear(2, 1)
>>> def drop_bias(module, state_dict, prefix, local_metadata):
...     del state_dict[prefix + "bias"]  # in place; the hook returns None
>>> handle = lin.register_state_dict_post_hook(drop_bias)
>>> list(lin.state_dict())
['weight']
>>> handle.remove()
>>> list(lin.state_dict())
['weight', 'bias']
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from ownership.autograd.graph import RemovableHandle
from ownership.nn import state_dict as state
from ownership.nn.state_dict import _IncompatibleKeys

__all__ = ["ModuleState"]


class ModuleState:
    """The ``state_dict`` methods and hooks of :class:`~ownership.nn.Module` (a base class of it)."""

    _version: int = 1  # the state_dict format version, saved in ``state_dict()._metadata``
    _parameters: dict[str, Any]
    _buffers: dict[str, Any]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Any]
    _state_dict_hooks: dict[int, Any]
    _state_dict_pre_hooks: dict[int, Any]
    _load_state_dict_pre_hooks: dict[int, Any]
    _load_state_dict_post_hooks: dict[int, Any]

    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> Any:
        """Every parameter and persistent buffer of the tree by qualified name, in torch's order.

        Own parameters, own persistent buffers, the extra state (if the class defines
        ``get_extra_state``), then each child's; the values are detached aliases sharing storage
        and version counter (the tensors themselves if ``keep_vars``). Positional arguments
        (``destination, prefix, keep_vars``) still work, with torch's ``FutureWarning``.
        See ``ownership.nn.state_dict.save_state``.
        """
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        return state.save_state(self, destination, prefix, keep_vars)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy ``state_dict``'s values into the tree's tensors in place, under ``no_grad``.

        Identity is kept and each loaded tensor's version goes up by one. Values may be
        ownership or torch tensors or numpy arrays. Returns ``(missing_keys,
        unexpected_keys)``; raises torch's ``RuntimeError`` listing every problem (missing or
        unexpected keys only when ``strict``). With ``assign=True`` the module takes the given
        tensors themselves instead of copying (see ``ownership.nn.state_dict.load_state``).
        """
        return state.load_state(self, state_dict, strict, assign)

    # Save / load this module's own entries (torch's hooks); a layer may override them.
    _save_to_state_dict = state.save_own_state
    _load_from_state_dict = state.load_own_state
    get_extra_state = state.get_extra_state
    set_extra_state = state.set_extra_state

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, prefix, keep_vars)`` before this module saves its entries."""
        return _add(self._state_dict_pre_hooks, hook)

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after this module's tree is
        saved; a dict it returns replaces the state dict (torch's older, private form). A hook
        registered through the public API already is refused with torch's ``RuntimeError``."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        return _add(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after this module's tree is
        saved; it may change ``state_dict`` in place, and returning anything else than ``None``
        is an error (torch marks the hook ``_from_public_api`` to know it)."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        return _add(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(
        self, hook: Callable[..., Any], with_module: bool = False
    ) -> RemovableHandle:
        """Run ``hook(state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its own entries, the module
        first if ``with_module`` (torch's private form)."""
        return _add(self._load_state_dict_pre_hooks, _WrappedHook(hook, self, with_module))

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its own entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(module, incompatible_keys)`` once this module's tree is loaded; it may
        change ``incompatible_keys.missing_keys`` and ``.unexpected_keys`` in place, and
        returning anything else than ``None`` is an ``AssertionError``."""
        return _add(self._load_state_dict_post_hooks, hook)


def _add(hooks: dict[int, Any], hook: Callable[..., Any]) -> RemovableHandle:
    """Register ``hook`` last in ``hooks``; its handle removes it."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


class _WrappedHook:
    """A load pre-hook as torch stores it: called with the module first when registered
    ``with_module`` (the module held weakly: a hook of a dead module raises torch's
    ``RuntimeError``), else as it is. Copies and pickles keep the module (torch's state)."""

    def __init__(self, hook: Callable[..., Any], module: Any, with_module: bool) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = with_module
        if with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict[str, Any]:
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])
