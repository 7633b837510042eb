"""numpy(): shares memory (and so bypasses the version counter) and refuses when grad is required."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import same
from support.gradients import plain

REFUSAL = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."


@pytest.mark.parametrize(
    "expr",
    [
        "t.ones(3, requires_grad=True)",
        "t.ones(3, requires_grad=True) * 2",
        "t.ones(2, 2, requires_grad=True)[0]",
    ],
)
def test_numpy_refuses_when_grad_is_required(expr: str) -> None:
    assert same(lambda t: eval(expr).numpy()).message == REFUSAL


def test_numpy_of_a_detached_tensor_is_fine() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        n = x.detach().numpy()
        return [n.tolist(), str(n.dtype)]

    same(program)


def test_numpy_shares_memory_and_writes_are_seen_but_not_counted() -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3)
        n = x.numpy()
        n[0, 0] = 99.0
        x[1, 2] = -1.0
        return [x, x._version, n.tolist()]

    r = same(program)
    assert r[1] == 1


@pytest.mark.parametrize(
    "make", ["x.t()", "x[:, 1]", "x[1]", "x.view(9)[::2]", "x[0:1].expand(3, 3)"]
)
def test_numpy_of_a_view_has_the_views_layout(make: str) -> None:
    def program(t):
        x = t.arange(9.0).view(3, 3)
        v = eval(make, {"x": x})
        n = v.numpy()
        return [n.shape, n.strides, bool(n.flags["C_CONTIGUOUS"]), n.tolist(), str(n.dtype)]

    same(program)


def test_numpy_of_a_view_writes_into_the_base() -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3)
        x.t().numpy()[0, 1] = 50.0
        return x

    same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_numpy_dtypes(dtype: str) -> None:
    def program(t):
        x = t.zeros(2, dtype=getattr(t, dtype))
        return str(x.numpy().dtype)

    same(program)


def test_tensor_from_a_numpy_array_copies_and_keeps_the_dtype() -> None:
    def program(t):
        arr = np.arange(3.0)
        x = t.tensor(arr)
        arr[0] = 5.0
        y = t.tensor(np.array([1, 2], dtype=np.int64))
        z = t.tensor(np.array([1.5], dtype=np.float32), requires_grad=True)
        return [x, x.dtype, y.dtype, z]

    same(program)


def test_a_write_through_numpy_gives_a_silently_wrong_gradient() -> None:
    """Like .data, numpy() skips the version counter: the saved output changes unseen."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.detach().numpy()[:] = 0.0
        y.sum().backward()
        return [plain(x.grad), y._version]

    same(program)


KEPT = ["float32", "float64", "int32", "int64", "bool"]
TORCH_ONLY = ["uint8", "int8", "int16", "uint16", "uint32", "uint64", "float16"]
REFUSED_BY_TORCH = ["longdouble", "str_", "object_", "datetime64"]
MAKERS = ["from_numpy", "tensor", "as_tensor"]


def _array(np_dtype: str) -> np.ndarray:
    if np_dtype == "datetime64":
        return np.array([1, 0, 2], dtype="datetime64[s]")
    if np_dtype in ("str_", "object_"):
        return np.array(["1", "0", "2"], dtype=np_dtype)
    return np.array([1, 0, 2], dtype=np_dtype)


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("np_dtype", KEPT + REFUSED_BY_TORCH)
def test_numpy_arrays_convert_or_are_refused_as_torch_does(np_dtype: str, maker: str) -> None:
    def program(t: Any) -> Any:
        arr = _array(np_dtype)
        x = getattr(t, maker)(arr)
        if arr.dtype.kind != "b":
            arr[0] = 7  # from_numpy and as_tensor share the array's memory; tensor copies
        return x, x.dtype

    same(program)


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("np_dtype", [*TORCH_ONLY, "complex64", "complex128"])
def test_numpy_dtypes_the_engine_does_not_keep_are_not_implemented(
    np_dtype: str, maker: str
) -> None:
    import torch

    import ownership

    arr = _array(np_dtype)
    assert str(getattr(torch, maker)(arr).dtype) == f"torch.{np_dtype}"  # torch keeps them
    with pytest.raises(NotImplementedError) as raised:
        getattr(ownership, maker)(arr)
    assert str(raised.value) == (
        f"ownership does not implement torch.{np_dtype} (an array of numpy.{np_dtype}); it "
        "covers the dtypes float32, float64, int32, int64 and bool"
    )


@pytest.mark.parametrize("np_dtype", TORCH_ONLY)
def test_an_array_the_engine_does_not_keep_converts_to_a_dtype_asked(np_dtype: str) -> None:
    def program(t: Any) -> Any:
        arr = _array(np_dtype)
        return t.tensor(arr, dtype=t.float32), t.as_tensor(arr, dtype=t.int64)

    same(program)


def test_as_tensor_shares_what_torch_shares() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0])
        arr = np.array([1.0, 2.0], dtype=np.float32)
        shared, converted = t.as_tensor(arr), t.as_tensor(arr, dtype=t.float64)
        arr[0] = 5.0
        from_list = t.as_tensor([[1, 2], [3, 4]], dtype=t.float32, device="cpu")
        return (
            t.as_tensor(x) is x,
            t.as_tensor(x, dtype=t.float32) is x,
            t.as_tensor(x, dtype=t.float64),
            shared,
            converted,
            from_list,
            t.as_tensor(3.5),
        )

    same(program)
