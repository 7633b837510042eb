"""Random small programs, run under torch and ownership by the differential harness.

Three generators:

- programs mixing views, in-place ops, detach, .data, retain_grad and grad modes, ending in a
  backward (once or twice) or an autograd.grad;
- binary ops (with matmul and a comparison) on random shapes and dtypes, with their gradients;
- chains of view ops, checked for shape, strides, offset, data_ptr, ``_base`` and aliasing.

Each program must either raise the same error as torch (class and message) or end with the same
values, versions, grad_fn names and gradients. A normal run tries 1,500 mixed programs, 500 binary
ops and 500 view chains (2,500 in all), derandomized and without an example database so that CI
is deterministic.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.differential import same
from support.gradients import plain
from support.programs import TABLE, run_program

MAX_EXAMPLES = 500  # per test; the mixed programs get three times as many
SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
MANY = settings(SETTINGS, max_examples=3 * MAX_EXAMPLES)

# A generated program for support.programs.run_program: steps, how it ends, whether w needs grad.
step = st.tuples(
    st.integers(0, len(TABLE) - 1),  # op
    st.integers(0, 15),  # which tensor
    st.integers(0, 15),  # which other tensor
    st.sampled_from(["grad", "grad", "no_grad"]),  # mode of this step
)
programs = st.tuples(
    st.lists(step, min_size=1, max_size=10),
    st.sampled_from(["backward", "backward_twice", "autograd_grad", "none"]),
    st.booleans(),  # whether the second leaf requires grad
)


@MANY
@given(programs)
def test_random_programs_behave_like_torch(program) -> None:
    steps, finish, w_requires_grad = program
    same(lambda t: run_program(t, steps, finish, w_requires_grad))


shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


operands = st.sampled_from(["float32", "float64", "int64", "python"])
BINARY_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "matmul": lambda a, b: a @ b,
    "lt": lambda a, b: a < b,
}


@SETTINGS
@given(shapes, shapes, st.sampled_from(sorted(BINARY_OPS)), operands, operands, st.integers(0, 99))
def test_random_broadcasting_ops_values_and_gradients(shape_a, shape_b, op, kind_a, kind_b, seed):
    """Random shapes, dtypes (float32, float64, int64, a Python number) and binary ops."""
    rng = np.random.default_rng(seed)

    def operand(t, kind: str, shape: tuple[int, ...]):
        if kind == "python":
            return float(rng.integers(1, 4)) / 2
        if kind == "int64":
            return t.tensor(rng.integers(1, 4, size=shape).tolist())
        values = rng.uniform(0.5, 2.0, size=shape).round(3).tolist()
        return t.tensor(values, dtype=getattr(t, kind), requires_grad=True)

    def program(t):
        nonlocal rng
        rng = np.random.default_rng(seed)
        a = operand(t, kind_a if kind_a != "python" else "float32", shape_a)
        b = operand(t, kind_b, shape_b)
        out = BINARY_OPS[op](a, b)
        if out.requires_grad:
            (out * out).sum().backward()
        grads = [plain(x.grad) if hasattr(x, "grad") and x.is_leaf else None for x in (a, b)]
        # batched matmul is a composite in torch (its node names are not the contract here)
        shown = plain(out) if op == "matmul" and out.requires_grad else out
        return [shown, out.dtype, out.requires_grad, grads]

    # matmul's shape errors come from torch's internal kernels (bmm, mv, dot): class only there.
    same(program, message=None if op == "matmul" else "equal")


def _view_step(t, v, op: int, i: int, j: int):
    """Apply one view op chosen by ``op`` with integer arguments ``i``, ``j`` (reduced to fit)."""
    n = v.ndim
    if n == 0:
        return v.unsqueeze(0) if op % 2 else v.view(1)
    d, e = i % n, j % n
    size = v.shape[d]
    kinds = [
        lambda: v.transpose(d, e),
        lambda: v.permute(*[(k + i) % n for k in range(n)]),
        lambda: v.narrow(d, min(j % size, size - 1), max(1, size - j % size)) if size else v,
        lambda: v.select(d, j % size) if size else v,
        lambda: v[(slice(None),) * d + (slice(i % 2, None, 1 + j % 2),)],
        lambda: v.unsqueeze(i % (n + 1)),
        lambda: v.squeeze(d),
        lambda: v.flatten() if v.is_contiguous() else v.t() if n == 2 else v.transpose(0, -1),
        lambda: v.reshape(-1),
        lambda: v.unbind(d)[j % size] if size else v,
        lambda: v.split(1 + i % 2, dim=d)[0],
        lambda: v.chunk(2, dim=d)[-1],
        lambda: v.expand(2, *v.shape) if n < 4 else v,
        lambda: v[None, ..., j % v.shape[-1]] if v.shape[-1] else v,
    ]
    return kinds[op % len(kinds)]()


view_chains = st.lists(
    st.tuples(st.integers(0, 13), st.integers(0, 5), st.integers(0, 5)), max_size=6
)


@SETTINGS
@given(view_chains)
def test_random_view_chains_have_torchs_layout_and_aliasing(chain) -> None:
    def program(t):
        base = t.arange(24.0)
        v = base.view(2, 3, 4)
        layouts = []
        for op, i, j in chain:
            v = _view_step(t, v, op, i, j)
            aliased = v._base is base
            delta = v.data_ptr() - base.data_ptr() if aliased and v.numel() else None
            layouts.append(
                [tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(), delta, aliased]
            )
        if v.numel():
            v.view(-1)[0:1].fill_(-1.0) if v.is_contiguous() else v.mul_(-1)
        return [layouts, v, base, base._version, v._version]

    same(program)
