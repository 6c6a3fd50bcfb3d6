"""Legal actions: :func:`legal_mask` hands each decision (``D_*``) to its ``_legal_<decision>`` helper."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import B_CH_HAND, B_COST, B_RES, N_RES
from ..framework import jit as _jit
from ..framework import native as _native
from ..framework.native import local_zeros
from ..layout import (
    A_ASIDE,
    A_ASIDE_NONE,
    A_BUILD,
    A_CHAIN_GOODS,
    A_CHAIN_HAND,
    A_CHAIN_OPEN,
    A_CHAIN_STOP,
    A_DISCARD_HAND,
    A_HIRE,
    A_KEEP,
    A_KEEP_ONE,
    A_MOVE,
    A_MOVES_DONE,
    A_NO_BUILD,
    A_NO_HIRE,
    A_PAY,
    A_PLACE,
    A_PRODUCE,
    A_PRODUCTION_DONE,
    A_REFILL,
    A_SPEND,
    A_WORKER,
    D_ASIDE,
    D_BUILD,
    D_CHAIN,
    D_HIRE,
    D_MOVE,
    D_OVER,
    D_PAY,
    D_PHASE1,
    D_PLACE,
    D_PRODUCE,
    D_REFILL,
    D_SPEND,
    D_WORKER,
    F_ALLOW,
    F_ASIDE,
    F_BLD,
    F_CHAIN_RUNS,
    F_CHAIN_SEL,
    F_CHAIN_SLOT,
    F_CUR,
    F_DEC,
    F_FINAL,
    F_GOODS,
    F_HALF,
    F_LOC,
    F_MISS,
    F_MISS_ANY,
    F_MOVED,
    F_NB,
    F_PRODUCED,
    F_ROYAL,
    F_STAFF,
    F_VARIANTS,
    L_HAND,
    MAX_SLOTS,
    N_ACTIONS,
    N_ASSIST,
    N_CARDS,
    STAFF_ASSISTANT,
    STAFF_NONE,
    STAFF_SLOPPY,
    V_KEEP_ONE,
    V_TWO_FOR_ONE,
)
from . import assistants, production, queries
from .assistants import _can_hire
from .production import (
    N_MISS,
    _chain_goods_ready,
    _chain_possible,
    _coverable_v,
    _market_avail,
    _market_covered,
    _missing_from,
    _pair_target,
)
from .queries import coins, hand_count, hand_res_counts, is_production


@njit(cache=True, _nrt=False)
def _legal_phase1(g, C, AS, p, out):
    """Mark ``p``'s legal actions: keep or discard the hand (R4.1)."""
    out[A_KEEP] = 1
    out[A_DISCARD_HAND] = 1
    n = 2
    if g[F_VARIANTS] & V_KEEP_ONE and hand_count(g, p) >= 2:  # R10.1: discard the hand but one card
        code = L_HAND + p
        for c in range(N_CARDS):
            if g[F_LOC + c] == code:
                out[A_KEEP_ONE + c] = 1
                n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_move(g, C, AS, p, out):
    """Mark ``p``'s legal actions: assistant moves, 2 coins each, once per assistant (R5.3)."""
    base = p * MAX_SLOTS
    nb = g[F_NB + p]
    out[A_MOVES_DONE] = 1
    n = 1
    if coins(g, C, p) >= 2:
        for a in range(nb):
            # Decision R5.3a: each assistant moves at most once per phase II
            if g[F_STAFF + base + a] == STAFF_ASSISTANT and (g[F_MOVED] >> a) & 1 == 0:
                for b in range(nb):
                    if b != a and is_production(C, g[F_BLD + base + b]) and g[F_STAFF + base + b] == STAFF_NONE:
                        out[A_MOVE + a * MAX_SLOTS + b] = 1
                        n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_worker(g, C, AS, p, out):
    """Mark ``p``'s legal actions: worker to a free production building, efficient or sloppy (R5.4)."""
    base = p * MAX_SLOTS
    nb = g[F_NB + p]
    n = 0
    for s in range(nb):
        if is_production(C, g[F_BLD + base + s]) and g[F_STAFF + base + s] == STAFF_NONE:
            out[A_WORKER + 2 * s] = 1
            out[A_WORKER + 2 * s + 1] = 1
            n += 2
    return n


@njit(cache=True, _nrt=False)
def _legal_aside(g, C, AS, p, out):
    """Mark ``p``'s legal actions: a hand card to set aside, or none (R5.5)."""
    out[A_ASIDE_NONE] = 1
    n = 1
    code = L_HAND + p
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            out[A_ASIDE + c] = 1
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_produce(g, C, AS, p, out):
    """Mark ``p``'s legal actions: which building produces next, final-round chains, done (R7.6, R8.2)."""
    base = p * MAX_SLOTS
    nb = g[F_NB + p]
    n = 0
    hres = local_zeros(N_RES, np.int32)  # scratch on the stack (framework.native): no heap allocation per decision
    miss = local_zeros(N_MISS, np.int32)
    avail = local_zeros(N_RES, np.int32)
    hand_res_counts(g, C, p, hres)
    _market_avail(g, C, p, avail)  # once for all of p's buildings
    mandatory = False
    for s in range(nb):
        st = g[F_STAFF + base + s]
        if st != STAFF_NONE and g[F_PRODUCED + base + s] == 0:
            _missing_from(g, C, p, s, avail, miss)
            allow = 1 if st == STAFF_SLOPPY else 0
            if _coverable_v(g, miss, hres, allow, 0):
                out[A_PRODUCE + s] = 1
                n += 1
                if _market_covered(miss, allow):
                    mandatory = True  # R7.6: automatic when the market covers it
    if g[F_FINAL] == 1 and g[F_ROYAL] == 0:  # R8.2: chains of all buildings
        for s in range(nb):
            if _chain_possible(g, C, p, s, hres):
                out[A_CHAIN_OPEN + s] = 1
                n += 1
    if not mandatory:
        out[A_PRODUCTION_DONE] = 1
        n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_spend(g, C, AS, p, out):
    """Mark ``p``'s legal actions: hand cards that supply a missing resource (R7.1, R7.2, R7.4)."""
    n = 0
    code = L_HAND + p
    anyres = g[F_MISS_ANY] > 0
    variant = (g[F_VARIANTS] & V_TWO_FOR_ONE) != 0 and not anyres
    if variant:
        hres = local_zeros(N_RES, np.int32)
        hand_res_counts(g, C, p, hres)
        miss = local_zeros(N_MISS, np.int32)
        for r in range(N_RES + 1):
            miss[r] = g[F_MISS + r]
        ok = local_zeros(N_RES, np.bool_)  # R10.2: may a card of resource r be a stand-in?
        for r in range(N_RES):
            if miss[r] == 0 and hres[r] > 0:
                hres[r] -= 1
                if g[F_HALF] == 0:
                    ok[r] = _coverable_v(g, miss, hres, g[F_ALLOW], 1)
                else:
                    t = _pair_target(miss, hres)
                    if t >= 0:
                        miss[t] -= 1
                    ok[r] = _coverable_v(g, miss, hres, g[F_ALLOW], 0)
                    if t >= 0:
                        miss[t] += 1
                hres[r] += 1
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            res = C[c, B_RES]
            if anyres or g[F_MISS + res] > 0 or (variant and ok[res]):
                out[A_SPEND + c] = 1
                n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_chain(g, C, AS, p, out):
    """Mark ``p``'s legal actions: run the chain once or stop (R7.7, R7.8)."""
    base = p * MAX_SLOTS
    n = 0
    s = g[F_CHAIN_SLOT]
    b = g[F_BLD + base + s]
    if _chain_goods_ready(g, C, p, s):  # and, for a chain that takes a hand card, one of its resource:
        hr = C[b, B_CH_HAND]
        if hr >= 0:  # each such card is an action (none: the chain cannot run, as _chain_possible says)
            code = L_HAND + p
            for c in range(N_CARDS):
                if g[F_LOC + c] == code and C[c, B_RES] == hr:
                    out[A_CHAIN_HAND + c] = 1
                    n += 1
        else:
            out[A_CHAIN_GOODS] = 1
            n += 1
    if not (g[F_CHAIN_SEL] == 1 and g[F_CHAIN_RUNS] == 0):
        out[A_CHAIN_STOP] = 1
        n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_build(g, C, AS, p, out):
    """Mark ``p``'s legal actions: build the set-aside card or not (R7.10, R7.11)."""
    nb = g[F_NB + p]
    out[A_NO_BUILD] = 1
    n = 1
    c = g[F_ASIDE + p]
    if nb < MAX_SLOTS and coins(g, C, p) >= C[c, B_COST]:
        out[A_BUILD] = 1
        n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_pay(g, C, AS, p, out):
    """Mark ``p``'s legal actions: slots with goods to pay from (R7.10, R5.3, R7.12)."""
    base = p * MAX_SLOTS
    nb = g[F_NB + p]
    n = 0
    for s in range(nb):
        if g[F_GOODS + base + s] > 0:
            out[A_PAY + s] = 1
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_hire(g, C, AS, p, out):
    """Mark ``p``'s legal actions: assistants that can be hired, or nobody (R7.12)."""
    out[A_NO_HIRE] = 1
    n = 1
    money = coins(g, C, p)
    for k in range(N_ASSIST):
        if _can_hire(g, C, AS, p, k, money):
            out[A_HIRE + k] = 1
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_place(g, C, AS, p, out):
    """Mark ``p``'s legal actions: free production slots for the hired assistant (R7.12)."""
    base = p * MAX_SLOTS
    nb = g[F_NB + p]
    n = 0
    for s in range(nb):
        if is_production(C, g[F_BLD + base + s]) and g[F_STAFF + base + s] == STAFF_NONE:
            out[A_PLACE + s] = 1
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _legal_refill(g, C, AS, p, out):
    """Mark ``p``'s legal actions: hand cards to discard into the new deck (R3.1)."""
    n = 0
    code = L_HAND + p
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            out[A_REFILL + c] = 1
            n += 1
    return n


@njit(cache=True, _nrt=False)
def legal_mask(g, C, AS, out):
    """Fill ``out[N_ACTIONS]`` with 1 for every legal action of the current player; returns how many.

    One helper per decision.
    """
    for i in range(N_ACTIONS):
        out[i] = 0
    dec = g[F_DEC]
    p = g[F_CUR]
    if dec == D_OVER or p < 0:
        return 0
    if dec == D_PHASE1:
        return _legal_phase1(g, C, AS, p, out)
    elif dec == D_MOVE:
        return _legal_move(g, C, AS, p, out)
    elif dec == D_WORKER:
        return _legal_worker(g, C, AS, p, out)
    elif dec == D_ASIDE:
        return _legal_aside(g, C, AS, p, out)
    elif dec == D_PRODUCE:
        return _legal_produce(g, C, AS, p, out)
    elif dec == D_SPEND:
        return _legal_spend(g, C, AS, p, out)
    elif dec == D_CHAIN:
        return _legal_chain(g, C, AS, p, out)
    elif dec == D_BUILD:
        return _legal_build(g, C, AS, p, out)
    elif dec == D_PAY:
        return _legal_pay(g, C, AS, p, out)
    elif dec == D_HIRE:
        return _legal_hire(g, C, AS, p, out)
    elif dec == D_PLACE:
        return _legal_place(g, C, AS, p, out)
    elif dec == D_REFILL:
        return _legal_refill(g, C, AS, p, out)
    return 0


_jit.register(globals(), _layout, _cards, _native, queries, production, assistants)
