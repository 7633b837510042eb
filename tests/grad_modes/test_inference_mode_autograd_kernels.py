"""What autograd's own kernels do with inference mode and inference tensors.

torch runs an op's autograd kernel only when one of its tensor arguments is a normal tensor
(inference tensors carry no autograd key) and inference mode is off:

- ``detach_()`` is autograd's kernel alone: in inference mode, or on an inference tensor, it does
  nothing (a view's refusal included) and the tensor keeps its flags, ``grad_fn`` and version;
- an index is an argument too: an inference tensor made with ``requires_grad=True``, indexed
  outside the block by a normal index tensor (a list becomes one), gets ``IndexBackward0``
  (``index_select``, ``gather`` alike: ``gather`` then refuses to save the inference tensor);
  indexed by an inference index tensor, or viewed, it stays out of the graph.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same


def _state(x: Any) -> list[Any]:
    version = None if x.is_inference() else x._version
    return [x, x.requires_grad, x.is_leaf, x.grad_fn, version, x.is_inference()]


def test_detach__in_inference_mode_leaves_a_non_leaf_and_its_view_as_they_were() -> None:
    """The issue's program: torch neither detaches ``d`` nor refuses its view ``v``."""

    def program(t: Any) -> Any:
        d = t.tensor([1.0, 2.0], requires_grad=True) * 2
        v = d.unsqueeze(0)
        with t.inference_mode():
            inside = [d.detach_() is d, v.detach_() is v, *_state(d), *_state(v)]
        (v * 3).sum().backward(retain_graph=True)
        return [*inside, *_state(d), *_state(v), v._base is d, (d * 2).grad_fn]

    same(program)


def test_detach__in_inference_mode_leaves_a_leaf_requiring_grad() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.inference_mode():
            x.detach_()
            inside = _state(x)
        (x * 2).sum().backward()
        return [*inside, *_state(x), x.grad]

    same(program)


def test_detach__of_a_view_first_then_its_base_in_inference_mode() -> None:
    def program(t: Any) -> Any:
        d = t.tensor([1.0, 2.0], requires_grad=True).exp()
        v = d[1:]
        with t.inference_mode():
            v.detach_()
            d.detach_()
        return [*_state(d), *_state(v)]

    same(program)


def test_detach__with_inference_mode_switched_off_inside_it_detaches() -> None:
    def program(t: Any) -> Any:
        d = t.tensor([1.0, 2.0], requires_grad=True) * 2
        v = d[:1]
        with t.inference_mode(), t.inference_mode(False):
            d.detach_()
            refused: Any = None
            try:
                v.detach_()
            except RuntimeError as e:
                refused = str(e)
        return [*_state(d), refused]

    same(program)


def test_detach__of_an_inference_tensor_requiring_grad_does_nothing_outside_the_block() -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            f = t.tensor([1.0, 2.0], requires_grad=True)
            g = t.ones(2)
        return [f.detach_() is f, *_state(f), g.detach_() is g, *_state(g)]

    same(program)


INDEXED: dict[str, Any] = {
    "by a list": lambda t, f, i, m: f[[0, 2]],
    "by an index tensor": lambda t, f, i, m: f[t.tensor([2, 0])],
    "by an inference index tensor": lambda t, f, i, m: f[i],
    "by a mask": lambda t, f, i, m: f[t.tensor([True, False, True])],
    "by an inference mask": lambda t, f, i, m: f[m],
    "by a mask of itself": lambda t, f, i, m: f[f > 0],
    "by an int and a list": lambda t, f, i, m: f.view(1, 3)[0, [1, 2]],
    "by a slice and a list": lambda t, f, i, m: f.view(1, 3)[:, [1, 2]],
    "index_select": lambda t, f, i, m: f.index_select(0, t.tensor([1, 0])),
    "index_select by an inference index": lambda t, f, i, m: f.index_select(0, i),
    "gather": lambda t, f, i, m: f.gather(0, t.tensor([1, 0])),
    "a slice": lambda t, f, i, m: f[1:],
    "an int": lambda t, f, i, m: f[1],
}


@pytest.mark.parametrize("index", INDEXED.values(), ids=INDEXED.keys())
def test_an_inference_tensor_requiring_grad_indexed_outside_the_block(index: Any) -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            f = t.tensor([-1.5, 1.0, 0.5], requires_grad=True)
            i = t.tensor([0, 2])
            m = t.tensor([True, False, True])
        y = index(t, f, i, m)
        facts = _state(y)
        if y.requires_grad:
            y.sum().backward()
            facts.append(grad_of(f))
        return facts

    same(program)


def test_the_issues_program() -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            f = t.tensor([-1.5, 1.0, 0.5], requires_grad=True)
        return f[[0, 2]].requires_grad

    assert same(program) is True
