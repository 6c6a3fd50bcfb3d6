"""Production helpers (R7.2-R7.9): what a building misses, what covers it, and running a chain."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import B_CH_G1, B_CH_G2, B_CH_HAND, B_GOOD, B_NEED0, B_NEED_ANY, B_OFFICE, N_RES
from ..framework import jit as _jit
from ..framework import native as _native
from ..framework.native import local_zeros
from ..layout import F_BLD, F_CHAIN_RUNS, F_GOODS, F_LOC, F_MKT, F_NB, F_VARIANTS, L_GOODS, MAX_SLOTS, V_TWO_FOR_ONE
from . import queries
from .queries import _first_good, _set_shown, goods_of_type

#: length of a "missing resources" array (:func:`_missing`): one entry per resource, then "any resource"
N_MISS = N_RES + 1


@njit(cache=True, _nrt=False)
def _market_avail(g, C, p, avail):
    """``avail[r]``: copies of resource ``r`` that the two market rows and ``p``'s Market Offices give (R7.4, R7.5)."""
    for r in range(N_RES):
        avail[r] = g[F_MKT + r] + g[F_MKT + N_RES + r]
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        o = C[g[F_BLD + base + s], B_OFFICE]
        if 0 <= o < N_RES:
            avail[o] += 1


@njit(cache=True, _nrt=False)
def _missing_from(g, C, p, s, avail, miss):
    """:func:`_missing` with the market counted already (``avail`` from :func:`_market_avail`), for a
    caller that asks about several of ``p``'s buildings."""
    b = g[F_BLD + p * MAX_SLOTS + s]
    total = 0
    if C[b, B_NEED_ANY] > 0:
        have = 0
        for r in range(N_RES):
            miss[r] = 0
            have += avail[r]
        m = C[b, B_NEED_ANY] - have
        if m < 0:
            m = 0
        miss[N_RES] = m
        return m
    miss[N_RES] = 0
    for r in range(N_RES):
        need = C[b, B_NEED0 + r]
        m = 0
        if need > 0:
            m = need - avail[r]
            if m < 0:
                m = 0
        miss[r] = m
        total += m
    return total


@njit(cache=True, _nrt=False)
def _missing(g, C, p, s, miss):
    """Resources building (p, s) still lacks after market and offices (R7.1, R7.4, R7.5).

    Fills ``miss[0:N_RES]`` (named resources) and ``miss[N_RES]`` (Glassmaker: any).
    Returns the total missing.
    """
    avail = local_zeros(N_RES, np.int32)
    _market_avail(g, C, p, avail)
    return _missing_from(g, C, p, s, avail, miss)


@njit(cache=True, _nrt=False)
def _coverable(miss, hand_res, allowance):
    """Can the hand supply enough of the missing resources (R7.1, R7.2)?"""
    total = miss[N_RES]
    have = 0
    if total > 0:
        for r in range(N_RES):
            have += hand_res[r]
        if have > total:
            have = total
    else:
        for r in range(N_RES):
            total += miss[r]
            have += min(hand_res[r], miss[r])
    return have >= total - allowance


@njit(cache=True, _nrt=False)
def _coverable_v(g, miss, hand_res, allowance, half):
    """:func:`_coverable` with the two-for-one variant (R10.2): two spare hand cards of any
    resource stand in for one missing resource (``half``: one stand-in already spent)."""
    if miss[N_RES] > 0 or (g[F_VARIANTS] & V_TWO_FOR_ONE) == 0:
        return _coverable(miss, hand_res, allowance)
    need = 0
    direct = 0
    hand = 0
    for r in range(N_RES):
        d = min(hand_res[r], miss[r])
        direct += d
        need += miss[r] - d
        hand += hand_res[r]
    short = need - allowance
    if short <= 0:
        return True
    return hand - direct >= 2 * short - half


@njit(cache=True, _nrt=False)
def _pair_target(miss, hand_res):
    """The missing resource a completed stand-in pair replaces (R10.2, decision): the one the
    hand covers least (largest shortfall), lowest resource index on ties."""
    best = -1
    gap = -(1 << 30)
    for r in range(N_RES):
        if miss[r] > 0 and miss[r] - hand_res[r] > gap:
            gap = miss[r] - hand_res[r]
            best = r
    return best


@njit(cache=True, _nrt=False)
def _market_covered(miss, allowance):
    t = miss[N_RES]
    for r in range(N_RES):
        t += miss[r]
    return t <= allowance


@njit(cache=True, _nrt=False)
def _chain_goods_ready(g, C, p, s):
    """The part of :func:`_chain_possible` that needs no hand count: building (p, s) has a chain and
    the goods it takes are there (R7.7, R7.8)."""
    b = g[F_BLD + p * MAX_SLOTS + s]
    hr = C[b, B_CH_HAND]
    g1 = C[b, B_CH_G1]
    g2 = C[b, B_CH_G2]
    if hr < 0 and g1 < 0:
        return False
    if g1 >= 0:
        need1 = 2 if g1 == g2 else 1
        if goods_of_type(g, C, p, g1, s) < need1:
            return False
    if g2 >= 0 and g2 != g1:
        if goods_of_type(g, C, p, g2, s) < 1:
            return False
    return True


@njit(cache=True, _nrt=False)
def _chain_possible(g, C, p, s, hand_res):
    """Can building (p, s) run its chain once now (R7.7, R7.8)?"""
    hr = C[g[F_BLD + p * MAX_SLOTS + s], B_CH_HAND]
    if hr >= 0 and hand_res[hr] == 0:
        return False
    return _chain_goods_ready(g, C, p, s)


@njit(cache=True, _nrt=False)
def _move_good(g, C, p, good, to_slot):
    """Move one good of type ``good`` from p's lowest other slot onto ``to_slot`` (R7.7)."""
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        if s != to_slot and g[F_GOODS + base + s] > 0 and C[g[F_BLD + base + s], B_GOOD] == good:
            c = _first_good(g, L_GOODS + base + s)
            g[F_LOC + c] = L_GOODS + base + to_slot
            g[F_GOODS + base + s] -= 1
            g[F_GOODS + base + to_slot] += 1
            return


@njit(cache=True, _nrt=False)
def _run_chain(g, C, p, s, hand_card):
    """Run the chain of (p, s) once: inputs become goods on this building (R7.8)."""
    b = g[F_BLD + p * MAX_SLOTS + s]
    if hand_card >= 0:  # shown to everyone as it is played (R3.2, R7.7)
        g[F_LOC + hand_card] = L_GOODS + p * MAX_SLOTS + s
        _set_shown(g, hand_card, True)
        g[F_GOODS + p * MAX_SLOTS + s] += 1
    if C[b, B_CH_G1] >= 0:
        _move_good(g, C, p, C[b, B_CH_G1], s)
    if C[b, B_CH_G2] >= 0:
        _move_good(g, C, p, C[b, B_CH_G2], s)
    g[F_CHAIN_RUNS] += 1


_jit.register(globals(), _layout, _cards, _native, queries)
