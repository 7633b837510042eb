"""A list key that holds a sequence, a slice, a tensor, ``...`` or None: torch reads it as the
tuple of its items (numpy's old rule), with its deprecation warning, for reading and writing;
any other list stays one index."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import same

KEYS: dict[str, Any] = {
    "a list in a list": lambda t: [[1, 0]],
    "two lists": lambda t: [[0, 1], [1, 2]],
    "a slice and an int": lambda t: [slice(None), 1],
    "an int and a slice": lambda t: [1, slice(0, 2)],
    "None first": lambda t: [None, 1],
    "Ellipsis": lambda t: [Ellipsis, 1],
    "a tensor and a tensor": lambda t: [t.tensor(1), t.tensor([0, 2])],
    "an int and a tensor": lambda t: [0, t.tensor([2, 1])],
    "a numpy array inside": lambda t: [np.array([1, 0])],
    "a tuple inside": lambda t: [(0, 1), 2],
    "a list of uint8 inside": lambda t: [[np.uint8(1), np.uint8(0)]],
    "a list of bools inside": lambda t: [[True, False]],
    "a plain list of ints": lambda t: [1, 0, 1],
    "a plain list of bools": lambda t: [True, False],
    "an index out of range": lambda t: [slice(None), 10],
    "too many items": lambda t: [0, 1, slice(None)],
    "a string inside": lambda t: [slice(None), "a"],
    "32 ints": lambda t: [0] * 32,
}


@pytest.mark.parametrize("key", KEYS)
def test_a_list_key_reads_as_torch_reads_it(key: str) -> None:
    same(lambda t: t.arange(6.0).reshape(2, 3)[KEYS[key](t)])


@pytest.mark.parametrize("key", KEYS)
def test_a_list_key_writes_as_torch_writes_it(key: str) -> None:
    def program(t: Any) -> Any:
        x = t.arange(6.0).reshape(2, 3)
        x[KEYS[key](t)] = -1.0
        return x, x._version

    same(program)


def test_a_list_key_of_a_tensor_that_requires_grad_gives_torchs_gradient() -> None:
    def program(t: Any) -> Any:
        x = t.arange(6.0).reshape(2, 3).requires_grad_()
        y = x[[slice(None), [2, 0]]]
        y.sum().backward()
        return y, y.grad_fn.name(), x.grad

    same(program)
