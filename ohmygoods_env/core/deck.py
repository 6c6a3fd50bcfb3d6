"""The deck: shuffling, drawing and gathering cards back into it (R3.1)."""

from __future__ import annotations

from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..framework import jit as _jit
from ..framework import rng as _rng
from ..framework.rng import shuffle_at
from ..layout import F_DECK, F_DECK_N, F_LOC, F_RNG, L_DECK, L_DISCARD, N_CARDS
from . import queries, rng
from .queries import _set_shown


@njit(cache=True, _nrt=False)
def _shuffle_deck(g):
    shuffle_at(g, F_DECK, g[F_DECK_N], g, F_RNG)


@njit(cache=True, _nrt=False)
def _gather_into_deck(g, loc_code):
    """Put every card at ``loc_code`` into the deck and shuffle it (R3.1)."""
    n = g[F_DECK_N]
    added = 0
    for c in range(N_CARDS):
        if g[F_LOC + c] == loc_code:
            g[F_LOC + c] = L_DECK
            _set_shown(g, c, False)
            g[F_DECK + n] = c
            n += 1
            added += 1
    g[F_DECK_N] = n
    if added > 0:
        _shuffle_deck(g)
    return added


@njit(cache=True, _nrt=False)
def draw_card(g):
    """Top card of the deck, reshuffling the discard pile when the deck is empty (R3.1).

    Returns -1 when deck and discard are both empty; the caller then starts the
    empty-deck refill (or, if a refill brought nothing, gives up the draw).
    """
    if g[F_DECK_N] == 0:
        if _gather_into_deck(g, L_DISCARD) == 0:
            return -1
    n = g[F_DECK_N] - 1
    g[F_DECK_N] = n
    return g[F_DECK + n]


_jit.register(globals(), _layout, _cards, rng, _rng, queries)
