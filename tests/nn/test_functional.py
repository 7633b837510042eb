"""ownership.nn.functional: relu, sigmoid, tanh, softmax, log_softmax, cross_entropy, mse_loss."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest

from support.differential import same
from support.gradients import plain

LOGITS = [[1.0, 2.0, 3.0, -1.0], [0.0, 1.0, -1.0, 0.5], [2.0, -2.0, 0.3, 0.1]]

ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
    "softmax_1": lambda F, x: F.softmax(x, dim=1),
    "softmax_0": lambda F, x: F.softmax(x, 0),
    "softmax_neg": lambda F, x: F.softmax(x, dim=-1),
    "log_softmax_1": lambda F, x: F.log_softmax(x, dim=1),
    "log_softmax_0": lambda F, x: F.log_softmax(x, 0),
}


@pytest.mark.parametrize("fn", sorted(ACTIVATIONS))
def test_activation_values_names_and_gradients(fn: str) -> None:
    def program(t):
        x = t.tensor(LOGITS, requires_grad=True)
        y = ACTIVATIONS[fn](t.nn.functional, x)
        (y * t.arange(12.0).view(3, 4)).sum().backward()
        return [y, plain(x.grad)]

    same(program)


def test_functional_and_method_forms_agree() -> None:
    def program(t):
        F = t.nn.functional
        x = t.tensor(LOGITS)
        return [
            (F.relu(x) - x.relu()).abs().max(),
            (F.sigmoid(x) - x.sigmoid()).abs().max(),
            (F.softmax(x, 1) - x.softmax(1)).abs().max(),
            (F.log_softmax(x, 1) - x.log_softmax(1)).abs().max(),
        ]

    same(program)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "target", [[2, 0, 1], [2, -100, 1], [-100, -100, -100], [3, 3, 0]], ids=str
)
def test_cross_entropy_with_ignore_index_and_reductions(target, reduction: str) -> None:
    def program(t):
        x = t.tensor(LOGITS, requires_grad=True)
        loss = t.nn.functional.cross_entropy(x, t.tensor(target), reduction=reduction)
        (loss * 2).sum().backward()
        return [loss, plain(x.grad)]

    same(program)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_with_a_custom_ignore_index(reduction: str) -> None:
    def program(t):
        x = t.tensor(LOGITS, requires_grad=True)
        loss = t.nn.functional.cross_entropy(
            x, t.tensor([1, 1, 2]), reduction=reduction, ignore_index=1
        )
        loss.sum().backward()
        return [loss, plain(x.grad)]

    same(program)


def test_cross_entropy_is_stable_for_large_logits() -> None:
    def program(t):
        x = t.tensor([[1000.0, 0.0, -1000.0], [0.0, 500.0, 1000.0]], requires_grad=True)
        loss = t.nn.functional.cross_entropy(x, t.tensor([0, 0]))
        loss.backward()
        return [loss, plain(x.grad)]

    same(program)


def test_cross_entropy_of_one_sample() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = t.nn.functional.cross_entropy(x, t.tensor(1))
        loss.backward()
        return [loss, plain(x.grad)]

    same(program)


def test_cross_entropy_in_float64() -> None:
    def program(t):
        x = t.tensor(LOGITS, dtype=t.float64, requires_grad=True)
        loss = t.nn.functional.cross_entropy(x, t.tensor([0, 1, 2]))
        loss.backward()
        return [loss, plain(x.grad)]

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        "F.cross_entropy(x, t.tensor([0, 5, 1]))",
        "F.cross_entropy(x, t.tensor([0, -1, 1]))",
        "F.cross_entropy(x, t.tensor([0, 1]))",
        "F.cross_entropy(x, t.tensor([0, 1, 2]), reduction='avg')",
        "F.mse_loss(x, x.detach(), reduction='avg')",
        "F.cross_entropy(x, t.tensor([0.0, 1.0, 2.0]))",
        "F.cross_entropy(x, t.ones(3, 2))",
        "F.cross_entropy(x, t.ones(3, 2, dtype=t.int64))",
        "F.cross_entropy(x, t.ones(2))",
        "F.cross_entropy(x, t.ones(3, 4, dtype=t.int64))",
        "F.cross_entropy(x, x.detach().softmax(1), ignore_index=1)",
        "F.mse_loss(x, t.ones(5))",
        "F.mse_loss(x, t.ones(4))",
    ],
    ids=[
        "target_too_big",
        "target_negative",
        "batch_mismatch",
        "bad_reduction",
        "mse_bad_red",
        "float_target",
        "float_2d_target_of_another_shape",
        "int_2d_target",
        "float_target_of_another_batch",
        "int_target_of_the_input_shape",
        "probabilities_with_ignore_index",
        "mse_shapes_do_not_broadcast",
        "mse_target_broadcast",
    ],
)
def test_functional_errors_like_torch(call: str) -> None:
    def program(t):
        F = t.nn.functional
        x = t.tensor(LOGITS, requires_grad=True)
        return eval(call, {"t": t, "F": F, "x": x})

    same(program)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction: str) -> None:
    def program(t):
        x = t.tensor(LOGITS, requires_grad=True)
        y = t.tensor(LOGITS) * 0.5 + 1.0
        loss = t.nn.functional.mse_loss(x, y, reduction=reduction)
        loss.sum().backward()
        return [loss, plain(x.grad)]

    same(program)


def test_mse_loss_default_reduction_is_mean_and_target_may_require_grad() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = t.tensor([0.5, 4.0], requires_grad=True)
        loss = t.nn.functional.mse_loss(x, y)
        loss.backward()
        return [loss, plain(x.grad), plain(y.grad)]

    same(program)


def test_a_tiny_classifier_step() -> None:
    def program(t):
        F = t.nn.functional
        w = t.tensor([[0.1, -0.2, 0.3], [0.0, 0.5, -0.5]], requires_grad=True)
        x = t.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3], [2.0, -1.0]])
        h = F.relu(x @ w)
        loss = F.cross_entropy(h, t.tensor([0, 2, -100, 1]))
        loss.backward()
        return [loss, plain(w.grad), F.softmax(h, 1), F.tanh(h)]

    same(program)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("rows", [3, 0], ids=["batch", "one_sample"])
def test_cross_entropy_with_class_probabilities(reduction: str, rows: int) -> None:
    """A target of the input's shape holds class probabilities (1-D: one unbatched sample)."""

    def program(t):
        x = t.tensor(LOGITS[0] if rows == 0 else LOGITS, requires_grad=True)
        p = t.arange(12.0)[: x.numel()].reshape(x.shape).softmax(-1)
        loss = t.nn.functional.cross_entropy(x, p, reduction=reduction)
        loss.sum().backward()
        return [loss, plain(x.grad)]

    same(program)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_backward_of_inf_and_nan_gradients_computes_silently(name: str, dim: int) -> None:
    """An inf or nan incoming gradient gives torch's values (nan where it spreads), and no numpy
    warning reaches the user."""

    def program(t):
        x = t.tensor([[1.0, 2.0, 0.5], [3.0, 4.0, -1.0]], requires_grad=True)
        g = t.tensor([[float("inf"), float("-inf"), 1.0], [1.0, float("nan"), 2.0]])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            (grad,) = t.autograd.grad(getattr(t.nn.functional, name)(x, dim), x, g)
        return grad

    same(program)


THRESHOLD_CALLS = {
    "F out of place": lambda t, x: t.nn.functional.threshold(x, 1.5, 0.5),
    "F in place": lambda t, x: t.nn.functional.threshold(x, 1.5, 0.5, True),
    "F inplace keyword": lambda t, x: t.nn.functional.threshold(x, 1.5, -1.0, inplace=True),
    "F.threshold_": lambda t, x: t.nn.functional.threshold_(x, 0.0, 0.0),
    "torch.threshold_": lambda t, x: t.threshold_(x, 1.0, 2.0),  # a value above the threshold
    "torch.threshold_ keywords": lambda t, x: t.threshold_(x, threshold=1.0, value=0),
}


@pytest.mark.parametrize("call", THRESHOLD_CALLS, ids=list(THRESHOLD_CALLS))
def test_threshold_in_and_out_of_place(call: str) -> None:
    def program(t: ModuleType) -> Any:
        a = t.tensor([1.0, -2.0, 3.0, 1.5], requires_grad=True)
        x = a * 1
        y = THRESHOLD_CALLS[call](t, x)
        saved = y.grad_fn._saved_self
        (y * t.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return y is x, y, x._version, y.grad_fn, saved, y.grad_fn._saved_threshold, a.grad

    same(program)


def test_threshold_in_place_refuses_a_leaf_and_a_saved_input() -> None:
    def program(t: ModuleType) -> Any:
        a = t.tensor([1.0, -2.0], requires_grad=True)
        errors = []
        try:
            t.nn.functional.threshold(a, 0.0, 0.0, True)
        except RuntimeError as e:
            errors.append(str(e))
        x = a * 1
        y = x.sin()
        t.nn.functional.threshold_(x, 0.0, 0.0)
        try:
            y.sum().backward()
        except RuntimeError as e:
            errors.append(str(e))
        return errors

    same(program)


THRESHOLD_CALLS: dict[str, Any] = {
    "unknown keyword": lambda F, x: F.threshold(x, 1.0, 2.0, bogus=1),
    "too many": lambda F, x: F.threshold(x, 1.0, 2.0, False, 5),
    "missing value": lambda F, x: F.threshold(x, 1.0),
}


@pytest.mark.parametrize("call", THRESHOLD_CALLS)
def test_threshold_is_named_as_torchs_python_function(call: str) -> None:
    """``F.threshold`` is torch's ``_threshold``: its name and its argument errors say so."""

    def program(t: ModuleType) -> Any:
        F = t.nn.functional
        try:
            THRESHOLD_CALLS[call](F, t.ones(2))
        except TypeError as e:
            return F.threshold.__name__, str(e)
        return None

    same(program)


NOT_TENSORS: dict[str, Any] = {
    "threshold_ input": lambda t, F, x: F.threshold_("a", 1.0, 2.0),
    "threshold input": lambda t, F, x: F.threshold("a", 1.0, 2.0),
    "threshold threshold": lambda t, F, x: F.threshold(x, "a", 2.0),
    "threshold_ value": lambda t, F, x: F.threshold_(x, 1.0, [2.0]),
    "torch.threshold_": lambda t, F, x: t.threshold_("a", 1.0, 2.0),
    "mse_loss input": lambda t, F, x: F.mse_loss("a", x),
    "mse_loss target": lambda t, F, x: F.mse_loss(x, "a"),
    "mse_loss int and str": lambda t, F, x: F.mse_loss(1, "a"),
    "nll_loss input": lambda t, F, x: F.nll_loss("a", t.tensor([0, 1])),
    "nll_loss target": lambda t, F, x: F.nll_loss(x, "a"),
    "nll_loss list": lambda t, F, x: F.nll_loss([1.0], t.tensor([0])),
    "cross_entropy input": lambda t, F, x: F.cross_entropy("a", t.tensor([0, 1])),
    "cross_entropy target": lambda t, F, x: F.cross_entropy(x, "a"),
    "batch_norm training": lambda t, F, x: F.batch_norm("a", None, None, training=True),
    "batch_norm evaluation": lambda t, F, x: F.batch_norm("a", t.zeros(3), t.ones(3)),
    "batch_norm running_mean": lambda t, F, x: F.batch_norm(x, "a", None),
    "batch_norm weight": lambda t, F, x: F.batch_norm(x, None, None, "a", training=True),
    "norm": lambda t, F, x: t.norm("a"),
    "leaky_relu slope": lambda t, F, x: F.leaky_relu(x, "a"),
}


@pytest.mark.parametrize("call", NOT_TENSORS)
def test_a_non_tensor_argument_gets_torchs_error(call: str) -> None:
    """torch's parser's TypeError, or, where torch's Python function reads the argument first
    (``target.size()``, ``input.layout``), Python's AttributeError naming that attribute."""

    def program(t: ModuleType) -> Any:
        try:
            NOT_TENSORS[call](t, t.nn.functional, t.ones(2, 3))
        except (TypeError, AttributeError) as e:
            return type(e).__name__, str(e)
        return None

    same(program)


def test_the_losses_take_torchs_positional_arguments() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], requires_grad=True)
        y = t.tensor([0, 1])
        F = t.nn.functional
        return (
            F.cross_entropy(x, y, None, None, 1, None, "sum", 0.25),
            F.nll_loss(x.log_softmax(1), y, None, None, 0, None, "none"),
        )

    same(program)


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("argument", ["weight", "size_average", "reduce"])
def test_class_weights_and_legacy_reductions_are_out_of_scope(loss: str, argument: str) -> None:
    import ownership

    value = ownership.ones(3) if argument == "weight" else False
    with pytest.raises(
        NotImplementedError, match=rf"^ownership does not implement the weight.*{loss}"
    ):
        getattr(ownership.nn.functional, loss)(
            ownership.ones(2, 3), ownership.tensor([0, 1]), **{argument: value}
        )
