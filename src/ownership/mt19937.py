"""torch's CPU random engine: the 32-bit Mersenne Twister of ATen's ``MT19937RNGEngine.h``, in
numpy, a block of words at a time.

The engine is a state of 624 words, an index ``next`` into it and a count ``left``; a draw takes
``state[next]`` through the tempering. When ``left`` falls to 0 the whole state is regenerated
(the *twist*), so the words of one state are drawn, tempered, as one numpy array, and the twist is
three array operations (each of its three stretches reads words the previous one rewrote). Its
bookkeeping is ATen's, so ``get_state`` bytes say what torch's say.

>>> e = MT19937(5489)  # std::mt19937's default seed: its 10,000th word is 4123659995
>>> int(e.words(10_000)[-1])
4123659995
>>> e2 = MT19937(5489)
>>> [int(w) for w in e2.words(3)] == [int(w) for w in MT19937(5489).words(3)]
True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

N = 624
M = 397
MATRIX_A = np.uint32(0x9908B0DF)
UPPER = np.uint32(0x80000000)
LOWER = np.uint32(0x7FFFFFFF)
Words = NDArray[np.uint32]


def _twist(state: Words) -> Words:
    """The next 624 words (ATen's ``next_state``): word ``i`` is word ``i + 397`` xor a mix of the
    top bit of word ``i`` and the low bits of word ``i + 1``, where word ``i + 397`` past the end
    is the new word ``i - 227`` (hence three stretches, each reading the one before)."""
    following = np.append(state[1:], np.uint32(0))
    y = (state & UPPER) | (following & LOWER)
    mix = (y >> np.uint32(1)) ^ ((following & np.uint32(1)) * MATRIX_A)
    new = np.empty(N, dtype=np.uint32)
    new[: N - M] = state[M:] ^ mix[: N - M]
    new[N - M : 2 * (N - M)] = new[: N - M] ^ mix[N - M : 2 * (N - M)]
    new[2 * (N - M) : N - 1] = new[N - M : M - 1] ^ mix[2 * (N - M) : N - 1]
    y_last = (state[N - 1] & UPPER) | (new[0] & LOWER)
    new[N - 1] = new[M - 1] ^ (y_last >> np.uint32(1)) ^ ((new[0] & np.uint32(1)) * MATRIX_A)
    return new


def temper(y: Words) -> Words:
    """The tempering that turns state words into output words."""
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


class MT19937:
    """One engine: ``words(n)`` draws ``n`` 32-bit words as torch's ``generator->random()`` does
    ``n`` times; ``words64(n)`` draws ``n`` of ``random64()`` (two words, the first the high
    half)."""

    def __init__(self, seed: int = 5489) -> None:
        self.seed = seed
        self.state = self._seeded(seed)
        self.left = 1
        self.next = 0

    @staticmethod
    def _seeded(seed: int) -> Words:
        """Knuth's initialisation from the seed's low 32 bits (``init_with_uint32``)."""
        state = [seed & 0xFFFFFFFF]
        for j in range(1, N):
            prev = state[-1]
            state.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
        return np.array(state, dtype=np.uint32)

    def words(self, n: int) -> Words:
        """The next ``n`` output words."""
        raw = []
        done = 0
        while done < n:
            if self.left == 1:  # the draw that brings ``left`` to 0 twists first
                self.state = _twist(self.state)
                self.left, self.next = N + 1, 0
            take = min(n - done, self.left - 1)
            raw.append(self.state[self.next : self.next + take])
            done += take
            self.next += take
            self.left -= take
        return temper(np.concatenate(raw)) if raw else np.empty(0, dtype=np.uint32)

    def words64(self, n: int) -> NDArray[np.uint64]:
        """The next ``n`` 64-bit draws: pairs of words, the first one high."""
        w = self.words(2 * n).astype(np.uint64)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def copy(self) -> MT19937:
        """An engine in the same state."""
        twin = MT19937.__new__(MT19937)
        twin.seed, twin.state, twin.left, twin.next = (
            self.seed,
            self.state.copy(),
            self.left,
            self.next,
        )
        return twin
