"""The layout of an advanced index's result: torch's ``index`` kernel, not numpy's.

torch runs a TensorIterator over the indexed tensor restrided to the result (stride 0 along the
dims the indices make) and the index tensors, so the result is laid out by the operands' strides,
the indexed tensor's first: ``x[:, [1, 0]]`` of a row-major ``x`` is row-major (``(2, 1)``, and
``view(-1)`` works), a permuted ``x`` gives a permuted result, non-adjacent indices go to the
front first. numpy lays a fancy-indexed result out with the indexed dims outermost.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

SOURCES: dict[str, Any] = {
    "row-major": lambda t: t.arange(120.0).reshape(2, 3, 4, 5),
    "permuted": lambda t: t.arange(120.0).reshape(5, 4, 3, 2).permute(3, 2, 1, 0),
    "transposed inner": lambda t: t.arange(120.0).reshape(2, 3, 5, 4).transpose(2, 3),
    "stepped": lambda t: t.arange(240.0).reshape(2, 3, 4, 10)[..., ::2],
    "expanded": lambda t: t.arange(20.0).reshape(1, 1, 4, 5).expand(2, 3, 4, 5),
}

KEYS: dict[str, Any] = {
    "first dim": lambda t, x: x[[1, 0]],
    "second dim": lambda t, x: x[:, [2, 0, 1]],
    "last dim": lambda t, x: x[..., [4, 0]],
    "two adjacent": lambda t, x: x[:, [0, 2], [1, 3]],
    "two adjacent, first": lambda t, x: x[[0, 1], [2, 0]],
    "two non-adjacent": lambda t, x: x[[0, 1], :, [3, 1]],
    "non-adjacent, last": lambda t, x: x[:, [0, 2], :, [4, 1]],
    "broadcast indices": lambda t, x: x[:, [[0], [2]], [1, 3]],
    "2-d index": lambda t, x: x[:, [[0, 1], [2, 1]]],
    "transposed index tensor": lambda t, x: x[:, t.tensor([[0, 1], [2, 1]]).t()],
    "int and index": lambda t, x: x[1, :, [3, 0]],
    "slice and index": lambda t, x: x[:, 1:, [3, 0]],
    "None and index": lambda t, x: x[:, None, [2, 0]],
    "mask of one dim": lambda t, x: x[:, t.tensor([True, False, True])],
    "mask of two dims": lambda t, x: x[:, :, t.arange(20).reshape(4, 5) % 3 == 0],
    "mask first": lambda t, x: x[t.tensor([False, True])],
    "single index": lambda t, x: x[:, [1]],
    "empty index": lambda t, x: x[:, t.tensor([], dtype=t.int64)],
}


@pytest.mark.parametrize("key", KEYS.values(), ids=KEYS.keys())
@pytest.mark.parametrize("source", SOURCES.values(), ids=SOURCES.keys())
def test_an_advanced_index_lays_its_result_out_as_torch(source: Any, key: Any) -> None:
    def program(t: Any) -> Any:
        y = key(t, source(t))
        shown = y.view(-1) if y.is_contiguous() else y.flatten()
        return [y, y.stride(), y.is_contiguous(), shown]

    same(program)


def test_the_issues_program() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x[:, [1, 0]]
        v = y.view(-1)
        (g,) = t.autograd.grad((v * t.arange(4.0)).sum(), x)
        return [y.stride(), v, g]

    assert same(program)[0] == (2, 1)


SIZE_ONE_KEYS: dict[str, Any] = {
    "first dim": lambda t, x: x[[1]],
    "first dim, then a slice": lambda t, x: x[[1], :],
    "second dim": lambda t, x: x[:, [2, 0]],
    "a size-1 dim": lambda t, x: x[:, :, [0]],
    "index of size-1 dims": lambda t, x: x[t.tensor([[[1, 0]]]).permute(2, 1, 0)],
    "index of size-1 dims, second": lambda t, x: x[:, t.tensor([[[1, 0]]]).permute(2, 1, 0)],
}


@pytest.mark.parametrize("key", SIZE_ONE_KEYS.values(), ids=SIZE_ONE_KEYS.keys())
@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
def test_a_size_one_dims_stride_orders_the_result(key: Any, grad: bool) -> None:
    """``x`` is contiguous to torch (a size-1 dim's stride is skipped) but not row-major: the
    index kernel's iterator orders the dims by every stride, so the result is not row-major
    either (fuzz seed 96194: strides ``(3, 1, 3, 3)``, not ``(3, 1, 1, 1)``)."""

    def program(t: Any) -> Any:
        w = t.ones((2, 3), requires_grad=True)
        x = t.stack([w, w]).mT[::2][None].permute(3, 2, 1, 0)  # (2, 3, 1, 1), (3, 1, 12, 12)
        with t.set_grad_enabled(grad):
            y = key(t, x)
        return [x.stride(), x.is_contiguous(), y, y.stride(), y.is_contiguous()]

    same(program)
