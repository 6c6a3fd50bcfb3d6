"""Applying actions: :func:`apply_decision` hands each decision to its ``_apply_<decision>`` helper.

:func:`apply_action` applies one action *without* checking it, then runs the automatic flow;
:func:`step_checked` checks it against :func:`~.legal.legal_mask` first and leaves the state
untouched when it is illegal (``ERR_*`` codes). With ``F_AUTO`` set, decisions with exactly one
legal action are applied automatically (:func:`apply_forced`, DESIGN: forced moves).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import A_COST, B_COST, B_RES, N_RES
from ..framework import jit as _jit
from ..framework import native as _native
from ..framework import rng as _rng
from ..framework.native import local_zeros
from ..framework.rng import nth_legal
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
    D_OVER,
    F_A_CARD,
    F_A_SIDE,
    F_ALLOW,
    F_ASIDE,
    F_ASLOT,
    F_AUTO,
    F_CHAIN_RUNS,
    F_CHAIN_SEL,
    F_CHAIN_SLOT,
    F_CUR,
    F_DEC,
    F_GOODS_MADE,
    F_HALF,
    F_HIRE_K,
    F_LOC,
    F_MISS,
    F_MISS_ANY,
    F_MOVED,
    F_NB,
    F_OWE_GOODS,
    F_P1,
    F_PROD_SLOT,
    F_PRODUCED,
    F_REF_OWE,
    F_REF_TURN,
    F_ROYAL,
    F_STAFF,
    F_STEPS,
    F_SUB,
    F_TURN,
    L_ASIDE,
    L_DISCARD,
    L_HAND,
    L_LIMBO,
    MAX_SLOTS,
    N_ACTIONS,
    PAY_BUILD,
    PAY_HIRE,
    PAY_MOVE,
    STAFF_ASSISTANT,
    STAFF_EFFICIENT,
    STAFF_NONE,
    STAFF_SLOPPY,
    SUB_ASIDE,
    SUB_BUILD,
    SUB_CHAIN,
    SUB_DRAW,
    SUB_END,
    SUB_HIRE,
    SUB_MOVE,
    SUB_PROD,
    SUB_SPEND,
    SUB_WORKER,
)
from . import flow, legal, payments, production, queries
from .flow import advance
from .legal import legal_mask
from .payments import _pay_from, _start_payment
from .production import N_MISS, _chain_possible, _missing, _pair_target, _run_chain
from .queries import hand_res_counts

ERR_ILLEGAL = -1  # step_checked: the action is not legal now
ERR_RANGE = -2  # step_checked: the action id is outside 0..N_ACTIONS-1
ERR_OVER = -3  # step_checked: the game is over
ERR_PLAYER = -4  # step_checked: it is not this player's turn


@njit(cache=True, _nrt=False)
def apply_action(g, C, AS, a):
    """Apply action ``a`` of the current player (unchecked), then advance the game."""
    apply_decision(g, C, AS, a)
    advance(g, C, AS)


@njit(cache=True, _nrt=False)
def _apply_phase1(g, C, AS, p, a):
    """Record ``p``'s hidden phase-I choice: keep, discard, or discard but one card (R4.1, R10.1)."""
    if a >= A_KEEP_ONE:  # R10.1: discard the hand but card a - A_KEEP_ONE (hidden until all chose)
        g[F_P1 + p] = 2 + a - A_KEEP_ONE
    else:
        g[F_P1 + p] = 1 if a == A_DISCARD_HAND else 0  # hidden until all chose (R4.1)
    g[F_TURN] += 1


@njit(cache=True, _nrt=False)
def _apply_move(g, C, AS, p, a):
    """Move one of ``p``'s assistants for 2 coins, or end the moves (R5.3)."""
    if a == A_MOVES_DONE:
        g[F_SUB] = SUB_WORKER
        return
    base = p * MAX_SLOTS
    fr = (a - A_MOVE) // MAX_SLOTS
    to = (a - A_MOVE) % MAX_SLOTS
    g[F_STAFF + base + to] = STAFF_ASSISTANT
    g[F_ASLOT + base + to] = g[F_ASLOT + base + fr]
    g[F_STAFF + base + fr] = STAFF_NONE
    g[F_ASLOT + base + fr] = -1
    g[F_MOVED] = (g[F_MOVED] & ~(1 << fr)) | (1 << to)
    _start_payment(g, C, p, 2, PAY_MOVE)


@njit(cache=True, _nrt=False)
def _apply_worker(g, C, AS, p, a):
    """Place ``p``'s worker on a slot, efficient or sloppy (R5.4)."""
    s = (a - A_WORKER) // 2
    g[F_STAFF + p * MAX_SLOTS + s] = STAFF_SLOPPY if (a - A_WORKER) % 2 == 1 else STAFF_EFFICIENT
    g[F_SUB] = SUB_ASIDE


@njit(cache=True, _nrt=False)
def _apply_aside(g, C, AS, p, a):
    """Set a hand card aside, or none, ending ``p``'s phase-II turn (R5.5)."""
    if a < A_ASIDE_NONE:
        c = a - A_ASIDE
        g[F_LOC + c] = L_ASIDE + p
        g[F_ASIDE + p] = c
    g[F_TURN] += 1
    g[F_SUB] = SUB_MOVE
    g[F_MOVED] = 0


@njit(cache=True, _nrt=False)
def _produce_at(g, C, p, s):
    """Start production at ``p``'s slot ``s``: what is missing, what may be skipped, goods owed (R7.6, R7.2)."""
    base = p * MAX_SLOTS
    g[F_PRODUCED + base + s] = 1
    g[F_PROD_SLOT] = s
    miss = local_zeros(N_MISS, np.int32)
    total = _missing(g, C, p, s, miss)
    for r in range(N_RES + 1):
        g[F_MISS + r] = miss[r]
    st = g[F_STAFF + base + s]
    g[F_ALLOW] = 1 if st == STAFF_SLOPPY else 0
    g[F_OWE_GOODS] = 2 if st == STAFF_EFFICIENT else 1  # R7.2
    g[F_GOODS_MADE] = 0
    g[F_HALF] = 0
    g[F_SUB] = SUB_DRAW if total <= g[F_ALLOW] else SUB_SPEND


@njit(cache=True, _nrt=False)
def _apply_produce(g, C, AS, p, a):
    """Produce at a slot (R7.6), open a final-round chain (R8.2), or end production (R7.9)."""
    if a < A_CHAIN_OPEN:
        _produce_at(g, C, p, a - A_PRODUCE)
    elif a < A_PRODUCTION_DONE:  # R8.2: open the chain of any building
        g[F_CHAIN_SLOT] = a - A_CHAIN_OPEN
        g[F_CHAIN_RUNS] = 0
        g[F_CHAIN_SEL] = 1
        g[F_SUB] = SUB_CHAIN
    else:
        base = p * MAX_SLOTS
        for s in range(g[F_NB + p]):  # R7.9: the worker leaves, assistants stay
            st = g[F_STAFF + base + s]
            if st == STAFF_EFFICIENT or st == STAFF_SLOPPY:
                g[F_STAFF + base + s] = STAFF_NONE
        g[F_SUB] = SUB_BUILD


@njit(cache=True, _nrt=False)
def _apply_spend(g, C, AS, p, a):
    """A hand card supplies a missing resource, alone or as half of a stand-in pair (R7.1, R10.2)."""
    c = a - A_SPEND
    g[F_LOC + c] = L_DISCARD
    if g[F_MISS_ANY] > 0:
        g[F_MISS_ANY] -= 1
    elif g[F_MISS + C[c, B_RES]] > 0:
        g[F_MISS + C[c, B_RES]] -= 1
    elif g[F_HALF] == 0:  # R10.2: the first card of a stand-in pair
        g[F_HALF] = 1
    else:  # R10.2: the pair replaces one missing resource
        g[F_HALF] = 0
        hres = local_zeros(N_RES, np.int32)
        hand_res_counts(g, C, p, hres)
        miss = local_zeros(N_MISS, np.int32)
        for r in range(N_RES + 1):
            miss[r] = g[F_MISS + r]
        t = _pair_target(miss, hres)
        if t >= 0:
            g[F_MISS + t] -= 1
    total = g[F_MISS_ANY]
    for r in range(N_RES):
        total += g[F_MISS + r]
    if total <= g[F_ALLOW]:
        g[F_SUB] = SUB_DRAW


@njit(cache=True, _nrt=False)
def _apply_chain(g, C, AS, p, a):
    """Run the open chain once, with a hand card or goods, or stop it (R7.7, R7.8)."""
    if a == A_CHAIN_STOP:
        g[F_SUB] = SUB_PROD
        return
    s = g[F_CHAIN_SLOT]
    _run_chain(g, C, p, s, a - A_CHAIN_HAND if a < A_CHAIN_GOODS else -1)
    hres = local_zeros(N_RES, np.int32)
    hand_res_counts(g, C, p, hres)
    if not _chain_possible(g, C, p, s, hres):
        g[F_SUB] = SUB_PROD


@njit(cache=True, _nrt=False)
def _apply_build(g, C, AS, p, a):
    """Build the set-aside card (payment follows, R7.10) or keep it out (R7.11)."""
    if a == A_BUILD:
        _start_payment(g, C, p, C[g[F_ASIDE + p], B_COST], PAY_BUILD)
        return
    c = g[F_ASIDE + p]
    # R7.11 omg2: back to the hand; §9 royal: to the discard pile
    g[F_LOC + c] = L_DISCARD if g[F_ROYAL] == 1 else L_HAND + p
    g[F_ASIDE + p] = -1
    g[F_SUB] = SUB_HIRE


@njit(cache=True, _nrt=False)
def _apply_pay(g, C, AS, p, a):
    """Pay one good from a slot towards the open payment (R7.10, R5.3, R7.12)."""
    _pay_from(g, C, p, a - A_PAY)


@njit(cache=True, _nrt=False)
def _apply_hire(g, C, AS, p, a):
    """Hire the assistant at a display position (payment follows) or nobody (R7.12)."""
    if a == A_NO_HIRE:
        g[F_SUB] = SUB_END
        return
    k = a - A_HIRE
    g[F_HIRE_K] = k
    _start_payment(g, C, p, AS[g[F_A_CARD + k], g[F_A_SIDE + k], A_COST], PAY_HIRE)


@njit(cache=True, _nrt=False)
def _apply_place(g, C, AS, p, a):
    """Put the just-hired assistant on a free production slot (R7.12)."""
    s = a - A_PLACE
    g[F_STAFF + p * MAX_SLOTS + s] = STAFF_ASSISTANT
    g[F_ASLOT + p * MAX_SLOTS + s] = g[F_HIRE_K]
    g[F_SUB] = SUB_END


@njit(cache=True, _nrt=False)
def _apply_refill(g, C, AS, p, a):
    """Discard a hand card, face down, for the new deck (R3.1)."""
    c = a - A_REFILL
    g[F_LOC + c] = L_LIMBO
    g[F_REF_OWE + p] -= 1
    if g[F_REF_OWE + p] == 0:
        g[F_REF_TURN] += 1


@njit(cache=True, _nrt=False)
def apply_decision(g, C, AS, a):
    """Apply action ``a`` of the current player (unchecked) without advancing the game.

    The id range of ``a`` names the decision it answers; one helper per decision, in the
    order of :func:`legal_mask`.
    """
    p = g[F_CUR]
    g[F_STEPS] += 1
    if a == A_KEEP or a == A_DISCARD_HAND or a >= A_KEEP_ONE:
        _apply_phase1(g, C, AS, p, a)
    elif a <= A_MOVES_DONE:
        _apply_move(g, C, AS, p, a)
    elif a < A_ASIDE:
        _apply_worker(g, C, AS, p, a)
    elif a <= A_ASIDE_NONE:
        _apply_aside(g, C, AS, p, a)
    elif a <= A_PRODUCTION_DONE:
        _apply_produce(g, C, AS, p, a)
    elif a < A_CHAIN_HAND:
        _apply_spend(g, C, AS, p, a)
    elif a <= A_CHAIN_STOP:
        _apply_chain(g, C, AS, p, a)
    elif a <= A_NO_BUILD:
        _apply_build(g, C, AS, p, a)
    elif a < A_HIRE:
        _apply_pay(g, C, AS, p, a)
    elif a <= A_NO_HIRE:
        _apply_hire(g, C, AS, p, a)
    elif a < A_REFILL:
        _apply_place(g, C, AS, p, a)
    else:
        _apply_refill(g, C, AS, p, a)


@njit(cache=True, _nrt=False)
def apply_forced(g, C, AS):
    """Apply decisions that have exactly one legal action (DESIGN: forced moves)."""
    apply_forced_mask(g, C, AS, local_zeros(N_ACTIONS, np.int8))


@njit(cache=True, _nrt=False)
def apply_forced_mask(g, C, AS, mask):
    """:func:`apply_forced`, leaving the legal mask of the decision it stops at in ``mask``.

    Returns that mask's count (0 at the end), so a caller that needs the next mask anyway
    (the batch step) computes it once per decision instead of twice.
    """
    while True:
        n = legal_mask(g, C, AS, mask)
        if n != 1:
            return n
        apply_action(g, C, AS, nth_legal(mask, 0))  # the one legal action (a word-wise scan)


@njit(cache=True, inline="always", _nrt=False)
def check_action(g, C, AS, a, mask):
    """0 when action ``a`` is legal now, else the ``ERR_*`` code (over, out of range, illegal) that
    :func:`step_checked` returns; ``mask`` (int8[N_ACTIONS]) is scratch, left holding the legal mask
    when the game is on and ``a`` in range. ``g`` is not changed."""
    if g[F_DEC] == D_OVER:
        return ERR_OVER
    if a < 0 or a >= N_ACTIONS:
        return ERR_RANGE
    legal_mask(g, C, AS, mask)
    if mask[a] == 0:
        return ERR_ILLEGAL
    return 0


@njit(cache=True, _nrt=False)
def step_checked(g, C, AS, a):
    """Apply action ``a`` if legal; return 0, or an ``ERR_*`` code with ``g`` unchanged."""
    err = check_action(g, C, AS, a, local_zeros(N_ACTIONS, np.int8))
    if err != 0:
        return err
    apply_action(g, C, AS, a)
    if g[F_AUTO] == 1:
        apply_forced(g, C, AS)
    return 0


_jit.register(globals(), _layout, _cards, _native, _rng, queries, production, payments, flow, legal)
