"""Reaching into a module tree by dotted path: ``get_submodule``, ``get_parameter``,
``get_buffer`` and ``set_submodule``.

A path such as ``'body.0.weight'`` is the name ``named_parameters`` and ``state_dict`` print:
each part but the last names a child module, the last names what is looked up. Each lookup
refuses a path that leads nowhere, or to something of another kind, with torch's
``AttributeError``; ``set_submodule`` assigns through the parent's ``__setattr__``, so the
usual registration rules apply.

>>> import ownership
>>> net = ownership.nn.Sequential(ownership.nn.Linear(2, 2), ownership.nn.BatchNorm1d(2))
>>> net.get_parameter("0.weight") is net[0].weight, net.get_buffer("1.running_mean").shape
(True, torch.Size([2]))
>>> net.set_submodule("0", ownership.nn.ReLU())
>>> net
Sequential(
  (0): ReLU()
  (1): BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ownership.core.tensor import Tensor

if TYPE_CHECKING:
    from ownership.nn.module import Module
    from ownership.nn.parameter import Parameter

__all__ = ["ModulePaths"]


class ModulePaths:
    """The dotted-path lookups of :class:`~ownership.nn.Module` (a base class of it)."""

    _buffers: dict[str, Tensor | None]

    def _get_name(self) -> str:
        return type(self).__name__

    def get_submodule(self, target: str) -> Module:
        """The descendant at dotted path ``target`` (``''`` is this module)."""
        module: Any = self
        if target == "":
            return module  # type: ignore[no-any-return]
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, ModulePaths):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module  # type: ignore[no-any-return]

    def _owner_of(self, target: str) -> tuple[Module, str]:
        """The module holding the last name of ``target``, and that name; it must exist."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        return module, name

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target`` (such as ``'body.0.weight'``)."""
        from ownership.nn.parameter import Parameter

        module, name = self._owner_of(target)
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target`` (such as ``'1.running_mean'``).

        A name the module has but not in its buffer registry (a parameter, a plain tensor
        attribute) is refused with torch's ``AttributeError``.
        """
        module, name = self._owner_of(target)
        buffer: Tensor = getattr(module, name)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Make ``module`` the descendant at dotted path ``target``; its parent must exist.

        Replaces the child already there, or adds a new one (only replaces, when ``strict``).
        Refuses an empty ``target`` and a ``module`` that is not a Module (``ValueError``), and
        a ``target`` whose last name is an attribute other than a module (``AttributeError``).
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        if not isinstance(module, ModulePaths):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self.get_submodule(parent_path) if parent_path else self
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), ModulePaths):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)
