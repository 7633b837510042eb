"""Optimizer: the one owner allowed to write a model's parameters, in ``step()`` under no_grad.

An optimizer holds ``param_groups`` (a list of dicts: ``'params'``, the tensors it may update,
plus the group's hyper-parameters, the optimizer's ``defaults`` unless the group sets them) and
``state`` (per-parameter dicts, such as SGD's ``'momentum_buffer'``). ``step()`` updates, in
place and outside gradient tracking, exactly the parameters of its groups that have a ``.grad``;
the others are left untouched.

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([1.0, 2.0]))
>>> opt = ownership.optim.SGD([p], lr=0.5)
>>> (p * p).sum().backward()
>>> opt.step()
>>> p, p._version, p.is_leaf
(Parameter containing:
tensor([0., 0.], requires_grad=True), 1, True)
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from ownership.grad_mode import enable_grad, no_grad
from ownership.nn.parameter import reset_grad
from ownership.nn.typename import typename
from ownership.tensor import Tensor

__all__ = ["Optimizer"]


class Optimizer:
    """Base of the optimizers: parameter groups, per-parameter state, ``zero_grad``, ``step``.

    ``params`` is an iterable of tensors, or of dicts each holding ``'params'`` and the options
    that differ from ``defaults``. Refused (torch's errors): a single tensor, an empty list, a
    tensor that is not a leaf (and does not retain grad), anything that is not a tensor, a set
    (unordered) as a group's params, and a tensor in two groups. A subclass defines
    ``_update`` (the rule for one parameter).
    """

    defaults: dict[str, Any]
    state: defaultdict[Tensor, dict[str, Any]]
    param_groups: list[dict[str, Any]]

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + typename(params)
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (a dict with ``'params'``); options it omits take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=3,
            )
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if not taken.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the ``.grad`` of every parameter: to ``None`` by default, else zero it in place.

        Call it before each backward: gradients accumulate, so without it a step applies the
        sum of this batch's gradient and every earlier one.
        """
        for group in self.param_groups:
            for param in group["params"]:
                reset_grad(param, set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a ``.grad``, in place, under ``no_grad``.

        ``closure``, if given, re-evaluates the loss (with grad enabled) first; its result is
        returned (else ``None``). Parameters whose grad is ``None`` are skipped entirely.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        self._update(param, param.grad, group)
        return loss

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        """Apply this optimizer's rule to one parameter (runs under ``no_grad``)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"
