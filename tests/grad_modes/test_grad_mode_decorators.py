"""Grad-mode decorators as torch's: generator functions, and ``@no_grad`` without parentheses."""

from __future__ import annotations

import pytest

from support.differential import same


@pytest.mark.parametrize("switch", ["no_grad", "enable_grad"])
@pytest.mark.parametrize("parentheses", [True, False])
def test_a_decorated_generator_runs_every_step_in_the_mode(switch: str, parentheses: bool) -> None:
    """The decorator applies to the generator's body, each time it resumes; the caller's mode
    is untouched in between."""

    def program(t):
        deco = getattr(t, switch)
        if parentheses:
            deco = deco()

        @deco
        def steps(n):
            got = []
            for _ in range(n):
                x = t.ones(2, requires_grad=True)
                sent = yield [t.is_grad_enabled(), (x * 2).requires_grad]
                got.append(sent)
            return got

        seen = []
        for outer in (True, False):
            with t.set_grad_enabled(outer):
                gen = steps(2)
                seen.append(next(gen))
                seen.append(t.is_grad_enabled())
                seen.append(gen.send("a"))
                try:
                    gen.send("b")
                except StopIteration as stop:
                    seen.append(stop.value)
                seen.append(t.is_grad_enabled())
        return [seen, steps.__name__]

    same(program)


def test_an_exception_thrown_into_a_decorated_generator_is_handled_in_the_mode() -> None:
    def program(t):
        @t.no_grad()
        def gen():
            try:
                yield t.is_grad_enabled()
            except ValueError:
                yield ["caught", t.is_grad_enabled()]

        g = gen()
        first = next(g)
        second = g.throw(ValueError("x"))
        g.close()
        return [first, second, t.is_grad_enabled()]

    same(program)


@pytest.mark.parametrize("switch", ["no_grad", "enable_grad"])
def test_a_switch_decorates_without_parentheses(switch: str) -> None:
    def program(t):
        @getattr(t, switch)
        def f(x):
            return [t.is_grad_enabled(), (x * 2).requires_grad]

        x = t.ones(2, requires_grad=True)
        with t.set_grad_enabled(switch == "no_grad"):
            inside = f(x)
            after = t.is_grad_enabled()
        return [inside, after, f.__name__]

    same(program)


def test_set_grad_enabled_needs_its_bool() -> None:
    def program(t):
        @t.set_grad_enabled(False)
        def f():
            return t.is_grad_enabled()

        before = t.is_grad_enabled()
        inside = f()
        try:
            t.set_grad_enabled(f)
        except TypeError as e:
            return [before, inside, t.is_grad_enabled(), str(e)]
        return None

    same(program)


def test_a_decorated_method_keeps_self() -> None:
    def program(t):
        class Model:
            @t.no_grad
            def predict(self, x):
                return [(x * 2).requires_grad, t.is_grad_enabled()]

        return Model().predict(t.ones(2, requires_grad=True))

    same(program)
