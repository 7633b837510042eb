"""A ``range`` in an index reads as the list of its ints (torch makes a tensor of any Python
sequence in a key): ``x[range(n), target]`` is the hand-written nll of "What is torch.nn
really?". Beside it, the other sequences torch accepts the same way (tuples, nested lists, numpy
int arrays of any int dtype), for reading, writing and the gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import same

KEYS: dict[str, Any] = {
    "a range and a tensor": lambda t: (range(3), t.tensor([1, 0, 3])),
    "a range alone": lambda t: range(2),
    "an empty range": lambda t: range(0),
    "a stepped range": lambda t: range(2, -1, -2),
    "two ranges": lambda t: (range(3), range(1, 4)),
    "a slice and a range": lambda t: (slice(None), range(3)),
    "an int and a range": lambda t: (1, range(3)),
    "a range past the end": lambda t: range(5),
    "a range in a list": lambda t: [range(2)],
    "ranges in a list": lambda t: [range(2), range(1, 3)],
    "a tuple and a tensor": lambda t: ((0, 1), t.tensor([1, 0])),
    "nested lists": lambda t: ([[0], [1]], [[1, 2]]),
    "int32 and int16 arrays": lambda t: (
        np.array([1, 0], dtype=np.int32),
        np.array([2, 3], dtype=np.int16),
    ),
    "a uint16 array and a range": lambda t: (np.array([2, 0], dtype=np.uint16), range(2)),
}


@pytest.mark.parametrize("key", KEYS)
def test_a_sequence_key_reads_as_torch_reads_it(key: str) -> None:
    same(lambda t: t.arange(12.0).reshape(3, 4)[KEYS[key](t)])


@pytest.mark.parametrize("key", KEYS)
def test_a_sequence_key_writes_as_torch_writes_it(key: str) -> None:
    def program(t: Any) -> Any:
        x = t.arange(12.0).reshape(3, 4)
        x[KEYS[key](t)] = -1.0
        return x, x._version

    same(program)


def test_the_hand_written_nll_gives_torchs_values_and_gradient() -> None:
    def program(t: Any) -> Any:
        logits = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
        target = t.tensor([2, 0])
        log_probs = logits - logits.exp().sum(-1).log().unsqueeze(-1)
        loss = -log_probs[range(target.shape[0]), target].mean()
        loss.backward()
        return loss, logits.grad

    same(program)
