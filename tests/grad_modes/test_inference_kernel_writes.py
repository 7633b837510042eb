"""The writes an op's kernel makes into its fresh result, seen on inference tensors.

Outside inference mode an op whose tensor operands are all inference tensors runs no autograd
kernel, so the calls its own kernel makes on the fresh (normal) result go through the dispatcher,
where torch's ADInplaceOrView kernel bumps the result's version for each: a reduction's ``fill_``
of its identity (``sum``, ``prod``, ``nansum``, ``amax``, ``all``...; an empty ``sum``'s
``zero_``), ``dot``'s ``fill_``, ``abs``'s and ``logsumexp``'s out variant, ``mean``'s ``sum_out``
then ``div_``, ``max``/``min`` over a dim's ``unsqueeze_`` and ``squeeze_`` of both results
(without ``keepdim``; of a 0-d tensor, ``fill_`` of both). A later saved-tensor error names that
version (fuzz program 202035: "is at version 2; expected version 1").
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

WRITTEN: dict[str, Any] = {
    "sum": lambda x: x.sum(),
    "sum 0": lambda x: x.sum(0),
    "sum 0 keepdim": lambda x: x.sum(0, keepdim=True),
    "prod": lambda x: x.prod(),
    "prod 0": lambda x: x.prod(0),
    "nansum": lambda x: x.nansum(),
    "nansum 0": lambda x: x.nansum(0),
    "mean": lambda x: x.float().mean() if not x.dtype.is_floating_point else x.mean(),
    "mean 0": lambda x: x.mean(0) if x.dtype.is_floating_point else x.sum(0),
    "amax": lambda x: x.amax(),
    "amax 0": lambda x: x.amax(0),
    "amin": lambda x: x.amin(),
    "amin 0": lambda x: x.amin(0),
    "max": lambda x: x.max(),
    "min": lambda x: x.min(),
    "max 0": lambda x: x.max(0).values,
    "max 0 indices": lambda x: x.max(0).indices,
    "min 0 keepdim": lambda x: x.min(0, keepdim=True).values,
    "min -1 keepdim indices": lambda x: x.min(-1, keepdim=True).indices,
    "all": lambda x: x.all(),
    "any 0": lambda x: x.any(0),
    "abs": lambda x: x.abs(),
    "logsumexp 0": lambda x: x.logsumexp(0),
    "dot": lambda x: x.flatten().dot(x.flatten()),
    "matmul of vectors": lambda x: x.flatten() @ x.flatten(),
    "neg (no write)": lambda x: -x,
    "argmax (no write)": lambda x: x.argmax(),
}

DTYPES = ["float32", "float64", "int64", "int32", "bool"]
SHAPES = {"0-d": (), "1-d": (3,), "2-d": (2, 3), "empty": (2, 0)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", WRITTEN.values(), ids=WRITTEN.keys())
def test_the_version_of_a_kernels_result_on_an_inference_tensor(
    op: Any, dtype: str, shape: tuple[int, ...]
) -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            x = t.ones(shape, dtype=getattr(t, dtype))
        y = op(x)
        with t.no_grad():  # under no_grad autograd's kernel runs below nothing: the same
            z = op(x)
        return [y, y._version, y.is_inference(), z._version]

    same(program)


def test_the_issues_program() -> None:
    """Fuzz program 202035: the sum starts at version 1, which the saved-tensor error names."""

    def program(t: Any) -> Any:
        t1 = t.zeros((3,), dtype=t.int64)
        with t.inference_mode():
            t2 = t1 * t1
        t5 = t2.sum()
        t8 = t.zeros((), dtype=t.float32, requires_grad=True)
        l16 = (t8 * t5).mean()
        t5.detach().add_(1)
        l16.backward()

    same(program)


def test_an_empty_sum_and_a_normal_tensors_sum() -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            empty = t.ones((0, 3))
        normal = t.ones(3)
        return [empty.sum()._version, empty.sum(0)._version, normal.sum()._version]

    same(program)


FLOAT_WRITTEN: dict[str, Any] = {
    "std": lambda t, x: x.std(),
    "var": lambda t, x: x.var(),
    "std 0": lambda t, x: x.std(0),
    "var -1 keepdim": lambda t, x: x.var(-1, keepdim=True),
    "std_mean": lambda t, x: t.std_mean(x),
    "var_mean 0": lambda t, x: t.var_mean(x, 0),
    "norm": lambda t, x: x.norm(),
    "norm 1": lambda t, x: x.norm(1),
    "norm 0": lambda t, x: x.norm(0),
    "norm inf": lambda t, x: x.norm(float("inf")),
    "norm dim 0": lambda t, x: x.norm(dim=0),
    "norm 3 dim -1 keepdim": lambda t, x: x.norm(3, dim=-1, keepdim=True),
    "norm 0 dim 0 keepdim": lambda t, x: x.norm(0, dim=0, keepdim=True),
    "norm keepdim": lambda t, x: x.norm(keepdim=True),
    "cumsum 0": lambda t, x: x.cumsum(0),
    "cumprod -1": lambda t, x: x.cumprod(-1),
}
FLOAT_SHAPES = {
    "0-d": (),
    "1": (1,),
    "1-d": (3,),
    "1x3": (1, 3),
    "3x1": (3, 1),
    "2-d": (2, 3),
    "empty": (0,),
    "empty 0x2": (0, 2),
    "empty 2x0": (2, 0),
}


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("shape", FLOAT_SHAPES.values(), ids=FLOAT_SHAPES.keys())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", FLOAT_WRITTEN.values(), ids=FLOAT_WRITTEN.keys())
def test_the_writes_of_spreads_norms_and_scans(
    op: Any, dtype: str, shape: tuple[int, ...], requires_grad: bool
) -> None:
    """``std``/``var`` fill an empty input's result with NaN and the one result of a spread with
    its number; ``std_mean``/``var_mean`` fill both results of an empty input only; a norm fills
    an empty input's result, and writes the result of a norm of single elements (not a 0-d input
    with a dim given); ``cumsum``/``cumprod`` zero an empty input's result: one write each."""

    def program(t: Any) -> Any:
        with t.inference_mode():
            x = t.ones(shape, dtype=getattr(t, dtype), requires_grad=requires_grad)
        y = op(t, x)
        ys = y if isinstance(y, tuple) else (y,)
        return [ys, [r._version for r in ys]]

    same(program)
