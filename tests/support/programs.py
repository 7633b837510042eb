"""The interpreter of random small programs: a table of ops and :func:`run_program`.

A program is a list of steps ``(op, a, b, mode)``: apply op number ``op`` of :data:`TABLE` to
tensors ``a`` and ``b`` of a growing pool (views, out-of-place ops, in-place ops, detach,
``.data``, ``retain_grad``), with grad mode on or off, then finish with a backward (once or
twice), an ``autograd.grad`` or nothing. :func:`run_program` returns everything a learner could
see. Used by the hypothesis search (``tests/programs/test_programs_hypothesis.py``) and by its
seeded, deterministic batch (``test_random_programs_seeded.py``). ``support.fuzz`` goes further: its
programs are torch source, every live tensor is compared after every statement, and a failing
program prints as a shrunk torch program.
"""

from __future__ import annotations

import numpy as np

from support.custom_functions import square
from support.gradients import plain


def broadcasts_to(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    """Whether a tensor of shape ``src`` broadcasts to ``dst`` (also used by ``support.fuzz``)."""
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
    "mul": lambda t, a, b: a * (b if broadcasts_to(tuple(b.shape), tuple(a.shape)) else b.sum()),
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
        a.copy_(b) if broadcasts_to(tuple(b.shape), tuple(a.shape)) else a.copy_(b.sum())
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
