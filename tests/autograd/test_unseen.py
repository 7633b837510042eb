"""The reference-count test behind "write only into a gradient nobody else can see"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ownership
from ownership.core.autograd.accumulate_grad import memory_unseen, spare_refs


def _unseen(t: Any) -> bool:
    return memory_unseen(t, 2)  # held by the caller's variable and by this parameter


def _fresh() -> Any:
    return ownership.ones(3, 4)


def _fortran() -> Any:
    return ownership.Tensor._wrap(np.asfortranarray(np.ones((3, 4), np.float32)))


def _copied_from_strided() -> Any:
    return ownership.Tensor._wrap(np.ones((3, 8), np.float32)[:, ::2])


@pytest.mark.parametrize("make", [_fresh, _fortran, _copied_from_strided])
def test_a_fresh_result_is_unseen(make: Callable[[], Any]) -> None:
    t = make()
    assert _unseen(t)
    t.data_ptr()  # looking at the address makes no alias
    assert _unseen(t)


ALIASES: dict[str, Callable[[Any], Any]] = {
    "view": lambda t: t[1:],
    "detach": lambda t: t.detach(),
    ".data": lambda t: t.data,
    "numpy": lambda t: t.detach().numpy(),
    "second name": lambda t: t,
}


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_an_alias_is_seen_while_it_lives(alias: str) -> None:
    t = ownership.ones(3)
    other = ALIASES[alias](t)
    assert not _unseen(t)
    del other
    assert _unseen(t)


def test_a_numpy_array_shared_by_from_numpy_is_seen() -> None:
    arr = np.ones(3, np.float32)
    t = ownership.from_numpy(arr)
    assert not _unseen(t)
    del arr
    assert _unseen(t)


def test_spare_refs_counts_only_the_tensor_object() -> None:
    t = ownership.ones(3)
    shares = t.detach()  # AccumulateGrad may steal a tensor whose memory is shared (as torch's)
    alone = spare_refs(t)  # (outside `assert`: pytest's rewriting holds its operands)
    again = t
    named_twice = spare_refs(t)
    assert (alone, named_twice) == (0, 1) and shares is not again
