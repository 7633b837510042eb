# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""Grad-mode decorators on generator functions and coroutines, and nested decorators (see
conftest.py for how the tests are adapted).

Where the original asserts ``torch.is_grad_enabled()`` inside a function, the program records
the mode in a list ``seen`` and returns it, so both engines must agree on every observation.
"""

from __future__ import annotations

from support.differential import same


def test_set_grad_generator_functions() -> None:
    """TestAutograd.test_set_grad_generator_functions: a decorated generator's body only."""

    def program(t):
        seen = []

        @t.no_grad()
        def gen_no_grad():
            for i in range(3):
                seen.append(("body", t.is_grad_enabled()))
                yield i

        with t.enable_grad():
            for _ in gen_no_grad():
                seen.append(("caller", t.is_grad_enabled()))

        @t.enable_grad()
        def gen_enable_grad():
            for i in range(3):
                seen.append(("body", t.is_grad_enabled()))
                yield i

        with t.no_grad():
            for _ in gen_enable_grad():
                seen.append(("caller", t.is_grad_enabled()))
        return seen

    r = same(program)
    assert r[:2] == [("body", False), ("caller", True)]
    assert r[6:8] == [("body", True), ("caller", False)]


def test_set_grad_generator_functions_recursive() -> None:
    """TestAutograd.test_set_grad_generator_functions_recursive: decorators and blocks nest."""

    def program(t):
        seen = []

        @t.enable_grad()
        def enable_rec(depth):
            seen.append(t.is_grad_enabled())
            if depth > 0:
                no_grad_rec(depth - 1)
                seen.append(t.is_grad_enabled())

        @t.no_grad()
        def no_grad_rec(depth):
            seen.append(t.is_grad_enabled())
            if depth > 0:
                enable_rec(depth - 1)
                seen.append(t.is_grad_enabled())

        def enable_cm(depth):
            with t.enable_grad():
                seen.append(t.is_grad_enabled())
                if depth > 0:
                    no_grad_cm(depth - 1)
                    seen.append(t.is_grad_enabled())

        def no_grad_cm(depth):
            with t.no_grad():
                seen.append(t.is_grad_enabled())
                if depth > 0:
                    enable_cm(depth - 1)
                    seen.append(t.is_grad_enabled())

        for mode in (t.enable_grad, t.no_grad):
            with mode():
                seen.append(("outer", t.is_grad_enabled()))
                enable_rec(4)
                seen.append(("outer", t.is_grad_enabled()))
                enable_cm(4)
                seen.append(("outer", t.is_grad_enabled()))
        return seen

    r = same(program)
    assert r[0] == ("outer", True) and r[-1] == ("outer", False)


def test_set_grad_coroutines() -> None:
    """TestAutograd.test_set_grad_coroutines: ``send`` into decorated coroutines."""

    def program(t):
        seen = []

        def make(mode):
            @mode()
            def coro(n=3):
                seen.append(("start", t.is_grad_enabled()))
                for i in range(n):
                    r = yield i
                    seen.append(("resumed", t.is_grad_enabled(), i == r))
                seen.append(("end", t.is_grad_enabled()))

            return coro

        for outer, inner in ((t.enable_grad, t.no_grad), (t.no_grad, t.enable_grad)):
            with outer():
                coro, r = make(inner)(), None
                try:
                    while True:
                        seen.append(("caller", t.is_grad_enabled()))
                        r = coro.send(r)
                except StopIteration:
                    pass
        return seen

    r = same(program)
    assert r[:3] == [("caller", True), ("start", False), ("caller", True)]


def test_set_grad_coroutines_benign_exceptions() -> None:
    """TestAutograd.test_set_grad_coroutines_benign_exceptions: ``throw`` that is recovered."""

    def program(t):
        class RecoverableException(Exception):
            pass

        seen = []

        def make(mode):
            @mode()
            def coro(n=3):
                has_raised = False
                for i in range(n):
                    try:
                        seen.append(t.is_grad_enabled())
                        yield (-i if has_raised else i)
                    except RecoverableException:
                        seen.append(("except", t.is_grad_enabled()))
                        has_raised = True

            return coro

        for outer, inner in ((t.enable_grad, t.no_grad), (t.no_grad, t.enable_grad)):
            with outer():
                coro = make(inner)()
                seen.append(("first", next(coro)))
                try:
                    while True:
                        seen.append(("got", coro.throw(RecoverableException)))
                except StopIteration:
                    pass
        return seen

    r = same(program)
    assert r[:3] == [False, ("first", 0), ("except", False)]


def test_set_grad_coroutines_critical_exceptions() -> None:
    """TestAutograd.test_set_grad_coroutines_critical_exceptions: a secondary exception."""

    def program(t):
        class UnrecoverableException(Exception):
            pass

        class SecondaryException(Exception):
            pass

        seen = []

        def make(mode):
            @mode()
            def coro(n=3):
                for i in range(n):
                    try:
                        seen.append(t.is_grad_enabled())
                        yield i
                    except UnrecoverableException:
                        seen.append(("except", t.is_grad_enabled()))
                        raise SecondaryException from None

            return coro

        for outer, inner in ((t.enable_grad, t.no_grad), (t.no_grad, t.enable_grad)):
            with outer():
                coro = make(inner)()
                seen.append(("first", next(coro)))
                try:
                    coro.throw(UnrecoverableException)
                except SecondaryException:
                    seen.append(("secondary", t.is_grad_enabled()))
        return seen

    r = same(program)
    assert r[:4] == [False, ("first", 0), ("except", False), ("secondary", True)]


def test_set_grad_coroutines_exit() -> None:
    """TestAutograd.test_set_grad_coroutines_exit: ``close`` raises GeneratorExit in the mode."""

    def program(t):
        seen = []

        def make(mode):
            @mode()
            def coro():
                for i in range(10):
                    try:
                        yield i
                    except GeneratorExit:
                        seen.append(("GeneratorExit", t.is_grad_enabled()))
                        raise

            return coro

        for outer, inner in ((t.enable_grad, t.no_grad), (t.no_grad, t.enable_grad)):
            with outer():
                coro = make(inner)()
                for _ in range(5):
                    next(coro)
                coro.close()
                seen.append(("after", t.is_grad_enabled()))
        return seen

    r = same(program)
    assert r == [
        ("GeneratorExit", False),
        ("after", True),
        ("GeneratorExit", True),
        ("after", False),
    ]
