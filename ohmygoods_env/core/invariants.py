"""Consistency checks of the state row: :func:`check_invariants` returns 0 or the first failure's code."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import B_RES, B_SUN, N_RES
from ..framework import jit as _jit
from ..layout import (
    F_A_OWNER,
    F_ASIDE,
    F_ASLOT,
    F_BLD,
    F_DECK,
    F_DECK_N,
    F_GOODS,
    F_HIRE_K,
    F_LOC,
    F_MKT,
    F_NB,
    F_NP,
    F_OWE,
    F_PAID_FROM,
    F_PH,
    F_REF_OWE,
    F_STAFF,
    F_SUB,
    F_SUNS,
    L_ASIDE,
    L_BUILT,
    L_DECK,
    L_DISCARD,
    L_ESCROW,
    L_GOODS,
    L_HAND,
    L_LIMBO,
    L_ROW1,
    L_ROW2,
    MAX_PLAYERS,
    MAX_SLOTS,
    N_ASSIST,
    N_CARDS,
    PH_P2,
    PH_P4,
    PH_REFILL,
    STAFF_ASSISTANT,
    STAFF_EFFICIENT,
    STAFF_NONE,
    STAFF_SLOPPY,
    SUB_PLACE,
)
from . import queries
from .queries import is_production, is_shown


@njit(cache=True)
def _check_deck(g, in_deck):
    """Codes 2, 3: the deck's size, and its cards are distinct and located in the deck."""
    n = g[F_DECK_N]
    if n < 0 or n > N_CARDS:
        return 2
    for i in range(n):
        c = g[F_DECK + i]
        if c < 0 or c >= N_CARDS or in_deck[c] == 1 or g[F_LOC + c] != L_DECK:
            return 3
        in_deck[c] = 1
    return 0


@njit(cache=True)
def _check_places(g, C, in_deck, goods, mkt, suns, built):
    """Codes 1, 3, 7, 9: every card's place is valid; counts goods, market cards, suns and buildings."""
    np_ = g[F_NP]
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        if lc == L_DECK:
            if in_deck[c] == 0:
                return 3
        elif lc == L_ROW1 or lc == L_ROW2:
            mkt[(lc - L_ROW1) * N_RES + C[c, B_RES]] += 1
            suns[lc - L_ROW1] += C[c, B_SUN]
        elif lc >= L_GOODS:
            i = lc - L_GOODS
            if i >= MAX_PLAYERS * MAX_SLOTS or i // MAX_SLOTS >= np_:
                return 1
            goods[i] += 1
        elif lc >= L_BUILT:
            built[c] = 1
            if lc - L_BUILT >= np_:
                return 1
        elif lc >= L_ASIDE:
            if g[F_ASIDE + lc - L_ASIDE] != c:
                return 7
        elif lc >= L_HAND:
            if lc - L_HAND >= np_:
                return 1
        elif lc == L_ESCROW:
            src = g[F_PAID_FROM + c] - 1
            if g[F_PH] != PH_P2 or src < 0 or src // MAX_SLOTS >= np_ or src % MAX_SLOTS >= g[F_NB + src // MAX_SLOTS]:
                return 9
        elif lc == L_LIMBO:
            if g[F_PH] != PH_REFILL:
                return 9
        elif lc < 0:
            return 1
        if lc != L_ESCROW and g[F_PAID_FROM + c] != 0:
            return 9
    return 0


@njit(cache=True)
def _check_counts(g, goods, mkt, suns):
    """Codes 11, 2, 4, 5: the stored half-suns, goods and market counts match the cards."""
    if suns[0] != g[F_SUNS] or suns[1] != g[F_SUNS + 1]:
        return 11
    for i in range(MAX_PLAYERS * MAX_SLOTS):
        if g[F_GOODS + i] < 0:
            return 2
        if goods[i] != g[F_GOODS + i]:
            return 4
    for i in range(2 * N_RES):
        if mkt[i] != g[F_MKT + i]:
            return 5
    return 0


@njit(cache=True)
def _check_slots(g, C, built):
    """Codes 2, 7, 6, 8: building counts, set-aside cards, built cards and staffing per slot."""
    for p in range(g[F_NP]):
        if g[F_NB + p] < 1 or g[F_NB + p] > MAX_SLOTS:
            return 2
        if g[F_ASIDE + p] >= 0 and g[F_LOC + g[F_ASIDE + p]] != L_ASIDE + p:
            return 7
        for s in range(MAX_SLOTS):
            b = g[F_BLD + p * MAX_SLOTS + s]
            if s < g[F_NB + p]:
                if b < N_CARDS:
                    if b < 0 or g[F_LOC + b] != L_BUILT + p:
                        return 6
                    built[b] -= 1
                st = g[F_STAFF + p * MAX_SLOTS + s]
                if st != STAFF_NONE and not is_production(C, b):
                    return 8
                if (st == STAFF_ASSISTANT) != (g[F_ASLOT + p * MAX_SLOTS + s] >= 0):
                    return 8
            elif b != -1 or g[F_GOODS + p * MAX_SLOTS + s] != 0:
                return 6
    for c in range(N_CARDS):
        if built[c] != 0:
            return 6
    for p in range(g[F_NP]):
        if g[F_OWE + p] < 0 or g[F_REF_OWE + p] < 0:
            return 2
    return 0


@njit(cache=True)
def _check_persons(g):
    """Code 10: at most one worker each; every owned assistant on exactly one of its owner's buildings."""
    placed = np.zeros(N_ASSIST, np.int32)
    for p in range(g[F_NP]):
        workers = 0
        for s in range(g[F_NB + p]):
            st = g[F_STAFF + p * MAX_SLOTS + s]
            if st == STAFF_EFFICIENT or st == STAFF_SLOPPY:
                workers += 1
            elif st == STAFF_ASSISTANT:
                k = g[F_ASLOT + p * MAX_SLOTS + s]
                if k >= N_ASSIST or g[F_A_OWNER + k] != p or placed[k] == 1:
                    return 10
                placed[k] = 1
        if workers > 1:
            return 10
    for k in range(N_ASSIST):
        if g[F_A_OWNER + k] >= 0 and placed[k] == 0:
            if not (g[F_PH] == PH_P4 and g[F_SUB] == SUB_PLACE and g[F_HIRE_K] == k):
                return 10  # only a just-hired assistant waits for its place (R7.12)
    return 0


@njit(cache=True)
def _check_shown(g):
    """Code 12: a card shown in a chain (R3.2, R7.7) stays shown until reshuffled."""
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        if is_shown(g, c) == 1 and not (lc >= L_GOODS or lc == L_ESCROW or lc == L_DISCARD):
            return 12
    return 0


@njit(cache=True)
def check_invariants(g, C):
    """Return 0 if the state is consistent, else a positive code naming the first failure.

    1 card count per place mismatch, 2 negative count, 3 deck order mismatch,
    4 goods count mismatch, 5 market count mismatch, 6 building location mismatch,
    7 set-aside mismatch, 8 staffing mismatch, 9 escrow card outside phase II or without the
    building it was paid from (or such a building for a card not in the escrow), refill
    card outside the refill, 10 persons: more than one worker, or an owned assistant not
    on exactly one of its owner's buildings (R7.14), 11 half-suns of a market row mismatch,
    12 a card shown in a chain (R3.2, R7.7) outside the goods, escrow or discard pile.
    The checks run in this order: deck, places, counts, slots, persons, shown cards.
    """
    in_deck = np.zeros(N_CARDS, np.int32)
    code = _check_deck(g, in_deck)
    if code != 0:
        return code
    goods = np.zeros(MAX_PLAYERS * MAX_SLOTS, np.int32)
    mkt = np.zeros(2 * N_RES, np.int32)
    suns = np.zeros(2, np.int32)
    built = np.zeros(N_CARDS, np.int32)
    code = _check_places(g, C, in_deck, goods, mkt, suns, built)
    if code != 0:
        return code
    code = _check_counts(g, goods, mkt, suns)
    if code != 0:
        return code
    code = _check_slots(g, C, built)
    if code != 0:
        return code
    code = _check_persons(g)
    if code != 0:
        return code
    return _check_shown(g)


_jit.register(globals(), _layout, _cards, queries)
