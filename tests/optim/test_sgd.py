"""SGD and the Optimizer base: groups, state, zero_grad, torch's errors and torch's updates."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support import nn_models
from support.differential import same

X = [[0.3, -1.2, 2.0], [1.5, 0.25, -0.75], [0.0, 1.0, 1.0], [-2.0, 0.5, 0.1]]
Y = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [-1.0, 2.0]]
OWN_KEYS = ["params", "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"]


def test_param_groups_and_defaults() -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.mlp(t)
        opt = t.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        group = opt.param_groups[0]
        return (
            len(opt.param_groups),
            [k for k in group if k in OWN_KEYS],
            {k: group[k] for k in OWN_KEYS[1:]},
            [p is q for p, q in zip(group["params"], model.parameters(), strict=True)],
            type(group["params"]).__name__,
            {k: opt.defaults[k] for k in OWN_KEYS[1:]},
            len(opt.state),
            type(opt.state).__name__,
        )

    assert same(program)[1] == OWN_KEYS


def test_param_group_dicts_override_defaults() -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.mlp(t)
        opt = t.optim.SGD(
            [{"params": model[0].parameters()}, {"params": model[2].weight, "lr": 0.5}],
            lr=0.1,
        )
        return [(len(g["params"]), g["lr"], g["momentum"]) for g in opt.param_groups]

    same(program)


def test_default_learning_rate() -> None:
    same(lambda t: t.optim.SGD([t.nn.Parameter(t.zeros(1))]).param_groups[0]["lr"])


def test_add_param_group() -> None:
    def program(t: ModuleType) -> Any:
        a, b = t.nn.Parameter(t.zeros(1)), t.nn.Parameter(t.zeros(2))
        opt = t.optim.SGD([a], lr=0.1)
        opt.add_param_group({"params": [b], "momentum": 0.5})
        return [
            (g["lr"], g["momentum"], [tuple(p.shape) for p in g["params"]])
            for g in opt.param_groups
        ]

    same(program)


def param(t: ModuleType) -> Any:
    return t.nn.Parameter(t.zeros(2))


ERRORS = {
    "empty list": lambda t: t.optim.SGD([], lr=0.1),
    "empty generator": lambda t: t.optim.SGD(t.nn.ReLU().parameters(), lr=0.1),
    "non-leaf": lambda t: t.optim.SGD([param(t) * 2], lr=0.1),
    "negative lr": lambda t: t.optim.SGD([param(t)], lr=-0.1),
    "negative momentum": lambda t: t.optim.SGD([param(t)], lr=0.1, momentum=-0.5),
    "negative weight decay": lambda t: t.optim.SGD([param(t)], lr=0.1, weight_decay=-1e-4),
    "nesterov without momentum": lambda t: t.optim.SGD([param(t)], lr=0.1, nesterov=True),
    "nesterov with dampening": lambda t: t.optim.SGD(
        [param(t)], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True
    ),
    "a single tensor": lambda t: t.optim.SGD(param(t), lr=0.1),
    "not a tensor": lambda t: t.optim.SGD([param(t), 3], lr=0.1),
    "a set in a group": lambda t: t.optim.SGD([{"params": {param(t)}}], lr=0.1),
    "twice in two groups": lambda t: (
        lambda p: t.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    )(param(t)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name: str) -> None:
    same(ERRORS[name])


def test_a_plain_leaf_tensor_and_a_retained_non_leaf_are_accepted() -> None:
    def program(t: ModuleType) -> Any:
        leaf = t.zeros(2, requires_grad=True)
        middle = leaf * 2
        middle.retain_grad()
        opt = t.optim.SGD([leaf, middle], lr=0.1)
        return len(opt.param_groups[0]["params"])

    same(program)


def run_steps(t: ModuleType, steps: int, **options: Any) -> Any:
    model = nn_models.mlp(t)
    opt = t.optim.SGD(model.parameters(), **options)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(t.tensor(X)) - t.tensor(Y)) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    buffers = [opt.state[p].get("momentum_buffer") for p in model.parameters()]
    versions = [p._version for p in model.parameters()]
    return dict(model.state_dict()), losses, buffers, versions


OPTIONS = {
    "plain": {"lr": 0.1},
    "momentum": {"lr": 0.1, "momentum": 0.9},
    "dampening": {"lr": 0.05, "momentum": 0.8, "dampening": 0.3},
    "nesterov": {"lr": 0.1, "momentum": 0.9, "nesterov": True},
    "weight decay": {"lr": 0.1, "weight_decay": 0.01},
    "everything": {"lr": 0.05, "momentum": 0.5, "weight_decay": 0.1, "nesterov": True},
    "maximize": {"lr": 0.01, "momentum": 0.5, "maximize": True},
}


@pytest.mark.parametrize("name", list(OPTIONS))
def test_values_after_steps_match_torch(name: str) -> None:
    same(lambda t: run_steps(t, 4, **OPTIONS[name]))


def test_state_holds_a_momentum_buffer_per_parameter() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        opt = t.optim.SGD([p], lr=0.1, momentum=0.9)
        before = (len(opt.state), p in opt.state)
        (p * p).sum().backward()
        opt.step()
        state = opt.state[p]
        buf = state["momentum_buffer"]
        (p * p).sum().backward()
        opt.step()
        return before, list(state), buf, buf is state["momentum_buffer"], buf._version, p._version

    same(program)


def test_without_momentum_state_records_a_none_buffer() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        opt = t.optim.SGD([p], lr=0.1)
        (p * p).sum().backward()
        opt.step()
        return {k: v for k, v in opt.state[p].items()}, p, p._version

    same(program)


def test_step_skips_parameters_without_grad() -> None:
    def program(t: ModuleType) -> Any:
        used, unused = t.nn.Parameter(t.ones(2)), t.nn.Parameter(t.ones(2))
        opt = t.optim.SGD([used, unused], lr=0.5, momentum=0.9, weight_decay=0.1)
        (used * 3).sum().backward()
        opt.step()
        return used, unused, used._version, unused._version, unused in opt.state, unused.grad

    same(program)


def test_step_runs_under_no_grad_and_keeps_leaves() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.tensor([1.0, -1.0]))
        opt = t.optim.SGD([p], lr=0.1, momentum=0.9)
        (p**3).sum().backward()
        result = opt.step()
        return result, p, p.is_leaf, p.grad_fn, p.requires_grad, t.is_grad_enabled()

    same(program)


def test_step_with_closure_returns_the_loss() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.tensor([1.0, -1.0]))
        opt = t.optim.SGD([p], lr=0.1)

        def closure() -> Any:
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss

        loss = opt.step(closure)
        return loss, p

    same(program)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none: bool) -> None:
    def program(t: ModuleType) -> Any:
        p, q = t.nn.Parameter(t.ones(2)), t.nn.Parameter(t.ones(2))
        opt = t.optim.SGD([p, q], lr=0.1)
        (p * 2).sum().backward()
        grad = p.grad
        opt.zero_grad(set_to_none=set_to_none)
        return p.grad, q.grad, grad, grad._version

    same(program)


def test_zero_grad_default_is_set_to_none() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.ones(2))
        opt = t.optim.SGD([p], lr=0.1)
        (p * 2).sum().backward()
        opt.zero_grad()
        return p.grad

    assert same(program) is None


def test_forgotten_zero_grad_accumulates() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        opt = t.optim.SGD([p], lr=0.1)
        for _ in range(2):
            (p * p).sum().backward()  # no zero_grad: the second gradient adds to the first
            opt.step()
        return p, p.grad

    same(program)


def test_repr() -> None:
    def program(t: ModuleType) -> Any:
        opt = t.optim.SGD([t.nn.Parameter(t.ones(2))], lr=0.1, momentum=0.9)
        lines = repr(opt).splitlines()
        return [line for line in lines if line.split(":")[0].strip() in OWN_KEYS or ":" not in line]

    same(program)
