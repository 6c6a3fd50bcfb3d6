"""Set-up (R2): :func:`init_game` deals a new game from its seed and runs it to the first decision."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import N_DECK
from ..framework import jit as _jit
from ..framework import rng as _frng
from ..framework.rng import shuffle_at
from ..layout import (
    F_A_CARD,
    F_A_OWNER,
    F_A_SIDE,
    F_ASIDE,
    F_ASLOT,
    F_AUTO,
    F_BLD,
    F_CUR,
    F_DECK,
    F_DECK_N,
    F_FIRST,
    F_GOODS,
    F_LOC,
    F_MAXR,
    F_NB,
    F_NP,
    F_PH,
    F_RNG,
    F_ROYAL,
    F_VARIANTS,
    L_DECK,
    L_GOODS,
    L_HAND,
    MAX_PLAYERS,
    MAX_SLOTS,
    N_ASSIST,
    N_CARDS,
    PH_ROUND_START,
)
from . import apply, deck, flow, rng
from .apply import apply_forced
from .deck import _shuffle_deck, draw_card
from .flow import advance
from .rng import rand_below, seed_rng

CHARBURNER_BASE = N_DECK  # building ids 94..97 are the Charburners


@njit(cache=True)
def _deal_charburners(g, num_players):
    """R2.1: one random Charburner each (and a worker)."""
    cb = np.arange(4)
    shuffle_at(cb, 0, 4, g, F_RNG)
    for p in range(num_players):
        g[F_BLD + p * MAX_SLOTS] = CHARBURNER_BASE + cb[p]
        g[F_NB + p] = 1


@njit(cache=True)
def _deal_assistants(g, num_players):
    """R2.2: 2/3/4 players -> 4/6/8 random assistants, random side up; solo: 2 (R10.3)."""
    perm = np.arange(N_ASSIST)
    shuffle_at(perm, 0, N_ASSIST, g, F_RNG)
    shown = 2 * num_players
    for k in range(N_ASSIST):
        if k < shown:
            g[F_A_CARD + k] = perm[k]
            g[F_A_SIDE + k] = rand_below(g, 2)
            g[F_A_OWNER + k] = -1
        else:
            g[F_A_CARD + k] = 0
            g[F_A_SIDE + k] = 0
            g[F_A_OWNER + k] = -2


@njit(cache=True)
def _deal_cards(g, num_players):
    """R2.3: shuffle the 94 deck cards; 5 to each hand, 7 coal on each Charburner."""
    for c in range(N_CARDS):
        g[F_DECK + c] = c
        g[F_LOC + c] = L_DECK
    g[F_DECK_N] = N_CARDS
    _shuffle_deck(g)
    for p in range(num_players):
        for _ in range(5):
            c = draw_card(g)
            g[F_LOC + c] = L_HAND + p
        for _ in range(7):
            c = draw_card(g)
            g[F_LOC + c] = L_GOODS + p * MAX_SLOTS
        g[F_GOODS + p * MAX_SLOTS] = 7


@njit(cache=True)
def init_game(g, C, AS, seed, num_players, edition, auto, max_rounds):
    """Set up a new game (R2) in row ``g`` from the 64 bits of ``seed`` (int64; see :func:`seed_rng`).

    ``edition``: bit 0 royal (§9); the higher bits are the variants (``V_*`` shifted by 1, R10).
    """
    for i in range(g.shape[0]):
        g[i] = 0
    seed_rng(g, seed)
    g[F_NP] = num_players
    g[F_ROYAL] = edition & 1
    g[F_VARIANTS] = edition >> 1
    g[F_AUTO] = auto
    g[F_MAXR] = max_rounds
    for i in range(MAX_PLAYERS * MAX_SLOTS):
        g[F_BLD + i] = -1
        g[F_ASLOT + i] = -1
    for p in range(MAX_PLAYERS):
        g[F_ASIDE + p] = -1
    _deal_charburners(g, num_players)
    _deal_assistants(g, num_players)
    _deal_cards(g, num_players)
    # R2.4: a random first active player
    g[F_FIRST] = rand_below(g, num_players)
    g[F_PH] = PH_ROUND_START
    g[F_CUR] = -1
    advance(g, C, AS)
    if auto:
        apply_forced(g, C, AS)


_jit.register(globals(), _layout, _cards, rng, _frng, deck, flow, apply)
