"""The order torch's error formatter lists a call's keyword arguments in.

``format_invalid_args`` (torch's ``python_arg_parser.cpp``) copies the keywords into a
``std::unordered_map<std::string, PyObject*>`` and prints them as that map iterates: the order of
libstdc++'s hash table, neither the call's nor the alphabet's. This module replays that table:
the keys' ``std::hash`` (``_Hash_bytes``, a 64-bit MurmurHash2 with libstdc++'s seed), its
bucket counts (11 buckets asked for at the first insertion, so 13; then the next prime of at least
twice as many), where an insertion goes (first in the list when its bucket is empty, else first
among its bucket's nodes) and how a rehash re-threads the list.

>>> torch_order(["unbiased", "keepdim", "foo"])
['foo', 'keepdim', 'unbiased']
>>> torch_order(["stable", "dim", "descending", "foo"])
['foo', 'dim', 'descending', 'stable']
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

__all__ = ["torch_order"]

_MASK = (1 << 64) - 1
_MUL = (0xC6A4A793 << 32) + 0x5BD1E995
_SEED = 0xC70F6907
# libstdc++'s ``_Prime_rehash_policy``: its table for small counts, then primes
_FAST_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_PRIMES: tuple[int, ...] = (
    *(2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89),
    *(97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277),
    *(293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761),
)


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def string_hash(text: str) -> int:
    """``std::hash<std::string>`` of libstdc++ on a 64-bit machine (``_Hash_bytes``)."""
    data = text.encode()
    n = len(data)
    whole = n & ~7
    h = (_SEED ^ (n * _MUL)) & _MASK
    for i in range(0, whole, 8):
        word = int.from_bytes(data[i : i + 8], "little")
        h ^= (_shift_mix((word * _MUL) & _MASK) * _MUL) & _MASK
        h = (h * _MUL) & _MASK
    if n & 7:
        h ^= int.from_bytes(data[whole:], "little")
        h = (h * _MUL) & _MASK
    return _shift_mix((_shift_mix(h) * _MUL) & _MASK)


def _bucket_count(wanted: int) -> int:
    """``_Prime_rehash_policy::_M_next_bkt``: the bucket count for at least ``wanted``."""
    if wanted < len(_FAST_BUCKETS):
        return _FAST_BUCKETS[wanted]
    return _PRIMES[min(bisect.bisect_left(_PRIMES, wanted), len(_PRIMES) - 1)]


def _insert(nodes: list[tuple[str, int]], key: str, code: int, buckets: int) -> None:
    """Insert as libstdc++ does: first among the nodes of its bucket, else first of all."""
    bucket = code % buckets
    for i, (_, other) in enumerate(nodes):
        if other % buckets == bucket:
            nodes.insert(i, (key, code))
            return
    nodes.insert(0, (key, code))


def torch_order(keys: Iterable[str]) -> list[str]:
    """``keys`` (distinct, in the call's order) as a libstdc++ ``unordered_map`` iterates them."""
    nodes: list[tuple[str, int]] = []
    buckets, next_resize = 1, 0
    for key in keys:
        count = len(nodes)
        if count + 1 > next_resize:  # ``_M_need_rehash``
            least = max(count + 1, 0 if next_resize else 11)
            if least >= buckets:
                buckets = _bucket_count(max(least + 1, buckets * 2))
                next_resize = buckets
                old, nodes = nodes, []
                for k, c in old:  # ``_M_rehash_aux``: the old list re-threaded in its order
                    _insert(nodes, k, c, buckets)
            else:
                next_resize = buckets
        _insert(nodes, key, string_hash(key), buckets)
    return [k for k, _ in nodes]
