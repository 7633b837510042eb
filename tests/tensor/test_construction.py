"""Tensor construction: ``Tensor._wrap`` (every op's result, by ``Tensor._plain`` with its storage
and counter left to their first read) makes the same tensor as ``Tensor._plain`` given them,
field by field, in and out of inference mode, and the tensors it makes behave as torch's fresh
results do."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import ownership
from ownership.core.dtypes import from_numpy_dtype
from ownership.core.layout import fresh_layout
from ownership.core.storage import VersionCounter, storage_over
from ownership.core.tensor import Tensor

from support.differential import same

# every field, the lazily made storage and counter read as everyone reads them
LAZY = {"_lazy_storage": "_storage", "_lazy_counter": "_version_counter"}
FIELDS = [LAZY.get(name, name) for name in Tensor.__slots__ if name != "__weakref__"]
VIEW_ONLY = ("_creation_meta", "_view_version")  # set with ``_base``, unset on a non-view
UNSET_FIRST = (*VIEW_ONLY, "_grad_dtype", "_leftover_size")  # set with ``_base``, a grad_dtype,
# a leftover size (``ops.leftover_size``)
UNSET = "unset"

ARRAYS = {
    "C order": np.arange(6, dtype=np.float32).reshape(2, 3),
    "F order": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
    "strided": np.arange(12, dtype=np.int64)[::2],
    "0-d": np.array(True),
    "empty": np.zeros((0, 3), dtype=np.int32),
}


def _fields(t: Tensor) -> dict[str, Any]:
    out = {}
    for name in FIELDS:
        value = getattr(t, name, UNSET) if name in UNSET_FIRST else getattr(t, name)
        if name == "_data":
            value = (value.shape, value.strides, value.dtype, value.tolist())
        elif name == "_storage":
            value = (type(value), value.buffer.tolist(), value.buffer.dtype)
        elif name == "_version_counter":
            value = (type(value), value.inference, value.writes)
        out[name] = value
    return out


@pytest.mark.parametrize("inference", [False, True])
@pytest.mark.parametrize("kind", sorted(ARRAYS))
def test_wrap_makes_what_plain_makes(kind: str, inference: bool) -> None:
    with ownership.inference_mode(inference):
        fast = Tensor._wrap(ARRAYS[kind].copy(order="K"))
        arr = fresh_layout(ARRAYS[kind].copy(order="K"))
        slow = Tensor._plain(
            Tensor, arr, storage_over(arr), 0, from_numpy_dtype(arr.dtype), VersionCounter.new()
        )
        assert _fields(fast) == _fields(slow)
    assert fast._data.strides == ARRAYS[kind].strides or kind == "strided"


def test_each_result_has_its_own_storage_and_counter() -> None:
    arr = np.ones(3, dtype=np.float32)
    a, b = Tensor._wrap(arr), Tensor._wrap(arr)
    assert a._storage is not b._storage
    assert a._version_counter is not b._version_counter


def test_fresh_results_behave_as_torch_results() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x.t() * 2  # a transposed input: the result keeps its strides
        z = x.sum(0)
        y.add_(1)  # the results are plain tensors whose versions move
        return [
            [r.is_leaf, r._version, r._base is None, r.stride(), r.requires_grad, r.dtype]
            for r in (y, z, y.detach())
        ] + [y.untyped_storage().data_ptr() == y.detach().untyped_storage().data_ptr()]

    same(program)


def test_asking_whether_a_result_is_a_tensor_makes_no_storage() -> None:
    """The engine's own "is this a tensor?" (``storage.is_engine_tensor``) reads a slot: a fresh
    result that autograd, an operator or a custom Function is handed keeps its storage unmade."""
    x = ownership.tensor([1.0, 2.0], requires_grad=True)
    out = (x * 2).sum()
    (grad,) = ownership.autograd.grad(out, x, retain_graph=True)
    y = x * 3
    z = x * y
    assert grad is not None
    assert [t._lazy_storage for t in (out, y, z)] == [None] * 3
    assert ownership.core.storage.is_engine_tensor(
        y
    ) and not ownership.core.storage.is_engine_tensor([y])


def test_only_views_have_a_creation_meta_and_a_view_version() -> None:
    """Every tensor maker leaves a non-view without the view-only fields (nothing reads them
    there) and gives every view both."""
    x = ownership.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with ownership.inference_mode():
        inference = ownership.ones(2)
    non_views = [x, x * 2, x.detach(), x.data, (x * 2).t().detach(), inference[:1]]
    with ownership.no_grad():
        views = [x.t(), x[0], (x * 2).t(), x.view(4)]
    views += [x.t(), x[0], (x * 2)[1:], x.view(4).view(2, 2), ownership.ones(3)[1:]]
    for t in non_views:
        assert t._base is None
        assert [getattr(t, name, UNSET) for name in VIEW_ONLY] == [UNSET, UNSET]
    for t in views:
        assert t._base is not None
        assert all(getattr(t, name, UNSET) is not UNSET for name in VIEW_ONLY)


def test_a_leaf_refers_to_its_accumulator_from_its_first_graph_on() -> None:
    """``_acc`` is a dead weak reference until a graph first reaches the leaf, then a weak
    reference to the accumulator that graph ends in, made anew once it is gone (as torch's weak
    pointer)."""
    from ownership.core.autograd.node import accumulator

    x = ownership.tensor([1.0, 2.0], requires_grad=True)
    assert x._acc() is None
    y = x * 2
    first = y.grad_fn.next_functions[0][0]
    assert x._acc() is first and accumulator(x) is first
    del y, first
    assert x._acc() is None
    z = x * 3
    assert accumulator(x) is z.grad_fn.next_functions[0][0] is x._acc()
