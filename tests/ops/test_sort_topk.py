"""``sort``, ``argsort`` and ``topk``: torch's values, indices, dtypes, refusals, nodes
(``SortBackward0/1``, ``TopkBackward0``) and what they save, gradients, and the named tuples
they return. Ties: torch's CPU sort keeps equal values in their order of appearance (ascending
and descending), so ``sort`` is compared whole; ``topk``'s choice among ties is its kernel's,
so with ties only its values (and that the indices point at them) are compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import error_of, grad_of, same
from support.gradients import plain, same_node_and_gradients

NAN, INF = float("nan"), float("inf")
TENSORS: dict[str, Any] = {
    "float32": lambda t: t.tensor([[3.0, -1.0, 2.5, 0.5], [1.0, 4.0, -2.0, 0.0]]),
    "float64": lambda t: t.tensor([[1.5, -2.0], [0.25, 4.0]], dtype=t.float64),
    "int64": lambda t: t.tensor([[3, -2, 5], [7, 1, 0]]),
    "int32": lambda t: t.tensor([2, 3, -4], dtype=t.int32),
    "bool": lambda t: t.tensor([True, False, True, False]),
    "0-d": lambda t: t.tensor(2.5),
    "empty": lambda t: t.zeros(2, 0),
    "empty rows": lambda t: t.zeros(0, 3),
    "3-d ties": lambda t: (t.arange(24.0).reshape(2, 3, 4) * 7) % 5,
    "3-d": lambda t: (t.arange(24.0).reshape(2, 3, 4) * 7) % 29 - 3.5,
    "ties": lambda t: t.tensor([1, 2, 1, 2, 1, 0, 2]),
    "float ties": lambda t: t.tensor([[0.5, -0.0, 0.5, 0.0, 0.5], [1.0, 1.0, 1.0, 1.0, 1.0]]),
    "nan and inf": lambda t: t.tensor([1.0, NAN, -INF, INF, NAN, -1.0]),
    "transposed": lambda t: t.tensor([[3.0, 1.0, 2.0, 7.0], [0.5, 9.0, -1.0, 4.0]]).t(),
}

SORTS: dict[str, Any] = {
    "sort": lambda t, x: x.sort(),
    "sort dim 0": lambda t, x: x.sort(0),
    "sort descending": lambda t, x: x.sort(descending=True),
    "sort -1 True": lambda t, x: t.sort(x, -1, True),
    "sort stable": lambda t, x: x.sort(stable=True),
    "sort stable None": lambda t, x: t.sort(x, stable=None, dim=0),
    "sort stable descending": lambda t, x: t.sort(x, stable=True, descending=True),
    "sort stable False": lambda t, x: x.sort(stable=False, dim=-1, descending=True),
    "sort dim 2": lambda t, x: x.sort(2),
    "sort dim -3": lambda t, x: t.sort(x, dim=-3),
    "argsort": lambda t, x: x.argsort(),
    "argsort dim 0 descending": lambda t, x: t.argsort(x, 0, True),
    "argsort stable": lambda t, x: t.argsort(x, stable=True, descending=True),
    "argsort stable kw": lambda t, x: x.argsort(stable=True, dim=0),
    "argsort dim 1": lambda t, x: x.argsort(dim=1),
}


# only ``stable=True`` defines the order of equal values
STABLE = {"sort stable", "sort stable descending", "argsort stable", "argsort stable kw"}
TIES = ["ties", "float ties", "3-d ties", "bool", "nan and inf"]
SORT_CASES = [(f, x) for f in SORTS for x in TENSORS if f in STABLE or x not in TIES]
DIMS = {"dim 0": 0, "stable None": 0, "stable kw": 0, "dim 2": 2, "dim -3": -3, "dim 1": 1}


@pytest.mark.parametrize(("form", "tensor"), SORT_CASES)
def test_sort_and_argsort_are_torchs(form: str, tensor: str) -> None:
    same(lambda t: SORTS[form](t, TENSORS[tensor](t)))


def _dim(form: str) -> int:
    return next((d for k, d in DIMS.items() if k in form), -1)


def _taken(t: Any, x: Any, indices: Any, dim: int) -> Any:
    """The elements of ``x`` that ``indices`` name along ``dim`` (read through numpy)."""
    return t.tensor(np.take_along_axis(x.numpy(), indices.numpy(), axis=dim))


@pytest.mark.parametrize("form", [k for k in SORTS if k not in STABLE])
@pytest.mark.parametrize("tensor", TIES)
def test_sort_and_argsort_with_ties_are_torchs_where_defined(form: str, tensor: str) -> None:
    """Without ``stable=True`` the order of equal values is not defined: the values are, and the
    indices are a permutation along the dim that names them."""

    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        result = SORTS[form](t, x)
        indices = result if form.startswith("argsort") else result.indices
        dim = _dim(form)
        taken = _taken(t, x, indices, dim)
        values = None if form.startswith("argsort") else result.values
        return values, taken, indices.dtype, indices.sort(dim).values, type(result).__name__

    same(program)


TOPKS: dict[str, Any] = {
    "k 1": lambda t, x: x.topk(1),
    "k 2": lambda t, x: x.topk(2),
    "k 0": lambda t, x: t.topk(x, 0),
    "k 2 smallest": lambda t, x: x.topk(2, largest=False),
    "k 1 dim 0": lambda t, x: t.topk(x, 1, 0),
    "k 2 dim -2 smallest": lambda t, x: x.topk(2, -2, False),
    "k 3 unsorted": lambda t, x: x.topk(3, sorted=False),
    "k all": lambda t, x: x.topk(x.shape[-1] if x.dim() else 1),
    "k too many": lambda t, x: x.topk(5),
    "k negative": lambda t, x: x.topk(-1),
    "dim 2": lambda t, x: t.topk(x, 1, dim=2),
}
NO_TIES = [k for k in TENSORS if "ties" not in k and k != "bool"]


@pytest.mark.parametrize("form", TOPKS)
@pytest.mark.parametrize("tensor", NO_TIES)
def test_topk_is_torchs(form: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        result = TOPKS[form](t, TENSORS[tensor](t))
        if "unsorted" in form:  # the order of an unsorted result is the kernel's: compare sets
            values, indices = result
            if values.dim():
                return values.sort().values, indices.sort().values
        return result

    same(program)


@pytest.mark.parametrize("tensor", ["ties", "float ties", "bool"])
@pytest.mark.parametrize("form", ["k 1", "k 2", "k 2 smallest", "k 1 dim 0", "k all"])
def test_topk_values_with_ties_are_torchs(form: str, tensor: str) -> None:
    def program(t: Any) -> Any:
        x = TENSORS[tensor](t)
        values, indices = TOPKS[form](t, x)
        dim = 0 if "dim 0" in form else -1
        return (
            values,
            indices.dtype,
            indices.shape,
            bool((_taken(t, x, indices, dim) == values).all()),
        )

    same(program)


def test_the_named_tuples_are_torchs() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[2.0, -1.0, 3.0]])
        s, k = x.sort(), t.topk(x, 2)
        values, _ = s
        return (
            repr(s),
            repr(k),
            type(s).__name__,
            type(k).__name__,
            isinstance(s, tuple),
            len(s),
            s[0] is s.values,
            s[-1] is s.indices,
            values is s.values,
            s[0:1],
            k.indices,
        )

    same(program)


REFUSALS: dict[str, Any] = {
    "sort str": lambda t, x: x.sort("a"),
    "sort dim None": lambda t, x: x.sort(dim=None),
    "sort descending int": lambda t, x: x.sort(descending=1),
    "sort unknown keyword": lambda t, x: x.sort(foo=1),
    "sort three positional": lambda t, x: x.sort(0, False, True),
    "torch.sort str": lambda t, x: t.sort(x, "a"),
    "torch.sort list": lambda t, x: t.sort([1.0, 2.0]),
    "torch.sort four positional": lambda t, x: t.sort(x, 0, True, True),
    "argsort str": lambda t, x: x.argsort("a"),
    "argsort stable None": lambda t, x: x.argsort(stable=None),
    "torch.argsort stable None": lambda t, x: t.argsort(x, stable=None),
    "torch.argsort list": lambda t, x: t.argsort([1]),
    "torch.argsort four positional": lambda t, x: t.argsort(x, 0, True, True),
    "topk no k": lambda t, x: x.topk(),
    "topk float k": lambda t, x: x.topk(1.0),
    "topk str dim": lambda t, x: x.topk(1, "a"),
    "topk unknown keyword": lambda t, x: x.topk(1, foo=2),
    "torch.topk no k": lambda t, x: t.topk(x),
    "torch.topk str": lambda t, x: t.topk(x, "a"),
    "torch.topk unknown keyword": lambda t, x: t.topk(x, 1, foo=1),
}


@pytest.mark.parametrize("form", REFUSALS)
def test_refusals_are_torchs(form: str) -> None:
    same(lambda t: REFUSALS[form](t, t.tensor([[3.0, 1.0, 2.0]])), raises="TypeError")


@pytest.mark.parametrize("tensor", ["bool", "0-d", "float32"])
@pytest.mark.parametrize("call", ["topk(1)", "topk(5)", "topk(1, 3)", "sort(1)", "argsort(-2)"])
def test_range_and_dtype_refusals_are_torchs(tensor: str, call: str) -> None:
    same(lambda t: eval(f"x.{call}", {"x": TENSORS[tensor](t)}))


GRADS: dict[str, Any] = {
    "sort": lambda t, x: x.sort().values,
    "sort dim 0 descending": lambda t, x: x.sort(0, True).values,
    "sort stable": lambda t, x: t.sort(x, stable=True, dim=-2).values,
    "topk 2": lambda t, x: x.topk(2).values,
    "topk 1 dim 0 smallest": lambda t, x: t.topk(x, 1, dim=0, largest=False).values,
    "topk 0": lambda t, x: x.topk(0, 1).values,
}
GRAD_VALUES: dict[str, list[float]] = {
    "distinct": [1.5, -2.0, 3.0, 0.5, 4.0, -1.0],
    "sort's ties": [1.0, 1.0, -1.0, 2.0, 2.0, 2.0],
}


# with ties, which of the equal values a gradient reaches is defined for a stable sort only
GRAD_CASES = [(c, v) for c in GRADS for v in GRAD_VALUES if "ties" not in v or "stable" in c]


@pytest.mark.parametrize(("case", "values"), GRAD_CASES)
def test_nodes_saved_values_and_gradients_are_torchs(case: str, values: str) -> None:
    same_node_and_gradients(
        lambda t: t.tensor(GRAD_VALUES[values], requires_grad=True),
        lambda t, x: GRADS[case](t, x.reshape(2, 3)),
    )


@pytest.mark.parametrize("op", ["sort", "topk"])
def test_gradients_of_a_0d_and_an_empty_tensor_are_torchs(op: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor(2.5, requires_grad=True)
        e = t.zeros(2, 0, requires_grad=True)
        y = x.sort().values if op == "sort" else x.topk(1).values
        z = e.sort().values if op == "sort" else e.topk(0).values
        (y * 3).backward()
        z.sum().backward()
        return y, y.grad_fn, z, grad_of(x), grad_of(e)

    same(program)


def test_second_order_gradients() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        out = (x.sort(1).values ** 2 * t.tensor([1.0, 2.0, 3.0])).sum() + (
            x.topk(1, 0).values ** 3
        ).sum()
        (gx,) = t.autograd.grad(out, x, create_graph=True)
        return gx, plain(t.autograd.grad(gx.sum(), x))

    same(program)


def test_a_write_into_the_saved_indices_is_seen_by_backward() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([3.0, 1.0, 2.0], requires_grad=True)
        values, indices = x.sort()
        indices.add_(0)
        return error_of(lambda: values.sum().backward()) or x.grad

    same(program)
