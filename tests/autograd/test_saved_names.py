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


def more_ops(t: ModuleType) -> dict[str, Any]:
    """Ops whose backward reads input shapes or which inputs need a gradient."""
    x = t.ones(4, 3, requires_grad=True)
    w = t.ones(2, 3, requires_grad=True)
    b = t.zeros(2, requires_grad=True)
    v = t.tensor([0.5, 1.0, 2.0], requires_grad=True)
    f = t.nn.functional
    return {
        "linear": f.linear(x, w, b),
        "linear_3d": f.linear(x.view(2, 2, 3), w, b),
        "batch_norm": f.batch_norm(x, None, None, training=True),
        "batch_norm_eval": f.batch_norm(x, t.zeros(3), t.ones(3), v, v, training=False),
        "broadcast_mul": x * v,
        "broadcast_div": x / v,
        "broadcast_pow": x**v,
        "mul_no_grad_other": v * t.ones(3),
        "matmul_fold": t.matmul(x.view(2, 2, 3), w.t()),
        "vec_mat": t.matmul(v, x.t()),
        "max_dim": x.max(0)[0],
        "min": x.min(),
        "nll": f.nll_loss(x.log_softmax(1), t.tensor([0, 1, 2, 0])),
        "cat": t.cat([x, x]),
        "stack": t.stack([x, x]),
        "add_": x.clone().add_(v, alpha=2),
        "sub_": x.clone().sub_(v),
        "mul_": x.clone().mul_(2),
        "div_": x.clone().div_(v),
        "exp_": x.clone().exp_(),
    }


def node_pairs(theirs: Any, ours: Any, *, ops_only: bool = False) -> Any:
    """torch's and the engine's nodes of one graph, in pairs, walking both by ``next_functions``
    (``ops_only``: not below a node that is no op's, such as an accumulator)."""
    yield theirs, ours
    for (t_fn, _), (o_fn, _) in zip(theirs.next_functions, ours.next_functions, strict=True):
        if t_fn is not None and (not ops_only or hasattr(o_fn, "unpack_all")):
            yield from node_pairs(t_fn, o_fn, ops_only=ops_only)


def test_saved_dict_is_exactly_torchs_saved_names() -> None:
    """What a backward reads by name (``unpack_all``) is what torch shows as ``_saved_*``, on
    every node of each graph: what only the backward needs is in the node's slots."""
    import torch

    import ownership

    def saved(fn: Any) -> list[str]:
        return sorted(a.removeprefix("_saved_") for a in dir(fn) if a.startswith("_saved_"))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {**ops(torch), **more_ops(torch)}
        ours = {**ops(ownership), **more_ops(ownership)}
    checked = 0
    for key, y in theirs.items():
        for t_fn, o_fn in node_pairs(y.grad_fn, ours[key].grad_fn, ops_only=True):
            assert o_fn.name() == t_fn.name(), key
            assert sorted(o_fn.unpack_all()) == saved(t_fn), f"{key}: {o_fn.name()}"
            checked += 1
    assert checked > len(theirs)


def test_dir_lists_no_name_torch_does_not_list() -> None:
    """``dir(grad_fn)`` lists torch's ``_saved_*`` names and no engine-private one (``_saved``,
    ``_ctx``, ``_seq``): every underscore name it lists, torch lists too, on every node of each
    graph, leaves' ``AccumulateGrad`` included."""
    import torch

    import ownership

    def private(fn: Any) -> list[str]:
        return sorted(a for a in dir(fn) if a[0] == "_" and a[:2] != "__")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {**ops(torch), **more_ops(torch)}
        ours = {**ops(ownership), **more_ops(ownership)}
    checked = 0
    for key, y in theirs.items():
        for t_fn, o_fn in node_pairs(y.grad_fn, ours[key].grad_fn):
            assert set(private(o_fn)) <= set(private(t_fn)), f"{key}: {o_fn.name()}"
            checked += 1
    assert checked > len(theirs)


def test_names_starting_with_saved_are_torchs() -> None:
    def program(t: ModuleType) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            made = {**ops(t), **more_ops(t)}
        return {k: [a for a in dir(y.grad_fn) if a.startswith("_saved")] for k, y in made.items()}

    same(program)
