"""Payments (R5.2, R7.10-R7.12): paying a cost good by good and what follows once it is paid."""

from __future__ import annotations

from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import B_VALUE
from ..framework import jit as _jit
from ..layout import (
    F_A_OWNER,
    F_ASIDE,
    F_ASLOT,
    F_BLD,
    F_GOODS,
    F_HIRE_K,
    F_LOC,
    F_NB,
    F_PAID_FROM,
    F_PAY_DUE,
    F_PAY_FOR,
    F_ROYAL,
    F_STAFF,
    F_SUB,
    F_TRIGGER,
    L_BUILT,
    L_DISCARD,
    L_ESCROW,
    L_GOODS,
    MAX_SLOTS,
    PAY_BUILD,
    PAY_MOVE,
    STAFF_NONE,
    SUB_END,
    SUB_HIRE,
    SUB_MOVE,
    SUB_PAY,
    SUB_PLACE,
)
from . import queries
from .queries import _first_good


@njit(cache=True, _nrt=False)
def _start_payment(g, C, p, amount, purpose):
    g[F_PAY_DUE] = amount
    g[F_PAY_FOR] = purpose
    g[F_SUB] = SUB_PAY
    if amount <= 0:
        _finish_payment(g, C, p)


@njit(cache=True, _nrt=False)
def _finish_payment(g, C, p):
    purpose = g[F_PAY_FOR]
    g[F_PAY_DUE] = 0
    if purpose == PAY_MOVE:
        g[F_SUB] = SUB_MOVE
    elif purpose == PAY_BUILD:
        c = g[F_ASIDE + p]
        s = g[F_NB + p]
        g[F_BLD + p * MAX_SLOTS + s] = c
        g[F_GOODS + p * MAX_SLOTS + s] = 0
        g[F_STAFF + p * MAX_SLOTS + s] = STAFF_NONE
        g[F_ASLOT + p * MAX_SLOTS + s] = -1
        g[F_NB + p] = s + 1
        g[F_LOC + c] = L_BUILT + p
        g[F_ASIDE + p] = -1
        if s + 1 >= 8:
            g[F_TRIGGER] = 1  # R8.1
        # R7.12 omg2: building replaces hiring; §9 royal: build and/or hire
        g[F_SUB] = SUB_HIRE if g[F_ROYAL] == 1 else SUB_END
    else:
        g[F_A_OWNER + g[F_HIRE_K]] = p
        g[F_SUB] = SUB_PLACE


@njit(cache=True, _nrt=False)
def _pay_from(g, C, p, s):
    """Spend one good from slot s: it leaves the building (R7.10, no change given)."""
    base = p * MAX_SLOTS
    c = _first_good(g, L_GOODS + base + s)
    if g[F_PAY_FOR] == PAY_MOVE:  # hidden until the reveal (R5.2); remember the building it left
        g[F_LOC + c] = L_ESCROW
        g[F_PAID_FROM + c] = 1 + base + s
    else:
        g[F_LOC + c] = L_DISCARD
    g[F_GOODS + base + s] -= 1
    g[F_PAY_DUE] -= C[g[F_BLD + base + s], B_VALUE]
    if g[F_PAY_DUE] <= 0:
        _finish_payment(g, C, p)


_jit.register(globals(), _layout, _cards, queries)
