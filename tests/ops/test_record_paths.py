"""Recording a node: ``ops.common.run_op`` gives a node of one, two or three inputs their edges and
input dtypes (shared: ``ops.common.shared_dtypes``) and its result the history, and the graphs it
builds agree with torch's."""

from __future__ import annotations

import itertools
from types import ModuleType
from typing import Any

import pytest

import ownership
from ownership.ops import common

from support.differential import same
from support.gradients import plain
from support.nn_models import graph


def _operands() -> dict[str, Any]:
    leaf = ownership.tensor([1.0, 2.0], requires_grad=True)
    with ownership.no_grad():
        no_grad_view = leaf.view(2)  # requires grad, but no edge
    return {
        "leaf": leaf,
        "non-leaf": leaf * 2,
        "view": leaf.view(2),
        "no-grad view": no_grad_view,
        "constant": ownership.tensor([3.0, 4.0]),
        "float64": ownership.tensor([1.0, 2.0], dtype=ownership.float64, requires_grad=True),
        "int64": ownership.tensor([1, 2]),
        "number": 2.5,
    }


def _recorded(inputs: tuple[Any, ...]) -> Any:
    out = common.run_op(
        inputs, True, lambda: ownership.zeros(2), "TestBackward0", lambda node, s, g: g
    )
    return out.grad_fn, out


@pytest.mark.parametrize("count", [1, 2, 3])
def test_a_node_has_an_edge_and_a_dtype_per_input(count: int) -> None:
    operands = _operands()
    for names in itertools.product(operands, repeat=count):
        inputs = tuple(operands[n] for n in names)
        node, out = _recorded(inputs)
        edges, dtypes = common._edges_and_dtypes(inputs)
        assert node.next_functions == edges, names
        assert node.input_dtypes == dtypes, names
        if count < 3 and names != ("number",):  # one tensor or two inputs: one shared tuple
            assert node.input_dtypes is common.shared_dtypes(dtypes), names
        assert (out._grad_fn, out._requires_grad, out._output_nr) == (node, True, 0)


def test_binary_graphs_agree_with_torch() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, -2.0], requires_grad=True)
        c = t.tensor([3.0, 4.0])
        d = t.tensor([0.5, 0.25], dtype=t.float64, requires_grad=True)
        outs = [x * c, c * x, x + 2.0, 3.0 - x, x / d, x.view(2) - x]
        sum(o.sum() for o in outs).backward()
        return [[graph(o.grad_fn) for o in outs], outs, plain(x.grad), plain(d.grad)]

    same(program)


def test_where_graph_agrees_with_torch() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, -2.0], requires_grad=True)
        return graph(t.where(x > 0, x, t.tensor([3.0, 4.0])).grad_fn)

    same(program)


def test_where_saves_its_condition_as_torch_does() -> None:
    """``_saved_condition`` is the condition; writing it in place before backward is the version
    error, and a scalar branch gets no edge."""

    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, -2.0], requires_grad=True)
        c = x > 0
        y = t.where(c, x, 2.0)
        seen = [y.grad_fn._saved_condition.tolist(), len(y.grad_fn.next_functions)]
        y.sum().backward(retain_graph=True)
        seen.append(x.grad.tolist())
        c.zero_()
        try:
            y.sum().backward()
        except RuntimeError as e:
            seen.append(str(e).split(";")[0])
        return seen

    same(program)
