"""The compiled random numbers every game shares: the one seed mixer and the xorshift generators.

* :func:`mix64` — splitmix64, the library's one seed mixer (game seeds, episode seeds, RNG
  words of batches and fuzzers);
* :func:`seed_word` / :func:`rand_below_at` — a game's own xorshift64 generator kept in two
  int32 words of its state row at offset ``off`` (each game names its ``F_RNG``), so a game's
  course depends only on its seed and its actions;
* :func:`shuffle_at` — a Fisher–Yates shuffle with that generator (each game's deck, its
  dealt assistants and Charburners, a determinization's hidden cards);
* :func:`rng_below` — the same generator on a ``uint64`` word of a separate array (batch
  runners, agents, fuzzers); :func:`rand_at` — a 32-bit xorshift step on an int32 word;
* :func:`nth_legal` / :func:`pick_legal` — the ``k``-th and a uniformly random legal entry of
  an int8 mask.

All are ``@njit(cache=True)`` kernels; a module whose kernels call them registers against
this module (:func:`ohmygoods_env.framework.jit.register`). Nothing here knows a game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import jit as _jit
from .seeds import SPLITMIX_GOLDEN, SPLITMIX_MIX1, SPLITMIX_MIX2

__all__ = [
    "GOLDEN",
    "load_word",
    "mix64",
    "nth_legal",
    "pick_legal",
    "rand_at",
    "rand_below_at",
    "rng_below",
    "seed_word",
    "shuffle_at",
    "store_word",
]

#: splitmix64's increment (the golden ratio in 64 bits) and its two finaliser multipliers (framework.seeds)
GOLDEN = np.uint64(SPLITMIX_GOLDEN)
_MIX1 = np.uint64(SPLITMIX_MIX1)
_MIX2 = np.uint64(SPLITMIX_MIX2)
_LOW32 = np.uint64(0xFFFFFFFF)
_BYTE_LOW = np.uint64(0x0101010101010101)


@njit(cache=True, _nrt=False)
def mix64(z):
    """splitmix64 on a ``uint64``: the golden-ratio increment, then the finaliser.

    The library's one seed mixer. The finaliser is a bijection of 64-bit words.
    """
    z = z + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, _nrt=False)
def rand_at(words, i, n):
    """Uniform integer in [0, n) from the xorshift32 word ``words[i]`` (int32 array, n >= 1)."""
    x = np.int64(words[i]) & 0xFFFFFFFF
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    if x >= 0x80000000:
        words[i] = x - 0x100000000
    else:
        words[i] = x
    return (x * n) >> 32


@njit(cache=True, _nrt=False)
def store_word(g, off, x):
    """Store the ``uint64`` ``x`` in the two int32 words ``g[off]`` (low) and ``g[off + 1]`` (high)."""
    for k in range(2):
        w = np.int64((x >> np.uint64(32 * k)) & _LOW32)
        g[off + k] = w - 0x100000000 if w >= 0x80000000 else w


@njit(cache=True, _nrt=False)
def load_word(g, off):
    """The ``uint64`` kept in the two int32 words ``g[off]``, ``g[off + 1]`` (:func:`store_word`)."""
    lo = np.uint64(np.int64(g[off]) & 0xFFFFFFFF)
    hi = np.uint64(np.int64(g[off + 1]) & 0xFFFFFFFF)
    return lo | (hi << np.uint64(32))


@njit(cache=True, _nrt=False)
def seed_word(g, off, seed):
    """Seed the generator at ``g[off:off + 2]`` from the 64 bits of ``seed`` (int64 bit pattern) via :func:`mix64`.

    splitmix64's finaliser is a bijection, so distinct 64-bit seeds give distinct generator
    states (0, the one state xorshift64 cannot leave, is mapped to ``GOLDEN``).
    """
    z = mix64(np.uint64(seed))
    if z == np.uint64(0):
        z = GOLDEN
    store_word(g, off, z)


@njit(cache=True, _nrt=False)
def _xorshift64(x):
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    return x


@njit(cache=True, _nrt=False)
def rand_below_at(g, off, n):
    """Uniform integer in [0, n) from the xorshift64 generator at ``g[off:off + 2]`` (n >= 1)."""
    x = _xorshift64(load_word(g, off))
    store_word(g, off, x)
    return np.int64(((x >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, _nrt=False)
def shuffle_at(a, start, n, g, off):
    """Shuffle ``a[start:start + n]`` in place (Fisher–Yates, last entry first) with the xorshift64
    generator at ``g[off:off + 2]`` (``a`` may be ``g`` itself: a game's deck)."""
    for i in range(n - 1, 0, -1):
        j = rand_below_at(g, off, i + 1)
        t = a[start + i]
        a[start + i] = a[start + j]
        a[start + j] = t


@njit(cache=True, _nrt=False)
def rng_below(rng, i, n):
    """Uniform int in ``[0, n)`` from the xorshift64 word ``rng[i]`` (``uint64`` array, advanced in place)."""
    x = _xorshift64(rng[i])
    rng[i] = x
    return np.int64(((x >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, _nrt=False)
def _nonzero_bytes(x):
    """How many of the 8 bytes of the ``uint64`` word ``x`` are non-zero."""
    x = x | (x >> np.uint64(4))
    x = x | (x >> np.uint64(2))
    x = x | (x >> np.uint64(1))
    return np.int64(((x & _BYTE_LOW) * _BYTE_LOW) >> np.uint64(56))


@njit(cache=True, _nrt=False)
def nth_legal(mask: np.ndarray, k: int) -> int:
    """The ``k``-th (0-based) non-zero entry of the int8 ``mask``; -1 if there are fewer.

    Masks are mostly zeros: the scan skips 8 bytes at a time (aligned ``uint64`` words of
    the same memory) and looks at single bytes only in the word that holds the answer.
    """
    m = mask.shape[0]
    head = min((-np.int64(mask.ctypes.data)) & 7, m)  # bytes before the first 8-byte boundary
    for a in range(head):
        if mask[a] != 0:
            if k == 0:
                return a
            k -= 1
    nw = (m - head) // 8
    words = mask[head : head + 8 * nw].view(np.uint64)
    for j in range(nw):
        x = words[j]
        if x == 0:
            continue
        c = _nonzero_bytes(x)
        if k >= c:
            k -= c
            continue
        for a in range(head + 8 * j, head + 8 * j + 8):
            if mask[a] != 0:
                if k == 0:
                    return a
                k -= 1
    for a in range(head + 8 * nw, m):
        if mask[a] != 0:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True, _nrt=False)
def pick_legal(mask, rng, i):
    """A uniformly random non-zero entry of ``mask`` drawn with ``rng[i]``; -1 if there is none."""
    n = 0
    for a in range(mask.shape[0]):
        n += mask[a]  # engine masks hold 0/1: a plain sum vectorises, a count of non-zeros does not
    a = nth_legal(mask, rng_below(rng, i, n)) if n > 0 else -1
    if a < 0:  # an empty mask, or one with entries other than 0/1: count the non-zeros
        c = 0
        for b in range(mask.shape[0]):
            if mask[b] != 0:
                c += 1
        if c > 0:
            a = nth_legal(mask, rng_below(rng, i, c))
    return a


_jit.register(globals())
