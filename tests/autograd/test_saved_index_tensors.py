"""An advanced index's tensors are saved tensors, as torch's ``IndexBackward0`` and
``IndexPutBackward0`` save their ``indices`` (a ``Tensor?[]``): the pack hooks see each one, an
index written in place before the backward fails its version check, ``_saved_indices`` gives
them (None for a dimension a slice keeps), and a backward frees them."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import error_of, grad_of, same

KEYS = {
    "two lists": lambda t, x: x[[0, 1], [1, 0]],
    "after an ellipsis": lambda t, x: x[..., [0]],
    "a mask": lambda t, x: x[x > 2],
    "after a slice": lambda t, x: x[:, [1]],
    "a tensor": lambda t, x: x[t.tensor([0, 2])],
    "a bool list": lambda t, x: x[[True, False, True]],
    "a 2-d index": lambda t, x: x[t.tensor([[0], [1]])],
    "before a slice": lambda t, x: x[[0], :],
    "after a sliced dim": lambda t, x: x[1:, [0]],
    "int32": lambda t, x: x[t.tensor([2, 0], dtype=t.int32)],
}


def _x(t: Any) -> Any:
    return t.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)


def _packed(t: Any, seen: list[Any]) -> Any:
    return t.autograd.graph.saved_tensors_hooks(
        lambda s: seen.append((tuple(s.shape), str(s.dtype))) or s, lambda s: s
    )


@pytest.mark.parametrize("index", KEYS.values(), ids=KEYS)
def test_an_index_op_saves_its_index_tensors(index: Any) -> None:
    """Fuzz 930750, 935455, 935753: the pack hooks saw no index tensor."""

    def program(t: Any) -> Any:
        x, seen = _x(t), []
        with _packed(t, seen):
            y = index(t, x)
        saved = y.grad_fn._saved_indices
        y.sum().backward()
        return [seen, saved, error_of(lambda: y.grad_fn._saved_indices), grad_of(x)]

    same(program)


@pytest.mark.parametrize("index", KEYS.values(), ids=KEYS)
def test_an_index_put_saves_its_index_tensors(index: Any) -> None:
    """``x[key] = value`` (``IndexPutBackward0``) saves the same indices."""

    def program(t: Any) -> Any:
        x, seen = _x(t) * 1, []
        with t.no_grad():
            target = index(t, x.detach())  # the shape the key selects
        value = t.ones(target.shape, requires_grad=True)
        source = "x" + KEY_SOURCES[index]
        with _packed(t, seen):
            exec(f"{source} = value", {"x": x, "value": value, "t": t})
        node = x.grad_fn  # a write through a view: CopySlices, which shows no saved values
        if node.name().endswith("CopySlices"):
            return [seen, node.name()]
        return [seen, node._saved_indices, node._saved_accumulate]

    same(program)


KEY_SOURCES = dict(
    zip(
        KEYS.values(),
        [
            "[[0, 1], [1, 0]]",
            "[..., [0]]",
            "[x > 2]",
            "[:, [1]]",
            "[t.tensor([0, 2])]",
            "[[True, False, True]]",
            "[t.tensor([[0], [1]])]",
            "[[0], :]",
            "[1:, [0]]",
            "[t.tensor([2, 0], dtype=t.int32)]",
        ],
        strict=True,
    )
)
"""Each key of :data:`KEYS` as source text, for an assignment."""


@pytest.mark.parametrize("op", ["read", "write"])
def test_an_index_written_in_place_fails_the_version_check(op: str) -> None:
    """The saved index tensor is the one given: a write to it bumps the version the backward
    checks (torch's error names a ``torch.LongTensor [2]`` at version 1)."""

    def program(t: Any) -> Any:
        x, i = _x(t), t.tensor([0, 2])
        if op == "read":
            y = x[i]
        else:
            y = x * 1
            y[i] = 0.0
        i.add_(-1)
        return [error_of(lambda: y.sum().backward()), grad_of(x)]

    same(program)
