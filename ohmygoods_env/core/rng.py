"""The game's chance (R2.1-R2.4): the per-game xorshift64 RNG inside the state row and the seed mixer.

``F_RNG`` holds a 64-bit xorshift64 state in two int32 words, seeded by :func:`seed_rng` from a
64-bit seed through :func:`mix64` (splitmix64, the package's one seed mixer), so a game depends
only on its seed and its actions. :func:`rand_below` draws from it. :func:`rand_at` is the 32-bit
xorshift step that agents use on their own private words.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import _jit
from .. import cards as _cards
from .. import layout as _layout
from ..layout import F_RNG


@njit(cache=True)
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


#: splitmix64's increment (the golden ratio in 64 bits) and its two finaliser multipliers
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def mix64(z):
    """splitmix64 on a ``uint64``: the golden-ratio increment, then the finaliser.

    The package's one seed mixer: the game RNG's seeding (:func:`seed_rng`), the batch's episode
    seeds and RNG words (:mod:`ohmygoods_env.batch`) and the fuzzer's slot RNGs all use it.
    The finaliser is a bijection of 64-bit words.
    """
    z = z + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _store_rng(g, x):
    """Store the uint64 generator state ``x`` in the two int32 words ``F_RNG``, ``F_RNG + 1``."""
    for k in range(2):
        w = np.int64((x >> np.uint64(32 * k)) & _LOW32)
        g[F_RNG + k] = w - 0x100000000 if w >= 0x80000000 else w


@njit(cache=True)
def _load_rng(g):
    lo = np.uint64(np.int64(g[F_RNG]) & 0xFFFFFFFF)
    hi = np.uint64(np.int64(g[F_RNG + 1]) & 0xFFFFFFFF)
    return lo | (hi << np.uint64(32))


@njit(cache=True)
def seed_rng(g, seed):
    """Seed the game's RNG from the 64 bits of ``seed`` (an int64 bit pattern) through :func:`mix64`.

    splitmix64's finaliser is a bijection of 64-bit words, so distinct 64-bit seeds give
    distinct generator states (0, the one state xorshift64 cannot leave, is mapped elsewhere).
    """
    z = mix64(np.uint64(seed))
    if z == np.uint64(0):
        z = GOLDEN
    _store_rng(g, z)


@njit(cache=True)
def rand_below(g, n):
    """Uniform integer in [0, n) from the game's 64-bit xorshift64 state (n >= 1)."""
    x = _load_rng(g)
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    _store_rng(g, x)
    return np.int64(((x >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


_jit.register(globals(), _layout, _cards)
