"""A node shows its saved int arguments (dims, indices, slice bounds) as the op was given them, as
torch does: a negative one read as unsigned 64-bit (``-1`` is ``2**64 - 1``), a slice's missing end
as the largest int64, an end beyond the size unclamped; and its gradient is still the op's."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same


def _cube(t: Any) -> Any:
    return t.arange(24.0, dtype=t.float64).reshape(2, 3, 4).requires_grad_()


OPS: dict[str, Any] = {
    "transpose": lambda t, x: x.transpose(-1, 0),
    "select": lambda t, x: x.select(-1, -2),
    "x[:, -1]": lambda t, x: x[:, -1],
    "x[:, -2:]": lambda t, x: x[:, -2:],
    "x[:, 1:100]": lambda t, x: x[:, 1:100],
    "x[:, :-1]": lambda t, x: x[:, :-1],
    "x[:, ::2]": lambda t, x: x[:, ::2],
    "x[..., -3:-1]": lambda t, x: x[..., -3:-1],
    "narrow": lambda t, x: x.narrow(-1, -3, 2),
    "unsqueeze": lambda t, x: x.unsqueeze(-1),
    "squeeze(dim)": lambda t, x: x[:1].squeeze(-3),
    "squeeze(dims)": lambda t, x: x[:1].squeeze((-3, 1)),
    "permute": lambda t, x: x.permute(-1, 0, 1),
    "unbind": lambda t, x: x.unbind(-1)[0],
    "split": lambda t, x: x.split(2, -1)[0],
    "split with sizes": lambda t, x: x.split([1, 3], -1)[1],
    "chunk": lambda t, x: x.chunk(2, -1)[0],
    "sum(dim)": lambda t, x: x.sum(-1),
    "sum(dims)": lambda t, x: x.sum((-1, 0)),
    "sum(dim=[])": lambda t, x: x.sum([]),
    "mean(dims)": lambda t, x: x.mean((2, -3), keepdim=True),
    "max(dim)": lambda t, x: x.max(-1)[0],
    "min(dim)": lambda t, x: x.min(-2, keepdim=True)[0],
    "cat": lambda t, x: t.cat([x, x], -1),
    "stack": lambda t, x: t.stack([x, x], -1),
    "cumsum": lambda t, x: x.cumsum(-1),
    "prod(dim)": lambda t, x: x.prod(-1),
    "transpose_": lambda t, x: (x * 1).transpose_(-1, 0),
    "unsqueeze_": lambda t, x: (x * 1).unsqueeze_(-1),
    "squeeze_(dim)": lambda t, x: (x[:1] * 1).squeeze_(-3),
    "squeeze_(dims)": lambda t, x: (x[:1] * 1).squeeze_((-3, 1)),
    "diagonal": lambda t, x: x.diagonal(-1, -1, 0),
}


def _saved(t: Any, fn: Any) -> dict[str, Any]:
    return {
        a: getattr(fn, a)
        for a in dir(fn)
        if a.startswith("_saved_") and not isinstance(getattr(fn, a), t.Tensor)
    }


@pytest.mark.parametrize("op", OPS)
def test_saved_ints_are_shown_as_given_and_the_gradient_is_torchs(op: str) -> None:
    def program(t: Any) -> Any:
        x = _cube(t)
        out = OPS[op](t, x)
        facts = (out.grad_fn.name(), _saved(t, out.grad_fn))
        (out * t.arange(out.numel(), dtype=t.float64).reshape(out.shape)).sum().backward()
        return facts, grad_of(x)

    same(program)
