"""``.data =`` across inference mode: the tensor takes the data's kind, and keeps its counter.

torch's ``set_data`` gives the tensor the new data's dispatch keys but keeps the tensor's own
version counter. So a normal tensor given an inference tensor as ``.data`` (in inference mode,
or outside with data made in it) is an inference tensor: ``is_inference()`` is True, its views,
``detach()`` and ``.data`` are inference tensors, ops on it alone record nothing, an op with a
normal operand records as before; yet its ``_version`` reads, a write outside inference mode is
counted (with its earlier views) and a write inside it is not. An inference tensor given normal
data is no longer one, but still has no version to read, bump or make a view with.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same


def _state(x: Any) -> list[Any]:
    version = None if x.is_inference() else x._version
    return [x, x.requires_grad, x.is_leaf, x.grad_fn, version, x.is_inference()]


def _given_inference_data(t: Any, leaf: bool, inside: bool) -> tuple[Any, Any]:
    c = t.tensor([1.0, 2.0], requires_grad=True)
    if not leaf:
        c = c * 1
    v = c[:1]
    with t.inference_mode():
        data = t.tensor([3.0, 4.0])
        if inside:
            c.data = data
    if not inside:
        c.data = data
    return c, v


AFTER: dict[str, Any] = {
    "state": lambda t, c, v: [c._version, v.is_inference(), v._version],
    "a view": lambda t, c, v: _state(c[1:]),
    "detach": lambda t, c, v: _state(c.detach()),
    "data": lambda t, c, v: c.data.is_inference(),
    "exp": lambda t, c, v: _state(c.exp()),
    "c + c": lambda t, c, v: _state(c + c),
    "c * 2": lambda t, c, v: _state(c * 2),
    "c * a normal tensor": lambda t, c, v: _state(c * t.ones(2)),
    "backward": lambda t, c, v: [(c * 2).sum().backward(), grad_of(c) if c.is_leaf else None],
}


@pytest.mark.parametrize("inside", [True, False], ids=["in the block", "after it"])
@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "non-leaf"])
@pytest.mark.parametrize("after", AFTER.values(), ids=AFTER.keys())
def test_a_tensor_given_inference_data_is_an_inference_tensor(
    after: Any, leaf: bool, inside: bool
) -> None:
    def program(t: Any) -> Any:
        c, v = _given_inference_data(t, leaf, inside)
        return [c.is_inference(), c.requires_grad, c.is_leaf, c.grad_fn, after(t, c, v)]

    same(program)


def test_its_writes_count_outside_inference_mode_only() -> None:
    def program(t: Any) -> Any:
        c, v = _given_inference_data(t, leaf=False, inside=True)
        c.add_(1)
        after_out = [c._version, v._version, c.grad_fn]
        with t.inference_mode():
            c.mul_(2)
            inside = c._version
        v.add_(1)
        return [c, *after_out, inside, c._version, v._version, v]

    same(program)


def test_the_issues_program() -> None:
    def program(t: Any) -> Any:
        c = t.tensor([1.0, 2.0], requires_grad=True) * 1
        with t.inference_mode():
            c.data = t.tensor([3.0, 4.0])
        return c.is_inference()

    assert same(program) is True


def test_an_inference_tensor_given_normal_data() -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            y = t.ones(2)
        y.data = t.zeros(2)
        facts: list[Any] = [y.is_inference(), y * 2]
        for action in (lambda: y._version, lambda: y.add_(1), lambda: y[1:]):
            try:
                facts.append(action())
            except RuntimeError as e:
                facts.append(str(e))
        return facts

    same(program)


def test_given_normal_data_again_it_is_normal() -> None:
    def program(t: Any) -> Any:
        m = t.ones(2)
        with t.inference_mode():
            m.data = t.zeros(2)
            m.data = t.tensor([5.0, 6.0])
            twice = m.is_inference()
        m.data = t.tensor([7.0])
        m.add_(1)
        return [twice, m.is_inference(), m._version, m]

    same(program)


def test_an_inference_alias_given_normal_data_counts_its_writes_in_every_mode() -> None:
    """Fuzz 609286: ``.data`` of an inference tensor, made outside the mode, has a counter; given
    normal data, a write in inference mode counts too (it used to be skipped)."""

    def program(t: Any) -> Any:
        with t.inference_mode():
            base = t.ones(4, dtype=t.bool)
        alias = base.data
        alias.data = base.exp()
        with t.inference_mode():
            alias[t.tensor([0, 0])] = -1
            alias.add_(1)
        inside = alias._version
        alias.add_(1)
        return [alias.is_inference(), inside, alias._version, alias]

    same(program)
