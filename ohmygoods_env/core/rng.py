"""The game's chance (R2.1-R2.4): the per-game xorshift64 RNG inside the state row and the seed mixer.

``F_RNG`` holds a 64-bit xorshift64 state in two int32 words, seeded by :func:`seed_rng` from a
64-bit seed through :func:`mix64` (splitmix64, the library's one seed mixer), so a game depends
only on its seed and its actions. :func:`rand_below` draws from it. :func:`rand_at` is the 32-bit
xorshift step that agents use on their own private words. The generators themselves are the
game-agnostic kernels of :mod:`ohmygoods_env.framework.rng`; this module binds them to ``F_RNG``.
"""

from __future__ import annotations

from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..framework import jit as _jit
from ..framework import rng as _rng
from ..framework.rng import GOLDEN as GOLDEN  # re-exported: core.GOLDEN
from ..framework.rng import mix64 as mix64  # re-exported: core.mix64
from ..framework.rng import rand_at as rand_at  # re-exported: core.rand_at
from ..framework.rng import rand_below_at, seed_word
from ..layout import F_RNG


@njit(cache=True, _nrt=False)
def seed_rng(g, seed):
    """Seed the game's RNG from the 64 bits of ``seed`` (an int64 bit pattern) through :func:`mix64`.

    splitmix64's finaliser is a bijection of 64-bit words, so distinct 64-bit seeds give
    distinct generator states (0, the one state xorshift64 cannot leave, is mapped elsewhere).
    """
    seed_word(g, F_RNG, seed)


@njit(cache=True, _nrt=False)
def rand_below(g, n):
    """Uniform integer in [0, n) from the game's 64-bit xorshift64 state (n >= 1)."""
    return rand_below_at(g, F_RNG, n)


_jit.register(globals(), _layout, _cards, _rng)
