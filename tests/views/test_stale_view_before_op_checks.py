"""A differentiable op reads a stale view's history (its rebase error) before its own checks, as
torch's autograd kernel collects its inputs' edges before it calls the op's kernel: a shape that
does not broadcast, a dim out of range, a bool subtraction or a ``k`` too large come after
"Output 0 of Split is a view and its base ... has been modified inplace" (one rule for every op
of the table: :func:`ownership.core.op_registry.edges_first`). An op torch does not
differentiate (a comparison) reads nothing, nor does one that checks its arguments before any
differentiable op runs (``chunk``, ``outer``), nor any op without grad mode or in inference mode,
nor one on a view whose base needs no gradient; an in-place op checks the tensor it writes
first."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def test_an_empty_split_written_in_inference_mode_then_added() -> None:
    """Fuzz program 1013074: the rebase error, not the size mismatch of ``(0)`` and ``(5)``."""

    def program(t: Any) -> Any:
        t1 = t.ones((0,), dtype=t.float32, requires_grad=True)
        t2 = t1.split(1)[0]
        with t.inference_mode():
            t1 += 1
        try:
            t2 + t.ones(5)
        except RuntimeError as e:
            return str(e)
        return None

    same(program)


REFUSED: dict[str, Any] = {
    "self + a tensor of another size": lambda t, v: v + t.ones(5),
    "a tensor of another size + self": lambda t, v: t.ones(5) + v,
    "add with alpha": lambda t, v: t.add(v, t.ones(5), alpha=2),
    "an int64 tensor of another size": lambda t, v: v + t.ones(5, dtype=t.int64),
    "self - a tensor of another size": lambda t, v: v - t.ones(5),
    "a tensor of another size - self": lambda t, v: t.ones(5) - v,
    "self - True": lambda t, v: v - True,
    "self * a tensor of another size": lambda t, v: v * t.ones(2, 5),
    "sum over a dim out of range": lambda t, v: v.sum(3),
    "mean over a dim out of range": lambda t, v: v.mean(3),
    "max over a dim out of range": lambda t, v: v.max(3),
    "amax over a dim out of range": lambda t, v: v.amax(3),
    "softmax over a dim out of range": lambda t, v: v.softmax(2),
    "log_softmax over a dim out of range": lambda t, v: v.log_softmax(2),
    "cumsum over a dim out of range": lambda t, v: v.cumsum(2),
    "flip of a dim out of range": lambda t, v: v.flip(3),
    "topk of too many": lambda t, v: v.topk(3),
    "prod over a dim out of range": lambda t, v: v.prod(3),
    "std over a dim out of range": lambda t, v: v.std(3),
    "var over a dim out of range": lambda t, v: v.var(3),
    "logsumexp over a dim out of range": lambda t, v: v.logsumexp(3),
    "nansum over a dim out of range": lambda t, v: v.nansum(3),
    "norm over a dim out of range": lambda t, v: v.norm(dim=3),
    "cumprod over a dim out of range": lambda t, v: v.cumprod(3),
    "sort over a dim out of range": lambda t, v: v.sort(3),
    "argsort over a dim out of range (a sort)": lambda t, v: v.argsort(3),
    "tril of one dim": lambda t, v: v.tril(),
    "repeat of too few dims": lambda t, v: v.repeat(()),
    "clamp with no bound": lambda t, v: v.clamp(),
    "div with a rounding mode, another size": lambda t, v: v.div(t.ones(5), rounding_mode="floor"),
    "addmm of shapes that do not multiply": lambda t, v: t.addmm(v, t.ones(2, 3), t.ones(2, 2)),
    "maximum of another size": lambda t, v: t.maximum(v, t.ones(5)),
    "pow by a tensor of another size": lambda t, v: v ** t.ones(5),
    "where of another size": lambda t, v: t.where(t.ones(5) > 0, v, 0.0),
    "cat along a dim out of range": lambda t, v: t.cat([v, v], 3),
    "mm of shapes that do not multiply": lambda t, v: v.unsqueeze(0).mm(t.ones(5, 2)),
    "written into another tensor (add_)": lambda t, v: t.ones(5).add_(v),
    "written in place itself (the direct message)": lambda t, v: v.add_(t.ones(5)),
    "chunk into 0 (its check comes before the split)": lambda t, v: v.chunk(0),
    "outer of a matrix (its check comes first)": lambda t, v: t.outer(v, t.ones(2, 2)),
    "a comparison of another size (not differentiated)": lambda t, v: v == t.ones(5),
    "isclose of another size (not differentiated)": lambda t, v: v.isclose(t.ones(5)),
    "sigmoid (no check of its own)": lambda t, v: v.sigmoid(),
}

MODES = ["grad", "no_grad", "inference", "base_without_grad"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", REFUSED.values(), ids=REFUSED.keys())
def test_a_stale_views_rebase_error_comes_before_the_ops_own(op: Any, mode: str) -> None:
    def program(t: Any) -> Any:
        base = t.ones(4, requires_grad=mode != "base_without_grad") * 1
        v = base.split(2)[0]
        base.add_(1)
        try:
            if mode == "no_grad":
                with t.no_grad():
                    y = op(t, v)
            elif mode == "inference":
                with t.inference_mode():
                    y = op(t, v)
            else:
                y = op(t, v)
        except (RuntimeError, IndexError) as e:
            return type(e).__name__, str(e)
        return y

    same(program)


def test_a_leafs_view_written_from_a_stale_unbind_output() -> None:
    """Fuzz program 1031488: ``copy_`` into a view of a leaf refuses the leaf's view first
    (``check_inplace``), before it reads its source's stale history."""

    def program(t: Any) -> Any:
        t1 = t.tensor([[[1.5, 1.0, 2.0]], [[1.0, -1.5, 3.0]]], requires_grad=True)
        t2 = t1[1]
        t7 = t1.unbind(0)[-1]
        t7.detach().add_(1)
        try:
            t2.copy_(t7)
        except RuntimeError as e:
            return str(e)
        return None

    same(program)
