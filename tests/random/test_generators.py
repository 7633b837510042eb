"""``torch.Generator`` and the global generator: seeds, ``generator=`` arguments, and states
(``get_state``/``set_state``, ``get_rng_state``/``set_rng_state``) byte for byte as torch's."""

from __future__ import annotations

from typing import Any

import pytest

from support.bits import bits
from support.differential import same


def test_a_new_generator_has_torchs_default_seed() -> None:
    def program(t: Any) -> Any:
        g = t.Generator()
        return g.initial_seed(), bits(t.rand(5, generator=g), t.randn(20, generator=g))

    same(program)


@pytest.mark.parametrize("seed", [0, 7, 2**63, 2**64 - 1, -1, -(2**63)])
def test_seeds_and_initial_seed(seed: Any) -> None:
    """A negative seed counts from 2**64; a float is truncated; the engine takes the low 32
    bits, the initial seed keeps all 64."""

    def program(t: Any) -> Any:
        g = t.Generator().manual_seed(seed)
        t.manual_seed(seed)
        return g.initial_seed(), t.initial_seed(), bits(t.rand(3), t.rand(3, generator=g))

    same(program)


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_seeds_out_of_range_are_refused(seed: int) -> None:
    same(lambda t: t.Generator().manual_seed(seed))


def test_generator_arguments_leave_the_global_stream_alone() -> None:
    def program(t: Any) -> Any:
        t.manual_seed(3)
        g = t.Generator().manual_seed(3)
        out = [t.rand(4), t.rand(4, generator=g), t.rand(4)]
        out += [t.randn(5, generator=g), t.randn(17, generator=g), t.randn(3)]
        out += [t.randint(0, 9, (4,), generator=g), t.randperm(6, generator=g).float()]
        out += [t.zeros(6).normal_(generator=g), t.zeros(6).uniform_(-1, 2, generator=g)]
        out += [t.zeros(6).bernoulli_(0.5, generator=g), t.bernoulli(t.rand(6), generator=g)]
        w = t.zeros(3, 4)
        for init in ("uniform_", "normal_", "xavier_uniform_", "xavier_normal_"):
            getattr(t.nn.init, init)(w, generator=g)
            out.append(w.clone())
        for init in ("kaiming_uniform_", "kaiming_normal_"):
            getattr(t.nn.init, init)(w, generator=g)
            out.append(w.clone())
        out.append(t.rand(2))
        return bits(*out)

    same(program)


def test_state_bytes_are_torchs() -> None:
    """Fresh, after draws, with a float64 normal waiting, past a twist."""

    def program(t: Any) -> Any:
        g = t.Generator().manual_seed(11)
        states = [g.get_state()]
        t.rand(5, generator=g)
        states.append(g.get_state())
        t.randn(3, generator=g)  # leaves a normal waiting
        states.append(g.get_state())
        t.rand(1000, generator=g)
        states.append(g.get_state())
        return bits(*states), [tuple(s.shape) for s in states], str(states[0].dtype)

    same(program)


def test_set_state_round_trips() -> None:
    def program(t: Any) -> Any:
        g = t.Generator().manual_seed(5)
        t.randn(3, generator=g)
        saved = g.get_state()
        first = [t.randn(1, generator=g), t.rand(700, generator=g), t.randn(40, generator=g)]
        g.set_state(saved)
        again = [t.randn(1, generator=g), t.rand(700, generator=g), t.randn(40, generator=g)]
        other = t.Generator().set_state(saved)
        copied = [t.randn(1, generator=other)]
        return bits(*first) == bits(*again), bits(*first, *copied), bits(g.get_state())

    same(program)


def test_the_global_state_round_trips() -> None:
    def program(t: Any) -> Any:
        t.manual_seed(8)
        t.randn(5)
        state = t.get_rng_state()
        a = t.randn(5)
        t.set_rng_state(state)
        b = t.randn(5)
        t.manual_seed(8)
        return bits(a, b, state, t.get_rng_state()), t.initial_seed()

    same(program)


STATE_REFUSED: dict[str, Any] = {
    "a float state": lambda t: t.Generator().set_state(t.zeros(5056)),
    "not a tensor": lambda t: t.Generator().set_state(3),
}


@pytest.mark.parametrize("call", STATE_REFUSED)
def test_states_that_are_not_byte_tensors_are_refused(call: str) -> None:
    same(STATE_REFUSED[call])


def test_an_invalid_state_is_refused() -> None:
    def program(t: Any) -> Any:
        state = t.Generator().get_state()
        short = state[:10]
        zeroed = state.clone()
        zeroed.zero_()
        errors = []
        for bad in (short, zeroed):
            try:
                t.Generator().set_state(bad)
            except RuntimeError as e:
                errors.append(str(e))
        return errors

    same(program)


@pytest.mark.parametrize("seed", [True, 3.9, "5"])
def test_the_global_seed_is_int_of_it_and_a_generator_wants_an_int(seed: Any) -> None:
    def program(t: Any) -> Any:
        t.manual_seed(seed)
        refused = None
        try:
            t.Generator().manual_seed(seed)
        except RuntimeError as e:
            refused = str(e)
        return t.initial_seed(), bits(t.rand(2)), refused

    same(program)


def test_a_generator_lives_on_the_cpu() -> None:
    same(lambda t: (str(t.Generator().device), str(t.Generator("cpu").device)))
