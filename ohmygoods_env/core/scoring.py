"""Scoring (R8.3): scores, winners and final rewards."""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import cards as _cards
from .. import layout as _layout
from ..cards import A_VP, B_VP
from ..framework import jit as _jit
from ..layout import F_A_CARD, F_A_OWNER, F_A_SIDE, F_BLD, F_NB, F_NP, MAX_PLAYERS, MAX_SLOTS, N_ASSIST
from . import queries
from .queries import coins


@njit(cache=True)
def score_player(g, C, AS, p):
    """R8.3: VP of buildings + assistants + 1 per 5 coins; returns (score, leftover coins)."""
    vp = 0
    for s in range(g[F_NB + p]):
        vp += C[g[F_BLD + p * MAX_SLOTS + s], B_VP]
    for k in range(N_ASSIST):
        if g[F_A_OWNER + k] == p:
            vp += AS[g[F_A_CARD + k], g[F_A_SIDE + k], A_VP]
    m = coins(g, C, p)
    return vp + m // 5, m % 5


@njit(cache=True)
def scores(g, C, AS, out_score, out_left):
    for p in range(g[F_NP]):
        sc, left = score_player(g, C, AS, p)
        out_score[p] = sc
        out_left[p] = left


@njit(cache=True)
def winners(g, C, AS, out):
    """out[p] = 1 for each winner by R8.3 (score, then leftover coins; ties shared)."""
    np_ = g[F_NP]
    best_s = -1
    best_l = -1
    sc = np.zeros(MAX_PLAYERS, np.int64)
    lf = np.zeros(MAX_PLAYERS, np.int64)
    for p in range(np_):
        s, l = score_player(g, C, AS, p)
        sc[p] = s
        lf[p] = l
        if s > best_s or (s == best_s and l > best_l):
            best_s = s
            best_l = l
    n = 0
    for p in range(np_):
        out[p] = 1 if (sc[p] == best_s and lf[p] == best_l) else 0
        n += out[p]
    return n


@njit(cache=True)
def final_rewards(g, C, AS, mode, out):
    """Rewards at the end: mode 0 ``win`` (+1 / -1, 0 if all tie), 1 ``score``, 2 ``margin``.

    Solo (R10.3) is a score attack: every mode gives the score.
    """
    np_ = g[F_NP]
    for p in range(MAX_PLAYERS):
        out[p] = 0.0
    if np_ == 1:
        s, _ = score_player(g, C, AS, 0)
        out[0] = s
    elif mode == 0:
        w = np.zeros(MAX_PLAYERS, np.int64)
        n = winners(g, C, AS, w)
        if n == np_:
            return
        for p in range(np_):
            out[p] = 1.0 if w[p] == 1 else -1.0
    elif mode == 1:
        for p in range(np_):
            s, _ = score_player(g, C, AS, p)
            out[p] = s
    else:
        sc = np.zeros(MAX_PLAYERS, np.int64)
        for p in range(np_):
            v, _ = score_player(g, C, AS, p)
            sc[p] = v
        for p in range(np_):
            best_other = -1
            for q in range(np_):
                if q != p and sc[q] > best_other:
                    best_other = sc[q]
            out[p] = sc[p] - best_other


_jit.register(globals(), _layout, _cards, queries)
