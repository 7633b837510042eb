"""Grad modes: no_grad, enable_grad, set_grad_enabled (context, decorator and function)."""

from __future__ import annotations

import pytest

from support.differential import same
from support.gradients import plain


def test_is_grad_enabled_follows_the_contexts() -> None:
    def program(t):
        seen = [t.is_grad_enabled()]
        with t.no_grad():
            seen.append(t.is_grad_enabled())
            with t.enable_grad():
                seen.append(t.is_grad_enabled())
            seen.append(t.is_grad_enabled())
        with t.set_grad_enabled(False):
            seen.append(t.is_grad_enabled())
            with t.set_grad_enabled(True):
                seen.append(t.is_grad_enabled())
        seen.append(t.is_grad_enabled())
        return seen

    assert same(program) == [True, False, True, False, False, True, True]


def test_set_grad_enabled_as_a_function() -> None:
    def program(t):
        try:
            t.set_grad_enabled(False)
            off = t.is_grad_enabled()
            y = t.ones(2, requires_grad=True) * 2
        finally:
            t.set_grad_enabled(True)
        return [off, t.is_grad_enabled(), y, y.requires_grad]

    same(program)


def test_no_grad_results_do_not_require_grad() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.no_grad():
            y = x * 2
            s = x.sum()
            e = x.exp()
        return [y, s, e, x]

    same(program)


def test_enable_grad_inside_no_grad_records() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.no_grad(), t.enable_grad():
            y = x * 2
        y.sum().backward()
        return [y, plain(x.grad)]

    same(program)


def test_no_grad_as_a_decorator() -> None:
    def program(t):
        @t.no_grad()
        def double(a):
            return a * 2

        x = t.ones(2, requires_grad=True)
        return [double(x), t.is_grad_enabled()]

    same(program)


def test_enable_grad_as_a_decorator() -> None:
    def program(t):
        @t.enable_grad()
        def double(a):
            return a * 2

        x = t.ones(2, requires_grad=True)
        with t.no_grad():
            y = double(x)
        return [y, t.is_grad_enabled()]

    same(program)


def test_the_mode_is_restored_after_an_exception() -> None:
    def program(t):
        try:
            with t.no_grad():
                raise ValueError("boom")
        except ValueError:
            pass
        return t.is_grad_enabled()

    assert same(program) is True


def test_views_made_under_no_grad() -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True)
        with t.no_grad():
            v = x[0]
            w = x.t()
        return [v, w, v._base is x, v.is_leaf, w.is_leaf]

    same(program)


def test_detach_under_no_grad() -> None:
    def program(t):
        x = t.ones(2, requires_grad=True)
        with t.no_grad():
            d = x.detach()
            c = x.clone()
        return [d, c]

    same(program)


def test_new_tensors_under_no_grad_may_still_require_grad() -> None:
    def program(t):
        with t.no_grad():
            w = t.zeros(2, requires_grad=True)
            o = t.ones(3).requires_grad_()
        (w.sum() + o.sum()).backward()
        return [w, o, plain(w.grad), plain(o.grad)]

    same(program)


def test_a_training_step_pattern() -> None:
    """zero the grad, forward, backward, update under no_grad: versions and values like torch."""

    def program(t):
        w = t.tensor([0.5, -0.5], requires_grad=True)
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]])
        target = t.tensor([1.0, 0.0])
        for _ in range(3):
            w.grad = None
            loss = ((x @ w - target) ** 2).mean()
            loss.backward()
            with t.no_grad():
                w -= 0.01 * w.grad
        return [w, w._version, loss]

    assert same(program)[1] == 3


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_context_with_each_mode(mode: bool) -> None:
    def program(t):
        x = t.ones(2, requires_grad=True)
        with t.set_grad_enabled(mode):
            y = x * 3
        return y

    same(program)


def test_set_grad_enabled_wants_a_bool() -> None:
    def program(t):
        with t.set_grad_enabled("yes"):
            pass

    assert same(program).kind == "TypeError"
