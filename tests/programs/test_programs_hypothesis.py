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
from custom_functions import square
from engine_gradients import plain
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from differential import same

MAX_EXAMPLES = 500  # per test; the mixed programs get three times as many
SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
MANY = settings(SETTINGS, max_examples=3 * MAX_EXAMPLES)


def _broadcasts_to(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(src, dst) == dst
    except ValueError:
        return False


# Each op: (needs ndim >= k, function(t, a, b) -> new tensor or None for in-place on a).
VIEWS = {
    "view": (1, lambda t, a, b: a.view(-1)),
    "reshape": (1, lambda t, a, b: a.reshape(-1, 1)),
    "flatten": (0, lambda t, a, b: a.flatten()),
    "t": (2, lambda t, a, b: a.t()),
    "transpose": (2, lambda t, a, b: a.transpose(0, -1)),
    "permute": (2, lambda t, a, b: a.permute(*reversed(range(a.ndim)))),
    "select": (1, lambda t, a, b: a[0]),
    "slice": (1, lambda t, a, b: a[1:]),
    "step": (1, lambda t, a, b: a[::2]),
    "narrow": (1, lambda t, a, b: a.narrow(0, 0, 1)),
    "unsqueeze": (0, lambda t, a, b: a.unsqueeze(0)),
    "squeeze": (0, lambda t, a, b: a.unsqueeze(0).squeeze(0)),
    "expand": (0, lambda t, a, b: a.unsqueeze(0).expand(2, *a.shape)),
    "unbind": (1, lambda t, a, b: a.unbind(0)[-1]),
    "split": (1, lambda t, a, b: a.split(1)[0]),
    "chunk": (1, lambda t, a, b: a.chunk(2)[0]),
    "detach": (0, lambda t, a, b: a.detach()),
    "data": (0, lambda t, a, b: a.data),
    "clone": (0, lambda t, a, b: a.clone()),
    "advanced": (1, lambda t, a, b: a[t.tensor([0, 0])]),
    "mask": (0, lambda t, a, b: a[a > 0]),
    "contiguous_t": (2, lambda t, a, b: a.t().contiguous()),
    "reshape_copy": (2, lambda t, a, b: a.t().reshape(-1)),
    "new_leaf": (0, lambda t, a, b: a.detach().clone().requires_grad_()),
}

OUT_OF_PLACE = {
    "exp": lambda t, a, b: a.exp(),
    "sigmoid": lambda t, a, b: a.sigmoid(),
    "tanh": lambda t, a, b: a.tanh(),
    "relu": lambda t, a, b: a.relu(),
    "pow": lambda t, a, b: a**2,
    "mul_scalar": lambda t, a, b: a * 1.5,
    "mul": lambda t, a, b: a * (b if _broadcasts_to(tuple(b.shape), tuple(a.shape)) else b.sum()),
    "add": lambda t, a, b: a + b.mean(),
    "div": lambda t, a, b: a / (b.abs().sum() + 1.0),
    "sum_dim": lambda t, a, b: a.sum(0) if a.ndim else a.sum(),
    "mean": lambda t, a, b: a.mean(),
    "max": lambda t, a, b: a.max(),
    "neg": lambda t, a, b: -a,
    "clamp": lambda t, a, b: a.clamp(-0.5, 0.5),
    "sqrt": lambda t, a, b: (a.abs() + 0.1).sqrt(),
    "log": lambda t, a, b: (a.abs() + 0.5).log(),
    "softmax": lambda t, a, b: a.softmax(-1),
    "log_softmax": lambda t, a, b: a.log_softmax(-1),
    "custom_square": lambda t, a, b: _custom_square(t, a),
    "to_float64": lambda t, a, b: a * t.ones(1, dtype=t.float64),
}


def _custom_square(t, a):
    """x * x as an autograd.Function that saves its input (checked like a built-in)."""
    return square(t).apply(a)


def _done(result) -> None:
    """In-place ops return their target; the interpreter does not add it to the pool again."""
    return None


def _setitem(t, a, b):
    a[0] = b.sum()
    return None


def _iadd(t, a, b):
    a += 1.0
    return None


def _index_iadd(t, a, b):
    a[0] += 2.0
    return None


INPLACE = {
    "add_": lambda t, a, b: _done(a.add_(0.5)),
    "mul_": lambda t, a, b: _done(a.mul_(2.0)),
    "mul_tensor": lambda t, a, b: _done(a.mul_(b.mean())),
    "sub_": lambda t, a, b: _done(a.sub_(b.sum())),
    "div_": lambda t, a, b: _done(a.div_(2.0)),
    "sigmoid_": lambda t, a, b: _done(a.sigmoid_()),
    "exp_": lambda t, a, b: _done(a.exp_()),
    "relu_": lambda t, a, b: _done(a.relu_()),
    "clamp_": lambda t, a, b: _done(a.clamp_(-0.5, 0.5)),
    "zero_": lambda t, a, b: _done(a.zero_()),
    "fill_": lambda t, a, b: _done(a.fill_(0.25)),
    "copy_": lambda t, a, b: _done(
        a.copy_(b) if _broadcasts_to(tuple(b.shape), tuple(a.shape)) else a.copy_(b.sum())
    ),
    "setitem": _setitem,
    "iadd": _iadd,
    "index_iadd": _index_iadd,
    "detach_": lambda t, a, b: _done(a.detach_()),
    "retain_grad": lambda t, a, b: a.retain_grad(),
}

NEEDS_NDIM = {name: need for name, (need, _) in VIEWS.items()}
NEEDS_NDIM.update({"setitem": 1, "index_iadd": 1, "softmax": 1, "log_softmax": 1})
TABLE = (
    [(name, fn) for name, (_, fn) in VIEWS.items()]
    + list(OUT_OF_PLACE.items())
    + list(INPLACE.items())
)

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


def run_program(t, steps, finish, w_requires_grad):
    """Interpret a generated program under engine ``t``; return everything a learner could see."""
    x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
    w = t.tensor([0.3, -0.2, 0.1], requires_grad=w_requires_grad)
    pool = [x, w, x * 1.0, (x * 2.0).sigmoid(), t.ones(2, 3)]
    log = []
    for op_i, a_i, b_i, mode in steps:
        name, fn = TABLE[op_i]
        a, b = pool[a_i % len(pool)], pool[b_i % len(pool)]
        if a.ndim < NEEDS_NDIM.get(name, 0) or (a.ndim >= 1 and a.shape[0] == 0):
            log.append(f"skip {name}")
            continue
        with t.set_grad_enabled(mode == "grad"):
            out = fn(t, a, b)
        log.append(name)
        if out is not None:
            pool.append(out)
    float_pool = [v for v in pool if v.requires_grad]
    grads = None
    if finish != "none" and float_pool:
        loss = sum((v * (k + 1.0)).sum() for k, v in enumerate(float_pool))
        if finish == "autograd_grad":
            leaves = [v for v in (x, w) if v.requires_grad]
            grads = list(t.autograd.grad(loss, leaves, allow_unused=True))
        else:
            loss.backward(retain_graph=finish == "backward_twice")
            if finish == "backward_twice":
                loss.backward()
    return {
        "log": log,
        "pool": pool,
        "x.grad": plain(x.grad) if x.is_leaf or x.retains_grad else "non-leaf",
        "w.grad": plain(w.grad) if w.is_leaf or w.retains_grad else "non-leaf",
        "grads": plain(grads),
        "versions": [v._version for v in pool],
        "retained": [plain(v.grad) if v.retains_grad else None for v in pool],
        "is_view": [v._base is not None for v in pool],
    }


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
