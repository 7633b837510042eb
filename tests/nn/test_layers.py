"""Layers: Linear, the activations, Sequential and BatchNorm1d, compared with torch's."""

from __future__ import annotations

import math
from collections import OrderedDict
from types import ModuleType
from typing import Any

import pytest

from support import nn_models
from support.differential import _ownership, same

X = [[0.3, -1.2, 2.0], [1.5, 0.25, -0.75], [0.0, 1.0, 1.0], [-2.0, 0.5, 0.1]]


def test_linear_registers_weight_then_bias_with_torch_shapes() -> None:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(3, 2)
        plain = t.nn.Linear(3, 2, bias=False)
        return (
            [(n, tuple(p.shape), p._version, p.requires_grad) for n, p in lin.named_parameters()],
            list(plain._parameters),
            plain.bias,
            (lin.in_features, lin.out_features),
            repr(lin),
            repr(plain),
        )

    assert same(program)[4] == "Linear(in_features=3, out_features=2, bias=True)"


@pytest.mark.parametrize("n_in", [1, 3, 50])
def test_linear_default_init_stays_within_torch_bounds(n_in: int) -> None:
    own = _ownership()
    own.manual_seed(0)
    lin = own.nn.Linear(n_in, 40)
    bound = 1 / math.sqrt(n_in)
    w = lin.weight.detach().numpy()
    b = lin.bias.detach().numpy()
    assert abs(w).max() <= bound and abs(b).max() <= bound
    assert abs(w).max() > 0.8 * bound  # uniform over the whole range, not a narrow one
    assert len(set(w.ravel().tolist())) == w.size  # not a constant


def test_linear_init_is_reproducible_with_manual_seed() -> None:
    own = _ownership()
    own.manual_seed(7)
    a = own.nn.Linear(4, 3)
    own.manual_seed(7)
    b = own.nn.Linear(4, 3)
    c = own.nn.Linear(4, 3)
    assert a.weight.tolist() == b.weight.tolist() and a.bias.tolist() == b.bias.tolist()
    assert a.weight.tolist() != c.weight.tolist()


@pytest.mark.parametrize("shape", [(4, 3), (3,)])
def test_linear_forward_and_backward(shape: tuple[int, ...]) -> None:
    def program(t: ModuleType) -> Any:
        lin = nn_models.load_weights(t.nn.Linear(3, 2), t)
        x = t.tensor(X[: shape[0]] if len(shape) == 2 else X[0], requires_grad=True)
        y = lin(x)
        y.sum().backward()
        return y.detach(), x.grad, lin.weight.grad, lin.bias.grad

    same(program)


@pytest.mark.parametrize("name", ["ReLU", "Sigmoid", "Tanh"])
def test_activations(name: str) -> None:
    def program(t: ModuleType) -> Any:
        layer = getattr(t.nn, name)()
        x = t.tensor(X, requires_grad=True)
        y = layer(x)
        y.sum().backward()
        return y, x.grad, repr(layer), list(layer.state_dict())

    same(program)


def test_relu_in_place() -> None:
    def program(t: ModuleType) -> Any:
        layer = t.nn.ReLU(inplace=True)
        x = t.tensor(X)
        y = layer(x)
        return y is x, x, x._version, repr(layer)

    same(program)


def sequential(t: ModuleType) -> Any:
    nn = t.nn
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1), nn.Tanh()))


def test_sequential_names_len_iteration_and_repr() -> None:
    def program(t: ModuleType) -> Any:
        seq = sequential(t)
        return (
            list(seq._modules),
            len(seq),
            [type(m).__name__ for m in seq],
            repr(seq),
            list(seq.state_dict()),
        )

    assert same(program)[3] == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Linear(in_features=3, out_features=1, bias=True)\n"
        "    (1): Tanh()\n"
        "  )\n"
        ")"
    )


def test_sequential_indexing() -> None:
    def program(t: ModuleType) -> Any:
        seq = sequential(t)
        return (
            seq[0] is seq._modules["0"],
            seq[-1] is seq._modules["2"],
            type(seq[1:]).__name__,
            list(seq[1:]._modules),
            list(seq[::2]._modules),
            seq[1:][0] is seq[1],
            repr(seq[:0]),
        )

    same(program)


@pytest.mark.parametrize("index", [3, -4, "a", 1.0])
def test_sequential_index_errors(index: Any) -> None:
    same(lambda t: sequential(t)[index])


def test_sequential_mutation() -> None:
    def program(t: ModuleType) -> Any:
        seq = sequential(t)
        seq[1] = t.nn.Sigmoid()
        seq.append(t.nn.ReLU())
        steps = [list(seq._modules), repr(seq[1])]
        del seq[0]
        steps.append(list(seq._modules))
        steps.append([type(m).__name__ for m in seq])
        return steps

    same(program)


def test_sequential_from_ordered_dict_and_forward() -> None:
    def program(t: ModuleType) -> Any:
        seq = t.nn.Sequential(
            OrderedDict(
                [("hidden", t.nn.Linear(3, 4)), ("act", t.nn.Tanh()), ("out", t.nn.Linear(4, 1))]
            )
        )
        nn_models.load_weights(seq, t)
        y = seq(t.tensor(X))
        return list(seq.state_dict()), y.detach(), seq.hidden is seq[0]

    same(program)


BN_X = [[1.0, 2.0, -1.0], [3.0, 5.0, 0.5], [0.0, -1.0, 2.0], [2.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


def test_batchnorm_init_state_and_repr() -> None:
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3)
        plain = t.nn.BatchNorm1d(3, affine=False, track_running_stats=False)
        return (
            [(n, v, v._version) for n, v in bn.state_dict(keep_vars=True).items()],
            repr(bn),
            repr(plain),
            list(plain._parameters),
            list(plain._buffers),
            list(plain.state_dict()),
            (bn.eps, bn.momentum, bn.affine, bn.track_running_stats, bn.num_features),
        )

    same(program)


def test_batchnorm_training_step_updates_buffers_without_a_graph() -> None:
    def program(t: ModuleType) -> Any:
        bn = nn_models.load_weights(t.nn.BatchNorm1d(3), t)
        x = t.tensor(BN_X, requires_grad=True)
        y = bn(x)
        (y * y).sum().backward()
        buffers = [(n, b, b._version, b.grad_fn, b.requires_grad) for n, b in bn.named_buffers()]
        return y.detach(), x.grad, bn.weight.grad, bn.bias.grad, buffers

    same(program)


def test_batchnorm_running_stats_over_several_batches_then_eval() -> None:
    def program(t: ModuleType) -> Any:
        bn = nn_models.load_weights(t.nn.BatchNorm1d(3, momentum=0.3), t)
        for k in range(3):
            bn(t.tensor(BN_X) * (k + 1) - k)
        bn.eval()
        x = t.tensor(BN_X, requires_grad=True)
        y = bn(x)
        y.sum().backward()
        return dict(bn.state_dict()), y.detach(), x.grad, bn.weight.grad, bn.bias.grad

    same(program)


def test_batchnorm_cumulative_average_when_momentum_is_none() -> None:
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3, momentum=None)
        for k in range(3):
            bn(t.tensor(BN_X) * (k + 1))
        return dict(bn.state_dict())

    same(program)


def test_batchnorm_without_running_stats_uses_batch_stats_in_eval() -> None:
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3, affine=False, track_running_stats=False).eval()
        return bn(t.tensor(BN_X))

    same(program)


def test_batchnorm_three_dimensional_input() -> None:
    def program(t: ModuleType) -> Any:
        bn = nn_models.load_weights(t.nn.BatchNorm1d(2), t)
        x = t.tensor([[[1.0, 2.0, 0.0], [0.5, -1.0, 3.0]], [[2.0, 2.5, 1.0], [0.0, 1.0, -2.0]]])
        y = bn(x)
        return y.detach(), dict(bn.state_dict())

    same(program)


@pytest.mark.parametrize(
    "shape", [(3,), (1, 3), (4, 4), (1, 3, 1)], ids=["1d", "one-sample", "wrong-features", "3d-one"]
)
def test_batchnorm_input_errors(shape: tuple[int, ...]) -> None:
    same(lambda t: t.nn.BatchNorm1d(3)(t.ones(*shape)))


def test_batchnorm_eval_accepts_one_sample() -> None:
    same(lambda t: t.nn.BatchNorm1d(3).eval()(t.tensor([[1.0, 2.0, 3.0]])).detach())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_module(reduction: str) -> None:
    def program(t: ModuleType) -> Any:
        loss_fn = t.nn.MSELoss(reduction=reduction)
        x = t.tensor(X, requires_grad=True)
        loss = loss_fn(x, t.ones(4, 3))
        loss.sum().backward()
        return loss, x.grad, repr(loss_fn), list(loss_fn.state_dict())

    same(program)


@pytest.mark.parametrize("ignore_index", [-100, 1])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_loss_module(reduction: str, ignore_index: int) -> None:
    def program(t: ModuleType) -> Any:
        loss_fn = t.nn.CrossEntropyLoss(ignore_index=ignore_index, reduction=reduction)
        x = t.tensor(X, requires_grad=True)
        loss = loss_fn(x, t.tensor([0, 1, 2, 1]))
        loss.sum().backward()
        return loss, x.grad, repr(loss_fn), (loss_fn.ignore_index, loss_fn.reduction)

    same(program)


def test_apply_visits_children_first_and_returns_the_module() -> None:
    def program(t: ModuleType) -> Any:
        seen: list[str] = []
        model = nn_models.nested(t)
        result = model.apply(lambda m: seen.append(type(m).__name__))
        zeroed = model.apply(
            lambda m: t.nn.init.zeros_(m.weight) if isinstance(m, t.nn.Linear) else None
        )
        return (
            seen,
            result is model,
            zeroed is model,
            [m.weight for m in model.modules() if isinstance(m, t.nn.Linear)],
        )

    same(program)
