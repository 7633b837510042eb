"""ownership.core.layout and ownership.ops.view_shapes: torch's stride arithmetic, checked against
torch on many shapes."""

from __future__ import annotations

import itertools

import pytest
import torch

from ownership.core import layout
from ownership.ops import view_shapes


@pytest.mark.parametrize(
    "shape", [(), (0,), (1,), (3,), (2, 3), (3, 1), (1, 3), (2, 0, 4), (2, 3, 4)]
)
def test_contiguous_strides_match_torch(shape: tuple[int, ...]) -> None:
    assert layout.contiguous_strides(shape) == torch.empty(shape).stride()


def test_view_strides_agree_with_torch_on_permuted_and_sliced_tensors() -> None:
    base = torch.arange(24.0).view(2, 3, 4)
    sources = [base, base.permute(2, 0, 1), base.transpose(0, 1), base[:, 1:], base[..., ::2]]
    targets = [(24,), (6, 4), (2, 12), (4, 6), (2, 3, 2, 2), (-1,), (3, 8)]
    for src, target in itertools.product(sources, targets):
        try:
            new = view_shapes.infer_size(target, src.numel())
        except RuntimeError:
            continue
        ours = view_shapes.view_strides(src.shape, src.stride(), new)
        try:
            theirs = src.view(new).stride()
        except RuntimeError:
            theirs = None
        assert ours == theirs, (src.shape, src.stride(), new)


def test_is_contiguous_ignores_size_one_dims_like_torch() -> None:
    t = torch.zeros(3, 1, 4)[:, :, :]
    odd = t.as_strided((3, 1, 4), (4, 99, 1))
    assert layout.is_contiguous(odd.shape, odd.stride()) is odd.is_contiguous() is True
    tt = torch.zeros(3, 4).t()
    assert layout.is_contiguous(tt.shape, tt.stride()) is tt.is_contiguous() is False


@pytest.mark.parametrize(
    "a, b", [((2, 3), (3, 2)), ((1, 2), (3,)), ((4, 1, 3), (2, 2)), ((3,), (4,))]
)
def test_broadcast_errors_name_the_same_dimension_as_torch(
    a: tuple[int, ...], b: tuple[int, ...]
) -> None:
    with pytest.raises(RuntimeError) as theirs:
        torch.broadcast_shapes(a, b) if False else (torch.zeros(a) + torch.zeros(b))
    with pytest.raises(RuntimeError) as ours:
        layout.broadcast_shapes(a, b)
    assert str(ours.value) == str(theirs.value)


def test_expand_gives_stride_zero() -> None:
    assert view_shapes.expand_strides((3, 1), (1, 1), (2, 3, 4)) == (0, 1, 0)
    assert layout.has_internal_overlap((2, 3, 4), (0, 1, 0))
    assert not layout.has_internal_overlap((0, 3), (0, 0))


def _shapes(max_dims: int, sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    return [s for n in range(1, max_dims + 1) for s in itertools.product(sizes, repeat=n)]


def test_view_strides_of_a_row_major_tensor_take_the_fast_path_and_agree_with_the_loop() -> None:
    """The row-major case returns row-major strides at once; the chunk loop (torch's
    computeStride) gives the same on every small shape, size-1 dimensions included, and both
    agree with torch."""
    shapes = _shapes(4, (1, 2, 3, 4))
    by_numel: dict[int, list[tuple[int, ...]]] = {}
    for shape in shapes:
        by_numel.setdefault(layout.numel(shape), []).append(shape)
    for shape in shapes:
        strides = layout.contiguous_strides(shape)
        for new in by_numel[layout.numel(shape)]:
            fast = view_shapes.view_strides(shape, strides, new)
            assert fast == view_shapes._computed_strides(shape, strides, new), (shape, new)
            if shape[0] == 2 and len(new) <= 3:  # torch on a sample (each view costs ~10 us)
                assert fast == torch.empty(shape).view(new).stride(), (shape, new)


def test_view_strides_of_odd_size_one_strides_take_the_loop_like_torch() -> None:
    odd = torch.zeros(3, 5)[:, :1]  # shape (3, 1), strides (5, 1): not row-major
    for new in [(3,), (1, 3), (3, 1, 1)]:
        assert view_shapes.view_strides(odd.shape, odd.stride(), new) == odd.view(new).stride()


@pytest.mark.parametrize(
    "shape, total",
    [((2, 3), 6), ((6,), 6), ((), 1), ((0, 3), 0), ((-1,), 6), ((2, -1), 6), ((2, 4), 6)],
)
def test_infer_size_fast_path_gives_the_full_rule(shape: tuple[int, ...], total: int) -> None:
    def outcome(fn):  # the sizes, or the error's message
        try:
            return fn(shape, total)
        except RuntimeError as exc:
            return str(exc)

    def torch_rule(shape: tuple[int, ...], total: int) -> tuple[int, ...]:
        return tuple(torch.empty(total).view(shape).shape)

    assert outcome(view_shapes.infer_size) == outcome(torch_rule)
