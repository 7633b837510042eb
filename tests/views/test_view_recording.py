"""Every view op records its node itself, its input's edge read first: the node, the output's
flags, base and creation meta are those of :func:`ownership.ops.common.run_op` and the general
path; a stale view's history is read before the op's own checks, as torch reads it."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

import ownership

from support.differential import same

# every view op of a 2-d tensor: one call that makes a view, one that torch refuses
VIEW_OPS: dict[str, Any] = {
    "view": (lambda v: v.view(12), lambda v: v.view(5, 5)),
    "reshape": (lambda v: v.reshape(4, 3), lambda v: v.reshape(5, 5)),
    "flatten": (lambda v: v.flatten(), lambda v: v.flatten(1, 0)),
    "t": (lambda v: v.t(), lambda v: v.unsqueeze(0).t()),
    "transpose": (lambda v: v.transpose(0, 1), lambda v: v.transpose(0, 5)),
    "permute": (lambda v: v.permute(1, 0), lambda v: v.permute(0, 0)),
    "expand": (lambda v: v.expand(2, 3, 4), lambda v: v.expand(7, 7)),
    "unsqueeze": (lambda v: v.unsqueeze(1), lambda v: v.unsqueeze(9)),
    "squeeze": (lambda v: v.squeeze(), lambda v: v.squeeze(5)),
    "slice": (lambda v: v[:, 1:3], lambda v: v[:, ::-1]),
    "narrow": (lambda v: v.narrow(1, 1, 2), lambda v: v.narrow(1, 3, 2)),
    "select": (lambda v: v.select(0, 2), lambda v: v.select(0, 9)),
    "alias": (lambda v: v[...], lambda v: v[..., 9]),
    "diagonal": (lambda v: v.diagonal(1), lambda v: v.diagonal(0, 1, 1)),
}


def _attempt(make: Any, v: Any) -> Any:
    try:
        y = make(v)
    except (RuntimeError, IndexError, ValueError) as e:
        return type(e).__name__, str(e)
    return y, y.grad_fn, y.requires_grad, y._base is not None


MODES = [
    "grad",
    "no_grad",
    "inference",
    "inference_enable_grad",
    "leaf",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", sorted(VIEW_OPS))
def test_every_view_op_reads_a_stale_views_history_first_as_torch(op: str, mode: str) -> None:
    """A view op reads its input's edge (refreshing a stale view's history) where torch does: a
    view made under ``no_grad`` of a base since written in place raises its rebase error with
    grad mode on, after the arguments torch checks first (``flatten``'s dims, ``narrow``'s
    bounds, an index's bounds and a slice's step), and nothing is read with grad mode off or in
    inference mode (even with grad mode on again)."""
    good, bad = VIEW_OPS[op]

    def program(t: Any) -> Any:
        out = []
        x = t.arange(12.0).requires_grad_()
        base = x if mode == "leaf" else x.clone()
        with t.no_grad():
            v = base.view(3, 4)
        if mode != "leaf":
            base.mul_(2)
        for make in (good, bad):
            if mode == "no_grad":
                with t.no_grad():
                    out.append(_attempt(make, v))
            elif mode.startswith("inference"):
                with t.inference_mode(), t.set_grad_enabled(mode == "inference_enable_grad"):
                    out.append(_attempt(make, v))
            else:
                out.append(_attempt(make, v))
        return out

    same(program)


@pytest.mark.parametrize("op", sorted(VIEW_OPS))
@pytest.mark.parametrize(
    "kind",
    ["leaf", "non_leaf", "view", "of_no_grad_view", "detached", "no_grad_mode", "inference_mode"],
)
def test_a_view_ops_node_is_the_node_run_op_makes(op: str, kind: str) -> None:
    """The node a view op attaches itself (its input's edge read first) is the node
    :func:`ownership.ops.common.run_op` attaches for the same op: name, edges, saved values,
    backward, input dtypes (the same shared tuple), and the output's autograd flags, base and
    creation meta (also of a view not recorded: made under ``no_grad``, ``inference_mode``)."""
    from ownership.ops.common import run_op

    x = ownership.arange(12.0).requires_grad_()
    if kind != "leaf":
        x = x.clone().view(3, 4) if kind == "view" else x.clone()
    if kind == "of_no_grad_view":  # a view of a view made under no_grad keeps its creation meta
        with ownership.no_grad():
            x = x.view(12)
    x = x.view(3, 4)
    if kind == "detached":
        x = x.detach()
    mode = {"no_grad_mode": ownership.no_grad, "inference_mode": ownership.inference_mode}
    with mode.get(kind, contextlib.nullcontext)():
        y = VIEW_OPS[op][0](x)
        ref = x._view(y.shape, y.stride(), y.storage_offset())
    assert (y._base, y._creation_meta, y._view_version) == (
        ref._base,
        ref._creation_meta,
        ref._view_version,
    )
    node = y.grad_fn
    if kind in mode or kind == "detached":
        assert node is None and ref.grad_fn is None
        assert y.requires_grad == ref.requires_grad
        return
    run_op((x,), True, lambda: ref, node.name(), node._backward, node._ctx)
    want = ref.grad_fn
    assert (node.name(), node.next_functions, node._ctx, node._backward, node.num_outputs) == (
        want.name(),
        want.next_functions,
        want._ctx,
        want._backward,
        want.num_outputs,
    )
    assert node.input_dtypes is want.input_dtypes
    assert (y.requires_grad, y.is_leaf, y._output_nr) == (ref.requires_grad, ref.is_leaf, 0)


TENSORS: dict[str, Any] = {
    "leaf_requiring_grad": lambda t: t.arange(4.0).requires_grad_(),
    "plain_leaf": lambda t: t.arange(4.0),
    "non_leaf": lambda t: t.arange(4.0).requires_grad_() * 2,
    "view_of_leaf": lambda t: t.arange(4.0).requires_grad_().view(2, 2),
    "detached": lambda t: t.arange(4.0).requires_grad_().detach(),
    "int64": lambda t: t.arange(4),
}


STALE_KEYS = {  # key(t, v): indexing the stale view v in engine t
    "slice, then an int out of bounds": lambda t, v: v[1:3, 9],
    "slice, then a negative step": lambda t, v: v[1:3, ::-1],
    "int in bounds, then out of bounds": lambda t, v: v[0, 9],
    "full slice, then out of bounds": lambda t, v: v[:, 9],
    "None, then out of bounds": lambda t, v: v[None, 7],
    "advanced, out of bounds": lambda t, v: v[[0, 7]],
    "int, then advanced out of bounds": lambda t, v: v[1, [0, 9]],
    "bool mask of the wrong shape": lambda t, v: v[t.ones(2, dtype=t.bool)],
}


@pytest.mark.parametrize("key", sorted(STALE_KEYS))
def test_indexing_a_stale_view_reads_its_history_index_by_index(key: str) -> None:
    """``v[key]`` of a stale view: torch applies each index in turn, its own check first (an
    int's bounds, a slice's step), then its view op, which reads the history and so raises the
    rebase error before a later index's error; an advanced index reads it before checking its
    indices."""
    index = STALE_KEYS[key]

    def program(t: Any) -> Any:
        base = t.arange(12.0).requires_grad_().clone()
        with t.no_grad():
            v = base.view(3, 4)
        base.mul_(2)
        return _attempt(lambda v: index(t, v), v)

    same(program)


def test_flatten_that_changes_nothing_reads_no_history() -> None:
    """Fuzz program 219813: ``flatten`` over one dim returns the tensor itself and calls no op,
    so a stale split output written through it gets the in-place error of the split output
    itself ("is being modified inplace"), not the rebase error a history read would raise."""

    def program(t: Any) -> Any:
        x = t.tensor([1.0, -2.0, 2.0], requires_grad=True)
        total = x.sigmoid().sum()
        piece = total.expand(3).split(1)[2]
        total.view(-1).clamp_(-0.5, 0.5)
        flat = piece.flatten()
        try:
            flat.fill_(0.25)
        except RuntimeError as e:
            return flat is piece, str(e)
        return flat is piece, None

    same(program)


@pytest.mark.parametrize("other", ["0-d", "matrix", "vector"])
def test_matmul_checks_its_operands_before_any_history_is_read(other: str) -> None:
    """Fuzz program 301601: ``@`` has no autograd kernel of its own (torch's ``matmul`` is made of
    ``mm``, ``mv``...), so a 0-d operand is refused before a stale split output's history is read;
    with operands it takes, the ``mm`` it calls reads it and raises the rebase error."""

    def program(t: Any) -> Any:
        with t.no_grad():
            x = t.tensor([[1.0, -0.5], [2.0, 2.0], [1.5, -2.0]], requires_grad=True)
        piece = x.chunk(2)[-1]
        piece.detach().zero_()
        y = {"0-d": t.tensor(2.0), "matrix": t.ones(2, 2), "vector": t.ones(2)}[other]
        try:
            piece @ y
        except RuntimeError as e:
            return str(e)
        return None

    same(program)
