"""The recording's cheap paths agree with torch and with the paths they stand in for.

- A Python number that ``mul``/``div`` save is saved as torch saves a wrapped number, a 0-d
  tensor (``_saved_other``) made when the op runs: torch's values, dtypes, versions and errors,
  plain, under anomaly mode and under a save observer.
- A node's ``metadata`` dict is made at its first read, and is then the same dict on every read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

import ownership
from ownership.core import observers
from ownership.core.autograd.saved import SavedTensor

from support.differential import error_of, grad_of, same

MODES = ("plain", "anomaly", "observed")


@contextlib.contextmanager
def mode(t: ModuleType, name: str) -> Iterator[list[Any]]:
    """The context of a program: ``anomaly`` turns anomaly mode on (in both engines),
    ``observed`` registers a save observer (ownership's doctor hook point; torch has none)."""
    seen: list[Any] = []
    if name == "anomaly":
        with t.autograd.set_detect_anomaly(True, check_nan=False):
            yield seen
    elif name == "observed" and t is ownership:
        observers.SAVES.append(seen.append)
        try:
            yield seen
        finally:
            observers.SAVES.remove(seen.append)
    else:
        yield seen


def scalar_saves(t: ModuleType, name: str) -> dict[str, Any]:
    """Every way ``mul``/``div`` save a number: read before and after backward, freed, written."""
    out: dict[str, Any] = {}
    with mode(t, name):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        made = {
            "mul_float": lambda: x * 2.5,
            "mul_int": lambda: x * 3,
            "mul_bool": lambda: x * True,
            "rmul": lambda: 2.5 * x,
            "div_float": lambda: x / 4.0,
            "div_int": lambda: x / 3,
            "mul_double": lambda: x.double() * 0.1,
        }
        for key, make in made.items():
            y = make()
            fn = y.grad_fn
            first = fn._saved_other
            out[key] = [
                first,
                fn._saved_other is first,
                first._version,
                first.requires_grad,
                sorted(a for a in dir(fn) if a.startswith("_saved_")),
            ]
            y.sum().backward(retain_graph=True)
            out[key + " grad"] = grad_of(x)
            x.grad = None
            y.sum().backward()
            out[key + " freed"] = error_of(lambda fn=fn: fn._saved_other)
            # never read before backward: the number is what the backward used
            z = make()
            z.sum().backward()
            out[key + " unread grad"] = grad_of(x)
            out[key + " unread freed"] = error_of(lambda z=z: z.grad_fn._saved_other)
            x.grad = None
            # first read in inference mode: still a normal tensor, and backward works
            v = make()
            with t.inference_mode():
                late = v.grad_fn._saved_other
            out[key + " read in inference mode"] = [late, late.is_inference()]
            v.sum().backward()
            out[key + " read in inference mode grad"] = grad_of(x)
            x.grad = None
            # read, then written in place: the backward refuses, as for any saved tensor
            w = make()
            w.grad_fn._saved_other.zero_()
            written = error_of(lambda w=w: w.sum().backward())
            # torch's message is the first line (ownership's anomaly mode lists the writes after)
            out[key + " written"] = None if written is None else written.split("\n")[0]
    return out


@pytest.mark.parametrize("name", MODES)
def test_a_saved_number_reads_as_torchs_wrapped_number(name: str) -> None:
    # Under anomaly mode each refused backward warns with the forward's stack, whose outer
    # frames differ by the harness: ownership drops the frame of its own ``compare.run`` as an
    # engine frame (the stacks themselves are tested in test_anomaly_mode)
    same(lambda t: scalar_saves(t, name), warnings=name != "anomaly")


def test_a_saved_number_is_seen_by_observers_and_traced() -> None:
    """The 0-d tensor of a saved number is saved as any saved tensor: a save observer sees it
    (the doctor's save records include it), anomaly mode keeps the forward's stack."""
    x = ownership.tensor([1.0, 2.0], requires_grad=True)
    with mode(ownership, "observed") as seen:
        observed = (x * 2.0).grad_fn._saved
    assert observed is not None and type(observed["other"]) is SavedTensor
    assert seen == [observed["other"]]
    with mode(ownership, "anomaly"):
        traced = (x / 2.0).grad_fn._saved
    assert traced is not None and type(traced["other"]) is SavedTensor
    assert traced["other"].trace is not None


def metadata(t: ModuleType) -> list[Any]:
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    fn = y.grad_fn
    acc = fn.next_functions[0][0]
    first = fn.metadata
    first["note"] = 1
    return [first, fn.metadata is first, fn.metadata, acc.metadata, acc.metadata is acc.metadata]


def test_node_metadata_is_one_dict_made_when_first_read() -> None:
    same(metadata)


def run_order(t: ModuleType) -> list[Any]:
    """The order backward reaches tensors (their hooks), on a graph that is a chain in parts
    (one node ready at a time: run without the ready queue) and branches elsewhere (several
    ready at once: the queue orders them, most recent first)."""
    order: list[str] = []
    x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)

    def mark(name: str, y: Any) -> Any:
        y.register_hook(lambda g: order.append(name))
        return y

    a = mark("a", x * 2.0)
    b = mark("b", a.tanh())
    c = mark("c", a.exp())
    d = mark("d", (b * 3.0) - 1.0)
    e = mark("e", c + d)
    f = mark("f", e * e + x)
    g = mark("g", f.sigmoid() - 0.5)
    g.sum().backward()
    return [order, grad_of(x)]


def test_backward_visits_nodes_in_torchs_order() -> None:
    same(run_order)


def test_a_save_refuses_an_inference_tensor_as_torch() -> None:
    def program(t: ModuleType) -> Any:
        with t.inference_mode():
            a = t.ones(3)
        w = t.ones(3, requires_grad=True)
        return error_of(lambda: w * a)

    same(program)


def test_an_accumulator_is_a_node_with_no_edges() -> None:
    """``AccumulateGrad`` is a ``Node((), 1)`` with its leaf, and so is the leaf's
    ``accumulator``, made by that constructor."""
    from ownership.core.autograd.node import AccumulateGrad, Node, accumulator

    x = ownership.ones(2, requires_grad=True)
    acc, node, made = AccumulateGrad(x), Node((), 1), accumulator(x)
    names = [n for n in Node.__slots__ if n not in ("__weakref__", "_seq", "_metadata")]
    fields = [{n: getattr(a, n) for n in names} for a in (acc, node, made)]
    assert fields[0] == fields[1] == fields[2]
    assert type(made) is AccumulateGrad and made is accumulator(x) and made is x._acc()
    assert acc.variable is made.variable is x and acc._seq + 1 == node._seq == made._seq - 1


def test_binary_nodes_share_their_input_shapes() -> None:
    """Nodes of binary ops over the same shapes keep one shared ``input_shapes`` tuple, equal to
    the shapes; a combination past the shared ones is kept as given."""
    from ownership.ops import common

    x = ownership.ones(2, 3, requires_grad=True)
    nodes = [(x * 2.0).grad_fn, (x + 1).grad_fn, (x * x).grad_fn, (x * x).grad_fn]
    assert [n.input_shapes for n in nodes] == [((2, 3), ())] * 2 + [((2, 3), (2, 3))] * 2
    assert nodes[0].input_shapes is nodes[1].input_shapes
    assert nodes[2].input_shapes is nodes[3].input_shapes
    kept = dict(common._SHAPES)
    try:
        common._SHAPES.update({((n,), ()): ((n,), ()) for n in range(common._SHAPES_KEPT)})
        shapes = ((5, 7, 9), ())
        assert common.shared_shapes(shapes) is shapes
        assert shapes not in common._SHAPES
    finally:
        common._SHAPES.clear()
        common._SHAPES.update(kept)
