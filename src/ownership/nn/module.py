"""Module: the owner of parameters, buffers and child modules.

A module keeps what it owns in three registries, ``_parameters``, ``_buffers`` (with
``_non_persistent_buffers_set``) and ``_modules``; everything else is a plain attribute in
``__dict__``. **One** method, :meth:`Module.__setattr__`, decides where an assigned value goes:

=====================================  ==============================================
value assigned to ``self.name``        becomes
=====================================  ==============================================
a :class:`~ownership.nn.Parameter`     a parameter (the optimizer will update it)
a :class:`Module`                      a child module (collected recursively)
a :class:`~ownership.nn.Buffer`        a buffer (``persistent`` as the Buffer says)
anything, when ``name`` is a buffer    that buffer's new value (a tensor or ``None``)
a plain tensor                         a plain attribute: **not** a buffer, not saved
=====================================  ==============================================

The traversals (``named_parameters``, ``named_buffers``, ``named_modules``...) walk the
registries in registration order, children after the module's own entries, and list a tensor or
module reachable under several names once, under the first name. ``state_dict`` and
``load_state_dict`` live in ``ownership.nn.state_dict`` (their methods and hooks in
``ownership.nn.module_state``), dotted-path lookups in ``ownership.nn.module_paths``, dtype
conversions in ``ownership.nn.module_conversion``.

>>> import ownership
>>> class Net(Module):
...     def __init__(self) -> None:
...         super().__init__()
...         self.w = ownership.nn.Parameter(ownership.zeros(2))
...         self.register_buffer("seen", ownership.zeros((), dtype=ownership.int64))
...         self.cache = ownership.zeros(2)  # plain attribute
>>> net = Net()
>>> list(net._parameters), list(net._buffers), "cache" in vars(net)
(['w'], ['seen'], True)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Self

from ownership.autograd.graph import RemovableHandle
from ownership.core.tensor import Tensor
from ownership.nn.hooks import call_with_hooks, new_hook_dicts, register
from ownership.nn.module_conversion import ModuleConversion
from ownership.nn.module_paths import ModulePaths
from ownership.nn.module_state import ModuleState
from ownership.nn.parameter import Buffer, Parameter, reset_grad
from ownership.nn.state_dict import _IncompatibleKeys
from ownership.nn.typename import typename

__all__ = ["Module", "_IncompatibleKeys"]  # the latter: load_state_dict's result, as in torch


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first by ``spaces`` (blank lines stay empty), as torch does."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    return "\n".join([first, *((" " * spaces + line) if line.strip() else "" for line in rest)])


class Module(ModulePaths, ModuleState, ModuleConversion):
    """Base class of every layer and model: registers what it owns, walks it, saves it.

    Subclasses call ``super().__init__()`` first, then assign parameters, buffers and children
    as attributes, and define :meth:`forward`; calling the module calls ``forward``.
    """

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    _forward_hooks: dict[int, Any]
    _forward_pre_hooks: dict[int, Any]
    _backward_hooks: dict[int, Any]
    _backward_pre_hooks: dict[int, Any]

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        for name, hooks in new_hook_dicts().items():
            object.__setattr__(self, name, hooks)
        object.__setattr__(self, "_is_full_backward_hook", None)  # set by the first backward hook

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; every subclass defines it. Call the module, not ``forward``."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``self.forward(*args, **kwargs)``, between the forward pre-hooks and forward hooks
        (and, with backward hooks, through their nodes: ``ownership.nn.backward_hooks``)."""
        if (  # torch's order: a module whose __init__ skipped Module's misses _backward_hooks
            self._backward_hooks
            or self._backward_pre_hooks
            or self._forward_hooks
            or self._forward_pre_hooks
        ):
            return call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Run ``hook(module, args)`` before each forward; a returned value replaces the args."""
        return register(self, "_forward_pre_hooks", hook, prepend, with_kwargs)

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Run ``hook(module, args, output)`` after each forward; a returned value replaces it.
        With ``always_call=True`` it also runs when the call raises (``ownership.nn.hooks``)."""
        return register(self, "_forward_hooks", hook, prepend, with_kwargs, always_call)

    def register_full_backward_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Run ``hook(module, grad_output)`` in backward before the gradients enter the module;
        a returned tuple replaces ``grad_output`` (see ``ownership.nn.backward_hooks``)."""
        return register(self, "_backward_pre_hooks", hook, prepend, False)

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Run ``hook(module, grad_input, grad_output)`` in backward once the gradients of the
        module's inputs are known; a returned tuple replaces ``grad_input``."""
        self._backward_hook_kind(full=True)
        return register(self, "_backward_hooks", hook, prepend, False)

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """The deprecated non-full hook: ``hook(module, grad_input, grad_output)`` of the one
        autograd node that made the output (torch warns where that is not the whole module:
        ``ownership.nn.backward_hooks.hook_legacy``)."""
        self._backward_hook_kind(full=False)
        return register(self, "_backward_hooks", hook, False, False)

    def _backward_hook_kind(self, full: bool) -> None:
        """The module's backward hooks are all full or all legacy (torch's refusal of a mix)."""
        if self.__dict__.get("_is_full_backward_hook") is (not full):
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        object.__setattr__(self, "_is_full_backward_hook", full)

    # -- registration ---------------------------------------------------------------------

    def _check_new_name(self, name: Any, kind: str, registry: str) -> None:
        """The name rules shared by parameters and buffers (torch's order of checks)."""
        if registry not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a :class:`Parameter` or ``None``) as parameter ``name``.

        ``None`` keeps the name registered but out of ``parameters()`` and ``state_dict()``.
        Refuses a name that is not a string, contains a dot, is empty or is already another
        attribute; a value that is not a Parameter; and a Parameter that is not a leaf (compute
        values derived from parameters in ``forward`` instead).
        """
        self._check_new_name(name, "parameter", "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register ``tensor`` as buffer ``name``: state the module owns that is not trained.

        A persistent buffer is saved in ``state_dict``; a non-persistent one is not (but is
        still listed by ``named_buffers``). ``None`` keeps the name registered and unsaved.
        Name rules as for :meth:`register_parameter`; the value must be a tensor or ``None``.
        """
        self._check_new_name(name, "buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` (or ``None``) as child ``name``; its contents become ours too."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    def _forget(self, name: str, *places: str) -> None:
        """Drop ``name`` from each place (``'__dict__'`` or a registry) before re-registering."""
        for place in places:
            entries = self.__dict__ if place == "__dict__" else self.__dict__[place]
            entries.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __setattr__(self, name: str, value: Any) -> None:
        """The one place that decides what an assigned value becomes (see the module docs).

        A :class:`~ownership.nn.Buffer` is registered as a buffer, persistent as it says; a
        plain tensor assigned to a buffer's name replaces it and keeps its persistence.
        Refuses a Parameter, Module or Buffer before ``Module.__init__()``; and, for a name already
        registered as a parameter, child or buffer, a value of the wrong kind (only ``None`` or
        the same kind may replace it: ``del`` the attribute first to change its kind).
        """
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "__dict__", "_buffers", "_modules")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if "_modules" not in self.__dict__:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "__dict__", "_parameters", "_buffers")
            self._modules[name] = value
        elif name in self.__dict__.get("_modules", {}):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            self._modules[name] = None
        elif isinstance(value, Buffer) or name in self.__dict__.get("_buffers", {}):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self._register_buffer_as_assigned(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def _register_buffer_as_assigned(self, name: str, value: Any, persistent: bool) -> None:
        """``self.register_buffer(name, value, persistent)``, through a subclass's override;
        one whose signature has no ``persistent`` gets ``(name, value)``, which torch allows
        only for a persistent buffer (what such an override registered before the argument
        existed)."""
        register_buffer = self.register_buffer
        if (
            getattr(register_buffer, "__func__", None) is Module.register_buffer
            or "persistent" in inspect.signature(register_buffer).parameters
        ):
            register_buffer(name, value, persistent)
        elif not persistent:
            raise RuntimeError(
                "Registering a non-persistent buffer on a Module subclass that implements "
                "register_buffer() without the persistent argument is not allowed."
            )
        else:
            register_buffer(name, value)

    def __getattr__(self, name: str) -> Any:
        """Reached only when normal lookup fails: the registries, then ``AttributeError``."""
        own = self.__dict__  # every parameter read in a forward comes here: no default dicts
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = own.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        return sorted(key for key in keys if not key[0].isdigit())

    def apply(self, fn: Callable[[Module], Any]) -> Self:
        """Call ``fn`` on every child (recursively, children first) and then on this module."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # -- traversal ------------------------------------------------------------------------

    def named_modules(
        self, memo: set[int] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """This module (named ``prefix``, ``''`` by default) and every descendant, pre-order.

        A module reachable under several names is listed once (the first name) unless
        ``remove_duplicate`` is false. ``memo`` holds the ``id`` of modules already listed.
        """
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                child_prefix = prefix + ("." if prefix else "") + name
                yield from child.named_modules(memo, child_prefix, remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """The modules of :meth:`named_modules`, without names."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct children, each once, in registration order."""
        seen: set[int] = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        """The modules of :meth:`named_children`, without names."""
        for _, child in self.named_children():
            yield child

    def _named_members(
        self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        """``(qualified name, tensor)`` of one registry over the tree; first name wins.

        As torch's, it walks the tree while it yields (a module added meanwhile is seen, or the
        walk raises Python's error for a dict changed during iteration) and reads each module's
        registry as an attribute (a module whose ``__init__`` never ran ``Module.__init__``
        raises torch's ``AttributeError``).
        """
        seen: set[int] = set()
        modules: Iterable[tuple[str, Module]] = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Every parameter with its qualified name: the module's own first, then each child's.

        This is the recursive collection an optimizer is built from. A Parameter registered
        under several names (tied weights) is listed once, under the first name, unless
        ``remove_duplicate`` is false; ``recurse=False`` lists only the module's own.
        """
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of :meth:`named_parameters`, without names: what an optimizer takes."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """Every buffer (persistent or not) with its qualified name, as :meth:`named_parameters`."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of :meth:`named_buffers`, without names."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # torch's Module defines these in its own class dict, where a tool may look them up
    state_dict = ModuleState.state_dict
    load_state_dict = ModuleState.load_state_dict

    # -- modes --------------------------------------------------------------------------

    def train(self, mode: bool = True) -> Self:
        """Set training mode (``True``) or evaluation mode on this module and every descendant.

        Only layers whose forward depends on it (BatchNorm) change behaviour; grad mode is
        unrelated. Returns the module.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Self:
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Self:
        """Set ``requires_grad`` of every parameter (freezing or unfreezing); returns the module."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to ``None`` by default, else to zeros in place."""
        for param in self.parameters():
            reset_grad(param, set_to_none)

    # -- printing -------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The layer's settings, printed inside its parentheses; subclasses override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({name}): " + _addindent(repr(child), 2) for name, child in self._modules.items()
        ]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"
