"""Writes whose input shares memory with the written tensor, where torch neither refuses nor reads
every input before writing.

torch refuses an input that partly overlaps the written tensor only when both are non-overlapping
and dense (``get_overlap_status``; ``TOO_HARD`` otherwise, and the write goes on); its kernel then
reads and writes as its loop goes (``ownership.ops.loop_order``): an element written early is read by
a later one, element by element along a strided row, two vectors at a time along a contiguous one.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from support.differential import same


def _seed_32(t: Any) -> Any:  # a non-dense written tensor: the shape error, not the overlap
    t2 = t.arange(4.0, dtype=t.float32).view(2, 2)
    with t.inference_mode():
        t2.select(1, 0).mul_(t2)


def _seed_116(t: Any) -> Any:
    t1 = t.tensor([[True, True, True], [False, False, False]], dtype=t.bool)
    t2 = t1.contiguous()
    t1[:, [1, 0]] = t2[..., :1]
    return t1, t1._version, t2._version


def _column_into_itself(values: Any, dtype: str, index: bool = False) -> Any:
    def program(t: Any) -> Any:
        t1 = t.tensor(values, dtype=getattr(t, dtype))
        if index:
            t1 = t1.index_select(0, t.tensor([1, 0]))
        t1[:, [1, 0]] = t1[..., :1]
        return t1, t1._version

    return program


def _seed_145(t: Any) -> Any:
    t1 = t.tensor([[-0.0, -1.0], [-2.0, 1.5]], dtype=t.float32, requires_grad=True)
    t1.requires_grad_(False)
    t1.select(1, 0).mul_(t1)


def _seed_265(t: Any) -> Any:
    t1 = t.tensor([[1, 1], [-3, 0], [2, -3]], dtype=t.int64)
    t2 = t1.masked_fill(t1 > 0, 1.5)
    t3 = t2**2
    t3[:, [1, 0]] = t3[..., :1]
    return t3, t3._version


def _seed_20074(t: Any) -> Any:  # copy_ of a tensor's own data returns before any check
    with t.set_grad_enabled(False):
        t3 = t.arange(6.0, dtype=t.float32).view(2, 3)
    t9 = t3.data
    t9.expand(2, 2, 3)[...] = t9
    return t9, t9._version


def _seed_20158(t: Any) -> Any:
    t1 = t.tensor([True, False, False], dtype=t.bool)
    t12 = t1.detach()[t.tensor([0, -1])]
    t13 = t12.expand(2, 2)
    t13[...] = t12
    return t12, t12._version, t13._version


FUZZ_PROGRAMS = {
    "seed 32": _seed_32,
    "seed 116": _seed_116,
    "seed 125": _column_into_itself([[False, False], [False, True]], "bool"),
    "seed 128": _column_into_itself([[1.0, 1.0], [1.0, 1.0]], "float32"),
    "seed 145": _seed_145,
    "seed 222": _column_into_itself([[0.0, 1.0], [2.0, 3.0]], "float64", index=True),
    "seed 242": _column_into_itself([[3, -2], [-3, -2]], "int64"),
    "seed 265": _seed_265,
    "seed 273": _column_into_itself([[3.0, -0.0], [-1.0, 3.0]], "float32"),
    "seed 20074": _seed_20074,
    "seed 20158": _seed_20158,
}


@pytest.mark.parametrize("program", FUZZ_PROGRAMS)
def test_the_fuzzers_overlapping_writes(program: str) -> None:
    """The fuzzer's programs (``tests/programs/test_fuzz_programs.py``), shrunk."""
    same(FUZZ_PROGRAMS[program])


WRITES = {
    # along a strided row, element by element: each reads what the one before it wrote
    "x[1:, 0].copy_(x[:-1, 0])": lambda t, x: x[1:, 0].copy_(x[:-1, 0]),
    "x[1:, 0].add_(x[:-1, 0])": lambda t, x: x[1:, 0].add_(x[:-1, 0]),
    "x[1:, ::2].mul_(x[:-1, ::2])": lambda t, x: x[1:, ::2].mul_(x[:-1, ::2]),
    "x.diagonal()[1:].sub_(x.diagonal()[:-1], alpha=2)": lambda t, x: x.diagonal()[1:].sub_(
        x.diagonal()[:-1], alpha=2
    ),
    "x[1:, 0].div_(x[:-1, 0])": lambda t, x: x[1:, 0].div_(x[:-1, 0]),
    "x.t()[1:].add_(x.t()[:-1])": lambda t, x: x.t()[1:].add_(x.t()[:-1]),
    # a row shorter than two vectors: its column of a 0 stride read afresh by each element
    "x[:, :2] *= x[:, :1]": lambda t, x: x[:, :2].__imul__(x[:, :1]),
    "x[1:, :2][...] = x[:-1, :1]": lambda t, x: x[1:, :2].__setitem__(Ellipsis, x[:-1, :1]),
    # no element reads what another wrote: the order does not matter
    "x[:, 0].copy_(x[0])": lambda t, x: x[:, 0].copy_(x[0]),
    # the other in-place ops of two tensors: the 0-d divisor read afresh by each element
    "x.diagonal().mul_(x[1, 1])": lambda t, x: x.diagonal().mul_(x[1, 1]),
    "x.diagonal()[1:].remainder_(x.diagonal()[:-1])": lambda t, x: x.diagonal()[1:].remainder_(
        x.diagonal()[:-1]
    ),
    "x[1:, 0].floor_divide_(x[:-1, 0])": lambda t, x: x[1:, 0].floor_divide_(x[:-1, 0]),
    "x[1:, 0].clamp_(min=x[:-1, 0])": lambda t, x: x[1:, 0].clamp_(min=x[:-1, 0]),
    "x[1:, 0].clamp_(min=x[:-1, 1], max=x[:-1, 0])": lambda t, x: x[1:, 0].clamp_(
        min=x[:-1, 1], max=x[:-1, 0]
    ),
}
SHAPES = {"float32 4x4": ("float32", 4, 4), "int64 4x4": ("int64", 4, 4)}
# rows of 40: two vectors at a time (16 float32 or 8 float64 on AVX2), each pair read before
# it is written; a broadcast column read once per row
ROWS = {
    "float32 3x40": ("float32", 3, 40),
    "float64 3x40": ("float64", 3, 40),
    "int64 3x40": ("int64", 3, 40),
}
VECTOR_WRITES = {
    "x[:, 1:].copy_(x[:, :-1])": lambda t, x: x[:, 1:].copy_(x[:, :-1]),
    "x[:, 1:].add_(x[:, :-1])": lambda t, x: x[:, 1:].add_(x[:, :-1]),
    "x[:, :-1] *= x[:, :1]": lambda t, x: x[:, :-1].__imul__(x[:, :1]),
    "x[1:, 8:].add_(x[:-1, :-8])": lambda t, x: x[1:, 8:].add_(x[:-1, :-8]),
}


def _written(dtype: str, rows: int, cols: int, write: Any) -> Any:
    def program(t: Any) -> Any:
        x = ((t.arange(rows * cols) * 7) % 11 - 3).to(getattr(t, dtype)).view(rows, cols)
        write(t, x)
        return x, x._version

    return program


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("write", WRITES)
def test_a_write_in_its_loops_order_element_by_element(write: str, shape: str) -> None:
    same(_written(*SHAPES[shape], WRITES[write]))


@pytest.mark.parametrize("shape", ROWS)
@pytest.mark.parametrize("write", VECTOR_WRITES)
def test_a_write_in_its_loops_order_two_vectors_at_a_time(write: str, shape: str) -> None:
    same(_written(*ROWS[shape], VECTOR_WRITES[write]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_power_reads_the_exponent_its_loop_wrote(dtype: str) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([[2.0, 0.0], [3.0, 0.0], [2.0, 0.0], [2.0, 0.0]], dtype=getattr(t, dtype))
        x[1:, 0].pow_(x[:-1, 0])  # 3 ** 2, then 2 ** 9, then 2 ** 512
        return x

    same(program)


def test_a_bool_product_is_written_element_by_element() -> None:
    """torch's ``mul`` of bools has no vector loop (``cpu_kernel``), even along a long row."""

    def program(t: Any) -> Any:
        x = t.tensor([True, False] * 20 + [True] * 40).view(2, 40)
        x[:, :-1].mul_(x[:, 1:])
        x[:, 1:].add_(x[:, :-1])
        return x

    same(program)


@pytest.mark.parametrize("write", ["add_(1)", "mul_(2)", "neg_()", "exp_()", "sigmoid_()"])
def test_a_tensor_whose_elements_overlap_is_written_in_order(write: str) -> None:
    """``as_strided_`` makes elements share memory without a 0 stride: torch's ``TOO_HARD``,
    written as its loop goes (``add_`` adds to a location as often as elements share it)."""

    def program(t: Any) -> Any:
        x = t.arange(12.0) - 5
        y = x[:9]
        y.as_strided_((3, 3), (1, 1))  # rows of 3: element by element
        eval(f"y.{write}")
        z = t.arange(40.0)[:36] / 8
        z.as_strided_((2, 20), (2, 1))  # rows of 20: a block of two vectors, then 4 elements
        eval(f"z.{write}")
        return x, z

    same(program)


def _view(rng: random.Random, shape: tuple[int, ...]) -> str:
    """A random chain of views of ``x`` (of ``shape``), as source."""
    import torch

    source = "x"
    for _ in range(rng.randint(1, 3)):
        v = eval(source, {"x": torch.empty(shape)})
        options = []
        d = rng.randrange(v.dim()) if v.dim() else 0
        if v.dim() and v.shape[d] > 1:
            a = rng.randrange(v.shape[d] - 1)
            b = rng.randint(a + 1, v.shape[d])
            options.append(f"{source}[{':, ' * d}{a}:{b}:{rng.choice([1, 2, 3])}]")
            options.append(f"{source}.select({d}, {rng.randrange(v.shape[d])})")
        if v.dim() >= 2:
            options += [f"{source}.transpose(0, 1)", f"{source}.diagonal()", f"{source}[None]"]
        if not options:
            break
        source = rng.choice(options)
    return source


@pytest.mark.parametrize("seed", range(6))
def test_random_writes_between_views_of_one_tensor(seed: int) -> None:
    """Random views of one tensor written from each other by each op: torch's refusal, or its
    values."""
    rng = random.Random(seed)
    shapes = [(4, 4), (3, 5), (2, 3, 4), (2, 40), (40, 2), (5, 20)]
    ops = ["copy_", "add_", "sub_", "mul_", "div_"]
    for _ in range(25):
        dtype = rng.choice(["float32", "float64", "int64", "bool"])
        shape = rng.choice(shapes)
        out, src, op = _view(rng, shape), _view(rng, shape), rng.choice(ops)
        statement = f"{out}.{op}({src})"

        def program(
            t: Any, dtype: str = dtype, shape: Any = shape, statement: str = statement
        ) -> Any:
            n = 1
            for size in shape:
                n *= size
            x = ((t.arange(n) * 7) % 11 - 3).to(getattr(t, dtype)).view(*shape)
            exec(statement, {"x": x})
            return x

        same(program)


INDEX_WRITES = {
    # index_put_ reads its value element by element as its loop goes (cpu_index_kernel)
    "x[[0, 1, 2, 3]] = x[:, 0]": lambda t, x: x.__setitem__([0, 1, 2, 3], x[:, 0]),
    "x[[1, 2, 3]] = x[:3, :1]": lambda t, x: x.__setitem__([1, 2, 3], x[:3, :1]),
    "x[[1, 2, 3], 0] = x[:3, 0]": lambda t, x: x.__setitem__(([1, 2, 3], 0), x[:3, 0]),
    "x[1:, [0]] = x[:-1, :1]": lambda t, x: x.__setitem__((slice(1, None), [0]), x[:-1, :1]),
    "x[[1, 2, 3], [1, 2, 3]] = x.diagonal()[:3]": lambda t, x: x.__setitem__(
        ([1, 2, 3], [1, 2, 3]), x.diagonal()[:3]
    ),
    "x[:, [1, 0]] = x[..., :1]": lambda t, x: x.__setitem__((slice(None), [1, 0]), x[..., :1]),
    "x[x > 2] = x[0, 0]": lambda t, x: x.__setitem__(x > 2, x[0, 0]),
    # the value is the written tensor's very elements (fuzz program 408475): a scatter's reads
    # do not follow its writes, so its loop order still decides
    "y[:, [1, 0]] = y[..., :1], y of shape (4, 2, 1)": lambda t, x: _permuted_into_itself(x),
}


def _permuted_into_itself(x: Any) -> None:
    y = x[:, 1:3].view(4, 2, 1)
    y[:, [1, 0]] = y[..., :1]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("write", INDEX_WRITES)
def test_an_index_write_reads_its_value_as_its_loop_goes(write: str, dtype: str) -> None:
    same(_written(dtype, 4, 4, INDEX_WRITES[write]))


def test_an_index_write_of_indices_apart_orders_its_loop_by_them() -> None:
    """Indices that are not adjacent (``x[i, :, j]``) go first in the loop, as in the result."""

    def program(t: Any) -> Any:
        x = t.arange(24.0).view(2, 3, 4)
        x[[1, 0], :, [0, 1]] = x[:, 0, :3]
        y = t.arange(60.0).view(3, 4, 5)
        y[:, [1, 2, 3]] = y[:, :3, :1]
        return x, y

    same(program)
