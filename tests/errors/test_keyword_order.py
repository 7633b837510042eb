"""Several keywords in torch's "invalid combination" message come in the order of libstdc++'s
hash table (:mod:`ownership.keyword_order`): replayed here against torch's own message for
random sets of names, and through the engine's messages for real calls."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
import torch

from ownership.keyword_order import torch_order

from support.differential import same


def _torch_listing(keys: list[str]) -> list[str]:
    """The keywords of torch's message for ``x.var(**{key: 1})``, in its order."""
    with pytest.raises(TypeError) as caught:
        torch.ones(3).var(**dict.fromkeys(keys, 1))
    found = re.search(r"got \((.*)\), but", str(caught.value))
    assert found is not None, str(caught.value)
    return [part.split("=")[0] for part in found.group(1).split(", ") if part]


@pytest.mark.parametrize("seed", range(40))
def test_the_order_is_torchs_for_random_names(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(10):
        keys = list(
            dict.fromkeys(
                "".join(rng.choices("abcdefgh_xyz", k=rng.randint(1, 10)))
                for _ in range(rng.randint(2, 30))
            )
        )
        assert torch_order(keys) == _torch_listing(keys)


CALLS: dict[str, Any] = {
    "var: two keywords": lambda t: t.ones(2).var(unbiased=True, keepdim=True),
    "var: three": lambda t: t.ones(2).var(unbiased=True, keepdim=True, foo=1),
    "var: positional and two": lambda t: t.ones(2).var(0, unbiased=False, correction=2),
    "sort: four": lambda t: t.ones(3).sort(stable=True, dim=0, descending=False, foo=1),
    "sum: two wrong": lambda t: t.ones(3).sum(zeta=1, alpha=2),
}


@pytest.mark.parametrize("call", CALLS)
def test_messages_list_keywords_as_torchs(call: str) -> None:
    same(CALLS[call])
