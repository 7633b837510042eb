"""Writes into a tensor whose elements share memory, and writes whose operands share it with the
written tensor: which torch refuses, which it does with a warning, which it just does.

An expanded tensor (``expand``, or the gradient of ``sum``, which torch returns expanded) is
refused by a kernel that checks its output (the arithmetic, ``copy_``, ``fill_`` of a tensor,
and so ``t[1:] = 1.5``, which copies a 0-d tensor), written with torch's deprecation warning by
``masked_fill_`` and ``index_put_`` (``t[mask] = v``, ``t[[0, 1]] = v``), and written silently by
``fill_`` of a number and ``zero_``. ``index_put_`` refuses a value or an index tensor that shares
memory with the written tensor, even its very elements (``ix[ix] = 5``), unless the write is its
``masked_fill_`` of a one-element value (``x[mask] = x[0]``). A write that torch lets through
into an expanded view of a tensor in a graph leaves a ``CopySlices`` whose backward ``copy_``s the
op's gradient into that view of the base's gradient: refused then, at ``backward``.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from support.differential import same


def _expanded(t: Any) -> Any:
    return t.tensor([1.0, 2.0]).unsqueeze(-1).expand(2, 3)


WRITES: dict[str, Any] = {
    "t[1:] = 1.5": lambda t, e: e.__setitem__(slice(1, None), 1.5),
    "t[...] = 1.5": lambda t, e: e.__setitem__(Ellipsis, 1.5),
    "t[:] = 0-d tensor": lambda t, e: e.__setitem__(slice(None), t.tensor(1.5)),
    "t[0] = 1.5": lambda t, e: e.__setitem__(0, 1.5),
    "t[0, 1] = 1.5": lambda t, e: e.__setitem__((0, 1), 1.5),
    "t[:, 0] = 1.5": lambda t, e: e.__setitem__((slice(None), 0), 1.5),
    "t[1:] = row": lambda t, e: e.__setitem__(slice(1, None), t.tensor([4.0, 5.0, 6.0])),
    "t[t < 2] = -1": lambda t, e: e.__setitem__(e < 2, -1.0),
    "t[t < 2] = 0-d tensor": lambda t, e: e.__setitem__(e < 2, t.tensor(-1.0)),
    # one element of a row that shares one location: the location is written, not its row's
    # other elements' old value over it
    "t[one of a row] = -1": lambda t, e: e.__setitem__(t.tensor([[False, True, False]] * 2), -1.0),
    "t[one of a row] = 0-d tensor": lambda t, e: e.__setitem__(
        t.tensor([[True, False, False], [False, False, False]]), t.tensor(-1.0)
    ),
    "t[t < 2] = values": lambda t, e: e.__setitem__(e < 2, t.tensor([-1.0, -2.0, -3.0])),
    "t[t < 2] = [[-1]]": lambda t, e: e.__setitem__(e < 2, t.tensor([[-1.0]])),
    "t[[0, 1]] = 7": lambda t, e: e.__setitem__([0, 1], 7.0),
    "t[[0, 1]] = rows": lambda t, e: e.__setitem__([0, 1], t.tensor([[1.0], [2.0]])),
    "t[[0, 1]] = too many": lambda t, e: e.__setitem__([0, 1], t.tensor([1.0, 2.0, 3.0, 4.0])),
    "t[:, [0, 2]] = 7": lambda t, e: e.__setitem__((slice(None), [0, 2]), 7.0),
    "fill_ number": lambda t, e: e.fill_(1.5),
    "fill_ 0-d tensor": lambda t, e: e.fill_(t.tensor(1.5)),
    "fill_ 1-d tensor": lambda t, e: e.fill_(t.tensor([1.5])),
    "row fill_ 0-d tensor": lambda t, e: e[0].fill_(t.tensor(1.5)),
    "column fill_ 0-d tensor": lambda t, e: e[:, 0].fill_(t.tensor(1.5)),
    "zero_": lambda t, e: e.zero_(),
    "masked_fill_": lambda t, e: e.masked_fill_(e < 2, 0.0),
    "masked_fill_ 0-d tensor": lambda t, e: e.masked_fill_(e < 2, t.tensor(0.0)),
    # the mask picks some of the elements that share one location: that location is written
    "masked_fill_ one of row 0": lambda t, e: e.masked_fill_(
        t.tensor([[False, True, False], [False, False, False]]), 0.0
    ),
    "masked_fill_ one of row 1, 0-d tensor": lambda t, e: e.masked_fill_(
        t.tensor([[False, False, False], [False, False, True]]), t.tensor(0.0)
    ),
    "masked_fill_ a broadcast mask": lambda t, e: e.masked_fill_(
        t.tensor([True, False, False]), 5.0
    ),
    # index_put_ and masked_fill_ write with one kernel (each value as it is read)
    "t[[1]] = 7 then masked_fill_": lambda t, e: (
        e.__setitem__([1], 7.0),
        e.masked_fill_(t.tensor([[False, False, True], [False, False, False]]), -1.0),
    ),
    "copy_": lambda t, e: e.copy_(t.zeros(2, 3)),
    "add_": lambda t, e: e.add_(1),
    "mul_ of itself": lambda t, e: e.mul_(e),
}


@pytest.mark.parametrize("write", WRITES)
def test_a_write_into_an_expanded_tensor(write: str) -> None:
    def program(t: Any) -> Any:
        e = _expanded(t)
        WRITES[write](t, e)
        return e, e._version

    same(program)


@pytest.mark.parametrize("write", ["d[1:] = 1.5", "d[[0, 2]] = 1.5", "d.add_(1)", "d.zero_()"])
def test_the_gradient_of_sum_is_expanded(write: str) -> None:
    """torch's gradient of ``sum`` is its output's gradient expanded (stride 0): a basic
    assignment into it is refused, an advanced one warns."""

    def program(t: Any) -> Any:
        b = t.tensor([3.0, 0.5, 3.0], requires_grad=True)
        (d,) = t.autograd.grad(b.sum(), [b])
        facts = (d.stride(), d.is_contiguous(), d._base is None)
        exec(write, {"d": d})
        return facts, d

    same(program)


SHARED: dict[str, Any] = {
    "x[[0, 1, 2]] = x": lambda t, x, b, ix: x.__setitem__([0, 1, 2], x),
    "x[[0, 1]] = x[1:]": lambda t, x, b, ix: x.__setitem__([0, 1], x[1:]),
    "x[[0]] = x[0]": lambda t, x, b, ix: x.__setitem__([0], x[0]),
    "x[mask] = x[:2]": lambda t, x, b, ix: x.__setitem__(b, x[:2]),
    "x[mask] = x[0]": lambda t, x, b, ix: x.__setitem__(b, x[0]),
    "x[mask] = x[:1]": lambda t, x, b, ix: x.__setitem__(b, x[:1]),
    "b[b] = True": lambda t, x, b, ix: b.__setitem__(b, True),
    "b[b] = 2 values": lambda t, x, b, ix: b.__setitem__(b, t.tensor([True, True])),
    "b[b] = b[:2]": lambda t, x, b, ix: b.__setitem__(b, b[:2]),
    "ix[ix] = 5": lambda t, x, b, ix: ix.__setitem__(ix, 5),
    "ix[ix] = values": lambda t, x, b, ix: ix.__setitem__(ix, t.tensor([5, 6, 7])),
    "ix[ix[:2]] = values": lambda t, x, b, ix: ix.__setitem__(ix[:2], t.tensor([5, 6])),
    "x.fill_(x[1])": lambda t, x, b, ix: x.fill_(x[1]),
    "b.masked_fill_(b, False)": lambda t, x, b, ix: b.masked_fill_(b, False),
    "b[:2].masked_fill_(b[1:], True)": lambda t, x, b, ix: b[:2].masked_fill_(b[1:], True),
    "b.masked_fill_(b[:2], True)": lambda t, x, b, ix: b.masked_fill_(b[:2], True),
}


@pytest.mark.parametrize("write", SHARED)
def test_a_write_whose_operands_share_the_written_memory(write: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0, 3.0])
        b = t.tensor([True, False, True])
        ix = t.tensor([0, 1, 2])
        SHARED[write](t, x, b, ix)
        return x, b, ix, x._version, b._version, ix._version

    same(program)


@pytest.mark.parametrize("write", ["t2[[0]] += 1", "t2[[0, 2]] = 5", "t2[t2 > 0] = 3"])
def test_an_index_write_into_an_expanded_tensor_writes_the_indexed_elements_alone(
    write: str,
) -> None:
    """index_put_ writes the indexed elements alone; every element of an expanded tensor is one
    memory location, so the base shows the value written there (found by the fuzzer: the whole
    result written back left the last element's value)."""

    def program(t: Any) -> Any:
        t1 = t.tensor(1.0)
        t2 = t1.expand(3)
        with t.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(write, {"t2": t2})
        return [t1, t2, t1._version]

    same(program)


BACKWARD_THROUGH: dict[str, Any] = {
    "index_put_ of a number (fuzz program 157)": lambda t, v, w: v.__setitem__([0], 1.0),
    "index_put_ += 1": lambda t, v, w: v.__setitem__([0], v[[0]] + 1),
    "index_put_ of a tensor requiring grad": lambda t, v, w: v.__setitem__([0], w),
    "masked_fill_": lambda t, v, w: v.masked_fill_(t.tensor([[True, False]] * 2), 2.0),
    "fill_ of a number": lambda t, v, w: v.fill_(3.0),
    "zero_": lambda t, v, w: v.zero_(),
}


@pytest.mark.parametrize("write", BACKWARD_THROUGH.values(), ids=BACKWARD_THROUGH.keys())
def test_backward_through_a_write_into_an_expanded_view_of_a_graph_tensor(write: Any) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[-1.5, -2.0], [3.0, 0.25]], requires_grad=True)
        w = t.tensor([5.0], requires_grad=True)
        loss = (x.exp() * 2).sum()
        v = loss.expand(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # index_put_'s deprecation (compared above)
            write(t, v, w)
        error = None
        try:
            loss.backward()
        except RuntimeError as e:
            error = str(e)
        return error, x.grad, w.grad, loss.grad_fn

    same(program)


SAME_DATA: dict[str, Any] = {
    "an expanded view given its source": lambda t, x: x.expand(2, 2, 1, 3).__setitem__(..., x),
    "an expanded view given itself": lambda t, x: x.expand(2, 2, 1, 3).copy_(x.expand(2, 2, 1, 3)),
    "a transpose given a transpose": lambda t, x: x.view(3, 2).t().copy_(x.view(3, 2).t()),
    "a stepped slice given itself": lambda t, x: x.view(-1)[::2].copy_(x.view(-1)[::2]),
}


@pytest.mark.parametrize("write", SAME_DATA.values(), ids=SAME_DATA.keys())
@pytest.mark.parametrize("kind", ["normal", "inference", "inference requiring grad"])
def test_a_copy_of_the_same_data_returns_at_once(write: Any, kind: str) -> None:
    """torch's copy_ returns at once, unchecked, when its source is the same data as the
    written tensor (memory, offset, sizes, strides, dtype): an expanded tensor given its own
    values is no overlap; its version still moves (an inference tensor's refuses, out of
    inference mode: fuzz program 41269)."""

    def program(t: Any) -> Any:
        values = t.arange(6.0).view(2, 1, 3)
        if kind == "normal":
            x = values
        else:
            with t.inference_mode():
                x = values.clone().requires_grad_(kind.endswith("grad"))
        error = None
        try:
            write(t, x)
        except RuntimeError as e:
            error = str(e)
        return error, x.detach().clone(), None if x.is_inference() else x._version

    same(program)
