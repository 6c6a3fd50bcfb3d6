"""The automatic flow (R3-R8): everything between two decisions.

:func:`advance` runs dealing, market reveals, drawing goods, resolving simultaneous choices and
the round end until a player must decide; it then sets ``F_DEC`` (the decision) and ``F_CUR``
(who decides). Each phase of the round is one ``_<phase>`` helper; :func:`advance_turn` stops at
the end of one seat's turn of a simultaneous phase.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import B_RES, B_SUN, KIND_EXTRA, N_RES
from ..framework import jit as _jit
from ..framework import native as _native
from ..framework.native import local_zeros
from ..layout import (
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
    F_ASIDE,
    F_ASLOT,
    F_BLOCKED,
    F_CHAIN_RUNS,
    F_CHAIN_SEL,
    F_CHAIN_SLOT,
    F_CUR,
    F_DEC,
    F_FINAL,
    F_FIRST,
    F_GOODS,
    F_GOODS_MADE,
    F_HAND0,
    F_LOC,
    F_MAXR,
    F_MKT,
    F_MOVED,
    F_NP,
    F_OWE,
    F_OWE_GOODS,
    F_P1,
    F_PAID_FROM,
    F_PH,
    F_PROD_SLOT,
    F_PRODUCED,
    F_REF_OWE,
    F_REF_RET,
    F_REF_TURN,
    F_ROUND,
    F_ROW_CUT,
    F_ROYAL,
    F_SNAP_ASIDE,
    F_SNAP_ASLOT,
    F_SNAP_GOODS,
    F_SNAP_HAND,
    F_SNAP_STAFF,
    F_STAFF,
    F_SUB,
    F_SUNS,
    F_TRIGGER,
    F_TURN,
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
    PH_OVER,
    PH_P1_ASK,
    PH_P1_DRAW,
    PH_P1_RESOLVE,
    PH_P2,
    PH_P2_REVEAL,
    PH_P4,
    PH_REFILL,
    PH_ROUND_END,
    PH_ROUND_START,
    PH_SUNRISE,
    PH_SUNSET,
    SUB_ASIDE,
    SUB_BUILD,
    SUB_CHAIN,
    SUB_DRAW,
    SUB_END,
    SUB_HIRE,
    SUB_MOVE,
    SUB_PAY,
    SUB_PLACE,
    SUB_PROD,
    SUB_SPEND,
    SUB_WORKER,
)
from . import assistants, deck, production, queries
from .assistants import _can_hire, _can_move_any, _free_production_slot
from .deck import _gather_into_deck, draw_card
from .production import _chain_possible
from .queries import coins, count_kind, hand_count, hand_res_counts


@njit(cache=True, _nrt=False)
def _start_refill(g):
    """Deck and discard are empty when a card must be drawn (R3.1)."""
    g[F_REF_RET] = g[F_PH]
    g[F_REF_TURN] = 0
    any_owed = False
    for p in range(g[F_NP]):
        k = hand_count(g, p) // 2
        g[F_REF_OWE + p] = k
        if k > 0:
            any_owed = True
    if any_owed:
        g[F_PH] = PH_REFILL
    else:
        g[F_BLOCKED] = 1  # nothing can be drawn: the draw is given up (Decision R3.1a)


@njit(cache=True, _nrt=False)
def _draw_or_interrupt(g):
    """Draw a card; on an empty deck and discard, start the refill and return -1.

    Returns -2 when a refill already brought no card: the caller gives up its draws.
    """
    c = draw_card(g)
    if c >= 0:
        return c
    if g[F_BLOCKED] == 1:
        g[F_BLOCKED] = 0
        return -2
    _start_refill(g)
    if g[F_BLOCKED] == 1:
        g[F_BLOCKED] = 0
        return -2
    return -1


@njit(cache=True, _nrt=False)
def _snapshot_public(g):
    for i in range(MAX_PLAYERS * MAX_SLOTS):
        g[F_SNAP_GOODS + i] = g[F_GOODS + i]
        g[F_SNAP_STAFF + i] = g[F_STAFF + i]
        g[F_SNAP_ASLOT + i] = g[F_ASLOT + i]
    for p in range(MAX_PLAYERS):
        g[F_SNAP_HAND + p] = hand_count(g, p)
        g[F_SNAP_ASIDE + p] = 1 if g[F_ASIDE + p] >= 0 else 0


@njit(cache=True, _nrt=False)
def _reveal_row(g, C, row):
    """Reveal cards into market row ``row`` until it shows 2 half-suns (R5.1, R6.1).

    Returns True when the row is complete, False when a refill decision interrupts it.
    """
    while g[F_SUNS + row] < 2 and g[F_ROW_CUT + row] == 0:
        c = _draw_or_interrupt(g)
        if c == -1:
            return False
        if c == -2:
            g[F_ROW_CUT + row] = 1
            break
        g[F_LOC + c] = L_ROW1 + row
        g[F_MKT + row * N_RES + C[c, B_RES]] += 1
        if C[c, B_SUN] == 1:
            g[F_SUNS + row] += 1
    return True


@njit(cache=True, _nrt=False)
def _round_start(g, C, AS):
    """Round start: remember hand sizes for phase I.

    Returns True when a player must decide.
    """
    np_ = g[F_NP]
    for p in range(np_):
        g[F_HAND0 + p] = hand_count(g, p)
        g[F_P1 + p] = 0
        g[F_OWE + p] = 0
    g[F_TURN] = 0
    g[F_PH] = PH_P1_ASK
    return False


@njit(cache=True, _nrt=False)
def _phase1_ask(g, C, AS):
    """Phase I: ask each player in turn to keep or discard the hand (R4.1).

    Returns True when a player must decide.
    """
    np_ = g[F_NP]
    if g[F_ROYAL] == 1:  # §9: no discard-all option
        g[F_PH] = PH_P1_RESOLVE
        return False
    while g[F_TURN] < np_:
        p = (g[F_FIRST] + g[F_TURN]) % np_
        if hand_count(g, p) > 0:
            g[F_DEC] = D_PHASE1
            g[F_CUR] = p
            return True
        g[F_TURN] += 1
    g[F_PH] = PH_P1_RESOLVE
    return False


@njit(cache=True, _nrt=False)
def _phase1_resolve(g, C, AS):
    """Phase I: discarded hands and the cards owed (R4.1-R4.3).

    Returns True when a player must decide.
    """
    np_ = g[F_NP]
    for p in range(np_):
        owe = 2  # R4.2
        if g[F_P1 + p] >= 1:  # R4.1: discard the whole hand, draw as many
            code = L_HAND + p
            kept = g[F_P1 + p] - 2  # R10.1: one card may stay (-1: none)
            for c in range(N_CARDS):
                if g[F_LOC + c] == code and c != kept:
                    g[F_LOC + c] = L_DISCARD
                    owe += 1
        # R4.3: Extra-card buildings stack (Decision); omg2 only while the hand held at most
        # 3 cards, Royal Goods unconditionally (§9)
        if g[F_ROYAL] == 1 or g[F_HAND0 + p] <= 3:
            owe += count_kind(g, C, p, KIND_EXTRA)
        g[F_OWE + p] = owe
    g[F_TURN] = 0
    g[F_PH] = PH_P1_DRAW
    return False


@njit(cache=True, _nrt=False)
def _phase1_draw(g, C, AS):
    """Phase I: deal the owed cards in turn order (R4.2, R4.3).

    Returns True when a player must decide.
    """
    np_ = g[F_NP]
    target = -1
    for t in range(np_):
        p = (g[F_FIRST] + t) % np_
        if g[F_OWE + p] > 0:
            target = p
            break
    if target < 0:
        g[F_PH] = PH_SUNRISE
        return False
    c = _draw_or_interrupt(g)
    if c == -1:
        return False
    if c == -2:
        for p in range(np_):
            g[F_OWE + p] = 0
        return False
    g[F_LOC + c] = L_HAND + target
    g[F_OWE + target] -= 1
    return False


@njit(cache=True, _nrt=False)
def _sunrise(g, C, AS):
    """Phase II sunrise: reveal market row 1 (R5.1), snapshot the public state.

    Returns True when a player must decide.
    """
    if not _reveal_row(g, C, 0):
        return False
    _snapshot_public(g)
    g[F_MOVED] = 0
    g[F_TURN] = 0
    g[F_SUB] = SUB_MOVE
    g[F_PH] = PH_P2
    return False


@njit(cache=True, _nrt=False)
def _phase2(g, C, AS):
    """Phase II: each player moves assistants, places the worker, sets a card aside (R5.2-R5.5).

    Returns True when a player must decide.
    """
    np_ = g[F_NP]
    if g[F_TURN] >= np_:
        g[F_PH] = PH_P2_REVEAL
        return False
    p = (g[F_FIRST] + g[F_TURN]) % np_
    sub = g[F_SUB]
    g[F_CUR] = p
    if sub == SUB_MOVE:
        if _can_move_any(g, C, p):
            g[F_DEC] = D_MOVE
            return True
        g[F_SUB] = SUB_WORKER
    elif sub == SUB_PAY:
        g[F_DEC] = D_PAY
        return True
    elif sub == SUB_WORKER:
        if _free_production_slot(g, C, p, -1):
            g[F_DEC] = D_WORKER
            return True
        g[F_SUB] = SUB_ASIDE  # R5.4 Decision: no free building, the worker idles
    else:  # SUB_ASIDE
        if hand_count(g, p) > 0:
            g[F_DEC] = D_ASIDE
            return True
        g[F_TURN] += 1
        g[F_SUB] = SUB_MOVE
        g[F_MOVED] = 0
    return False


@njit(cache=True, _nrt=False)
def _phase2_reveal(g, C, AS):
    """Phase II reveal: goods paid in phase II go to the discard pile.

    Returns True when a player must decide.
    """
    for c in range(N_CARDS):
        if g[F_LOC + c] == L_ESCROW:
            g[F_LOC + c] = L_DISCARD
            g[F_PAID_FROM + c] = 0
    g[F_PH] = PH_SUNSET
    return False


@njit(cache=True, _nrt=False)
def _sunset(g, C, AS):
    """Phase III sunset: reveal market row 2 (R6.1).

    Returns True when a player must decide.
    """
    if not _reveal_row(g, C, 1):
        return False
    g[F_TURN] = 0
    g[F_SUB] = SUB_PROD
    for i in range(MAX_PLAYERS * MAX_SLOTS):
        g[F_PRODUCED + i] = 0
    g[F_PH] = PH_P4
    return False


@njit(cache=True, _nrt=False)
def _phase4_draw(g, C, p):
    """Draw the goods a production owes one by one (R7.3), then offer the chain (R7.7) or go on producing."""
    s = g[F_PROD_SLOT]
    if g[F_OWE_GOODS] > 0:
        c = _draw_or_interrupt(g)
        if c == -1:
            return
        if c == -2:
            g[F_OWE_GOODS] = 0
            return
        g[F_LOC + c] = L_GOODS + p * MAX_SLOTS + s  # R7.3
        g[F_GOODS + p * MAX_SLOTS + s] += 1
        g[F_OWE_GOODS] -= 1
        g[F_GOODS_MADE] += 1
        return
    hres = local_zeros(N_RES, np.int32)
    hand_res_counts(g, C, p, hres)
    if g[F_GOODS_MADE] > 0 and _chain_possible(g, C, p, s, hres):
        g[F_CHAIN_SLOT] = s  # R7.7
        g[F_CHAIN_RUNS] = 0
        g[F_CHAIN_SEL] = 0
        g[F_SUB] = SUB_CHAIN
    else:
        g[F_SUB] = SUB_PROD


@njit(cache=True, _nrt=False)
def _phase4(g, C, AS):
    """Phase IV: production, chains, building and hiring in turn order (R7).

    Returns True when a player must decide.
    """
    np_ = g[F_NP]
    if g[F_TURN] >= np_:
        g[F_PH] = PH_ROUND_END
        return False
    p = (g[F_FIRST] + g[F_TURN]) % np_
    g[F_CUR] = p
    sub = g[F_SUB]
    if sub == SUB_PROD:
        g[F_DEC] = D_PRODUCE
        return True
    elif sub == SUB_SPEND:
        g[F_DEC] = D_SPEND
        return True
    elif sub == SUB_DRAW:
        _phase4_draw(g, C, p)
    elif sub == SUB_CHAIN:
        g[F_DEC] = D_CHAIN
        return True
    elif sub == SUB_BUILD:
        if g[F_ASIDE + p] >= 0:
            g[F_DEC] = D_BUILD
            return True
        g[F_SUB] = SUB_HIRE
    elif sub == SUB_PAY:
        g[F_DEC] = D_PAY
        return True
    elif sub == SUB_HIRE:
        money = coins(g, C, p)
        for k in range(N_ASSIST):
            if _can_hire(g, C, AS, p, k, money):
                g[F_DEC] = D_HIRE
                return True
        g[F_SUB] = SUB_END
    elif sub == SUB_PLACE:
        g[F_DEC] = D_PLACE
        return True
    else:  # SUB_END
        g[F_TURN] += 1
        g[F_SUB] = SUB_PROD
    return False


@njit(cache=True, _nrt=False)
def _round_end(g, C, AS):
    """Round end: discard the market, next round or the end (R3, R8.1, R8.4).

    Returns True when a player must decide.
    """
    np_ = g[F_NP]
    # After phase IV the market is discarded (R3)
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        if lc == L_ROW1 or lc == L_ROW2:
            g[F_LOC + c] = L_DISCARD
    for i in range(2 * N_RES):
        g[F_MKT + i] = 0
    g[F_SUNS] = 0
    g[F_SUNS + 1] = 0
    g[F_ROW_CUT] = 0
    g[F_ROW_CUT + 1] = 0
    g[F_ROUND] += 1
    if g[F_FINAL] == 1 or g[F_ROUND] >= g[F_MAXR]:
        g[F_PH] = PH_OVER  # R8.1 final round played / Decision R8.4 round cap
        return False
    if g[F_TRIGGER] == 1:
        g[F_FINAL] = 1  # R8.1: one more full round
    g[F_FIRST] = (g[F_FIRST] + 1) % np_
    g[F_PH] = PH_ROUND_START
    return False


@njit(cache=True, _nrt=False)
def _refill(g, C, AS):
    """Empty deck: each player discards half the hand into the new deck (R3.1).

    Returns True when a player must decide.
    """
    np_ = g[F_NP]
    while g[F_REF_TURN] < np_:
        p = (g[F_FIRST] + g[F_REF_TURN]) % np_
        if g[F_REF_OWE + p] > 0:
            g[F_DEC] = D_REFILL
            g[F_CUR] = p
            return True
        g[F_REF_TURN] += 1
    if _gather_into_deck(g, L_LIMBO) == 0:
        g[F_BLOCKED] = 1
    g[F_PH] = g[F_REF_RET]
    return False


@njit(cache=True, _nrt=False)
def advance(g, C, AS):
    """Run the automatic part of the game until a player must decide (or the game ends).

    One helper per phase; each returns True when it stopped at a decision.
    """
    while True:
        ph = g[F_PH]
        if ph == PH_OVER:
            g[F_DEC] = D_OVER
            g[F_CUR] = -1
            return
        if ph == PH_ROUND_START:
            stop = _round_start(g, C, AS)
        elif ph == PH_P1_ASK:
            stop = _phase1_ask(g, C, AS)
        elif ph == PH_P1_RESOLVE:
            stop = _phase1_resolve(g, C, AS)
        elif ph == PH_P1_DRAW:
            stop = _phase1_draw(g, C, AS)
        elif ph == PH_SUNRISE:
            stop = _sunrise(g, C, AS)
        elif ph == PH_P2:
            stop = _phase2(g, C, AS)
        elif ph == PH_P2_REVEAL:
            stop = _phase2_reveal(g, C, AS)
        elif ph == PH_SUNSET:
            stop = _sunset(g, C, AS)
        elif ph == PH_P4:
            stop = _phase4(g, C, AS)
        elif ph == PH_ROUND_END:
            stop = _round_end(g, C, AS)
        elif ph == PH_REFILL:
            stop = _refill(g, C, AS)
        else:
            g[F_PH] = PH_OVER
            stop = False
        if stop:
            return


@njit(cache=True, _nrt=False)
def advance_turn(g, C, AS, turn):
    """:func:`advance` within turn ``turn`` of a simultaneous phase (R4.1, R5.2) and no further.

    Returns True when the seat of that turn must decide again, False when its turn is over:
    the row then stops between turns (before the next seat, the reveal or any draw), so a
    seat's choices can be played out on a copy of the row on their own.
    """
    while g[F_TURN] == turn:
        ph = g[F_PH]
        if ph == PH_P2:
            stop = _phase2(g, C, AS)
        elif ph == PH_P1_ASK:
            stop = _phase1_ask(g, C, AS)
        else:
            return False
        if stop:
            return g[F_TURN] == turn
    return False


_jit.register(globals(), _layout, _cards, _native, queries, deck, production, assistants)
