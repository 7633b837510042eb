"""Every op's node matches torch's: name, ``next_functions`` and the ``_saved_*`` it lists."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

from support.differential import same


def ops(t: ModuleType) -> dict[str, Any]:
    x = t.tensor([0.5, 1.0, 2.0], requires_grad=True)
    w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = t.ones(3, 3, requires_grad=True)
    return {
        "mul": x * w,
        "mul_scalar": x * 2,
        "add": x + w,
        "sub": x - w,
        "div": x / w,
        "div_s": x / 2,
        "pow": x**2,
        "pow_t": x**w,
        "exp": x.exp(),
        "log": x.log(),
        "sqrt": x.sqrt(),
        "abs": x.abs(),
        "sigmoid": x.sigmoid(),
        "tanh": x.tanh(),
        "relu": x.relu(),
        "clamp": x.clamp(0, 1),
        "neg": -x,
        "sum": x.sum(),
        "sum_d": m.sum(0),
        "mean": x.mean(),
        "mean_d": m.mean(1),
        "max": x.max(),
        "max_d": m.max(0)[0],
        "mm": m @ m,
        "mv": m @ x,
        "dot": x @ w,
        "softmax": x.softmax(0),
        "log_softmax": x.log_softmax(0),
        "view": x.view(3, 1),
        "t": m.t(),
        "T": m.T,
        "transpose": m.transpose(0, 1),
        "permute": m.permute(1, 0),
        "expand": x.expand(2, 3),
        "unsqueeze": x.unsqueeze(0),
        "squeeze": m[:1].squeeze(),
        "select": x[0],
        "slice": x[1:],
        "clone": x.clone(),
        "index": x[[0, 1]],
        "unbind": x.unbind()[0],
        "split": x.split(1)[0],
        "ce": t.nn.functional.cross_entropy(m, t.tensor([0, 1, 2])),
        "mse": t.nn.functional.mse_loss(x, w),
        "rsub": 1 - x,
        "rdiv": 1 / x,
        "rpow": 2**x,
        "to": x.double(),
        "contig": m.t().contiguous(),
        "reshape_copy": m.t().reshape(9),
    }


def test_nodes_list_torchs_saved_names_and_edges() -> None:
    def program(t: ModuleType) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            made = ops(t)
        out = {}
        for key, y in made.items():
            fn = y.grad_fn
            out[key] = [
                fn.name(),
                [(n.name() if n is not None else None, i) for n, i in fn.next_functions],
                sorted(a for a in dir(fn) if a.startswith("_saved_")),
            ]
        return out

    same(program)
