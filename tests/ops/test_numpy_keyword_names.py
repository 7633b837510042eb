"""The numpy names torch's argument parser accepts beside its own (``axis`` for ``dim``,
``keepdims`` for ``keepdim``, ``x``/``a``/``x1`` for ``input``, ``x2`` for ``other``), on every
function and method it parses; its own name winning over an alias given beside it, and an alias
of a parameter given by position being an unexpected keyword, as torch's."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def _x(t: Any) -> Any:
    return t.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])


CALLS: dict[str, Any] = {
    "argmax axis": lambda t: _x(t).argmax(axis=1),
    "argmax axis keepdims": lambda t: _x(t).argmax(axis=1, keepdims=True),
    "torch.argmax axis": lambda t: t.argmax(_x(t), axis=0),
    "sum axis keepdims": lambda t: _x(t).sum(axis=1, keepdims=True),
    "torch.sum axis keepdims": lambda t: t.sum(_x(t), axis=1, keepdims=True),
    "torch.sum a=": lambda t: t.sum(a=_x(t), axis=1),
    "torch.sum x=": lambda t: t.sum(x=_x(t)),
    "mean axis": lambda t: _x(t).mean(axis=0),
    "max axis": lambda t: _x(t).max(axis=1),
    "min keepdims": lambda t: _x(t).min(1, keepdims=True),
    "torch.max x2": lambda t: t.max(_x(t), x2=t.ones(3)),
    "softmax axis": lambda t: _x(t).softmax(axis=1),
    "torch.log_softmax axis": lambda t: t.log_softmax(_x(t), axis=1),
    "cumsum axis": lambda t: _x(t).cumsum(axis=1),
    "prod axis": lambda t: _x(t).prod(axis=1),
    "std axis keepdims": lambda t: _x(t).std(axis=1, keepdims=True),
    "var axis": lambda t: _x(t).var(axis=0),
    "amax axis": lambda t: _x(t).amax(axis=0),
    "logsumexp axis": lambda t: _x(t).logsumexp(axis=0),
    "all axis": lambda t: _x(t).all(axis=0),
    "any axis keepdims": lambda t: _x(t).any(axis=1, keepdims=True),
    "squeeze axis": lambda t: _x(t)[None].squeeze(axis=0),
    "unsqueeze axis": lambda t: _x(t).unsqueeze(axis=0),
    "torch.cat axis": lambda t: t.cat([_x(t), _x(t)], axis=1),
    "torch.stack axis": lambda t: t.stack([_x(t), _x(t)], axis=1),
    "sort axis": lambda t: _x(t).sort(axis=1),
    "topk axis": lambda t: _x(t).topk(2, axis=1),
    "gather axis": lambda t: _x(t).gather(axis=1, index=t.tensor([[0], [1]])),
    "index_select axis": lambda t: _x(t).index_select(axis=1, index=t.tensor([0])),
    "size axis": lambda t: _x(t).size(axis=1),
    "torch.add x2": lambda t: t.add(_x(t), x2=_x(t)),
    "mul x2": lambda t: _x(t).mul(x2=_x(t)),
    "argsort axis": lambda t: _x(t).argsort(axis=1),
    "narrow axis": lambda t: _x(t).narrow(axis=1, start=0, length=1),
    "select axis": lambda t: _x(t).select(axis=1, index=0),
    "unbind axis": lambda t: _x(t).unbind(axis=1),
    "dim and axis both": lambda t: _x(t).sum(dim=0, axis=1),
    "dim by position and axis": lambda t: _x(t).sum(0, axis=1),
    "keepdim and keepdims both": lambda t: _x(t).sum(0, keepdim=True, keepdims=False),
    "an axis of the wrong type": lambda t: _x(t).argmax(axis="1"),
    "an axis out of range": lambda t: _x(t).argmax(axis=2),
}


@pytest.mark.parametrize("call", CALLS)
def test_a_numpy_keyword_name_binds_as_torchs(call: str) -> None:
    same(CALLS[call])


@pytest.mark.parametrize("args", [("a",), (1.0,), (1, 2), (None,), (5,), (-1,)])
def test_size_parses_its_argument_as_torchs(args: Any) -> None:
    same(lambda t: _x(t).size(*args))
