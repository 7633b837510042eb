"""The cheap recording of a chain of tiny ops agrees with the general path and with torch.

- ``add``/``sub`` of the default ``alpha`` share one read-only context (no dict per node): the
  same ``_saved_alpha`` as torch's, before and after backward, and as a node of any other alpha.
- ``mul`` by a Python number shows torch's saved values.
- The ops that save their own output (``tanh``) save it with ``OpNode.save_result``: what
  ``save`` saves; their nodes share one empty context.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import ownership
from ownership.ops.arithmetic import (
    ALPHA_ONE,
    bw_mul,
)
from ownership.ops.common import run_op
from ownership.ops.unary import NO_CONTEXT

from support.differential import error_of, grad_of, same


def alphas(t: ModuleType) -> dict[str, Any]:
    """What add and sub nodes show of ``alpha``, for every kind of alpha, before and after
    backward, and the gradients through them."""
    x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = t.tensor([1.5, 2.0, -0.5], requires_grad=True)
    made = {
        "add": x + w,
        "add_number": x + 0.1,
        "sub": x - w,
        "sub_number": x - 0.05,
        "add_alpha_2": t.add(x, w, alpha=2),
        "sub_alpha_float": t.sub(x, w, alpha=1.0),
        "add_alpha_true": t.add(x, w, alpha=True),
        "radd": 0.1 + x,
    }
    out: dict[str, Any] = {}
    for key, y in made.items():
        node = y.grad_fn
        alpha = node._saved_alpha
        out[key] = (node.name(), alpha, type(alpha).__name__, "_saved_alpha" in dir(node))
    loss = sum(y.sum() for y in made.values())
    loss.backward()
    for key, y in made.items():
        out[key + "_after_backward"] = y.grad_fn._saved_alpha
    out["grads"] = (grad_of(x), grad_of(w))
    return out


def test_add_and_sub_show_torchs_alpha() -> None:
    same(alphas)


def test_the_default_alpha_is_one_shared_read_only_context() -> None:
    x = ownership.tensor([0.5, -1.0], requires_grad=True)
    nodes = [(x + 0.1).grad_fn, (x - x).grad_fn, (x * 2 + x).grad_fn]
    assert all(n._ctx is ALPHA_ONE for n in nodes)
    other = ownership.add(x, x, alpha=2).grad_fn
    assert other._ctx is not ALPHA_ONE and other._saved_alpha == 2
    with pytest.raises(TypeError):
        ALPHA_ONE["alpha"] = 2  # type: ignore[index]
    assert dict(ALPHA_ONE) == {"alpha": 1}


def test_shared_contexts_are_read_only_and_listed() -> None:
    x = ownership.tensor([0.5, -1.0], requires_grad=True)
    by_number, tanh = (x * 1.01).grad_fn, x.tanh().grad_fn
    assert tanh._ctx is NO_CONTEXT
    assert "_saved_self" in dir(by_number) and "_saved_other" in dir(by_number)
    assert "_saved_result" in dir(tanh)
    with pytest.raises(TypeError):
        NO_CONTEXT["self"] = 1  # type: ignore[index]
    assert dict(NO_CONTEXT) == {}


def number_products(t: ModuleType) -> dict[str, Any]:
    """``x * number`` as the chain makes it: saved values, errors after a write, gradients."""
    x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with t.no_grad():
        no_edge = x[1:]
    out: dict[str, Any] = {}
    for key, y in {
        "float": x * 1.01,
        "int": x * 3,
        "bool": x * True,
        "view": no_edge * 2.0,
    }.items():
        node = y.grad_fn
        out[key] = (node.name(), node._saved_self, node._saved_other, y.requires_grad)
    y = (x * 1.01).tanh() * 0.5
    y.sum().backward()
    out["grad"] = grad_of(x)
    out["freed"] = error_of(lambda: y.grad_fn._saved_other)
    return out


def test_a_product_by_a_number_is_torchs() -> None:
    same(number_products)


def _saved_slots(saved: Any) -> dict[str, Any]:
    """Every slot a saved tensor has set (its alias, if made, by identity of what it is over)."""
    from ownership.core.autograd.saved import SavedTensor

    out = {
        n: getattr(saved, n) for n in SavedTensor.__slots__ if n not in ("__weakref__", "_tensor")
    }
    made = None if saved.tensor_parts is not None else saved.tensor  # None under hooks
    out["tensor"] = None if made is None else id(made._data)
    return out


@pytest.mark.parametrize("watched", ["plain", "anomaly", "hooks"])
def test_save_result_saves_what_save_saves(watched: str) -> None:
    import contextlib

    x = ownership.tensor([0.5, -1.0, 2.0], requires_grad=True)
    ctx: Any = contextlib.nullcontext()
    if watched == "anomaly":
        ctx = ownership.autograd.set_detect_anomaly(True, check_nan=False)
    elif watched == "hooks":
        ctx = ownership.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)
    with ctx:
        out = x.tanh()
        nodes = [run_op((x,), True, lambda: out, "TanhBackward0", bw_mul).grad_fn for _ in range(2)]
        nodes[0].save("result", out, is_output=True)
        nodes[1].save_result(out)
    kinds = [type(n._saved["result"]).__name__ for n in nodes]
    assert kinds == ["SavedTensor"] * 2
    slots = [_saved_slots(n._saved["result"]) for n in nodes]
    slots[0].pop("trace"), slots[1].pop("trace")  # each save's own stack (anomaly mode)
    assert slots[0] == slots[1]
    assert list(nodes[0]._saved) == list(nodes[1]._saved) == ["result"]


def saved_results(t: ModuleType) -> dict[str, Any]:
    """What the ops that save their output show and how a write to it is refused."""
    x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
    out: dict[str, Any] = {}
    for key, y in {
        "tanh": x.tanh(),
        "exp": x.exp(),
        "relu": x.relu(),
        "sqrt": x.abs().sqrt(),
        "reciprocal": x.reciprocal(),
        "pow": x ** x.detach(),
    }.items():
        saved = y.grad_fn._saved_result
        out[key] = (saved, saved is y, saved._version, saved.grad_fn is y.grad_fn)
        out[key + "_storage"] = saved.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    y = (x * 1.01).tanh()
    y.sum().backward(retain_graph=True)
    out["grad"] = grad_of(x)
    with t.no_grad():
        y.add_(1)
    out["written"] = error_of(lambda: y.sum().backward())
    return out


def test_saved_results_are_torchs() -> None:
    same(saved_results)


def copied_nodes(t: ModuleType) -> dict[str, Any]:
    """Copying or pickling a graph node: torch refuses (a node belongs to its graph)."""
    import copy
    import pickle

    x = t.tensor([1.0, 2.0], requires_grad=True)
    nodes = {
        "mul": (x * 2.0).grad_fn,
        "add": (x + 1.0).grad_fn,
        "tanh": x.tanh().grad_fn,
        "accumulate": (x * 2.0).grad_fn.next_functions[0][0],
    }
    return {
        f"{key}_{how.__name__}": error_of(lambda: how(node))  # noqa: B023 - called at once
        for key, node in nodes.items()
        for how in (copy.copy, copy.deepcopy, pickle.dumps)
    }


def test_a_node_is_neither_copied_nor_pickled_as_torch() -> None:
    same(copied_nodes)


def shared_numbers(t: ModuleType) -> list[Any]:
    """Two products by one number: each
    node's ``_saved_other`` is its own tensor, a write to one refuses only that node's backward,
    and the other's gradient flows."""
    x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
    first, second = x * 2.5, x * 2.5
    mine, theirs = first.grad_fn._saved_other, second.grad_fn._saved_other
    out: list[Any] = [mine, mine is first.grad_fn._saved_other, mine is theirs]
    mine.add_(1)
    out += [mine, theirs, second.grad_fn._saved_other, mine._version, theirs._version]
    out.append(error_of(lambda: first.sum().backward()))
    second.sum().backward()
    out += [grad_of(x), error_of(lambda: second.grad_fn._saved_other)]
    return out


def test_products_by_one_number_each_show_their_own_saved_number() -> None:
    same(shared_numbers)


def saved_output_backwards(t: ModuleType) -> dict[str, Any]:
    """Backward through ops that save their output: once, twice (create_graph: the saved
    output is differentiated through its node), through a retained graph after the alias was
    read, and after a write to the output."""
    out: dict[str, Any] = {}
    for op in ("tanh", "exp", "relu", "sigmoid"):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = getattr(x, op)()
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
        out[op + "_first"] = (g, g.grad_fn.name() if g.grad_fn is not None else None)
        if g.requires_grad:
            (gg,) = t.autograd.grad(g.sum(), x)
            out[op + "_second"] = gg
        y = getattr(x, op)()
        z = (y * y).sum()
        z.backward(retain_graph=True)
        read = y.grad_fn._saved_result
        out[op + "_read"] = (read, read.grad_fn is y.grad_fn)
        z.backward()
        out[op + "_twice"] = grad_of(x)
        y = getattr(x, op)()
        with t.no_grad():
            y.mul_(2)
        out[op + "_written"] = error_of(lambda: y.sum().backward())  # noqa: B023 - at once
    return out


def test_backward_through_saved_outputs_is_torchs() -> None:
    same(saved_output_backwards)
