"""The heuristic agent's decisions, compiled: :class:`~ohmygoods_agents.heuristic.HeuristicAgent`'s rules
(its module docstring) over an information state row, the same moves as its Python form had, bit for bit.

Every value is computed in the order the Python form computed it: a mean over sampled markets is numpy's
pairwise sum (:func:`_np_sum`, eight accumulators up to 128 terms) divided by the count, a sum over a list
is left to right from 0, ties are broken as ``sorted``, ``min`` and ``max`` broke them (the first of equal
keys, lexicographic tuples), and the payment's knapsack visits its sums in the insertion order of the
dictionary it was. ``tests/agents/test_heuristic_moves.py`` pins the moves over a corpus of positions.

The per-decision state (the Python form's ``_View`` and its caches) is a few arrays: ``V`` (ints), ``F``
(floats), the hand, the buildings, the unseen cards, and NaN-filled caches of keep values, building values,
resource demand and production terms.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, uint32

from ohmygoods_env import cards as _cards
from ohmygoods_env import layout as L
from ohmygoods_env.cards import (
    A_COST,
    A_VP,
    B_CH_G1,
    B_CH_G2,
    B_CH_HAND,
    B_COST,
    B_GOOD,
    B_KIND,
    B_NEED0,
    B_NEED_ANY,
    B_OFFICE,
    B_RES,
    B_SUN,
    B_VALUE,
    B_VP,
    KIND_EXTRA,
    KIND_OFFICE,
    KIND_PRODUCTION,
    N_GOODS,
    N_RES,
)
from ohmygoods_env.framework import jit as _jit

from . import _kernels as _agent_kernels
from ._kernels import sample_row_counts

# ---------------------------------------------------------------- tuned weights (coins unless noted)
#: VP worth in coins in the final round (a VP is all that is left to gain)
FINAL_VP_COINS = 5.0
#: typical market supply of one resource, and of the most common one (wood: 26 of 94 cards, R1.2)
MARKET_SUPPLY, MARKET_SUPPLY_WOOD = 1.6, 2.4
#: demand of a resource: share of the good's value per building that needs "any" / that is short
DEMAND_ANY, DEMAND_SHORT, DEMAND_SHORT_CAP, DEMAND_SHORT_SLACK = 0.15, 0.35, 2.0, 0.5
#: demand of a resource as the hand-card input of one of my chains: share of the chain's gain
DEMAND_CHAIN = 0.6
#: keep value of a hand card in the final round: a floor plus a small share of its demand
FINAL_CARD_BASE, FINAL_DEMAND = 0.1, 0.01
#: hands larger than this are worth less per card (by HAND_CROWDING each), never below CARD_FLOOR
HAND_COMFORT, HAND_CROWDING, CARD_FLOOR = 4, 0.12, 0.3
#: expected coins per round, and rounds counted, when judging whether a building is reachable
INCOME_PER_ROUND, REACH_ROUNDS = 4.0, 2.0
#: share of a top building's value kept in its card: reachable / not yet reachable
KEEP_REACHABLE, KEEP_UNREACHABLE = 0.5, 0.25
#: rounds left: per building still to build before the end (R9.1: 8 buildings end the game)
ROUNDS_PER_BUILDING, END_BUILDINGS = 1.4, 8
#: most rounds a building's income is counted for
HORIZON = 8.0
#: weights of a building's yearly value: worker goods, goods chain, hand-card chain, office, extra
W_WORKER, W_GOODS_CHAIN, W_HAND_CHAIN, W_OFFICE, W_EXTRA = 0.25, 0.35, 0.15, 0.3, 0.5
#: a second building of a good I already make is worth this share
REPEAT_GOOD = 0.35
#: chain runs counted at most; a cost that stands for "no card to spend"
MAX_CHAIN_RUNS, NO_CARD = 6, 99.0
#: discard the hand (phase I) when the unseen cards are worth this much more per card
DISCARD_MARGIN = 0.4
#: move an assistant only for at least this gain
MOVE_GAIN = 2.5
#: share of the expected income counted towards a building's cost: Royal Goods / Oh my Goods!
BUDGET_INCOME_ROYAL, BUDGET_INCOME = 0.3, 0.8
#: tie-breaks: worker on the dearer good, then efficient; paying: the dearer good first
TIE_GOOD_VALUE, TIE_SLOPPY, TIE_PAY = 0.01, 0.001, 0.001

N_CARDS, MAX_SLOTS = L.N_CARDS, L.MAX_SLOTS
# V: the view's ints
V_ME, V_NP, V_ROYAL, V_FINAL, V_NH, V_NB, V_NU, V_COINS, V_NTOP, V_HAS_RC, V_PH = range(11)
N_V = 11
# F: the view's floats
F_ROUNDS_LEFT, F_VPC = range(2)
N_F = 2


@njit(cache=True)
def _np_sum(a, n):
    """numpy's sum of ``a[:n]`` (float64): pairwise, eight accumulators up to 128 terms, halves beyond."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        i = 8
        while i < n - n % 8:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _np_sum(a, n2) + _np_sum(a[n2:], n - n2)


@njit(cache=True)
def _np_mean(a, n):
    return _np_sum(a, n) / n


# ------------------------------------------------------------------ values


@njit(cache=True)
def _chain_gain(C, good_value, b, card_cost):
    """Gain of running building b's chain once (goods out - goods in - card), coins."""
    if C[b, B_CH_HAND] < 0 and C[b, B_CH_G1] < 0:
        return 0.0
    n_out = (1 if C[b, B_CH_HAND] >= 0 else 0) + (1 if C[b, B_CH_G1] >= 0 else 0) + (1 if C[b, B_CH_G2] >= 0 else 0)
    gain = float(n_out * C[b, B_VALUE])
    if C[b, B_CH_G1] >= 0:
        gain -= good_value[C[b, B_CH_G1]]
    if C[b, B_CH_G2] >= 0:
        gain -= good_value[C[b, B_CH_G2]]
    if C[b, B_CH_HAND] >= 0:
        gain -= card_cost
    return gain


@njit(cache=True)
def _resource_demand(C, good_value, V, blds, dem, r):
    if not np.isnan(dem[r]):
        return dem[r]
    val = 0.0
    for i in range(V[V_NB]):
        b = blds[i]
        if C[b, B_KIND] != KIND_PRODUCTION:
            continue
        need = C[b, B_NEED_ANY] if C[b, B_NEED_ANY] > 0 else C[b, B_NEED0 + r]
        if need > 0:
            avail = MARKET_SUPPLY if r != 1 else MARKET_SUPPLY_WOOD  # R5.1, R6.1
            if C[b, B_NEED_ANY] > 0:
                val += DEMAND_ANY * C[b, B_VALUE]
            elif need > avail:
                val += DEMAND_SHORT * C[b, B_VALUE] * min(DEMAND_SHORT_CAP, need - avail + DEMAND_SHORT_SLACK)
        if C[b, B_CH_HAND] == r:
            val += max(0.0, _chain_gain(C, good_value, b, 0.0)) * DEMAND_CHAIN
    dem[r] = val
    return val


@njit(cache=True)
def _resource_keep(C, good_value, P, V, blds, dem, r):
    """Keep value of a card of resource r that is not one of my next buildings."""
    if V[V_FINAL]:
        return FINAL_CARD_BASE + FINAL_DEMAND * _resource_demand(C, good_value, V, blds, dem, r)
    h = V[V_NH]
    card_base = P[1]
    crowd = HAND_CROWDING * (h - HAND_COMFORT)
    base = card_base if h <= HAND_COMFORT else max(CARD_FLOOR, card_base - crowd)
    return base + P[2] * _resource_demand(C, good_value, V, blds, dem, r)


@njit(cache=True)
def _build_value(C, good_value, ease, P, V, F, blds, makes, bv, c):
    """Value (coins) of adding building card c to my buildings now (once per decision)."""
    if not np.isnan(bv[c]):
        return bv[c]
    card_base = P[1]
    val = C[c, B_VP] * F[F_VPC] - C[c, B_COST]
    rl = F[F_ROUNDS_LEFT]
    if rl > 0:
        horizon = min(rl, HORIZON)
        kind = C[c, B_KIND]
        if kind == KIND_PRODUCTION:
            gd = C[c, B_GOOD]
            novelty = REPEAT_GOOD if makes[gd] > 0 else 1.0
            val += W_WORKER * ease[c] * C[c, B_VALUE] * horizon * novelty
            if C[c, B_CH_G1] >= 0:
                made = (C[c, B_CH_G1] < 0 or makes[C[c, B_CH_G1]] > 0) and (
                    C[c, B_CH_G2] < 0 or makes[C[c, B_CH_G2]] > 0
                )
                if made:
                    val += W_GOODS_CHAIN * _chain_gain(C, good_value, c, card_base) * horizon * novelty
            elif C[c, B_CH_HAND] >= 0:
                val += W_HAND_CHAIN * max(0.0, _chain_gain(C, good_value, c, card_base)) * horizon * novelty
        elif kind == KIND_OFFICE:
            r = C[c, B_OFFICE]
            users = 0
            for i in range(V[V_NB]):
                b = blds[i]
                if C[b, B_KIND] == KIND_PRODUCTION and C[b, B_NEED0 + r] > 0:
                    users += 1
            val += W_OFFICE * users * horizon
        elif kind == KIND_EXTRA:
            val += W_EXTRA * card_base * horizon
    bv[c] = val
    return val


@njit(cache=True)
def _top_builds(C, good_value, ease, P, V, F, hand, blds, makes, bv, top):
    """The two hand cards I would most like to build: a stable sort of the hand by falling value."""
    if V[V_NTOP] < 0:
        nh = V[V_NH]
        order = hand[:nh].copy()
        vals = np.empty(nh)
        for i in range(nh):
            vals[i] = -_build_value(C, good_value, ease, P, V, F, blds, makes, bv, order[i])
        for i in range(1, nh):  # insertion sort: stable, as sorted()
            key, c = vals[i], order[i]
            j = i - 1
            while j >= 0 and vals[j] > key:
                vals[j + 1], order[j + 1] = vals[j], order[j]
                j -= 1
            vals[j + 1], order[j + 1] = key, c
        V[V_NTOP] = min(2, nh)
        for i in range(V[V_NTOP]):
            top[i] = order[i]
    return V[V_NTOP]


@njit(cache=True)
def _kv(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, c):
    """Keep value of hand card c (coins): as a resource, or as one of my next buildings."""
    if not np.isnan(kvc[c]):
        return kvc[c]
    val = _resource_keep(C, good_value, P, V, blds, dem, C[c, B_RES])
    if not V[V_FINAL]:
        nt = _top_builds(C, good_value, ease, P, V, F, hand, blds, makes, bv, top)
        is_top = False
        for i in range(nt):
            if top[i] == c:
                is_top = True
        if is_top:
            b = _build_value(C, good_value, ease, P, V, F, blds, makes, bv, c)
            reach = V[V_COINS] + INCOME_PER_ROUND * min(F[F_ROUNDS_LEFT], REACH_ROUNDS)
            val = max(val, (KEEP_REACHABLE if C[c, B_COST] <= reach else KEEP_UNREACHABLE) * b)
    kvc[c] = val
    return val


@njit(cache=True)
def _cheapest(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, cards, n):
    """The card of ``cards[:n]`` with the lowest keep value (then the lowest id)."""
    best_c = cards[0]
    best = _kv(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, best_c)
    for i in range(1, n):
        c = cards[i]
        k = _kv(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, c)
        if k < best or (k == best and c < best_c):
            best, best_c = k, c
    return best_c


@njit(cache=True)
def _resource_costs(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, r):
    """The keep values of my hand cards of resource r, ascending."""
    costs = np.empty(V[V_NH])
    m = 0
    for i in range(V[V_NH]):
        c = hand[i]
        if C[c, B_RES] == r:
            costs[m] = _kv(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, c)
            m += 1
    return np.sort(costs[:m])


@njit(cache=True)
def _assistant_ev(C, alone, b):
    """Expected coins a round of an assistant on building b: P(the market alone covers it) x the good's value."""
    return alone[b] * C[b, B_VALUE]


@njit(cache=True)
def _chain_value(C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv, kvc, top, s):
    """Total gain of the profitable chain runs of my slot s with the hand ``hres``."""
    b = blds[s]
    if C[b, B_CH_HAND] < 0 and C[b, B_CH_G1] < 0:
        return 0.0
    runs = 99
    if C[b, B_CH_HAND] >= 0:
        runs = hres[C[b, B_CH_HAND]]
    g1, g2 = C[b, B_CH_G1], C[b, B_CH_G2]
    for gd in (g1, g2):
        if gd >= 0:
            h = have[gd]
            if C[b, B_GOOD] == gd:
                h = 0
            runs = min(runs, h // (2 if g1 == g2 else 1))
    runs = min(runs, MAX_CHAIN_RUNS)
    if C[b, B_CH_HAND] >= 0:
        r = C[b, B_CH_HAND]
        costs = _resource_costs(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, r)
        m = costs.size
        total = 0.0
        for i in range(runs):
            gain = _chain_gain(C, good_value, b, costs[i] if i < m else NO_CARD)
            if gain <= 0:
                break
            total += gain
        return total
    return max(0.0, _chain_gain(C, good_value, b, 0.0)) * runs


# ------------------------------------------------------------------ market odds and production


@njit(cache=True)
def _sunset_samples(C, P, V, unseen, market, office, word, bits, seed32):
    """Sampled full markets [n, N_RES]: row 1 as seen + a sunset row from the unseen cards. The samples draw
    from ``word``, the row's tie-break word (:func:`tie_word` of ``bits`` and ``seed32``), computed here at its
    first use (``word[0] == 0``: not yet; most decisions draw nothing)."""
    if V[V_PH] != L.PH_P2 or V[V_NU] == 0:
        out = np.zeros((1, N_RES), np.int64)
        for r in range(N_RES):
            out[0, r] = market[0, r] + market[1, r] + office[r]
        return out
    if word[0] == 0:
        word[0] = tie_word(bits, seed32)
    nu = V[V_NU]
    res = np.empty(nu, np.int64)
    sun = np.empty(nu, np.int64)
    for i in range(nu):
        res[i] = C[unseen[i], B_RES]
        sun[i] = C[unseen[i], B_SUN]
    n = int(P[0])
    out = np.zeros((n, N_RES), np.int64)
    sample_row_counts(res, sun, 2, n, word, out)
    for i in range(n):
        for r in range(N_RES):
            out[i, r] += market[0, r] + office[r]
    return out


@njit(cache=True)
def _production_ev(C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv, kvc, top, rc,
                   pmiss, punc, pspent, pchain, phas, s, markets, mode):  # fmt: skip
    """Expected value of producing at my slot s with staff ``mode`` (0 efficient, 1 sloppy, 2 assistant)
    over the sampled markets; the mode-free terms once per slot and decision."""
    n = markets.shape[0]
    b = blds[s]
    gv = float(C[b, B_VALUE])
    if not phas[s]:
        if not V[V_HAS_RC]:  # the cheapest hand card per resource
            for r in range(N_RES):
                rc[r] = np.nan
            for i in range(V[V_NH]):
                c = hand[i]
                r = C[c, B_RES]
                k = _kv(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, c)
                if np.isnan(rc[r]) or k < rc[r]:
                    rc[r] = k
            for r in range(N_RES):
                if np.isnan(rc[r]):
                    rc[r] = NO_CARD
            V[V_HAS_RC] = 1
        hsum = 0
        for r in range(N_RES):
            hsum += hres[r]
        if C[b, B_NEED_ANY] > 0:
            low = rc[0]
            for r in range(1, N_RES):
                low = min(low, rc[r])
            low = min(low, NO_CARD)
            for i in range(n):
                tot = 0
                for r in range(N_RES):
                    tot += markets[i, r]
                miss = max(0, C[b, B_NEED_ANY] - tot)
                pmiss[s, i] = miss
                punc[s, i] = max(0, miss - hsum)
                pspent[s, i] = min(miss, hsum) * low
        else:
            for i in range(n):
                unc = 0
                miss = 0
                spent = 0.0
                for r in range(N_RES):
                    mr = max(0, C[b, B_NEED0 + r] - markets[i, r])
                    unc += max(0, mr - hres[r])
                    spent += min(mr, hres[r]) * (rc[r] if hres[r] > 0 else 0.0)
                    miss += mr
                pmiss[s, i] = miss
                punc[s, i] = unc
                pspent[s, i] = spent
        pchain[s] = _chain_value(C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv, kvc, top, s)
        phas[s] = True
    goods = 2.0 if mode == 0 else 1.0
    allow = 1 if mode == 1 else 0
    vals = np.empty(n)
    for i in range(n):
        spent = pspent[s, i]
        miss = pmiss[s, i]
        if mode == 1 and punc[s, i] == 0 and miss > 0:  # the allowance skips the dearest card spent
            spent = spent * (max(0, miss - 1) / max(1, miss))
        val = goods * gv + pchain[s] - spent
        vals[i] = max(val, 0.0) if punc[s, i] <= allow else 0.0
    return _np_mean(vals, n)


# ------------------------------------------------------------------ decisions


@njit(cache=True)
def _before(t1, v1, a1, t2, v2, a2):
    """``(t1, v1, a1) < (t2, v2, a2)``, as Python compares tuples."""
    if t1 != t2:
        return t1 < t2
    if v1 != v2:
        return v1 < v2
    return a1 < a2


@njit(cache=True)
def _decide(info, mask, word, C, AS, good_value, ease, alone, tier, P, card_res, bits, seed32):
    """One decision of the heuristic agent for the information state row ``info`` (``word``: the
    tie-break generator's state, 0 until its first use computes it from the row, ``bits``, and the agent's
    seed word ``seed32``)."""
    legal = np.flatnonzero(mask)
    if legal.size == 1:
        return legal[0]
    dec = info[L.F_DEC]
    if dec == L.D_BUILD:  # R7.10: build whenever allowed
        return L.A_BUILD if mask[L.A_BUILD] else L.A_NO_BUILD
    # ---- the view (what the acting player knows)
    V = np.zeros(N_V, np.int64)
    F = np.zeros(N_F)
    me = info[L.F_CUR]
    V[V_ME], V[V_NP] = me, info[L.F_NP]
    V[V_ROYAL] = 1 if info[L.F_ROYAL] != 0 else 0
    V[V_FINAL] = 1 if info[L.F_FINAL] != 0 else 0
    V[V_PH] = info[L.F_PH]
    hand = np.empty(N_CARDS, np.int64)
    unseen = np.empty(N_CARDS, np.int64)
    hres = np.zeros(N_RES, np.int64)
    nh = nu = 0
    for c in range(N_CARDS):
        lc = info[L.F_LOC + c]
        if lc == L.L_HAND + me:
            hand[nh] = c
            nh += 1
            hres[C[c, B_RES]] += 1
        seen = (lc == L.L_HAND + me or lc == L.L_ASIDE + me or lc == L.L_DISCARD or lc == L.L_ROW1
                or lc == L.L_ROW2 or (lc >= L.L_BUILT and lc < L.L_GOODS))  # fmt: skip
        if not seen:
            unseen[nu] = c
            nu += 1
    V[V_NH], V[V_NU] = nh, nu
    base = me * MAX_SLOTS
    nb = info[L.F_NB + me]
    V[V_NB] = nb
    blds = np.zeros(MAX_SLOTS, np.int64)  # zeros beyond my buildings: a slot index never reads past a table
    goods = np.zeros(MAX_SLOTS, np.int64)
    staff = np.zeros(MAX_SLOTS, np.int64)
    office = np.zeros(N_RES, np.int64)
    makes = np.zeros(N_GOODS, np.int64)
    have = np.zeros(N_GOODS, np.int64)
    coins = 0
    for i in range(nb):
        b = info[L.F_BLD + base + i]
        k = info[L.F_GOODS + base + i]
        blds[i], goods[i], staff[i] = b, k, info[L.F_STAFF + base + i]
        coins += k * C[b, B_VALUE]
        if C[b, B_OFFICE] >= 0:
            office[C[b, B_OFFICE]] += 1
        if C[b, B_GOOD] >= 0:
            makes[C[b, B_GOOD]] += 1
            have[C[b, B_GOOD]] += k
    V[V_COINS] = coins
    market = np.empty((2, N_RES), np.int64)
    for r in range(N_RES):
        market[0, r] = info[L.F_MKT + r]
        market[1, r] = info[L.F_MKT + N_RES + r]
    most = 0
    for q in range(V[V_NP]):
        most = max(most, info[L.F_NB + q])
    if V[V_FINAL]:
        F[F_ROUNDS_LEFT] = 0.0
    elif info[L.F_TRIGGER]:
        F[F_ROUNDS_LEFT] = 1.0
    else:
        F[F_ROUNDS_LEFT] = 1.0 + ROUNDS_PER_BUILDING * max(0, END_BUILDINGS - most)
    F[F_VPC] = FINAL_VP_COINS if V[V_FINAL] else P[3]
    V[V_NTOP] = -1
    dem = np.full(N_RES, np.nan)
    bv = np.full(C.shape[0], np.nan)
    kvc = np.full(C.shape[0], np.nan)
    top = np.zeros(2, np.int64)
    rc = np.zeros(N_RES)
    ns = max(1, int(P[0]))
    pmiss = np.empty((MAX_SLOTS, ns), np.int64)  # a slot's row is written before it is read (phas)
    punc = np.empty((MAX_SLOTS, ns), np.int64)
    pspent = np.empty((MAX_SLOTS, ns))
    pchain = np.zeros(MAX_SLOTS)
    phas = np.zeros(MAX_SLOTS, np.bool_)

    if dec == L.D_PHASE1:
        if nh == 0 or nu == 0:
            return L.A_KEEP
        kvs = np.empty(nh)
        for i in range(nh):
            kvs[i] = _kv(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, hand[i])
        mine = _np_mean(kvs, nh)
        by_res = np.empty(N_RES)
        for r in range(N_RES):
            by_res[r] = _resource_keep(C, good_value, P, V, blds, dem, r)
        pool_vals = np.empty(nu)
        for i in range(nu):
            pool_vals[i] = by_res[card_res[unseen[i]]]
        pool = _np_mean(pool_vals, nu)
        return L.A_DISCARD_HAND if mine < pool - DISCARD_MARGIN else L.A_KEEP

    if dec == L.D_MOVE:
        markets = _sunset_samples(C, P, V, unseen, market, office, word, bits, seed32)
        best, best_a = MOVE_GAIN, L.A_MOVES_DONE
        for a in range(L.A_MOVES_DONE - L.A_MOVE):
            if not mask[L.A_MOVE + a]:
                continue
            fr, to = a // MAX_SLOTS, a % MAX_SLOTS
            gain = _production_ev(C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv, kvc, top,
                                  rc, pmiss, punc, pspent, pchain, phas, to, markets, 2) - _production_ev(
                C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv, kvc, top, rc, pmiss, punc,
                pspent, pchain, phas, fr, markets, 2)  # fmt: skip
            if gain > best:
                best, best_a = gain, L.A_MOVE + a
        return best_a

    if dec == L.D_WORKER:
        markets = _sunset_samples(C, P, V, unseen, market, office, word, bits, seed32)
        best, best_a = -1.0, -1
        for i in range(L.A_ASIDE - L.A_WORKER):
            if not mask[L.A_WORKER + i]:
                continue
            s, mode = i // 2, i % 2
            ev = _production_ev(C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv, kvc, top,
                                rc, pmiss, punc, pspent, pchain, phas, s, markets, mode)  # fmt: skip
            key = ev + TIE_GOOD_VALUE * C[blds[s], B_VALUE] - TIE_SLOPPY * mode
            if key > best:
                best, best_a = key, L.A_WORKER + i
        return best_a

    if dec == L.D_ASIDE:
        if nb >= MAX_SLOTS:
            return L.A_ASIDE_NONE
        markets = _sunset_samples(C, P, V, unseen, market, office, word, bits, seed32)
        income = 0.0
        for s in range(nb):
            st = staff[s]
            mode = -1
            if st == L.STAFF_EFFICIENT:
                mode = 0
            elif st == L.STAFF_SLOPPY:
                mode = 1
            elif st == L.STAFF_ASSISTANT:
                mode = 2
            if mode >= 0:
                income += _production_ev(C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv,
                                         kvc, top, rc, pmiss, punc, pspent, pchain, phas, s, markets, mode)  # fmt: skip
        budget = coins + (BUDGET_INCOME_ROYAL if V[V_ROYAL] else BUDGET_INCOME) * income
        best, best_c = -1e9, -1
        for i in range(nh):
            c = hand[i]
            if C[c, B_COST] > budget:
                continue
            val = _build_value(C, good_value, ease, P, V, F, blds, makes, bv, c)
            if val > best:
                best, best_c = val, c
        if best_c < 0:
            return L.A_ASIDE_NONE
        if V[V_ROYAL] and best <= 0 and not V[V_FINAL]:
            return L.A_ASIDE_NONE
        return L.A_ASIDE + best_c

    if dec == L.D_PRODUCE:
        best_t, best_v, best_a = 0, 0.0, -1
        done_ok = mask[L.A_PRODUCTION_DONE]
        msum = np.empty(N_RES, np.int64)
        for r in range(N_RES):
            msum[r] = market[0, r] + market[1, r] + office[r]
        for s in range(MAX_SLOTS):
            if not mask[L.A_PRODUCE + s]:
                continue
            val = _produce_value(C, good_value, ease, P, V, F, hand, blds, staff, makes, have, hres, dem, bv, kvc,
                                 top, msum, s)  # fmt: skip
            if val > 0 or not done_ok:
                t, nv, a = tier[C[blds[s], B_GOOD]], -val, L.A_PRODUCE + s
                if best_a < 0 or _before(t, nv, a, best_t, best_v, best_a):
                    best_t, best_v, best_a = t, nv, a
        if best_a >= 0:
            return best_a
        for s in range(MAX_SLOTS):
            if not mask[L.A_CHAIN_OPEN + s]:
                continue
            val = _chain_value(C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv, kvc, top, s)
            if val > 0:
                t, nv, a = tier[C[blds[s], B_GOOD]], -val, L.A_CHAIN_OPEN + s
                if best_a < 0 or _before(t, nv, a, best_t, best_v, best_a):
                    best_t, best_v, best_a = t, nv, a
        if best_a >= 0:
            return best_a
        if done_ok:
            return L.A_PRODUCTION_DONE
        return legal[0]

    if dec == L.D_SPEND or dec == L.D_REFILL:
        a0 = L.A_SPEND if dec == L.D_SPEND else L.A_REFILL
        cards = legal - a0
        return a0 + _cheapest(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, cards, cards.size)

    if dec == L.D_CHAIN:
        b = blds[info[L.F_CHAIN_SLOT]]
        can_stop = mask[L.A_CHAIN_STOP]
        if mask[L.A_CHAIN_GOODS]:
            if _chain_gain(C, good_value, b, 0.0) > 0 or not can_stop:
                return L.A_CHAIN_GOODS
            return L.A_CHAIN_STOP
        cards = np.empty(legal.size, np.int64)
        m = 0
        for a in legal:
            if a < L.A_CHAIN_GOODS:
                cards[m] = a - L.A_CHAIN_HAND
                m += 1
        if m == 0:
            return L.A_CHAIN_STOP
        c = _cheapest(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, cards, m)
        k = _kv(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, c)
        if _chain_gain(C, good_value, b, k) > 0 or not can_stop:
            return L.A_CHAIN_HAND + c
        return L.A_CHAIN_STOP

    if dec == L.D_PAY:
        return _pay(info, mask, C, V, blds, goods)

    if dec == L.D_HIRE:
        prod = 0.0
        first = True
        for s in range(nb):
            if C[blds[s], B_KIND] == KIND_PRODUCTION and staff[s] == L.STAFF_NONE:
                ev = _assistant_ev(C, alone, blds[s])
                if first or ev > prod:
                    prod = ev
                    first = False
        prod = prod * min(F[F_ROUNDS_LEFT], HORIZON)
        best, best_a = 0.0, L.A_NO_HIRE
        for k in range(L.A_NO_HIRE - L.A_HIRE):
            if not mask[L.A_HIRE + k]:
                continue
            card, side = info[L.F_A_CARD + k], info[L.F_A_SIDE + k]
            val = AS[card, side, A_VP] * F[F_VPC] - AS[card, side, A_COST] + prod
            if val > best:
                best, best_a = val, L.A_HIRE + k
        return best_a

    if dec == L.D_PLACE:
        best_s, best = -1, 0.0
        for s in range(MAX_SLOTS):
            if not mask[L.A_PLACE + s]:
                continue
            ev = _assistant_ev(C, alone, blds[s])
            if best_s < 0 or ev > best:  # max by (ev, -s): the first slot of the best value
                best_s, best = s, ev
        return L.A_PLACE + best_s

    return legal[0]


@njit(cache=True)
def _produce_value(C, good_value, ease, P, V, F, hand, blds, staff, makes, have, hres, dem, bv, kvc, top, msum, s):
    """Value of producing now at my slot s (market known, R7.1, R7.2)."""
    b = blds[s]
    st = staff[s]
    nh = V[V_NH]
    spend = np.empty(nh)
    m = 0
    if C[b, B_NEED_ANY] > 0:
        kvs = np.empty(nh)
        for i in range(nh):
            kvs[i] = _kv(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, hand[i])
        tot = 0
        for r in range(N_RES):
            tot += msum[r]
        want = max(0, C[b, B_NEED_ANY] - tot)
        allk = np.sort(kvs)
        for i in range(min(want, nh)):
            spend[m] = allk[i]
            m += 1
    else:
        for r in range(N_RES):
            want = max(0, C[b, B_NEED0 + r] - msum[r])
            if want == 0:
                continue
            ofr = _resource_costs(C, good_value, ease, P, V, F, hand, blds, makes, dem, bv, kvc, top, r)
            for i in range(min(want, ofr.size)):
                spend[m] = ofr[i]
                m += 1
    sp = np.sort(spend[:m])
    if st == L.STAFF_SLOPPY and m > 0:
        m -= 1
    total = 0.0
    for i in range(m):
        total += sp[i]
    g = 2 if st == L.STAFF_EFFICIENT else 1
    chain = _chain_value(C, good_value, ease, P, V, F, hand, blds, makes, have, hres, dem, bv, kvc, top, s)
    return g * float(C[b, B_VALUE]) + chain - total


@njit(cache=True)
def _pay(info, mask, C, V, blds, goods):
    """Pay one good from the set of goods that covers the bill with the least overpayment: a knapsack over
    the reachable sums, visited in the order they were first reached (the Python form's dictionary)."""
    due = info[L.F_PAY_DUE]
    final = V[V_FINAL]
    nb = V[V_NB]
    chain_inputs = np.zeros(N_GOODS, np.int64)
    for i in range(nb):
        b = blds[i]
        if C[b, B_CH_G1] >= 0:
            chain_inputs[C[b, B_CH_G1]] += 1
        if C[b, B_CH_G2] >= 0:
            chain_inputs[C[b, B_CH_G2]] += 1
    first_slot = -1
    n_items = 0
    for s in range(MAX_SLOTS):
        if mask[L.A_PAY + s]:
            if first_slot < 0:
                first_slot = s
            n_items += min(goods[s], max(1, due))
    it_val = np.empty(n_items, np.int64)
    it_pen = np.empty(n_items)
    it_slot = np.empty(n_items, np.int64)
    k = 0
    for s in range(MAX_SLOTS):
        if not mask[L.A_PAY + s]:
            continue
        b = blds[s]
        pen = 1.0 if chain_inputs[C[b, B_GOOD]] > 0 and not final else 0.0
        for _ in range(min(goods[s], max(1, due))):
            it_val[k], it_pen[k], it_slot[k] = C[b, B_VALUE], pen, s
            k += 1
    top = max(due, 0) + 1
    for i in range(n_items):
        top += max(it_val[i], 0)
    has = np.zeros(top, np.bool_)
    bp = np.zeros(top)
    bn = np.zeros(top, np.int64)
    bused = np.zeros(top, np.int64)  # the slots used, as bits (the choice reads the set only)
    order = np.empty(top, np.int64)
    nk = 1
    order[0] = 0
    has[0] = True
    for i in range(n_items):
        val, pen, s = it_val[i], it_pen[i], it_slot[i]
        keys = order[:nk].copy()  # list(best.items()): the keys and their values as they are now
        sp, sn, su = bp[keys], bn[keys], bused[keys]
        for j in range(keys.size):
            tot = keys[j]
            if tot >= due:
                continue
            nt = tot + val
            cp, cn = sp[j] + pen - TIE_PAY * val, sn[j] + 1
            if not has[nt] or cp < bp[nt] or (cp == bp[nt] and cn < bn[nt]):
                if not has[nt]:
                    has[nt] = True
                    order[nk] = nt
                    nk += 1
                bp[nt], bn[nt], bused[nt] = cp, cn, su[j] | (1 << s)
    paid = -1
    for t in range(max(due, 0), top):
        if has[t]:
            paid = t
            break
    if paid < 0:
        return L.A_PAY + first_slot
    # pay the most valuable good of the chosen set first (ties: the lower slot)
    best_s, best_v = -1, -1
    for s in range(MAX_SLOTS):
        if bused[paid] >> s & 1:
            v = C[blds[s], B_VALUE]
            if best_s < 0 or v > best_v:
                best_s, best_v = s, v
    return L.A_PAY + best_s


#: what :func:`check_rows` found wrong, by its code: the field of the information state and what it must be
ROW_ERRORS = (
    "",
    f"acting seat (F_CUR) and player count (F_NP): expected 1 <= players <= {L.MAX_PLAYERS} and 0 <= seat < players",
    f"building count of the acting seat (F_NB): expected 0..{MAX_SLOTS}",
    "building card of the acting seat (F_BLD): expected a card id of the card set",
    f"chain slot (F_CHAIN_SLOT) of a chain decision: expected 0..{MAX_SLOTS - 1}",
    "coins due (F_PAY_DUE) of a payment: expected 0..1000",
    "assistant card or side (F_A_CARD, F_A_SIDE) of a legal hire: expected an assistant of the set, side 0 or 1",
    f"card location (F_LOC): expected 0..{L.N_LOC - 1}",
)


@njit(cache=True)
def check_rows(infos, masks, n_buildings, n_assistants):
    """``(row, code)`` of the first information state row whose fields the rules index by are out of range
    (``code`` a :data:`ROW_ERRORS` index; the assistants of the hire actions ``masks`` allow), or ``(-1, 0)``."""
    for i in range(infos.shape[0]):
        info = infos[i]
        np_, me = info[L.F_NP], info[L.F_CUR]
        if not (1 <= np_ <= L.MAX_PLAYERS and 0 <= me < np_):
            return i, 1
        for c in range(N_CARDS):
            if not (0 <= info[L.F_LOC + c] < L.N_LOC):
                return i, 7
        for q in range(np_):
            if not (0 <= info[L.F_NB + q] <= MAX_SLOTS):
                return i, 2
        for k in range(info[L.F_NB + me]):
            if not (0 <= info[L.F_BLD + me * MAX_SLOTS + k] < n_buildings):
                return i, 3
        dec = info[L.F_DEC]
        if dec == L.D_CHAIN and not (0 <= info[L.F_CHAIN_SLOT] < MAX_SLOTS):
            return i, 4
        if dec == L.D_PAY and not (0 <= info[L.F_PAY_DUE] <= 1000):
            return i, 5
        if dec == L.D_HIRE:
            for k in range(L.N_ASSIST):
                card, side = info[L.F_A_CARD + k], info[L.F_A_SIDE + k]
                if masks[i, L.A_HIRE + k] and not (0 <= card < n_assistants and 0 <= side < 2):
                    return i, 6
    return -1, 0


def _crc32_tables() -> np.ndarray:
    """The CRC-32 (zlib's polynomial, reflected) lookup tables for eight bytes at a time: row ``k`` is the
    CRC of a byte followed by ``k`` zero bytes."""
    t = np.zeros((8, 256), np.int64)
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        t[0, n] = c
    for k in range(1, 8):
        t[k] = (t[k - 1] >> 8) ^ t[0, t[k - 1] & 0xFF]
    return t.astype(np.uint32)


_CRC32 = _crc32_tables()


@njit(cache=True)
def crc32_words(row):
    """``zlib.crc32`` of a row of 32-bit words (``uint32``, little-endian bytes), eight bytes a step."""
    T = _CRC32
    crc = uint32(0xFFFFFFFF)
    m = uint32(0xFF)
    n = row.shape[0]
    k = 0
    while k + 1 < n:
        a = row[k] ^ crc
        b = row[k + 1]
        hi = T[3, b & m] ^ T[2, (b >> uint32(8)) & m] ^ T[1, (b >> uint32(16)) & m] ^ T[0, b >> uint32(24)]
        crc = T[7, a & m] ^ T[6, (a >> uint32(8)) & m] ^ T[5, (a >> uint32(16)) & m] ^ T[4, a >> uint32(24)] ^ hi
        k += 2
    if k < n:
        a = row[k] ^ crc
        crc = T[3, a & m] ^ T[2, (a >> uint32(8)) & m] ^ T[1, (a >> uint32(16)) & m] ^ T[0, a >> uint32(24)]
    return np.int64(crc ^ uint32(0xFFFFFFFF))


@njit(cache=True)
def tie_word(bits, seed32):
    """The tie-break word of an information state row (``bits``: its int32 fields as ``uint32``): its CRC-32
    plus the agent's seed word, modulo 2**32, never 0 (from public information only: the information state is
    identical for positions that differ only in hidden information, ``infostate.redact``)."""
    w = (seed32 + crc32_words(bits)) & 0xFFFFFFFF
    return w if w != 0 else 1


@_jit.twin
def _decide_rows(infos, bits, masks, seed32, C, AS, good_value, ease, alone, tier, P, card_res, out):
    """The heuristic's move for each row (the information states ``infos``, ``bits`` the same memory as
    ``uint32``, and the masks); a move the rules would refuse is replaced by the first legal one. Each row's
    tie-break word is its own (:func:`tie_word`), so the rows may run on any number of threads."""
    for i in prange(infos.shape[0]):
        w = np.zeros(1, np.int64)  # the row's tie-break word, computed where the decision first draws from it
        a = _decide(infos[i], masks[i], w, C, AS, good_value, ease, alone, tier, P, card_res, bits[i], seed32)
        if not (0 <= a < L.N_ACTIONS and masks[i, a]):
            a = np.flatnonzero(masks[i])[0]
        out[i] = a


#: the rows of a batch on one thread or on all of numba's, whichever has been faster (``framework.jit.Timed``);
#: both kernels release the GIL (another thread, a pipelined rollout's forward or the update, runs meanwhile)
DECIDE_ROWS = _jit.Timed(_decide_rows)


def decide_rows(infos, masks, seed32, C, AS, good_value, ease, alone, tier, P, card_res, out):
    """The heuristic's move for each row of ``infos`` (``int32``, C-contiguous) into ``out``; ``seed32``: the
    agent's seed word (:func:`tie_word`)."""
    bits = infos.view(np.uint32)
    DECIDE_ROWS(infos.shape[0], infos, bits, masks, seed32, C, AS, good_value, ease, alone, tier, P, card_res, out)


_jit.register(globals(), _agent_kernels, L, _cards)
