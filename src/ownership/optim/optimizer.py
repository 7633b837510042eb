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
from copy import deepcopy
from itertools import chain
from typing import Any

from ownership.core import dtypes
from ownership.core.grad_mode import enable_grad, no_grad
from ownership.core.tensor import Tensor
from ownership.nn.parameter import reset_grad
from ownership.nn.typename import typename
from ownership.ops.creation import tensor

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
    _group_reads: tuple[str, ...] = ()
    """The group options torch's ``step`` reads of every group, with or without gradients, in
    its order (a group loaded from another optimizer's state lacks some: torch's ``KeyError``)."""
    _loaded_defaults: tuple[tuple[str, Any], ...] = ()
    """The group options ``__setstate__`` gives a loaded group that lacks them, in the order of
    torch's ``setdefault`` calls (a group saved by another optimizer gains them)."""

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
                self._begin_group(group)
                for param in group["params"]:
                    if param.grad is not None:
                        self._update(param, param.grad, group)
                self._end_group(group)
        return loss

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state in torch's structure, for saving with the model's.

        ``{'state': {index: {...}}, 'param_groups': [{hyper-parameters..., 'params': [index,
        ...]}]}``: parameters are replaced by their position across the groups (0, 1, ...), the
        per-parameter state tensors are the live ones (not copies), and only parameters that
        have state appear under ``'state'``.
        """
        index: dict[int, int] = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            # torch maps a group's new parameters all at once: a parameter twice in one group
            # gets its last position, one already in an earlier group keeps that group's
            index.update(
                {id(p): i for i, p in enumerate(group["params"], start) if id(p) not in index}
            )
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take over a saved state: hyper-parameters per group and per-parameter state.

        Groups are matched by position and must have the same sizes (torch's ``ValueError``
        otherwise); the state's tensors are copied (cast to each parameter's dtype, except
        ``'step'``) with ``.to``, which, as in torch, keeps the very same tensor when the dtype
        already matches: the two optimizers then share those buffers. The groups keep their
        own parameters. The result is taken over through ``__setstate__``, as in torch.
        """
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = {key: _cast(param, key, value) for key, value in v.items()}
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups, strict=True):
            saved["params"] = group["params"]
        self.__setstate__({"state": state, "param_groups": saved_groups})

    def __getstate__(self) -> dict[str, Any]:
        """What pickling and ``copy.deepcopy`` keep, as torch's: ``defaults``, ``state`` and
        ``param_groups`` (not a scheduler's wrapper of ``step``)."""
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Take over ``state`` (attributes by name), as unpickling and ``load_state_dict`` do;
        a group lacking an option of ``_loaded_defaults`` gains it; a subclass that must keep
        a group option whatever was loaded extends this."""
        self.__dict__.update(state)
        for group in self.param_groups:
            for key, default in self._loaded_defaults:
                group.setdefault(key, default)

    def _begin_group(self, group: dict[str, Any]) -> None:
        """What torch's ``_init_group`` does before it updates any of the group's parameters:
        give each parameter with a gradient and no state its fresh state (``_init_state``)
        and read its state's ``_state_reads`` (a state loaded from another optimizer lacks
        some: torch's ``KeyError``), so that an update that fails leaves the whole group's
        state made."""
        for param in group["params"]:
            if param.grad is not None:
                state = self.state[param]
                if len(state) == 0:
                    self._init_state(param, group)
                for key in self._state_reads(group):
                    state[key]
        self._read_options(group)

    def _state_reads(self, group: dict[str, Any]) -> tuple[str, ...]:
        """The keys torch's ``_init_group`` reads of the state of each parameter of ``group``
        with a gradient, in its order (none here)."""
        return ()

    def _read_options(self, group: dict[str, Any]) -> None:
        """Read ``_group_reads`` as torch's step does: a ``KeyError`` for one missing."""
        for key in self._group_reads:
            group[key]

    def _init_state(self, param: Tensor, group: dict[str, Any]) -> None:
        """A parameter's fresh state (none here)."""

    def _end_group(self, group: dict[str, Any]) -> None:
        """What a step does once all of the group's parameters are updated (nothing here)."""

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


def scalar_dtype() -> dtypes.dtype:
    """The dtype of an optimizer's ``step`` count (torch's ``_get_scalar_dtype``): float64
    under a float64 default dtype, else float32."""
    return dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32


def new_step() -> Tensor:
    """A parameter's ``step`` count before its first step: a 0-d tensor of :func:`scalar_dtype`."""
    return tensor(0.0, dtype=scalar_dtype())


def steps_as_tensors(optimizer: Optimizer) -> None:
    """A loaded state whose ``step`` is a number (an older checkpoint's) gets it back as a 0-d
    tensor of :func:`scalar_dtype`, as the ``__setstate__`` of torch's Adam, AdamW, RMSprop
    and Adagrad does, so that the next step can count on it."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            p_state: dict[str, Any] = optimizer.state.get(p, {})
            if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                p_state["step"] = tensor(float(p_state["step"]), dtype=scalar_dtype())


def check_lr(lr: Any) -> None:
    """torch's refusal of a tensor ``lr`` of more than one element (before any check of its
    value, which would ask a many-element tensor's truth)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def _cast(param: Tensor, key: str, value: Any) -> Any:
    """A loaded state value, as torch casts it: a tensor takes a floating parameter's dtype
    (except ``'step'``) through ``.to``, which returns the *same* tensor when the dtype
    already matches; containers are rebuilt element by element; anything else is kept."""
    if isinstance(value, Tensor):
        return value.to(param.dtype) if key != "step" and param.is_floating_point() else value
    if isinstance(value, dict):
        return {k: _cast(param, k, v) for k, v in value.items()}
    return value
