"""Assistant helpers (R5.3, R7.12, R7.14): free production buildings, hiring and moving."""

from __future__ import annotations

from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import A_COST, A_REQ0, B_COLOUR, N_COLOURS
from ..framework import jit as _jit
from ..layout import (
    F_A_CARD,
    F_A_OWNER,
    F_A_SIDE,
    F_BLD,
    F_MOVED,
    F_NB,
    F_ROYAL,
    F_STAFF,
    MAX_SLOTS,
    STAFF_ASSISTANT,
    STAFF_NONE,
)
from . import queries
from .queries import coins, is_production, n_assistants


@njit(cache=True, _nrt=False)
def _free_production_slot(g, C, p, exclude):
    """Is there a production building of p with no person (R7.14), other than ``exclude``?"""
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        if s != exclude and is_production(C, g[F_BLD + base + s]) and g[F_STAFF + base + s] == STAFF_NONE:
            return True
    return False


@njit(cache=True, _nrt=False)
def _can_hire(g, C, AS, p, k, money):
    """R7.12: cost in coins, buildings in the colours shown, a free production building."""
    if g[F_A_OWNER + k] != -1:
        return False
    card = g[F_A_CARD + k]
    side = g[F_A_SIDE + k]
    if AS[card, side, A_COST] > money:
        return False
    if g[F_ROYAL] == 1 and n_assistants(g, p) >= 2:
        return False  # §9: a player with 2 assistants may hire no more
    for col in range(N_COLOURS):
        need = AS[card, side, A_REQ0 + col]
        if need > 0:
            have = 0
            for s in range(g[F_NB + p]):
                if C[g[F_BLD + p * MAX_SLOTS + s], B_COLOUR] == col:
                    have += 1
            if have < need:
                return False
    return _free_production_slot(g, C, p, -1)


@njit(cache=True, _nrt=False)
def _can_move_any(g, C, p):
    """R5.3: an assistant not yet moved this phase, another free building, and 2 coins."""
    if coins(g, C, p) < 2:
        return False
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        if g[F_STAFF + base + s] == STAFF_ASSISTANT and (g[F_MOVED] >> s) & 1 == 0:
            if _free_production_slot(g, C, p, s):
                return True
    return False


_jit.register(globals(), _layout, _cards, queries)
