"""Information sets of *Artificium*: which cards a seat cannot see, and determinization (A9.2, A9.3).

A seat cannot see: the deck (order and contents), the other seats' hands, and the other
seats' face-down cards before the reveal. It *does* know where some hidden cards are:
a card it watched go into a hand (taken from the market, taken back after the reveal,
returned by Reconstruction, or moved by its own Scouting) keeps that seat's bit in
``F_KNOW`` (A9.3). :func:`determinize` re-deals every card the seat does not know among
the places it cannot see (each place keeps its count), lets every other seat's face-down
card be any card of that seat's hand and face-down card, and reseeds the RNG, so the
result is a full state consistent with everything the seat has seen, for IS-MCTS.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..framework import jit as _jit
from ..framework import rng as _rng
from ..framework.rng import shuffle_at
from . import cards as _cards
from . import core as _core
from . import layout as _layout
from .cards import N_CARDS
from .layout import F_CHOSEN, F_DECK, F_DECK_N, F_KNOW, F_LOC, F_NP, F_RNG, L_CHOSEN, L_DECK, L_HAND, MAX_PLAYERS


@njit(cache=True)
def is_hidden_from(g, c, me):
    """Whether card ``c``'s place is unknown to seat ``me`` (deck, or another seat's hand / face-down card)."""
    loc = g[F_LOC + c]
    if loc == L_DECK:
        return True
    if L_HAND <= loc < L_CHOSEN + MAX_PLAYERS:
        owner = (loc - L_HAND) % MAX_PLAYERS
        return owner != me and (g[F_KNOW + c] >> me) & 1 == 0
    return False


@njit(cache=True)
def _redeal(g, me):
    pool = np.empty(N_CARDS, np.int32)
    places = np.empty(N_CARDS, np.int32)
    n = 0
    for c in range(N_CARDS):
        if is_hidden_from(g, c, me):
            pool[n] = c
            places[n] = g[F_LOC + c]
            n += 1
    shuffle_at(pool, 0, n, g, F_RNG)
    for i in range(n):
        c = pool[i]
        g[F_LOC + c] = places[i]
        g[F_KNOW + c] = 0 if places[i] == L_DECK else 1 << ((places[i] - L_HAND) % MAX_PLAYERS)
        if L_CHOSEN <= places[i] < L_CHOSEN + MAX_PLAYERS:
            g[F_CHOSEN + places[i] - L_CHOSEN] = c
    k = 0
    for c in range(N_CARDS):
        if g[F_LOC + c] == L_DECK:
            g[F_DECK + k] = c
            k += 1
    g[F_DECK_N] = k
    _core._shuffle_deck(g)


@njit(cache=True)
def _reshuffle_choices(g, me):
    """Another seat's face-down card may be any card it holds (A9.3)."""
    for q in range(g[F_NP]):
        c = g[F_CHOSEN + q]
        if q == me or c < 0 or g[F_LOC + c] != L_CHOSEN + q:
            continue
        n = 1
        for d in range(N_CARDS):
            if g[F_LOC + d] == L_HAND + q:
                n += 1
        i = _core.rand_below(g, n)
        if i == 0:
            continue
        for d in range(N_CARDS):
            if g[F_LOC + d] == L_HAND + q:
                i -= 1
                if i == 0:
                    g[F_LOC + d] = L_CHOSEN + q
                    g[F_LOC + c] = L_HAND + q
                    g[F_KNOW + d], g[F_KNOW + c] = g[F_KNOW + c], g[F_KNOW + d]
                    g[F_CHOSEN + q] = d
                    break


@njit(cache=True)
def determinize(g, me, seed):
    """In place: hidden cards re-dealt for seat ``me`` and the RNG reseeded from ``seed`` (int64 bits)."""
    _core.seed_rng(g, seed)
    _redeal(g, me)
    _reshuffle_choices(g, me)


def hidden_cards(state: np.ndarray, me: int) -> list[int]:
    """Card ids whose place seat ``me`` cannot see."""
    return [c for c in range(N_CARDS) if is_hidden_from(state, c, me)]


_jit.register(globals(), _core, _cards, _layout, _rng)
