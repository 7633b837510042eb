"""The training step agrees with torch; nll_loss's forward when no target is ignored equals the
forward of the same rows among ignored ones bit for bit; and its gradient is torch's.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import ownership

from support.differential import grad_of, same


def _data(batch: int = 12, sizes: tuple[int, int, int] = (20, 16, 5)) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    d_in, d_hidden, d_out = sizes
    return [
        (rng.standard_normal((d_in, d_hidden)) / np.sqrt(d_in)).astype(np.float32),
        rng.standard_normal(d_hidden).astype(np.float32) * 0.1,
        (rng.standard_normal((d_hidden, d_out)) / np.sqrt(d_hidden)).astype(np.float32),
        rng.standard_normal(d_out).astype(np.float32) * 0.1,
        rng.standard_normal((batch, d_in)).astype(np.float32),
        rng.integers(0, d_out, size=batch).astype(np.int64),
    ]


def _train(t: Any, steps: int = 3) -> list[Any]:
    """The bench's MLP step (manual update), then SGD with momentum and weight decay, with
    ``nn.Linear`` (the fused ``addmm``) too; returns losses, parameters and gradients."""
    *weights, x_np, y_np = _data()
    params = [t.tensor(w.tolist(), requires_grad=True) for w in weights]
    x, y = t.tensor(x_np.tolist()), t.tensor(y_np.tolist())
    functional = t.nn.functional
    out: list[Any] = []
    for _ in range(steps):
        w1, b1, w2, b2 = params
        for p in params:
            p.grad = None
        hidden = functional.relu(x @ w1 + b1)
        value = functional.cross_entropy(hidden @ w2 + b2, y)
        value.backward()
        out += [value, *(grad_of(p) for p in params)]
        with t.no_grad():
            for p in params:
                p -= 0.1 * p.grad
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(20, 16), t.nn.ReLU(), t.nn.Linear(16, 5))
    with t.no_grad():
        for p, w in zip(model.parameters(), weights, strict=True):
            p.copy_(t.tensor(w.T.tolist() if w.ndim == 2 else w.tolist()))
    opt = t.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    for _ in range(steps):
        opt.zero_grad()
        value = functional.cross_entropy(model(x), y)
        value.backward()
        opt.step()
        out += [value, *(grad_of(p) for p in model.parameters())]
    return out + [p.detach().clone() for p in (*params, *model.parameters())]


def _arrays(results: list[Any]) -> list[np.ndarray]:
    return [r._data.copy() for r in results]


def test_the_training_step_agrees_with_torch() -> None:
    same(_train)


def test_nll_loss_without_ignored_targets_equals_the_general_path_bit_for_bit() -> None:
    """The rows of a batch with no ignored target (the short path) against the same rows in a
    batch with one ignored target more (the general path): the same losses and gradients."""
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((9, 6)).astype(np.float32) * 4
    target = rng.integers(0, 6, size=9)
    ignored = np.append(target, -100)
    results = []
    for rows, tgt in ((logits, target), (np.vstack([logits, logits[:1]]), ignored)):
        x = ownership.tensor(rows, requires_grad=True)
        lp = ownership.nn.functional.log_softmax(x, 1)
        each = ownership.nn.functional.nll_loss(lp, ownership.tensor(tgt), reduction="none")
        total = ownership.nn.functional.nll_loss(lp, ownership.tensor(tgt), reduction="sum")
        total.backward()
        results.append((each._data[:9].copy(), x.grad._data[:9].copy()))
    for fast, slow in zip(*results, strict=True):
        np.testing.assert_array_equal(fast.view(np.uint32), slow.view(np.uint32))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "target",
    [[0, 2, 1, 2], [0, -100, 1, 2], [-100, -100, -100, -100], [0, 3, 1, 2], [0, -1, 1, 2]],
)
def test_nll_loss_targets_agree_with_torch(reduction: str, target: list[int]) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0], [0.0, 1.0, 1.0], [-2, 7.5, 0.5]])
        x.requires_grad_(True)
        lp = t.nn.functional.log_softmax(x, 1)
        out = t.nn.functional.nll_loss(lp, t.tensor(target), reduction=reduction)
        (out.sum() * 1.5).backward()
        return out, grad_of(x)

    same(program)


@pytest.mark.parametrize(
    "program",
    [
        # one sample, no batch dimension; an empty batch; a target per pixel
        lambda t: t.nn.functional.cross_entropy(
            t.tensor([0.5, 2.0, -1.0], requires_grad=True), t.tensor(1)
        ),
        lambda t: t.nn.functional.cross_entropy(
            t.zeros(0, 3, requires_grad=True), t.zeros(0).long()
        ),
        lambda t: t.nn.functional.cross_entropy(
            t.arange(12.0).reshape(1, 3, 2, 2).requires_grad_(), t.tensor([[[0, 2], [1, -100]]])
        ),
    ],
)
def test_nll_loss_shapes_agree_with_torch(program: Any) -> None:
    def run(t: Any) -> Any:
        out = program(t)
        leaf = out.grad_fn.next_functions[0][0].next_functions[0][0].variable
        out.backward()
        return out.detach(), grad_of(leaf)  # detached: the engine names no NllLoss2DBackward0

    same(run)


def test_nll_loss_gradient_of_another_dtype_agrees_with_torch() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], requires_grad=True)
        out = t.nn.functional.cross_entropy(x, t.tensor([2, 0]))
        return t.autograd.grad(out, x, t.tensor(2.0, dtype=t.float64))

    same(program)


@pytest.mark.parametrize(
    "hook",
    [
        lambda g: g * 2,  # a new gradient of the same shape: the short path
        lambda g: g[:1],  # another shape
        lambda g: g.double(),  # another dtype
    ],
)
def test_mm_backward_after_a_hook_agrees_with_torch(hook: Any) -> None:
    def program(t: Any) -> Any:
        a = t.tensor([[1.0, 2.0], [3.0, -4.0], [0.5, 0.0]], requires_grad=True)
        b = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], requires_grad=True)
        out = a.mm(b)
        out.register_hook(hook)
        out.sum().backward()
        return grad_of(a), grad_of(b)

    same(program)


def test_mm_double_backward_records_as_before() -> None:
    def program(t: Any) -> Any:
        a = t.tensor([[1.0, 2.0], [3.0, -4.0]], requires_grad=True)
        b = t.tensor([[0.5, -1.0], [1.5, 0.25]], requires_grad=True)
        (ga,) = t.autograd.grad((a.mm(b) ** 2).sum(), a, create_graph=True)
        ga.sum().backward()
        return ga, ga.grad_fn, grad_of(a), grad_of(b)

    same(program)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("target", [[0, 2, 1, 2], [0, -100, 1, 2], [-100, -100, -100, -100]])
def test_nll_loss_gradient_is_positive_zero_off_the_targets(
    reduction: str, target: list[int]
) -> None:
    x = ownership.tensor([[-0.5, -1.0, -2.0]] * 4, requires_grad=True)
    out = ownership.nn.functional.nll_loss(x, ownership.tensor(target), reduction=reduction)
    out.backward(ownership.tensor(-1.5))  # a negative gradient: 0 * -1.5 is -0.0
    grad = x.grad._data
    assert not np.signbit(grad[grad == 0]).any()  # torch's +0.0 off the targets


@pytest.mark.parametrize("layouts", ["CC", "FF", "CF", "FC"])
def test_relu_backward_mask_is_laid_out_like_the_result(layouts: str) -> None:
    """relu's backward keeps ``grad`` where ``result > 0`` (``np.where(mask, grad, 0)`` bit for
    bit), written into the mask's buffer: laid out like the saved result, whatever the
    gradient's layout (torch's kernel iterates the result first)."""
    from ownership.ops.backward_ops import _masked

    rng = np.random.default_rng(11)
    values = rng.standard_normal((6, 5)).astype(np.float32)
    values.flat[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45]
    g = np.asarray(values, order=layouts[0])
    result = np.asarray(np.maximum(values[::-1], 0), order=layouts[1])
    mask = result > 0
    got = _masked(g, mask)
    expected = np.where(mask, g, np.float32(0))
    np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))
    assert got.strides == np.negative(mask, dtype=np.int32).strides == result.strides


@pytest.mark.parametrize("layouts", ["CC", "FF", "CF", "FC"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_relu_backward_mask_of_the_dropped_entries_is_np_where_bit_for_bit(
    layouts: str, dtype: type
) -> None:
    """Given the entries to drop (``result <= 0``, as relu's backward builds it, so that a nan
    result keeps its gradient), the mask keeps ``grad`` elsewhere: ``np.where(drop, 0, grad)``
    bit for bit, in the layout of the keeping mask's result."""
    from ownership.ops.backward_ops import _masked

    rng = np.random.default_rng(12)
    values = rng.standard_normal((6, 5)).astype(dtype)
    values.flat[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45]
    g = np.asarray(values, order=layouts[0])
    result = np.asarray(np.maximum(values[::-1], 0), order=layouts[1])
    drop = result <= 0
    got = _masked(g, drop, where_not=True)
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[g.itemsize]
    np.testing.assert_array_equal(got.view(bits), np.where(drop, dtype(0), g).view(bits))
    assert got.strides == _masked(g, ~drop).strides


@pytest.mark.parametrize("retain_graph", [False, True])
def test_nll_loss_holds_its_input_only_while_it_is_saved(retain_graph: bool) -> None:
    """The log-probabilities live while nll_loss's node saves them and are freed with its saved
    tensors after backward (unless the graph is retained), as in torch: the backward keeps the
    targets, not the input."""

    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, 0.0]], requires_grad=True)
        lp = t.nn.functional.log_softmax(x, 1)
        ref = weakref.ref(lp)
        out = t.nn.functional.nll_loss(lp, t.tensor([0, 2]))
        del lp
        before = ref() is not None
        out.backward(retain_graph=retain_graph)
        gc.collect()
        return before, ref() is not None, grad_of(x)

    same(program)
