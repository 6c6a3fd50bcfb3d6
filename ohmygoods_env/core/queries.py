"""Small read-only queries on the state row: hand sizes, coins, building kinds and the shown-card bits.

Everything above builds on these; only :func:`_set_shown` writes (one bit of ``F_SHOWN``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import B_GOOD, B_KIND, B_OFFICE, B_RES, B_VALUE, KIND_PRODUCTION, N_RES
from ..framework import jit as _jit
from ..layout import F_A_OWNER, F_BLD, F_GOODS, F_LOC, F_NB, F_SHOWN, L_HAND, MAX_SLOTS, N_ASSIST, N_CARDS


@njit(cache=True, _nrt=False)
def hand_count(g, p):
    n = 0
    code = L_HAND + p
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def hand_res_counts(g, C, p, out):
    """``out[r]``: how many cards of resource ``r`` are in ``p``'s hand.

    One pass without a branch per card: the counts add up in one int64, 8 bits per resource
    (at most ``N_CARDS`` < 256 cards), and are unpacked at the end.
    """
    code = L_HAND + p
    packed = 0
    for c in range(N_CARDS):
        r = C[c, B_RES]
        if r < 0:  # no deck card lacks a resource; were one in a hand it would count as the last one
            r += N_RES
        packed += np.int64(g[F_LOC + c] == code) << (8 * r)
    for r in range(N_RES):
        out[r] = (packed >> (8 * r)) & 255


@njit(cache=True, _nrt=False)
def coins(g, C, p):
    """Total coin value of player p's goods (R1.3)."""
    t = 0
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        k = g[F_GOODS + base + s]
        if k > 0:
            t += k * C[g[F_BLD + base + s], B_VALUE]
    return t


@njit(cache=True, _nrt=False)
def count_kind(g, C, p, kind):
    n = 0
    for s in range(g[F_NB + p]):
        if C[g[F_BLD + p * MAX_SLOTS + s], B_KIND] == kind:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def office_bonus(g, C, p, r):
    """Extra copies of resource r in the market for p's Market Offices (R7.5)."""
    n = 0
    for s in range(g[F_NB + p]):
        if C[g[F_BLD + p * MAX_SLOTS + s], B_OFFICE] == r:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def is_production(C, b):
    return C[b, B_KIND] == KIND_PRODUCTION


@njit(cache=True, _nrt=False)
def goods_of_type(g, C, p, good, exclude_slot):
    n = 0
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        if s != exclude_slot and C[g[F_BLD + base + s], B_GOOD] == good:
            n += g[F_GOODS + base + s]
    return n


@njit(cache=True, _nrt=False)
def n_assistants(g, p):
    n = 0
    for k in range(N_ASSIST):
        if g[F_A_OWNER + k] == p:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _first_card_at(g, code):
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            return c
    return -1


@njit(cache=True, _nrt=False)
def is_shown(g, c):
    """1 if card ``c`` was shown when fed into a chain (R3.2, R7.7) and has not been reshuffled since."""
    return (g[F_SHOWN + (c >> 4)] >> (c & 15)) & 1


@njit(cache=True, _nrt=False)
def _set_shown(g, c, on):
    w = F_SHOWN + (c >> 4)
    bit = 1 << (c & 15)
    g[w] = (g[w] | bit) if on else (g[w] & ~bit)


@njit(cache=True, _nrt=False)
def _first_good(g, code):
    """The good at ``code`` that leaves first: an unshown card if there is one, so which card
    left never depends on hidden identities (then the lowest shown id)."""
    shown = -1
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            if is_shown(g, c) == 0:
                return c
            if shown < 0:
                shown = c
    return shown


_jit.register(globals(), _layout, _cards)
