"""What autograd's own kernels do with inference mode and inference tensors.

torch runs an op's autograd kernel only when one of its tensor arguments is a normal tensor
(inference tensors carry no autograd key) and inference mode is off:

- ``detach_()`` is autograd's kernel alone: in inference mode, or on an inference tensor, it does
  nothing (a view's refusal included) and the tensor keeps its flags, ``grad_fn`` and version;
- an index is an argument too: an inference tensor made with ``requires_grad=True``, indexed
  outside the block by a normal index tensor (a list becomes one), gets ``IndexBackward0``
  (``index_select``, ``gather`` alike: ``gather`` then refuses to save the inference tensor);
  indexed by an inference index tensor, or viewed, it stays out of the graph;
- the calls an op's own kernel makes on the fresh (normal) tensors it allocates go through
  autograd: ``clone``, ``to`` (``double()``...), ``contiguous`` and ``sort`` copy the inference
  tensor in with ``copy_`` (``CopyBackwards`` when it requires grad, the copy at version 1),
  ``abs``, ``mean``, a whole ``var``/``std``, ``logsumexp`` and ``nan_to_num`` write through
  an out variant (refused when it requires grad: ``sum(): functions with out=...``), ``stack``
  is ``cat`` then a view (a tracked view: ``_base`` is the joined tensor); a number or a normal
  condition is an operand autograd sees (``1 - f`` is ``SubBackward0``, ``where(f > 0, f, g)``
  is ``WhereBackward0``).
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


def _leaves(t: Any) -> tuple[Any, Any]:
    """An inference tensor requiring grad and one that does not, made in the block."""
    with t.inference_mode():
        f = t.tensor([[1.5, -1.5, 1.0], [2.0, 0.5, -0.0]], requires_grad=True)
        g = t.tensor([[1.0, 2.0, 3.0], [-2.0, 0.5, 4.0]])
    return f, g


KERNELS: dict[str, Any] = {
    "double (fuzz program 43)": lambda t, x, g: x.double(),
    "to float64": lambda t, x, g: x.to(t.float64),
    "to a copy": lambda t, x, g: x.to(t.float32, copy=True),
    "to int64": lambda t, x, g: x.to(t.int64),
    "float (the tensor itself)": lambda t, x, g: x.float(),
    "clone": lambda t, x, g: x.clone(),
    "torch.clone": lambda t, x, g: t.clone(x),
    "type_as": lambda t, x, g: x.type_as(g.double()),
    "contiguous of an expanded view": lambda t, x, g: x[:1].expand(2, 3).contiguous(),
    "sort values": lambda t, x, g: x.sort().values,
    "sort indices": lambda t, x, g: x.sort(0, descending=True).indices,
    "abs": lambda t, x, g: x.abs(),
    "mean": lambda t, x, g: x.mean(),
    "mean 0": lambda t, x, g: x.mean(0),
    "var": lambda t, x, g: x.var(),
    "var 0": lambda t, x, g: x.var(0),
    "std of one row": lambda t, x, g: x[:1].std(1),
    "var_mean": lambda t, x, g: t.var_mean(x)[0],
    "logsumexp": lambda t, x, g: x.logsumexp(1),
    "nan_to_num": lambda t, x, g: x.nan_to_num(),
    "sum": lambda t, x, g: x.sum(),
    "1 - x": lambda t, x, g: 1 - x,
    "2.5 - x": lambda t, x, g: 2.5 - x,
    "x - 1": lambda t, x, g: x - 1,
    "where, a normal condition": lambda t, x, g: t.where(x.detach() > 0, x, g),
    "where, a number": lambda t, x, g: t.where(x > 0, 1.0, x),
    "stack (fuzz program 54)": lambda t, x, g: t.stack([x, g]),
    "stack 1": lambda t, x, g: t.stack([x, x], 1),
    "stack after the last dim": lambda t, x, g: t.stack([x, x], 2),
    "stack of transposes": lambda t, x, g: t.stack([x.t(), g.t()]),
    "cat": lambda t, x, g: t.cat([x, g]),
}


def _kernel_facts(t: Any, y: Any) -> list[Any]:
    # not the fresh result's own ``_version``: how often a kernel writes its result through the
    # dispatcher (a reduction's fill_, mean's sum_out and div_) is torch's artefact, as for
    # support.fuzz; the copies' version 1 is test_inference_mode's
    facts = [y.tolist(), y.dtype, y.requires_grad, y.is_leaf, y.grad_fn, y.is_inference()]
    return [*facts, y.stride(), y._base is not None]


@pytest.mark.parametrize("op", KERNELS.values(), ids=KERNELS.keys())
@pytest.mark.parametrize("requires_grad", [True, False])
def test_the_calls_of_an_ops_kernel_on_inference_tensors(op: Any, requires_grad: bool) -> None:
    def program(t: Any) -> Any:
        f, g = _leaves(t)
        x = f if requires_grad else g
        y = op(t, x, g)
        facts = _kernel_facts(t, y)
        if y.requires_grad:
            y.sum().backward()
            facts.append(grad_of(f))
        with t.no_grad():
            facts.append(_kernel_facts(t, op(t, x, g)))
        with t.inference_mode():
            facts.append(_kernel_facts(t, op(t, x, g)))
        return facts

    same(program)


OF_0D: dict[str, Any] = {
    "max(0).values (fuzz program 42265)": lambda t, x: x.max(0).values,
    "min(0, keepdim=True).values": lambda t, x: x.min(0, keepdim=True).values,
    "max(0).indices": lambda t, x: x.max(0).indices,
    "cumsum": lambda t, x: x.cumsum(0),
    "cumprod": lambda t, x: x.cumprod(0),
    "sort values": lambda t, x: x.sort(0).values,
    "topk values": lambda t, x: x.topk(1).values,
    "amax": lambda t, x: x.amax(0),
}


@pytest.mark.parametrize("op", OF_0D.values(), ids=OF_0D.keys())
def test_the_fill_of_a_kernel_on_a_0d_inference_tensor(op: Any) -> None:
    """``max``/``min`` over a dim, ``cumsum`` and ``cumprod`` of a 0-d tensor fill their result
    with ``fill_(self)`` (``FillBackward3``), ``topk`` copies it in (``CopyBackwards``)."""

    def program(t: Any) -> Any:
        with t.inference_mode():
            f = t.tensor(-1.5, dtype=t.float64, requires_grad=True)
        y = op(t, f)
        facts = _kernel_facts(t, y)
        if y.requires_grad:
            (y * 3).sum().backward()
            facts.append(grad_of(f))
        return facts

    same(program)


WRITTEN_BY_INDEX: dict[str, Any] = {
    # fuzz 92912: the value aliases the written tensor; a list index is a normal tensor
    "a list index, its own column": lambda t, f, i: f.__setitem__(
        (slice(None), [1, 0]), f[..., :1]
    ),
    "a list index, a normal value": lambda t, f, i: f.__setitem__(([0, 2],), t.zeros(2)),
    "a normal index tensor": lambda t, f, i: f.__setitem__(t.tensor([1, 0]), f[2]),
    "a mask and a number": lambda t, f, i: f.__setitem__(t.tensor([True, False, True]), 1.0),
    "an inference index tensor": lambda t, f, i: f.__setitem__(i, f[2]),
}


@pytest.mark.parametrize("write", WRITTEN_BY_INDEX.values(), ids=WRITTEN_BY_INDEX.keys())
def test_an_inference_leaf_requiring_grad_written_through_an_index(write: Any) -> None:
    """``f[idx] = v`` is ``index_put_(f, idx, v)``, whose index tensors are arguments too: a
    normal one (a list becomes one) puts the write through autograd, which refuses the leaf
    before anything is written; where every argument is an inference tensor, autograd is
    skipped and the write outside the block is refused as an inference tensor's."""

    def program(t):
        with t.inference_mode():
            f = t.tensor([[-1.0, -2.0], [-0.0, -0.0], [1.0, -1.5]], requires_grad=True)
            i = t.tensor([0, 1])  # an inference index tensor
        try:
            write(t, f, i)
        except RuntimeError as e:
            return [str(e), f]
        return [None, f]

    same(program)
