"""An int argument beyond int64 (a dim, a length): torch reads it as a C ``long long`` and
raises ``ValueError: Overflow when unpacking long long`` before the op sees it (``x.sum(d)``,
``F.softmax`` ...), cold or warm (the parser remembers a binding per pattern of argument
types)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

CALLS: dict[str, Any] = {
    "softmax": lambda t, x, n: x.softmax(n),
    "softmax dim=": lambda t, x, n: x.softmax(dim=n),
    "log_softmax negative": lambda t, x, n: x.log_softmax(-n - 1),
    "torch.softmax": lambda t, x, n: t.softmax(x, n),
    "torch.log_softmax dtype": lambda t, x, n: t.log_softmax(x, n, t.float64),
    "F.softmax": lambda t, x, n: t.nn.functional.softmax(x, n),
    "F.log_softmax dtype": lambda t, x, n: t.nn.functional.log_softmax(x, n, dtype=t.float64),
    "sum": lambda t, x, n: x.sum(n),
    "sum keepdim": lambda t, x, n: x.sum(-n - 1, True),
    "torch.sum": lambda t, x, n: t.sum(x, n),
    "mean": lambda t, x, n: x.mean(n),
    "cumsum dim=": lambda t, x, n: x.cumsum(dim=-n - 1),
    "cumprod dim=": lambda t, x, n: x.cumprod(dim=n),
    "nansum": lambda t, x, n: x.nansum(-n - 1),
    "sort": lambda t, x, n: x.sort(n),
    "sort stable": lambda t, x, n: t.sort(x, stable=True, dim=-n - 1),
    "argsort": lambda t, x, n: x.argsort(n),
    "topk k": lambda t, x, n: x.topk(n),
    "topk dim": lambda t, x, n: t.topk(x, 1, n),
    "narrow length": lambda t, x, n: x.narrow(0, 0, n),
    "flatten": lambda t, x, n: x.flatten(n),
    "transpose": lambda t, x, n: x.transpose(0, n),
    "transpose first": lambda t, x, n: x.transpose(-n - 1, 1),
    "unsqueeze": lambda t, x, n: x.unsqueeze(n),
    "squeeze": lambda t, x, n: x.squeeze(n),
    "select dim": lambda t, x, n: x.select(n, 0),
    "select index": lambda t, x, n: x.select(0, n),
}


@pytest.mark.parametrize("n", [2**63, 2**64], ids=["2**63", "2**64"])
@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
@pytest.mark.parametrize("call", CALLS)
def test_an_int_beyond_int64_is_torchs_value_error(call: str, warm: bool, n: int) -> None:
    """``-n - 1`` is below int64 too (the smallest is ``-2**63``)."""

    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -2.0], [0.5, 4.0]])
        if warm:  # the same call with an int that fits binds first
            CALLS[call](t, t.ones(2, 2, 2, 2), 1)
        return CALLS[call](t, x, n)

    same(program, raises="ValueError")


def test_the_largest_and_smallest_int64_are_read_as_ints() -> None:
    same(lambda t: t.tensor([1.0, 2.0]).softmax(2**63 - 1), raises="IndexError")
    same(lambda t: t.tensor([1.0, 2.0]).sum(-(2**63)), raises="IndexError")
    same(lambda t: t.tensor([1.0, 2.0]).cumsum(dim=-(2**63)), raises="IndexError")
