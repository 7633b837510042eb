"""After the same ``manual_seed``, every sampler gives torch's values bit for bit: ``rand``,
``randn``, ``randint``, ``randperm``, ``bernoulli``, ``normal_``, ``uniform_`` and ``bernoulli_``,
float32 and float64, below and above 16 elements (where torch's ``normal_`` switches from one
Box-Muller draw per element to its vectorised blocks of 16), into views that are not contiguous,
and with the state carried from call to call as torch carries it."""

from __future__ import annotations

from typing import Any

import pytest

from support.bits import bits
from support.differential import same

SEEDS = [0, 1, 2**32 + 5, -1]
SIZES = [1, 7, 15, 16, 17, 100, 1000, 1031]
DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", SIZES)
def test_factories(seed: int, dtype: str, size: int) -> None:
    def program(t: Any) -> Any:
        t.manual_seed(seed)
        dt = getattr(t, dtype)
        return bits(
            t.rand(size, dtype=dt),
            t.randn(size, dtype=dt),
            t.randn(size, dtype=dt),  # a waiting normal from the odd size before, or none
            t.rand(size, 1, dtype=dt),
            t.bernoulli(t.full((size,), 0.3, dtype=dt)),
            t.randint(10, (size,)),
            t.randint(-3, 2**29, (size,)),  # a range of 2**28 or more: 64-bit draws
            t.randperm(size),
        )

    same(program)


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", SIZES)
def test_in_place_fills(seed: int, dtype: str, size: int) -> None:
    def program(t: Any) -> Any:
        t.manual_seed(seed)
        dt = getattr(t, dtype)
        p = t.rand(size, dtype=dt)
        return bits(
            t.zeros(size, dtype=dt).normal_(),
            t.zeros(size, dtype=dt).normal_(0.5, 0.02),
            t.zeros(size, dtype=dt).normal_(-3.0, 7.25),
            t.zeros(size, dtype=dt).uniform_(),
            t.zeros(size, dtype=dt).uniform_(-2.5, 3.25),
            t.zeros(size, dtype=dt).bernoulli_(0.7),
            t.zeros(size, dtype=dt).bernoulli_(p),
            t.zeros(size, dtype=t.float32).bernoulli_(p.double()),
            t.bernoulli(p),
            t.bernoulli(p, 0.25),
            p.bernoulli(),
        )

    same(program)


VIEWS = {
    "transposed": lambda t, dt: t.zeros(30, 40, dtype=dt).t(),
    "every other column": lambda t, dt: t.zeros(30, 40, dtype=dt)[:, ::2],
    "a column": lambda t, dt: t.zeros(30, 40, dtype=dt)[:, 3],
    "permuted": lambda t, dt: t.zeros(4, 5, 6, dtype=dt).permute(2, 0, 1),
    "small transposed": lambda t, dt: t.zeros(3, 4, dtype=dt).t(),
    "contiguous slice": lambda t, dt: t.zeros(30, 40, dtype=dt)[2:9],
}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_fills_of_views_draw_in_memory_order(view: str, dtype: str) -> None:
    """torch fills a view in the order of its memory (its TensorIterator's), and a view that is
    not contiguous never takes the vectorised normal path."""

    def program(t: Any) -> Any:
        t.manual_seed(5)
        dt = getattr(t, dtype)
        make = VIEWS[view]
        base = make(t, dt)
        out = [base.normal_(), make(t, dt).normal_(1.0, 0.5), make(t, dt).uniform_(-1, 1)]
        out.append(make(t, dt).bernoulli_(0.4))
        out.append(make(t, dt).bernoulli_(t.rand(base.shape, dtype=dt)))
        return bits(*out), base._base is not None

    same(program)


def test_interleaved_calls_carry_the_state() -> None:
    """The words and the waiting float64 normal carry from call to call (and across dtypes,
    paths and functions); ``manual_seed`` drops the waiting normal."""

    def program(t: Any) -> Any:
        t.manual_seed(42)
        out = [
            t.randn(3),  # one-by-one: leaves a normal waiting
            t.rand(2, dtype=t.float64),
            t.randn(1, dtype=t.float64),  # takes the waiting one
            t.randn(20),  # vectorised: leaves nothing
            t.zeros(5).normal_(2.0, 3.0),
            t.randperm(9).float(),
            t.randn(3, 4).t().contiguous(),
            t.zeros(7, 3).t().normal_(),
            t.randint(0, 5, (3,)).float(),
            t.randn(1),
        ]
        t.manual_seed(42)
        out.append(t.randn(1))
        t.randn(1)  # leaves a normal waiting ...
        t.manual_seed(42)  # ... which the seed drops
        out.append(t.randn(2))
        return bits(*out)

    same(program)


def test_a_thousand_words_and_more() -> None:
    """Across the twist of the engine's 624 words, many times over."""

    def program(t: Any) -> Any:
        t.manual_seed(2024)
        return bits(t.rand(5000), t.randn(4001), t.rand(3000, dtype=t.float64), t.randperm(5000))

    same(program)


def test_integer_and_float_dtypes_of_randint() -> None:
    def program(t: Any) -> Any:
        t.manual_seed(9)
        return bits(
            t.randint(0, 100, (50,), dtype=t.int32),
            t.randint(-(2**40), 2**40, (50,)),
            t.randint(0, 2**28 - 1, (5,)),  # the last range of one word per draw
            t.randint(0, 2**28, (5,)),  # the first of two
            t.randint(5, (4, 3), dtype=t.float32),
            t.randint(5, (4, 3), dtype=t.float64),
        )

    same(program)


REFUSED: dict[str, Any] = {
    "normal_ of a long tensor": lambda t: t.zeros(3, dtype=t.int64).normal_(),
    "uniform_ of a long tensor": lambda t: t.zeros(3, dtype=t.int64).uniform_(),
    "negative std": lambda t: t.zeros(3).normal_(0, -1),
    "from above to": lambda t: t.zeros(3).uniform_(2, 1),
    "p above 1": lambda t: t.zeros(3).bernoulli_(1.5),
    "a probability above 1": lambda t: t.bernoulli(t.tensor([0.5, 2.0])),
    "integer probabilities": lambda t: t.bernoulli(t.tensor([1, 0])),
    "randn of longs": lambda t: t.randn(3, dtype=t.int64),
    "rand of longs": lambda t: t.rand(3, dtype=t.int64),
    "randint empty range": lambda t: t.randint(5, 5, (2,)),
}


@pytest.mark.parametrize("call", REFUSED)
def test_refusals_are_torchs(call: str) -> None:
    same(REFUSED[call])


def test_like_factories_keep_the_layout_they_copy() -> None:
    """``randn_like``/``rand_like`` fill ``empty_like(t)``: a transposed ``t`` gives a
    transposed result, drawn in its memory order (no vectorised normals)."""

    def program(t: Any) -> Any:
        t.manual_seed(6)
        x = t.zeros(20, 30).t()
        out = [t.randn_like(x), t.rand_like(x), t.randn_like(x, dtype=t.float64)]
        out.append(t.randn_like(t.zeros(40), requires_grad=True))
        return bits(*out), [o.stride() for o in out], out[-1].requires_grad

    same(program)


def _random_calls(seed: int) -> list[tuple[str, int, str, bool]]:
    """A seeded sequence of sampler calls: (function, size, dtype, on a Generator)."""
    import random

    rng = random.Random(seed)
    names = ["rand", "randn", "normal_", "uniform_", "bernoulli_", "bernoulli", "randint"]
    names += ["randperm", "normal_ of a view", "dropout", "manual_seed"]
    sizes = [0, 1, 2, 3, 15, 16, 17, 31, 33, 64, 257]
    return [
        (rng.choice(names), rng.choice(sizes), rng.choice(DTYPES), rng.random() < 0.3)
        for _ in range(25)
    ]


@pytest.mark.parametrize("seed", range(8))
def test_random_sequences_of_calls(seed: int) -> None:
    """Seeded random sequences of calls, on the global generator and on a ``Generator``, with
    empty tensors, odd sizes (a normal left waiting) and reseeds between them."""
    calls = _random_calls(seed)

    def program(t: Any) -> Any:
        t.manual_seed(seed)
        g = t.Generator().manual_seed(seed + 100)
        out = []
        for name, n, dtype, own in calls:
            dt = getattr(t, dtype)
            gen = {"generator": g} if own else {}
            if name == "rand":
                out.append(t.rand(n, dtype=dt, **gen))
            elif name == "randn":
                out.append(t.randn(n, dtype=dt, **gen))
            elif name == "normal_":
                out.append(t.zeros(n, dtype=dt).normal_(0.25, 2.0, **gen))
            elif name == "uniform_":
                out.append(t.zeros(n, dtype=dt).uniform_(-1.5, 0.5, **gen))
            elif name == "bernoulli_":
                out.append(t.zeros(n, dtype=dt).bernoulli_(0.35, **gen))
            elif name == "bernoulli":
                out.append(t.bernoulli(t.full((n,), 0.6, dtype=dt), **gen))
            elif name == "randint":
                out.append(t.randint(-4, 1000, (n,), **gen))
            elif name == "randperm":
                out.append(t.randperm(n, **gen))
            elif name == "normal_ of a view":
                out.append(t.zeros(n, 3, dtype=dt).t().normal_(**gen))
            elif name == "dropout":
                out.append(t.nn.functional.dropout(t.ones(n, dtype=dt), 0.4))
            else:
                (g if own else t).manual_seed(n)
        return bits(*out)

    same(program)


def test_results_versions_and_nodes_are_torchs() -> None:
    """Factories draw below autograd (version 0, no node); the in-place fills are one write
    each, with torch's node; ``bernoulli`` of probabilities that require grad, and
    ``bernoulli_`` with such probabilities, have torch's zero-gradient nodes."""

    def program(t: Any) -> Any:
        t.manual_seed(12)
        x = t.rand(4)
        made = [t.bernoulli(x), t.bernoulli(x, 0.5), x.bernoulli(), t.randn_like(x)]
        made += [t.rand_like(x), t.randn(2), t.rand(2), t.randperm(3), t.randint(3, (2,))]
        p = t.rand(4, requires_grad=True)
        drawn = t.bernoulli(p)
        drawn.sum().backward()
        w = t.zeros(4, requires_grad=True) * 1
        fills = [w.normal_(), w.uniform_(), w.bernoulli_(0.5), w.bernoulli_(p)]
        into = t.zeros(4)
        into.bernoulli_(p)
        into.sum().backward()
        return made, drawn, p.grad, [f.grad_fn.name() for f in fills], w._version, into

    same(program)
