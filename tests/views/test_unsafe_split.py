"""``unsafe_split``, ``unsafe_split_with_sizes`` and ``unsafe_chunk``: ``split``'s pieces, sharing
the input's memory, which autograd does not treat as views (no ``_base``, a version counter of
their own, in-place writes allowed where ``split``'s pieces refuse them)."""

from __future__ import annotations

import pytest

from support.differential import error_of, grad_of, same

CALLS = {
    "split": lambda t, v: v.unsafe_split(2),
    "split_dim": lambda t, v: v.unsafe_split(2, 1),
    "split_kw": lambda t, v: v.unsafe_split(split_size=1, dim=0),
    "with_sizes": lambda t, v: v.unsafe_split_with_sizes([1, 2]),
    "with_sizes_neg_dim": lambda t, v: v.unsafe_split_with_sizes((2, 1), dim=-1),
    "chunk": lambda t, v: v.unsafe_chunk(2),
    "chunk_kw": lambda t, v: v.unsafe_chunk(chunks=3, dim=1),
    "torch_split": lambda t, v: t.unsafe_split(v, 2, 1),
    "torch_with_sizes": lambda t, v: t.unsafe_split_with_sizes(v, [2, 1]),
    "torch_chunk": lambda t, v: t.unsafe_chunk(v, 2, dim=1),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_pieces_are_no_views(call: str) -> None:
    """The pieces' values, node (``UnsafeSplitBackward0``, ``UnsafeSplitWithSizesBackward0``)
    and its saved values, output numbers, no ``_base``, the same memory, version 0."""

    def program(t):
        a = t.arange(9.0).reshape(3, 3).requires_grad_()
        b = a * 2
        pieces = CALLS[call](t, b)
        node = pieces[0].grad_fn
        saved = {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_")}
        return [
            list(pieces),
            [p.output_nr for p in pieces],
            [p._is_view() or p._base is not None for p in pieces],
            [p.data_ptr() - b.data_ptr() for p in pieces],
            [p.stride() for p in pieces],
            all(p.grad_fn is node for p in pieces),
            saved,
        ]

    same(program)


@pytest.mark.parametrize("call", ["split", "with_sizes", "chunk"])
def test_written_in_place_then_used(call: str) -> None:
    """A piece written in place: its own version moves, not the input's nor its siblings'; the
    input sees the new values; backward goes through the write."""

    def program(t):
        a = t.arange(9.0).reshape(3, 3).requires_grad_()
        b = a + a
        s1, s2 = CALLS[call](t, b)[:2]
        s1.mul_(s2[:1])
        versions = [b._version, s1._version, s2._version]
        (s1.sum() + s2.sum()).backward()
        return [versions, s1, b, grad_of(a)]

    same(program)


def test_input_written_after_a_piece_was_saved() -> None:
    """The unsafe part: a write into the input is not seen by a piece's version, so a piece saved
    for backward is used with its new values, without an error."""

    def program(t):
        a = t.arange(4.0).requires_grad_()
        b = a * 1
        x, _y = b.unsafe_split(2)
        z = x * x
        b.add_(1)
        z.sum().backward()
        return [x._version, b._version, x, grad_of(a)]

    same(program)


def test_piece_of_a_leaf_written_in_place() -> None:
    """A piece of a leaf that requires grad is no view of it: writing it is allowed, and writes
    the leaf's memory without moving the leaf's version."""

    def program(t):
        leaf = t.arange(4.0, requires_grad=True)
        p = leaf.unsafe_chunk(2)
        p[0].add_(1)
        return [p[0], p[0].is_leaf, leaf._version, p[0]._version, leaf.detach().clone()]

    same(program)


def test_under_no_grad_and_in_inference_mode() -> None:
    """Under ``no_grad``: untracked non-views; in inference mode: views (autograd is not running)
    with counters of their own; of an inference tensor: inference tensors."""

    def program(t):
        leaf = t.arange(4.0, requires_grad=True)
        plain = t.arange(4.0)
        with t.no_grad():
            q = leaf.unsafe_split(2)
            q[0].add_(1)
        with t.inference_mode():
            r = plain.unsafe_split(2)
            r[0].add_(1)
            s = leaf.unsafe_split(2)
            inf = t.arange(4.0)
            u = inf.unsafe_split(2)
        facts = [
            [
                q[0].requires_grad,
                q[0].grad_fn is None,
                q[0]._is_view(),
                leaf._version,
                q[0]._version,
            ],
            [r[0].is_inference(), r[0]._is_view(), plain._version, r[0]._version, r[1]._version],
            [s[0].requires_grad, s[0].is_leaf, s[0]._is_view(), s[0].is_inference()],
            [u[0].is_inference(), u[0]._is_view()],
        ]
        return [facts, leaf.detach().clone(), plain]

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.arange(4.0).unsafe_split(0),
        lambda t: t.tensor(1.0).unsafe_split(1),
        lambda t: t.arange(4.0).unsafe_chunk(0),
        lambda t: t.arange(4.0).unsafe_split([1, 3]),
        lambda t: t.unsafe_split(t.arange(4.0), [1, 3]),
        lambda t: t.arange(6.0).unsafe_split_with_sizes([2, 3]),
        lambda t: t.arange(6.0).unsafe_chunk(2, 1),
    ],
)
def test_refusals(call) -> None:
    """torch's errors, class and wording, as ``split``'s and ``chunk``'s (the names are the
    ``unsafe_`` ones where the argument parser speaks)."""
    assert same(lambda t: call(t)).kind in {"RuntimeError", "TypeError", "IndexError"}


def test_empty_dimension_chunk() -> None:
    """``unsafe_chunk`` of an empty dimension: ``chunks`` empty pieces
    (``UnsafeSplitWithSizesBackward0``)."""

    def program(t):
        e = t.zeros(0, 3, requires_grad=True) * 1
        pieces = e.unsafe_chunk(3)
        return [list(pieces), error_of(lambda: pieces[0].add_(1))]

    same(program)
