"""AdamW, RMSprop and Adagrad against torch's single-tensor (CPU) algorithms, step by step:
parameter values, state values, the ``_version`` of every parameter and state tensor after each
step, defaults, ``state_dict``/``load_state_dict`` and torch's refusals."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.optimizers import loss, params, resumed, snapshot

OPTIONS = {
    "AdamW default": ("AdamW", {}),
    "AdamW lr and decay": ("AdamW", {"lr": 0.1, "weight_decay": 0.1}),
    "AdamW no decay": ("AdamW", {"lr": 0.1, "weight_decay": 0.0}),
    "AdamW amsgrad": ("AdamW", {"lr": 0.1, "amsgrad": True}),
    "AdamW maximize": ("AdamW", {"lr": 0.1, "maximize": True, "betas": (0.5, 0.75)}),
    "RMSprop default": ("RMSprop", {}),
    "RMSprop weight decay": ("RMSprop", {"lr": 0.05, "weight_decay": 0.1, "alpha": 0.9}),
    "RMSprop momentum": ("RMSprop", {"lr": 0.05, "momentum": 0.9}),
    "RMSprop centered": ("RMSprop", {"lr": 0.05, "centered": True, "eps": 1e-6}),
    "RMSprop centered momentum": (
        "RMSprop",
        {"lr": 0.05, "centered": True, "momentum": 0.5, "weight_decay": 0.01},
    ),
    "RMSprop maximize": ("RMSprop", {"lr": 0.05, "maximize": True, "momentum": 0.3}),
    "Adagrad default": ("Adagrad", {}),
    "Adagrad lr decay": ("Adagrad", {"lr": 0.1, "lr_decay": 0.5}),
    "Adagrad weight decay": ("Adagrad", {"lr": 0.1, "weight_decay": 0.1}),
    "Adagrad initial accumulator": ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5}),
    "Adagrad maximize": ("Adagrad", {"lr": 0.1, "maximize": True, "eps": 1e-3}),
}


@pytest.mark.parametrize("case", OPTIONS, ids=list(OPTIONS))
def test_values_state_and_versions_step_by_step(case: str) -> None:
    name, options = OPTIONS[case]

    def program(t: ModuleType) -> Any:
        ps = params(t)
        opt = getattr(t.optim, name)(ps, **options)
        seen = [snapshot(opt, ps)]
        for k in range(4):
            opt.zero_grad()
            loss(t, *ps, k + 1).backward()
            opt.step()
            seen.append(snapshot(opt, ps))
        return seen, opt.param_groups[0]["lr"]

    same(program)


@pytest.mark.parametrize("name", ["AdamW", "RMSprop", "Adagrad"])
def test_defaults_in_groups_and_state_dict(name: str) -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = getattr(t.optim, name)([{"params": [a, b]}, {"params": [c], "lr": 0.5}])
        sd = opt.state_dict()
        return (
            sd["param_groups"],
            sorted(sd["state"]),
            [sorted(sd["state"][i]) for i in sorted(sd["state"])],
            opt.defaults,
        )

    same(program)


@pytest.mark.parametrize("name", ["AdamW", "RMSprop", "Adagrad"])
def test_a_parameter_without_grad_is_left_alone(name: str) -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = getattr(t.optim, name)([a, b, c], lr=0.1)
        (a * 3).sum().backward()
        opt.step()
        return snapshot(opt, [a, b, c]), len(opt.state)

    same(program)


KINDS = {
    "AdamW": {"lr": 0.05},
    "AdamW amsgrad": {"lr": 0.05, "amsgrad": True},
    "RMSprop": {"lr": 0.05, "momentum": 0.9, "centered": True},
    "Adagrad": {"lr": 0.05, "lr_decay": 0.1},
}


@pytest.mark.parametrize("kind", KINDS, ids=list(KINDS))
def test_load_state_dict_into_a_fresh_optimizer_continues_identically(kind: str) -> None:
    name = kind.split()[0]

    def program(t: ModuleType) -> Any:
        def make(t: ModuleType, ps: Any, **options: Any) -> Any:
            return getattr(t.optim, name)(ps, **(options or KINDS[kind]))

        # the fresh optimizer's own lr (1.0) must give way to the loaded one
        opt, ps, fresh, twins, shared = resumed(t, make, lambda t, ps: make(t, ps, lr=1.0))
        return snapshot(opt, ps), snapshot(fresh, twins), shared, fresh.param_groups

    same(program)


def test_adamw_stays_decoupled_after_loading_an_adam_state() -> None:
    def program(t: ModuleType) -> Any:
        ps = params(t)
        adam = t.optim.Adam(ps, lr=0.1, weight_decay=0.1)
        loss(t, *ps).backward()
        adam.step()
        opt = t.optim.AdamW(ps)
        opt.load_state_dict(adam.state_dict())
        opt.step()
        group = opt.param_groups[0]
        return group["decoupled_weight_decay"], group["weight_decay"], snapshot(opt, ps)

    same(program)


def test_adagrad_group_added_later_gets_state_on_its_first_step() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = t.optim.Adagrad([a], initial_accumulator_value=0.25)
        opt.add_param_group({"params": [b, c], "initial_accumulator_value": 2.0})
        before = len(opt.state)
        (b * 2).sum().backward()
        opt.step()
        return before, snapshot(opt, [a, b, c]), opt.param_groups[1]

    same(program)


REFUSALS = {
    "AdamW negative lr": lambda t: t.optim.AdamW(params(t), lr=-1.0),
    "AdamW negative eps": lambda t: t.optim.AdamW(params(t), eps=-1.0),
    "AdamW beta 0": lambda t: t.optim.AdamW(params(t), betas=(1.0, 0.9)),
    "AdamW beta 1": lambda t: t.optim.AdamW(params(t), betas=(0.9, 1.5)),
    "AdamW weight decay": lambda t: t.optim.AdamW(params(t), weight_decay=-0.1),
    "AdamW empty": lambda t: t.optim.AdamW([]),
    "RMSprop negative lr": lambda t: t.optim.RMSprop(params(t), lr=-1.0),
    "RMSprop negative eps": lambda t: t.optim.RMSprop(params(t), eps=-1e-8),
    "RMSprop negative momentum": lambda t: t.optim.RMSprop(params(t), momentum=-0.5),
    "RMSprop negative weight decay": lambda t: t.optim.RMSprop(params(t), weight_decay=-1),
    "RMSprop negative alpha": lambda t: t.optim.RMSprop(params(t), alpha=-0.1),
    "RMSprop order": lambda t: t.optim.RMSprop(params(t), alpha=-0.1, eps=-1.0),
    "Adagrad negative lr": lambda t: t.optim.Adagrad(params(t), lr=-1.0),
    "Adagrad negative lr decay": lambda t: t.optim.Adagrad(params(t), lr_decay=-0.1),
    "Adagrad negative weight decay": lambda t: t.optim.Adagrad(params(t), weight_decay=-0.1),
    "Adagrad negative accumulator": lambda t: t.optim.Adagrad(
        params(t), initial_accumulator_value=-1.0
    ),
    "Adagrad negative eps": lambda t: t.optim.Adagrad(params(t), eps=-1.0),
    "Adagrad non-leaf": lambda t: t.optim.Adagrad([params(t)[0] * 2]),
}


@pytest.mark.parametrize("case", REFUSALS, ids=list(REFUSALS))
def test_refusals(case: str) -> None:
    same(REFUSALS[case])


@pytest.mark.parametrize("name", ["AdamW", "RMSprop", "Adagrad"])
def test_repr(name: str) -> None:
    same(lambda t: repr(getattr(t.optim, name)(params(t), lr=0.5)))


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adagrad"])
@pytest.mark.parametrize("size", [1e20, 1e-20])
def test_huge_and_tiny_gradients_step_as_torchs_fused_kernels(name: str, size: float) -> None:
    # module fuzzer 112333: torch's addcmul_ and addcdiv_ take value * a first, so Adam's
    # 0.001 * g * g of g = 1e20 is 1e37 in float32 (g * g would overflow to inf)
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.tensor([0.5, -0.25, 1.0]))
        opt = getattr(t.optim, name)([p], lr=0.1)
        out = []
        for sign in (-1.0, 1.0):
            p.grad = t.full((3,), sign * size)
            opt.step()
            out.append((p.clone(), {k: v.clone() for k, v in opt.state[p].items()}))
        return out

    same(program)
