"""Random numbers: torch's CPU generator, so a seeded program draws torch's values bit for bit.

A :class:`Generator` is torch's: a Mersenne Twister (``ownership.mt19937``) seeded by
``manual_seed`` (a new one with 67280421310721, the global one from entropy at start-up),
plus the float64 normal a Box-Muller draw left for the next one. The samplers
(``ownership.distributions``, ``ownership.ops.inplace_fills``) are torch's CPU kernels, so
after ``manual_seed(s)``, ``rand``, ``randn``, ``randint``, ``randperm`` (ops of the table:
``ownership.ops.random_factories``), ``bernoulli``, the in-place fills, dropout and ``nn.init`` give torch's values, and the state carries across calls
as torch's does.

>>> from ownership.ops.random_factories import rand, randperm
>>> _ = manual_seed(0)
>>> rand(3)
tensor([0.4963, 0.7682, 0.0885])
>>> randperm(5, generator=Generator().manual_seed(0)).tolist()
[4, 0, 1, 3, 2]
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from ownership import distributions
from ownership.core import dtypes
from ownership.core.tensor import Tensor
from ownership.mt19937 import MT19937, N
from ownership.ops import devices
from ownership.ops.inplace_fills import bernoulli as bernoulli

DEFAULT_SEED = 67280421310721
STATE_BYTES = 5056  # sizeof(CPUGeneratorImplState)


class Generator:
    """torch's CPU ``Generator``: ``manual_seed``, ``seed``, ``initial_seed``, ``get_state`` and
    ``set_state`` (the same 5,056 bytes as torch's)."""

    def __init__(self, device: Any = "cpu") -> None:
        self._stream = distributions.Stream(MT19937(DEFAULT_SEED))

    @property
    def device(self) -> Any:
        """The CPU."""
        return devices.CPU

    def manual_seed(self, seed: Any) -> Generator:
        """Reset the stream to ``seed`` (an int in [-2**63, 2**64); a negative one counts from
        2**64); returns self."""
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        s = int(seed)
        if not -(1 << 63) <= s < 1 << 64:
            raise ValueError("Overflow when unpacking long long")
        self._stream = distributions.Stream(MT19937(s & ((1 << 64) - 1)))
        return self

    def initial_seed(self) -> int:
        """The last seed set."""
        return self._stream.engine.seed

    def seed(self) -> int:
        """Reseed from the operating system's entropy (53 bits, as torch) and return the seed."""
        new = secrets.randbits(53)
        self.manual_seed(new)
        return new

    def get_state(self) -> Tensor:
        """The state as torch lays it out (``CPUGeneratorImplState``): seed, ``left``,
        ``seeded``, ``next``, the 624 words as uint64, the waiting float64 normal and its flag,
        the waiting float32 normal and its flag."""
        s, e = self._stream, self._stream.engine
        out = np.zeros(STATE_BYTES, dtype=np.uint8)
        out[0:8] = np.array([e.seed], dtype=np.uint64).view(np.uint8)
        out[8:16] = np.array([e.left, 1], dtype=np.int32).view(np.uint8)
        out[16:24] = np.array([e.next], dtype=np.uint64).view(np.uint8)
        out[24 : 24 + 8 * N] = e.state.astype(np.uint64).view(np.uint8)
        tail = 24 + 8 * N
        if s.next_double_normal is not None:
            out[tail + 8 : tail + 16] = np.array([s.next_double_normal]).view(np.uint8)
            out[tail + 24 : tail + 28] = np.array([1], dtype=np.int32).view(np.uint8)
        if s.next_float_normal is not None:
            out[tail + 32 : tail + 36] = np.array([s.next_float_normal], np.float32).view(np.uint8)
            out[tail + 36] = 1
        return Tensor._wrap(out, dtypes.uint8)

    def set_state(self, new_state: Any) -> Generator:
        """Restore a state from ``get_state`` (torch's checks and messages); returns self."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._data).ravel()
        if raw.size != STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input "
                f"RNG state size to be {raw.size}"
            )
        left, seeded = (int(v) for v in raw[8:16].view(np.int32))
        nxt = int(raw[16:24].view(np.uint64)[0]) & 0xFFFFFFFF
        if not (seeded & 0xFF and 0 < left <= N and nxt <= N):
            raise RuntimeError("Invalid mt19937 state")
        engine = MT19937.__new__(MT19937)
        engine.seed = int(raw[0:8].view(np.uint64)[0])
        engine.state = raw[24 : 24 + 8 * N].view(np.uint64).astype(np.uint32)
        engine.left, engine.next = left, nxt
        stream = distributions.Stream(engine)
        tail = 24 + 8 * N
        if raw[tail + 24 : tail + 28].view(np.int32)[0]:
            stream.next_double_normal = float(raw[tail + 8 : tail + 16].view(np.float64)[0])
        if raw[tail + 36]:
            stream.next_float_normal = float(raw[tail + 32 : tail + 36].view(np.float32)[0])
        self._stream = stream
        return self


default_generator = Generator()
default_generator.seed()  # torch seeds its global generator from entropy at start-up


def stream_of(generator: Generator | None) -> distributions.Stream:
    """What a sampler draws from: ``generator``'s stream, or the global generator's."""
    return (generator or default_generator)._stream


def manual_seed(seed: Any) -> Generator:
    """Seed the global generator with ``int(seed)``; returns it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Reseed the global generator from entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed of the global generator."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The global generator's state (``Generator.get_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the global generator's state (``Generator.set_state``)."""
    default_generator.set_state(new_state)
