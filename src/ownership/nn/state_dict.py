"""Saving and loading a module's state: ``state_dict`` and ``load_state_dict``.

**Saving** lists, module by module (own parameters, then own *persistent* buffers, then each
child with its name as a prefix), every tensor that is not ``None``. The values are
``detach()``-ed aliases: they share storage *and* version counter with the module's tensors, so
they are a view of the live state, not a copy. A tied weight is saved under every name.

**Loading** copies each value into the existing tensor *in place*, under ``no_grad``: the
module keeps the same Parameter objects (an optimizer built earlier still holds them) and each
loaded tensor's version goes up by one. Values may be ownership tensors, torch tensors or numpy
arrays, so weights move between the two engines. Key and shape problems are collected and
reported together in one ``RuntimeError`` worded as torch's.

>>> import ownership
>>> lin = ownership.nn.Linear(2, 1)
>>> lin.load_state_dict({"weight": ownership.ones(1, 2)})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
RuntimeError: Error(s) in loading state_dict for Linear:
    Missing key(s) in state_dict: "bias".
>>> lin.load_state_dict({"weight": ownership.ones(1, 2)}, strict=False)
_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ownership.core.grad_mode import no_grad
from ownership.core.tensor import Tensor
from ownership.nn.parameter import Parameter
from ownership.ops.creation import tensor

if TYPE_CHECKING:
    from ownership.nn.module_state import ModuleState as Module  # the part of Module used here

__all__ = [
    "EXTRA_STATE_KEY",
    "_IncompatibleKeys",
    "get_extra_state",
    "load_own_state",
    "load_state",
    "save_own_state",
    "save_state",
    "set_extra_state",
]


class IncompatibleKeys(NamedTuple):
    """The named tuple ``(missing_keys, unexpected_keys)`` under torch's result class."""

    missing_keys: list[str]
    unexpected_keys: list[str]


IncompatibleKeys.__module__ = "ownership.nn.module"


class _IncompatibleKeys(IncompatibleKeys):
    """What ``load_state_dict`` could not match: the result, a ``(missing_keys,
    unexpected_keys)`` named tuple.

    torch's class, named as torch names it (``_IncompatibleKeys``, a subclass of the named tuple
    ``IncompatibleKeys``, both of the module of ``nn.Module``), printed as torch prints it:
    ``<All keys matched successfully>`` when both lists are empty, else
    ``_IncompatibleKeys(missing_keys=[...], unexpected_keys=[...])``.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_IncompatibleKeys.__module__ = "ownership.nn.module"


EXTRA_STATE_KEY = "_extra_state"  # a module's extra state is saved as ``prefix + EXTRA_STATE_KEY``


def get_extra_state(module: Module) -> Any:
    """Any extra state to save in the module's ``state_dict``: a module that has some defines it.

    A module class that defines ``get_extra_state`` has its value saved under
    ``'<prefix>_extra_state'``, after its own parameters and buffers; one that defines
    ``set_extra_state`` gets that value back from ``load_state_dict``. The base versions are
    never called (torch's ``RuntimeError`` says so).
    """
    raise RuntimeError(
        "Reached a code path in Module.get_extra_state() that should never be called. "
        "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
        "template=bug-report.yml to report this bug."
    )


def set_extra_state(module: Module, state: Any) -> None:
    """Take back the extra state ``get_extra_state`` gave (see ``get_extra_state``)."""
    raise RuntimeError(
        "Reached a code path in Module.set_extra_state() that should never be called. "
        "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
        "template=bug-report.yml to report this bug."
    )


def save_state(
    module: Module,
    destination: Any = None,
    prefix: str = "",
    keep_vars: bool = False,
) -> Any:
    """The state of ``module``'s tree: ``prefix + qualified name -> value``, in torch's order.

    The module's ``state_dict`` pre-hooks run, then its own entries are saved
    (``Module._save_to_state_dict``), then each child's ``state_dict`` is called with the
    child's name added to the prefix (a shared child under each of its names), then the
    post-hooks run. ``destination`` (a new ``OrderedDict`` by default) is filled and returned;
    its ``_metadata`` attribute maps each module's prefix (``''``, ``'0'``, ``'0.bn'``...) to
    ``{'version': module._version}``, which ``load_state_dict`` hands back to each module.
    """
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": module._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in module._state_dict_pre_hooks.values():
        hook(module, prefix, keep_vars)
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(
                destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
            )
    for hook in module._state_dict_hooks.values():
        result = hook(module, destination, prefix, local_metadata)
        if not getattr(hook, "_from_public_api", False):
            if result is not None:
                destination = result
        elif result is not None:
            raise RuntimeError("state_dict post-hook must return None")
    return destination


def save_own_state(module: Module, destination: Any, prefix: str, keep_vars: bool) -> None:
    """Save ``module``'s own entries (not its children's) into ``destination`` (torch's hook).

    Own parameters, then own persistent buffers, then the extra state if the module's class
    defines ``get_extra_state``; ``None`` entries are skipped. Values are detached aliases
    (sharing storage and version counter) unless ``keep_vars``: then the tensors themselves.
    """
    for name, param in module._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in module._buffers.items():
        if buf is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if type(module).get_extra_state is not get_extra_state:
        destination[prefix + EXTRA_STATE_KEY] = module.get_extra_state()


def _size(shape: Any) -> str:
    return f"torch.Size({[int(n) for n in shape]})"


def _as_tensor(value: Any) -> Tensor | None:
    """An ownership tensor holding ``value`` (ownership or torch tensor, numpy array), or None."""
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor: via numpy
        value = value.detach()
        value = value.cpu().numpy() if hasattr(value, "cpu") else value.numpy()
    if isinstance(value, np.ndarray | np.generic):
        made: Tensor = tensor(np.array(value))
        return made
    return None


def load_own_state(
    module: Module,
    state_dict: dict[str, Any],
    prefix: str,
    local_metadata: dict[str, Any],
    strict: bool,
    missing_keys: list[str],
    unexpected_keys: list[str],
    error_msgs: list[str],
) -> None:
    """Load ``module``'s own parameters and persistent buffers from ``state_dict`` (torch's rules).

    The module's ``load_state_dict`` pre-hooks run first, with these same arguments but the
    module (which a hook registered with it gets first), so they may rename or add entries of
    ``state_dict``, or record errors. For each own entry: a
    missing key is recorded (when ``strict``); a value that is not tensor-like or has
    another shape is an error message; otherwise it is copied in place under ``no_grad`` or,
    when ``local_metadata['assign_to_params_buffers']``, assigned: the module then holds the
    given tensor itself (wrapped in a Parameter keeping the old one's ``requires_grad``, if the
    old one was a Parameter). A module whose class defines ``set_extra_state`` is given the
    ``'<prefix>_extra_state'`` value (missing if absent); for any other module that key is
    unexpected. Keys under ``prefix`` that name no own entry and no child are recorded as
    unexpected (when ``strict``). ``local_metadata`` is this module's entry of the saved
    ``_metadata`` (its ``'version'``), which a layer's override may read.
    """
    for hook in module._load_state_dict_pre_hooks.values():
        hook(
            state_dict,
            prefix,
            local_metadata,
            strict,
            missing_keys,
            unexpected_keys,
            error_msgs,
        )
    assign = bool(local_metadata.get("assign_to_params_buffers", False))
    persistent = {
        k: v for k, v in module._buffers.items() if k not in module._non_persistent_buffers_set
    }
    local = {k: v for k, v in [*module._parameters.items(), *persistent.items()] if v is not None}
    for name, param in local.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        value = _as_tensor(state_dict[key])
        if value is None:
            error_msgs.append(
                f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(state_dict[key])}"
            )
            continue
        if len(param.shape) == 0 and tuple(value.shape) == (1,):
            value = value[0]  # a 0-d entry saved as a 1-element vector (old checkpoints)
        if tuple(value.shape) != tuple(param.shape):
            error_msgs.append(
                f"size mismatch for {key}: copying a param with shape {_size(value.shape)} "
                f"from checkpoint, the shape in current model is {_size(param.shape)}."
            )
            continue
        if assign:
            _assign(module, name, param, value)
            continue
        try:
            with no_grad():
                param.copy_(value)
        except Exception as ex:  # reported with the others, as torch does
            error_msgs.append(
                f'While copying the parameter named "{key}", whose dimensions in the model are '
                f"{_size(param.shape)} and whose dimensions in the checkpoint are "
                f"{_size(value.shape)}, an exception occurred : {ex.args}."
            )
    extra_key = prefix + EXTRA_STATE_KEY
    if type(module).set_extra_state is not set_extra_state:
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if not strict:
        return
    for key in state_dict:
        if key.startswith(prefix) and key != extra_key:
            head, *rest = key[len(prefix) :].split(".", 1)
            if (rest and head not in module._modules) or (not rest and head not in local):
                unexpected_keys.append(key)


def _assign(module: Module, name: str, old: Tensor, value: Tensor) -> None:
    """``load_state_dict(assign=True)``: the module takes ``value`` itself as ``name``."""
    if isinstance(old, Parameter):
        if not isinstance(value, Parameter):
            value = Parameter(value, requires_grad=old.requires_grad)
        else:
            value.requires_grad_(old.requires_grad)
    setattr(module, name, value)


def load_state(
    module: Module, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
) -> _IncompatibleKeys:
    """Copy ``state_dict`` into ``module``'s tree in place; report keys that did not match.

    Every module, pre-order, loads its own entries (``Module._load_from_state_dict``, which a
    layer may extend); once its children are loaded, its post-hooks run with the
    ``(missing_keys, unexpected_keys)`` found so far, lists they may change in place (a hook
    that returns a value is refused). Then, if ``strict``, missing and unexpected keys are errors too; all
    errors are raised together as one ``RuntimeError``. Shape mismatches and values that are not
    tensors are errors even when ``strict`` is false. Entries that matched are loaded even
    when the call raises.
    """
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []

    metadata = getattr(state_dict, "_metadata", None)
    root: dict[str, Any] = OrderedDict(state_dict)  # a copy: the hooks may change it
    if metadata is not None:
        root._metadata = metadata  # type: ignore[attr-defined]

    def load(mod: Module, local: dict[str, Any], prefix: str) -> None:
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        mod._load_from_state_dict(local, prefix, local_metadata, True, missing, unexpected, errors)
        for name, child in mod._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                below = {k: v for k, v in local.items() if k.startswith(child_prefix)}
                load(child, below, child_prefix)
        found = _IncompatibleKeys(missing, unexpected)  # the hooks may change the lists in place
        for hook in mod._load_state_dict_post_hooks.values():
            if hook(mod, found) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, "
                    "it should be done inplace."
                )

    load(module, root, "")
    if strict:
        if unexpected:
            listed = ", ".join(f'"{k}"' for k in unexpected)
            errors.insert(0, f"Unexpected key(s) in state_dict: {listed}. ")
        if missing:
            listed = ", ".join(f'"{k}"' for k in missing)
            errors.insert(0, f"Missing key(s) in state_dict: {listed}. ")
    if errors:
        joined = "\n\t".join(errors)
        raise RuntimeError(
            f"Error(s) in loading state_dict for {type(module).__name__}:\n\t{joined}"
        )
    return _IncompatibleKeys(missing, unexpected)
