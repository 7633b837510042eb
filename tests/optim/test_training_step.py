"""One full SGD training step, and the unit's tanh-neuron example, against torch."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch

from support.differential import Tolerance, _ownership, same

X = np.array(
    [[0.3, -1.2, 2.0, 0.5], [1.5, 0.25, -0.75, 1.0], [0.0, 1.0, 1.0, -1.0], [-2.0, 0.5, 0.1, 0.0]],
    dtype=np.float32,
)
Y = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [-1.0, 2.0]], dtype=np.float32)


def build(t: ModuleType) -> Any:
    nn = t.nn
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))


def train_step(t: ModuleType, model: Any, opt: Any) -> float:
    opt.zero_grad()  # 1. forget the previous step's gradients
    loss = ((model(t.tensor(X.tolist())) - t.tensor(Y.tolist())) ** 2).mean()  # 2. forward
    loss.backward()  # 3. gradients of the loss into every parameter's .grad
    opt.step()  # 4. the update, in place, under no_grad
    return float(loss.item())


@pytest.mark.parametrize(
    "options",
    [{"lr": 0.1}, {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}],
    ids=["plain", "nesterov"],
)
def test_one_full_step_gives_torch_parameters_up_to_rounding(options: dict[str, Any]) -> None:
    own = _ownership()
    torch.manual_seed(0)
    torch_model = build(torch)
    own_model = build(own)
    own_model.load_state_dict(torch_model.state_dict())  # the same initial weights
    torch_opt = torch.optim.SGD(torch_model.parameters(), **options)
    own_opt = own.optim.SGD(own_model.parameters(), **options)
    for _ in range(3):
        torch_loss = train_step(torch, torch_model, torch_opt)
        own_loss = train_step(own, own_model, own_opt)
        assert Tolerance().allows(torch_loss, own_loss), (torch_loss, own_loss)
    for (name, mine), theirs in zip(
        own_model.named_parameters(), torch_model.parameters(), strict=True
    ):
        assert Tolerance().allows(theirs.detach().numpy(), mine.detach().numpy()), name
        assert mine.is_leaf and mine.requires_grad
        assert mine._version == theirs._version + 1  # load_state_dict wrote it once more


def test_the_step_leaves_the_graph_alone() -> None:
    def program(t: ModuleType) -> Any:
        model = build(t)
        opt = t.optim.SGD(model.parameters(), lr=0.1)
        train_step(t, model, opt)
        return [(p.is_leaf, p.grad_fn, p.requires_grad) for p in model.parameters()]

    same(program)


def test_tanh_neuron_example_from_the_resources() -> None:
    """x=1, y=1, w=b=0, lr=0.1: loss 1, then w=b=0.2, new loss ≈ 0.384463."""

    def program(t: ModuleType) -> Any:
        w = t.nn.Parameter(t.tensor([0.0]))
        b = t.nn.Parameter(t.tensor([0.0]))
        x, y = t.tensor([[1.0]]), t.tensor([1.0])
        opt = t.optim.SGD([w, b], lr=0.1)

        def loss_fn() -> Any:
            p = t.tanh(x @ w + b)
            return ((p - y) ** 2).sum()

        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        grads = (w.grad.clone(), b.grad.clone())
        opt.step()
        with t.no_grad():
            new_loss = loss_fn()
        return loss, grads, w, b, new_loss, x, y

    result = same(program)
    assert result[0].values == 1.0
    assert result[1][0].values.tolist() == [-2.0] and result[1][1].values.tolist() == [-2.0]
    assert np.allclose(result[2].values, 0.2) and np.allclose(result[3].values, 0.2)
    assert abs(result[4].values.item() - 0.384463) < 1e-6
    assert result[5].values.tolist() == [[1.0]]  # inputs unchanged


def test_tanh_neuron_by_hand_matches_autograd() -> None:
    """TensorTonic's hand-formed gradients: δ = 2(p−y)(1−p²), ∂L/∂w = Xᵀδ, ∂L/∂b = Σδ."""
    own = _ownership()
    xs, ys = np.array([[1.0], [0.5]]), np.array([1.0, -0.5])
    w, b = own.nn.Parameter(own.tensor([0.3])), own.nn.Parameter(own.tensor([-0.1]))
    p = own.tanh(own.tensor(xs.tolist()) @ w + b)
    ((p - own.tensor(ys.tolist())) ** 2).sum().backward()
    pv = np.tanh(xs @ np.array([0.3]) - 0.1)
    delta = 2 * (pv - ys) * (1 - pv**2)
    assert Tolerance().allows(xs.T @ delta, w.grad.numpy())  # float32 against the float64 formula
    assert Tolerance().allows([delta.sum()], b.grad.numpy())
