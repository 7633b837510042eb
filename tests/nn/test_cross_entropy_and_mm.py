"""The training step's cross_entropy and mm agree with torch: ``cross_entropy`` of a floating
matrix and class targets (its two nodes, their saved values, names and versions, and the edge
cases of its arguments), and the strides ``mm`` saves of each operand.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same

TARGETS = [[0, 2, 1, 2], [2, 2, 2, 2], [0, -100, 1, 2], [0, 3, 1, 2], [0, -1, 1, 2]]


def _saved(fn: Any) -> dict[str, Any]:
    """What a learner reads of a cross_entropy graph: both nodes' saved values (with their
    versions: ``same`` compares each tensor's)."""
    lsm = fn.next_functions[0][0]
    return {
        "nll": fn.name(),
        "self": fn._saved_self,
        "target": fn._saved_target,
        "total_weight": fn._saved_total_weight,
        "reduction": fn._saved_reduction,
        "weight": fn._saved_weight,
        "lsm": lsm.name(),
        "result": lsm._saved_result,
        "dim": lsm._saved_dim,
        "self_is_result": fn._saved_self is lsm._saved_result,
    }


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target", TARGETS)
def test_cross_entropy_of_class_rows_agrees_with_torch(
    dtype: str, reduction: str, target: list[int]
) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(
            [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0], [0.0, 1.0, 1.0], [-2, 7.5, 0.5]],
            dtype=getattr(t, dtype),
            requires_grad=True,
        )
        out = t.nn.functional.cross_entropy(x, t.tensor(target), reduction=reduction)
        facts = _saved(out.grad_fn)
        if reduction == "none":  # torch saves 0 then; the engine the count (a gap of its own)
            del facts["total_weight"]
        (out.sum() * 1.5).backward()
        return out, facts, grad_of(x)

    same(program)


X = [[0.5, -1.0], [1.5, 0.25]]


@pytest.mark.parametrize(
    ("rows", "target", "options"),
    [
        ([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "T", {}),  # a transposed input, a strided target
        (X, [1, -7], {"ignore_index": -7}),  # a negative ignore_index (no class)
        (X, [1, 0], {"ignore_index": 0}),  # an ignore_index that is a class
        (X, [1, 0], {"reduction": "avg"}),
        (X, [1, 0], {"dtype": "int32"}),
        (X, [1, 0, 1], {}),  # a target batch of another size
        (X, [1, 0], {"requires_grad": False}),
        ([[0.5], [-1.0]], [0, 0], {}),  # one class
        ([[float("inf"), 0.0], [float("nan"), 1.0]], [0, 1], {}),
    ],
)
def test_cross_entropy_edges_agree_with_torch(
    rows: list[list[float]], target: Any, options: dict[str, Any]
) -> None:
    def program(t: Any) -> Any:
        kw = dict(options)
        x = t.tensor(rows, requires_grad=kw.pop("requires_grad", True))
        if target == "T":
            logits, tgt = x.t(), t.tensor([1, 0, 0, 1, 1, 1])[::2]
        else:
            logits, tgt = x, t.tensor(target, dtype=getattr(t, kw.pop("dtype", "int64")))
        out = t.nn.functional.cross_entropy(logits, tgt, **kw)
        if out.requires_grad:
            out.sum().backward()
        return out, grad_of(x)

    same(program)


def test_cross_entropy_under_no_grad_and_inference_mode_agrees_with_torch() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], requires_grad=True)
        with t.no_grad():
            a = t.nn.functional.cross_entropy(x, t.tensor([2, 0]))
        with t.inference_mode():
            b = t.nn.functional.cross_entropy(x, t.tensor([2, 0]))
            c = t.nn.functional.cross_entropy(x.detach() * 1, t.tensor([1, 0]))
            inference = (b.is_inference(), c.is_inference())
        return a, b, c, inference

    same(program)


MATRICES = [
    lambda t: t.ones(3, 2),
    lambda t: t.ones(2, 3).t(),
    lambda t: t.ones(6, 2)[::2],
    lambda t: t.ones(4, 4)[1:3, ::2],
    lambda t: t.ones(1, 2).expand(3, 2),
    lambda t: t.ones(0, 2),
    lambda t: t.ones(4, 2)[4:],
]


@pytest.mark.parametrize("make", MATRICES)
def test_mm_saves_each_operands_strides_as_torch(make: Any) -> None:
    def program(t: Any) -> Any:
        m = make(t).detach().requires_grad_()
        other = t.ones(m.shape[1], 2, requires_grad=True)
        left, right = m.mm(other), t.ones(2, m.shape[0], requires_grad=True).mm(m)
        return [
            (f._saved_self_sym_strides, f._saved_mat2_sym_strides, f._saved_self_sym_sizes)
            for f in (left.grad_fn, right.grad_fn)
        ] + [m.stride()]

    same(program)


@pytest.mark.parametrize("dim", [0, 1, 2])  # torch shows a negative dim as a uint64
def test_softmax_nodes_show_torchs_dim_and_result(dim: int) -> None:
    def program(t: Any) -> Any:
        x = t.arange(24.0).reshape(2, 3, 4).requires_grad_()
        nodes = [x.softmax(dim).grad_fn, t.nn.functional.log_softmax(x, dim).grad_fn]
        y = t.nn.functional.log_softmax(x, dim)
        y.sum().backward()
        return [(n.name(), n._saved_dim, n._saved_result) for n in nodes], grad_of(x)

    same(program)


@pytest.mark.parametrize("ignore_index", [-100, -1, 1, 7])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_node_shows_torchs_reduction(ignore_index: int, reduction: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], requires_grad=True)
        lp = t.nn.functional.log_softmax(x, 1)
        out = t.nn.functional.nll_loss(
            lp, t.tensor([2, 1]), reduction=reduction, ignore_index=ignore_index
        )
        fn = out.grad_fn
        out.sum().backward()
        return fn._saved_reduction, fn._saved_weight, grad_of(x)

    same(program)
