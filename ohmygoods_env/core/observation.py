"""The observation (layout v2): one player's view of the state as a float vector, and the legal mask with it.

Only what ``me`` may see goes in: hidden cards appear as counts, never as identities.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import (
    A_COST,
    A_REQ0,
    A_VP,
    B_COLOUR,
    B_GOOD,
    B_KIND,
    B_NEED0,
    B_NEED_ANY,
    B_OFFICE,
    B_RES,
    B_VALUE,
    B_VP,
    KIND_OFFICE,
    KIND_PRODUCTION,
    N_COLOURS,
    N_RES,
)
from ..framework import jit as _jit
from ..layout import (
    AF_COST,
    AF_DISPLAY,
    AF_OWNER,
    AF_REQ,
    AF_VP,
    ASSIST_FEATURES,
    D_OVER,
    F_A_CARD,
    F_A_OWNER,
    F_A_SIDE,
    F_ALLOW,
    F_ASIDE,
    F_BLD,
    F_CHAIN_RUNS,
    F_CHAIN_SEL,
    F_CHAIN_SLOT,
    F_CUR,
    F_DEC,
    F_DECK_N,
    F_FINAL,
    F_FIRST,
    F_GOODS,
    F_HALF,
    F_HIRE_K,
    F_LOC,
    F_MAXR,
    F_MISS,
    F_MISS_ANY,
    F_MKT,
    F_NB,
    F_NP,
    F_PAY_DUE,
    F_PAY_FOR,
    F_PH,
    F_PROD_SLOT,
    F_PRODUCED,
    F_ROUND,
    F_ROYAL,
    F_SNAP_ASIDE,
    F_SNAP_GOODS,
    F_SNAP_HAND,
    F_SNAP_STAFF,
    F_STAFF,
    F_SUB,
    F_SUNS,
    F_TRIGGER,
    F_VARIANTS,
    L_ASIDE,
    L_DISCARD,
    L_ESCROW,
    L_GOODS,
    L_HAND,
    MAX_SLOTS,
    N_ASSIST,
    N_CARDS,
    O_ASIDE,
    O_ASSIST,
    O_DEC,
    O_DISCARD,
    O_FIRST,
    O_FLAGS,
    O_HAND,
    O_HANDRES,
    O_MARKET,
    O_NP,
    O_OFFICE,
    O_PEND_ALLOW,
    O_PEND_CHAIN,
    O_PEND_CHAIN_MUST,
    O_PEND_DUE,
    O_PEND_HALF,
    O_PEND_HIRE,
    O_PEND_MISS,
    O_PEND_MISS_ANY,
    O_PEND_PAY_FOR,
    O_PEND_SLOT,
    O_PILES,
    O_PLAYERS,
    O_ROUND,
    O_ROUNDS_LEFT,
    O_SHOWN,
    O_SLOTS,
    O_SUNS,
    O_VARIANTS,
    PAY_HIRE,
    PF_ASIDE,
    PF_ASSISTANTS,
    PF_BUILDINGS,
    PF_COINS,
    PF_HAND,
    PF_IN_PLAY,
    PF_VP,
    PH_OVER,
    PH_P2,
    PH_P4,
    PLAYER_FEATURES,
    SC_AF_COST,
    SC_AF_REQ,
    SC_AF_VP,
    SC_HANDRES,
    SC_MARKET,
    SC_OFFICE,
    SC_PEND_DUE,
    SC_PEND_MISS,
    SC_PEND_MISS_ANY,
    SC_PF_ASSISTANTS,
    SC_PF_BUILDINGS,
    SC_PF_COINS,
    SC_PF_HAND,
    SC_PF_VP,
    SC_PILES,
    SC_ROUND,
    SC_ROUNDS_LEFT,
    SC_SF_GOODS,
    SC_SF_NEED_ANY,
    SC_SF_NEEDS,
    SC_SF_VALUE,
    SC_SF_VP,
    SC_SUNS,
    SF_COLOUR,
    SF_GOOD,
    SF_GOODS,
    SF_KIND,
    SF_NEED_ANY,
    SF_NEEDS,
    SF_OFFICE,
    SF_PRESENT,
    SF_PRODUCED,
    SF_STAFF,
    SF_VALUE,
    SF_VP,
    SLOT_FEATURES,
    STAFF_NONE,
    SUB_CHAIN,
    SUB_DRAW,
    SUB_PAY,
    SUB_SPEND,
    V_KEEP_ONE,
    V_TWO_FOR_ONE,
)
from . import legal, queries
from .legal import legal_mask
from .queries import hand_count, is_shown, office_bonus


@njit(cache=True)
def rounds_left(g):
    """Rounds the game can still last, the current one included: the round limit (solo R10.4,
    else the cap of R8.4), at most 2 once the end is triggered (R8.1), 1 in the final round."""
    if g[F_PH] == PH_OVER:
        return 0
    left = max(g[F_MAXR] - g[F_ROUND], 1)
    if g[F_FINAL] == 1:
        return 1
    if g[F_TRIGGER] == 1:
        return min(left, 2)
    return left


@njit(cache=True)
def _observe_table(g, C, me, out):
    """The public table seen by ``me``: decision, players, round, flags, variants, market, offices."""
    np_ = g[F_NP]
    dec = g[F_DEC]
    if g[F_CUR] == me or dec == D_OVER:
        out[O_DEC + dec] = 1.0  # others' pending decisions may reveal hidden choices (R5.2)
    out[O_NP + np_ - 1] = 1.0
    out[O_ROUND] = g[F_ROUND] / SC_ROUND
    out[O_ROUNDS_LEFT] = rounds_left(g) / SC_ROUNDS_LEFT
    out[O_FLAGS] = g[F_FINAL]
    out[O_FLAGS + 1] = g[F_TRIGGER]
    out[O_FLAGS + 2] = g[F_ROYAL]
    out[O_FLAGS + 3] = 1.0 if g[F_FIRST] == me else 0.0
    out[O_VARIANTS] = g[F_VARIANTS] & V_KEEP_ONE
    out[O_VARIANTS + 1] = (g[F_VARIANTS] & V_TWO_FOR_ONE) >> 1
    out[O_FIRST + (g[F_FIRST] - me) % np_] = 1.0
    for i in range(2 * N_RES):
        out[O_MARKET + i] = g[F_MKT + i] / SC_MARKET
    out[O_SUNS] = g[F_SUNS] / SC_SUNS
    out[O_SUNS + 1] = g[F_SUNS + 1] / SC_SUNS
    for r in range(N_RES):
        out[O_OFFICE + r] = office_bonus(g, C, me, r) / SC_OFFICE


@njit(cache=True)
def _observe_cards(g, C, me, out):
    """The cards ``me`` may see: own hand and set-aside card, the discard pile, cards shown in chains."""
    ndisc = 0
    hand_res = np.zeros(N_RES, np.int64)
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        if lc == L_HAND + me:
            out[O_HAND + c] = 1.0
            hand_res[C[c, B_RES]] += 1
        elif lc == L_ASIDE + me:
            out[O_ASIDE + c] = 1.0
        elif lc == L_DISCARD:
            out[O_DISCARD + c] = 1.0
            ndisc += 1
        elif (lc >= L_GOODS or lc == L_ESCROW) and is_shown(g, c) == 1:
            out[O_SHOWN + c] = 1.0  # escrow: paid in phase II, a good until the reveal (R5.2)
    for r in range(N_RES):
        out[O_HANDRES + r] = hand_res[r] / SC_HANDRES
    out[O_PILES] = g[F_DECK_N] / SC_PILES
    out[O_PILES + 1] = ndisc / SC_PILES


@njit(cache=True)
def _observe_pending(g, me, out):
    """``me``'s own open step: the production, chain or payment under way (R7.1, R7.7, R7.10)."""
    if g[F_CUR] != me:
        return
    sub = g[F_SUB]
    if g[F_PH] == PH_P4 and (sub == SUB_SPEND or sub == SUB_DRAW):
        out[O_PEND_SLOT + g[F_PROD_SLOT]] = 1.0
        for r in range(N_RES):
            out[O_PEND_MISS + r] = g[F_MISS + r] / SC_PEND_MISS
        out[O_PEND_MISS_ANY] = g[F_MISS_ANY] / SC_PEND_MISS_ANY
        out[O_PEND_ALLOW] = g[F_ALLOW]
        out[O_PEND_HALF] = g[F_HALF]
    if g[F_PH] == PH_P4 and sub == SUB_CHAIN:
        out[O_PEND_CHAIN + g[F_CHAIN_SLOT]] = 1.0
        out[O_PEND_CHAIN_MUST] = 1.0 if (g[F_CHAIN_SEL] == 1 and g[F_CHAIN_RUNS] == 0) else 0.0
    if sub == SUB_PAY:
        out[O_PEND_DUE] = g[F_PAY_DUE] / SC_PEND_DUE
        out[O_PEND_PAY_FOR + g[F_PAY_FOR]] = 1.0
        if g[F_PAY_FOR] == PAY_HIRE:
            out[O_PEND_HIRE + g[F_HIRE_K]] = 1.0


@njit(cache=True)
def _observe_slot(C, out, so, b, k, st, produced):
    """One building slot's features at ``out[so:]``: building ``b`` holding ``k`` goods, staff ``st``."""
    out[so + SF_PRESENT] = 1.0
    out[so + SF_COLOUR + C[b, B_COLOUR]] = 1.0
    kind = C[b, B_KIND]
    if kind == KIND_PRODUCTION:
        out[so + SF_KIND + (1 if C[b, B_NEED_ANY] > 0 else 0)] = 1.0
    elif kind == KIND_OFFICE:
        out[so + SF_KIND + 2] = 1.0
        out[so + SF_OFFICE + C[b, B_OFFICE]] = 1.0
    else:
        out[so + SF_KIND + 3] = 1.0
    if C[b, B_GOOD] >= 0:
        out[so + SF_GOOD + C[b, B_GOOD]] = 1.0
    for r in range(N_RES):
        out[so + SF_NEEDS + r] = C[b, B_NEED0 + r] / SC_SF_NEEDS
    out[so + SF_NEED_ANY] = C[b, B_NEED_ANY] / SC_SF_NEED_ANY
    out[so + SF_GOODS] = k / SC_SF_GOODS
    out[so + SF_VALUE] = k * C[b, B_VALUE] / SC_SF_VALUE
    if st != STAFF_NONE:
        out[so + SF_STAFF + st - 1] = 1.0
    out[so + SF_PRODUCED] = produced
    out[so + SF_VP] = C[b, B_VP] / SC_SF_VP


@njit(cache=True)
def _observe_player(g, C, AS, q, rel, snap, out):
    """Seat ``q``'s buildings and totals at relative seat ``rel``; ``snap``: as at the start of phase II."""
    o = O_PLAYERS + rel * PLAYER_FEATURES
    qb = q * MAX_SLOTS
    money = 0
    vp = 0
    for s in range(g[F_NB + q]):
        b = g[F_BLD + qb + s]
        k = g[F_SNAP_GOODS + qb + s] if snap else g[F_GOODS + qb + s]
        st = g[F_SNAP_STAFF + qb + s] if snap else g[F_STAFF + qb + s]
        money += k * C[b, B_VALUE]
        vp += C[b, B_VP]
        so = O_SLOTS + (rel * MAX_SLOTS + s) * SLOT_FEATURES
        _observe_slot(C, out, so, b, k, st, g[F_PRODUCED + qb + s])
    nas = 0
    for k in range(N_ASSIST):
        if g[F_A_OWNER + k] == q:
            nas += 1
            vp += AS[g[F_A_CARD + k], g[F_A_SIDE + k], A_VP]
    hand = g[F_SNAP_HAND + q] if snap else hand_count(g, q)
    aside = g[F_SNAP_ASIDE + q] if snap else (1 if g[F_ASIDE + q] >= 0 else 0)
    out[o + PF_HAND] = hand / SC_PF_HAND
    out[o + PF_BUILDINGS] = g[F_NB + q] / SC_PF_BUILDINGS
    out[o + PF_COINS] = money / SC_PF_COINS
    out[o + PF_ASSISTANTS] = nas / SC_PF_ASSISTANTS
    out[o + PF_VP] = (vp + money // 5) / SC_PF_VP
    out[o + PF_ASIDE] = aside
    out[o + PF_IN_PLAY] = 1.0


@njit(cache=True)
def _observe_assistants(g, AS, me, out):
    """The assistants in the display or owned, owners as seats relative to ``me``."""
    np_ = g[F_NP]
    for k in range(N_ASSIST):
        ow = g[F_A_OWNER + k]
        if ow == -2:
            continue
        o = O_ASSIST + k * ASSIST_FEATURES
        card = g[F_A_CARD + k]
        side = g[F_A_SIDE + k]
        if ow == -1:
            out[o + AF_DISPLAY] = 1.0
        else:
            out[o + AF_OWNER + (ow - me) % np_] = 1.0
        out[o + AF_COST] = AS[card, side, A_COST] / SC_AF_COST
        out[o + AF_VP] = AS[card, side, A_VP] / SC_AF_VP
        for col in range(N_COLOURS):
            out[o + AF_REQ + col] = AS[card, side, A_REQ0 + col] / SC_AF_REQ


@njit(cache=True)
def observe(g, C, AS, me, out):
    """Write player ``me``'s observation (float32[OBS_DIM]) into ``out``.

    Seats are rotated so that ``me`` is seat 0. Never shows an opponent's hand, set-aside
    card, phase-I choice, undisclosed phase-II choices (opponents are shown as they were
    at the start of phase II until the reveal), goods identities or the deck order.
    """
    for i in range(out.shape[0]):
        out[i] = 0.0
    _observe_table(g, C, me, out)
    _observe_cards(g, C, me, out)
    _observe_pending(g, me, out)
    np_ = g[F_NP]
    hidden_phase2 = g[F_PH] == PH_P2
    for rel in range(np_):
        q = (me + rel) % np_
        _observe_player(g, C, AS, q, rel, hidden_phase2 and q != me, out)
    _observe_assistants(g, AS, me, out)


@njit(cache=True)
def observe_with_mask(g, C, AS, me, obs, mask):
    """``observe`` for seat ``me`` and, in the same call, its legal mask (all 0 unless ``me`` acts now).

    One dispatch instead of two for the single-game envs, which return both every step.
    """
    observe(g, C, AS, me, obs)
    if g[F_CUR] == me:
        legal_mask(g, C, AS, mask)
    else:
        for i in range(mask.shape[0]):
            mask[i] = 0


_jit.register(globals(), _layout, _cards, queries, legal)
