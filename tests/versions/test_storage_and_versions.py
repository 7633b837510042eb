"""Storage, version counter, views and aliases: the engine's own invariants."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import ownership as torch


def test_views_share_the_buffer_and_the_counter() -> None:
    x = torch.arange(12.0).view(3, 4).clone()
    views = [
        x[1],
        x.t(),
        x[:, 1:],
        x.view(12),
        x.unsqueeze(0),
        x.expand(2, 3, 4),
        x.narrow(1, 1, 2),
    ]
    for v in views:
        assert v._version_counter is x._version_counter
        assert v._base is x
        assert np.shares_memory(v.numpy(), x.numpy())
    x.add_(1)
    assert {v._version for v in views} == {1}


def test_data_ptr_includes_the_offset() -> None:
    x = torch.zeros(4, 5)
    assert x[1].data_ptr() == x.data_ptr() + 5 * 4
    assert x[:, 2].data_ptr() == x.data_ptr() + 2 * 4
    assert x.detach().data_ptr() == x.data_ptr() == x.data.data_ptr()


def test_data_has_a_fresh_counter_but_detach_shares_it() -> None:
    x = torch.ones(3)
    d, a = x.detach(), x.data
    d.mul_(2)
    assert x._version == 1 and a._version == 0
    a.mul_(2)
    assert x._version == 1 and a._version == 1
    assert x.tolist() == [4.0, 4.0, 4.0]


def test_a_thousand_views_are_zero_copy() -> None:
    x = torch.zeros(1 << 20)
    views = [x[i : i + 10] for i in range(1000)]
    assert all(v.numpy().base is not None for v in views)
    assert sum(sys.getsizeof(v) for v in views) < 1 << 20


def test_make_subclass_aliases_storage_and_counter_even_under_no_grad() -> None:
    class Param(torch.Tensor):
        pass

    data = torch.ones(3)
    with torch.no_grad():
        p = torch.Tensor._make_subclass(Param, data, True)
    assert type(p) is Param and p.is_leaf and p.requires_grad
    assert p._version_counter is data._version_counter
    out = p * 2
    assert type(out) is torch.Tensor
    with pytest.raises(RuntimeError, match="floating point and complex"):
        torch.Tensor._make_subclass(Param, torch.ones(2, dtype=torch.int64), True)


def test_tensor_accepts_numpy_and_torch_without_sharing() -> None:
    import torch as real

    arr = np.arange(3.0)
    t = torch.tensor(arr)
    assert t.dtype is torch.float64
    arr[0] = 9
    assert t[0].item() == 0.0
    r = torch.tensor(real.ones(2, 2))
    assert r.dtype is torch.float32 and r.shape == (2, 2)


def test_a_results_storage_is_its_memory_in_order_whenever_it_is_made() -> None:
    """A fresh result's storage is made at its first use (a view, ``data_ptr``, an op that saves
    the result): its buffer is the result's memory in memory order, C or F (the stride-keeping
    result of an op on a transposed tensor), as torch's storage is."""
    from support.differential import same

    def program(t: Any) -> Any:
        out = []
        for shape in [(2, 3), (2, 3, 4)]:
            base = t.arange(float(np.prod(shape))).reshape(shape)
            for first in ["view", "data_ptr", "saved", "none"]:
                x = base.permute(*reversed(range(len(shape)))).requires_grad_()
                y = x * 2 if first != "saved" else x.exp()
                if first == "view":
                    y[0]  # the view is the point
                elif first == "data_ptr":
                    y.data_ptr()
                if first == "saved":
                    r = y.grad_fn._saved_result
                    out += [r.untyped_storage() is y.untyped_storage(), r.stride()]
                    out.append(r.data.as_strided_((r.numel(),), (1,)))  # .data: no version bump
                flat = y.data.as_strided_((y.numel(),), (1,))  # the storage in memory order
                out += [y.stride(), flat, y.untyped_storage().nbytes(), y.storage_offset()]
        return out

    same(program)
