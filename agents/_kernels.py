"""Numba kernels of the agents: market sampling, a light greedy policy and fast rollouts.

Everything here *chooses* among actions; the rules stay in :mod:`ohmygoods_env.core`
(legal masks, applying actions, scoring are called from there, never re-implemented).
Every kernel that draws random numbers uses its own xorshift32 word (a one-element
``int64`` array), never the game's ``F_RNG``.

* :func:`sample_row_counts` — resource counts of market rows drawn from a pool of unseen
  cards until the row shows 2 half-suns (R5.1, R6.1): the heuristic's market odds.
* :func:`greedy_action` — the rollout policy: keep the hand, place the worker where the
  market and hand cover the most valuable production, set aside the best affordable
  building, produce low chain tiers first, run profitable chains, build, pay with the least
  overpayment, hire the best affordable assistant; ``eps``-random otherwise.
* :func:`rollout` — plays a (determinized) game with :func:`greedy_action` for every seat.
* :func:`outcome_values` — per-seat values in [0, 1] from the scores (R8.3): win share
  blended with the score margin.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ohmygoods_env import cards as _cards
from ohmygoods_env import core
from ohmygoods_env import layout as _layout
from ohmygoods_env.cards import A_VP, B_COST, B_GOOD, B_KIND, B_VALUE, B_VP, KIND_PRODUCTION, N_RES
from ohmygoods_env.framework import jit as _jit
from ohmygoods_env.framework import rng as _rng
from ohmygoods_env.framework.rng import nth_legal
from ohmygoods_env.layout import (
    A_ASIDE,
    A_ASIDE_NONE,
    A_BUILD,
    A_CHAIN_GOODS,
    A_CHAIN_HAND,
    A_CHAIN_OPEN,
    A_CHAIN_STOP,
    A_HIRE,
    A_KEEP,
    A_MOVES_DONE,
    A_NO_BUILD,
    A_NO_HIRE,
    A_PAY,
    A_PLACE,
    A_PRODUCE,
    A_PRODUCTION_DONE,
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
    D_WORKER,
    F_A_CARD,
    F_A_SIDE,
    F_BLD,
    F_CHAIN_SLOT,
    F_CUR,
    F_DEC,
    F_FINAL,
    F_LOC,
    F_NB,
    F_NP,
    F_PAY_DUE,
    F_ROYAL,
    L_HAND,
    MAX_PLAYERS,
    MAX_SLOTS,
    N_ACTIONS,
    N_ASSIST,
    N_CARDS,
)


@njit(cache=True)
def rand_below(word, n):
    """Uniform integer in [0, n) from a one-element xorshift32 state array (n >= 1, state != 0).

    The games' own generator step (``core.rand_at``) on the agent's private word.
    """
    return core.rand_at(word, 0, n)


@njit(cache=True)
def rand_unit(word):
    return rand_below(word, 1 << 24) / float(1 << 24)


@njit(cache=True)
def sample_row_counts(pool_res, pool_sun, suns_needed, n_samples, word, out):
    """``out[i, r]``: resource-r cards in sample i of a row revealed from ``pool`` until
    ``suns_needed`` half-suns appear (or the pool runs out)."""
    n = pool_res.shape[0]
    idx = np.arange(n)
    for i in range(n_samples):
        for r in range(N_RES):
            out[i, r] = 0
        suns = 0
        k = 0
        while suns < suns_needed and k < n:
            j = k + rand_below(word, n - k)
            t = idx[k]
            idx[k] = idx[j]
            idx[j] = t
            c = idx[k]
            out[i, pool_res[c]] += 1
            suns += pool_sun[c]
            k += 1


@njit(cache=True)
def _random_legal(mask, n, word):
    """A uniformly random one of the ``n`` legal actions of ``mask``."""
    return nth_legal(mask, rand_below(word, n))


@njit(cache=True)
def _uncovered(g, C, p, s, hres, miss):
    """Resources of building (p, s) that neither the current market nor the hand covers."""
    core._missing(g, C, p, s, miss)
    if miss[N_RES] > 0:
        have = 0
        for r in range(N_RES):
            have += hres[r]
        u = miss[N_RES] - have
        return u if u > 0 else 0
    u = 0
    for r in range(N_RES):
        if miss[r] > hres[r]:
            u += miss[r] - hres[r]
    return u


@njit(cache=True)
def _greedy_worker(g, C, mask, p, base, nb, word):
    """Place the worker (R5.4) where the market and hand leave the least uncovered, by value; a little noise."""
    hres = np.zeros(N_RES, np.int32)
    miss = np.zeros(N_RES + 1, np.int32)
    core.hand_res_counts(g, C, p, hres)
    best = -1.0
    best_a = -1
    for s in range(nb):
        a = A_WORKER + 2 * s
        if mask[a] == 0:
            continue
        b = g[F_BLD + base + s]
        u = _uncovered(g, C, p, s, hres, miss)
        v = C[b, B_VALUE]
        eff = 2.0 * v * (1.0 if u == 0 else 0.45**u)
        slo = v * (1.0 if u <= 1 else 0.45 ** (u - 1))
        noise = 0.05 * rand_unit(word)
        if eff + noise > best:
            best = eff + noise
            best_a = a
        if slo + noise > best:
            best = slo + noise
            best_a = a + 1
    return best_a


@njit(cache=True)
def _greedy_aside(g, C, p, word):
    """Set aside (R5.5) the hand card of best 3 VP - cost that is about affordable, else none."""
    money = core.coins(g, C, p)
    slack = 0 if g[F_ROYAL] == 1 else 3
    best = -1e9
    best_a = A_ASIDE_NONE
    for c in range(N_CARDS):
        if g[F_LOC + c] == L_HAND + p and C[c, B_COST] <= money + slack:
            sc = 3.0 * C[c, B_VP] - C[c, B_COST] + 0.5 * rand_unit(word)
            if sc > best:
                best = sc
                best_a = A_ASIDE + c
    return best_a


@njit(cache=True)
def _lowest_tier(g, C, mask, base, nb, tier, a0):
    """Among legal actions ``a0 + slot``, the one whose building's good has the lowest chain tier; -1 if none."""
    best_t = 1 << 20
    best_a = -1
    for s in range(nb):
        if mask[a0 + s] == 1:
            t = tier[C[g[F_BLD + base + s], B_GOOD]]
            if t < best_t:
                best_t = t
                best_a = a0 + s
    return best_a


@njit(cache=True)
def _greedy_produce(g, C, mask, base, nb, tier):
    """Produce (R7.2) low chain tiers first, then open chains (R7.7), then stop."""
    best_a = _lowest_tier(g, C, mask, base, nb, tier, A_PRODUCE)
    if best_a >= 0:
        return best_a
    best_a = _lowest_tier(g, C, mask, base, nb, tier, A_CHAIN_OPEN)
    if best_a >= 0:
        return best_a
    return A_PRODUCTION_DONE


@njit(cache=True)
def _greedy_chain(g, C, mask, base):
    """Feed a chain (R7.7): goods first, hand cards when the good is worth it or at the end."""
    if mask[A_CHAIN_GOODS] == 1:
        return A_CHAIN_GOODS
    b = g[F_BLD + base + g[F_CHAIN_SLOT]]
    if C[b, B_VALUE] >= 2 or g[F_FINAL] == 1 or mask[A_CHAIN_STOP] == 0:
        for c in range(N_CARDS):
            if mask[A_CHAIN_HAND + c] == 1:
                return A_CHAIN_HAND + c
    return A_CHAIN_STOP


@njit(cache=True)
def _greedy_pay(g, C, mask, base, nb):
    """Pay with the good that overpays least, else the dearest."""
    due = g[F_PAY_DUE]
    best_over = 1 << 20
    best_a = -1
    big = -1
    big_a = -1
    for s in range(nb):
        if mask[A_PAY + s] == 1:
            v = C[g[F_BLD + base + s], B_VALUE]
            if v >= due and v - due < best_over:
                best_over = v - due
                best_a = A_PAY + s
            if v > big:
                big = v
                big_a = A_PAY + s
    return best_a if best_a >= 0 else big_a


@njit(cache=True)
def _greedy_hire(g, AS, mask):
    """Hire (R7.12) the affordable assistant with the most VP, else none."""
    best = 0
    best_a = A_NO_HIRE
    for k in range(N_ASSIST):
        if mask[A_HIRE + k] == 1:
            vp = AS[g[F_A_CARD + k], g[F_A_SIDE + k], A_VP]
            if vp > best:
                best = vp
                best_a = A_HIRE + k
    return best_a


@njit(cache=True)
def _greedy_place(g, C, mask, base, nb):
    """Place a hired assistant on the legal building of highest good value."""
    best = -1
    best_a = -1
    for s in range(nb):
        if mask[A_PLACE + s] == 1:
            v = C[g[F_BLD + base + s], B_VALUE]
            if v > best:
                best = v
                best_a = A_PLACE + s
    return best_a


@njit(cache=True)
def greedy_action(g, C, AS, mask, n_legal, tier, word, eps):
    """The light greedy policy (see module docstring) for the player to move."""
    if n_legal == 1 or (eps > 0.0 and rand_unit(word) < eps):
        return _random_legal(mask, n_legal, word)
    dec = g[F_DEC]
    p = g[F_CUR]
    base = p * MAX_SLOTS
    nb = g[F_NB + p]
    if dec == D_PHASE1:
        return A_KEEP
    if dec == D_MOVE:
        return A_MOVES_DONE
    if dec == D_WORKER:
        return _greedy_worker(g, C, mask, p, base, nb, word)
    if dec == D_ASIDE:
        return _greedy_aside(g, C, p, word)
    if dec == D_PRODUCE:
        return _greedy_produce(g, C, mask, base, nb, tier)
    if dec == D_CHAIN:
        return _greedy_chain(g, C, mask, base)
    if dec == D_BUILD:
        return A_BUILD if mask[A_BUILD] == 1 else A_NO_BUILD
    if dec == D_PAY:
        return _greedy_pay(g, C, mask, base, nb)
    if dec == D_HIRE:
        return _greedy_hire(g, AS, mask)
    if dec == D_PLACE:
        return _greedy_place(g, C, mask, base, nb)
    return _random_legal(mask, n_legal, word)


@njit(cache=True)
def rollout(g, C, AS, tier, word, eps, max_steps):
    """Play ``g`` on with :func:`greedy_action` for every seat; returns the decisions taken."""
    mask = np.zeros(N_ACTIONS, np.int8)
    steps = 0
    while g[F_DEC] != D_OVER and steps < max_steps:
        n = core.legal_mask(g, C, AS, mask)
        a = greedy_action(g, C, AS, mask, n, tier, word, eps)
        core.apply_action(g, C, AS, a)
        steps += 1
    return steps


@njit(cache=True)
def outcome_values(g, C, AS, margin_weight, out):
    """``out[p]`` in [0, 1]: (1 - w) * win share (ties shared) + w * squashed score margin."""
    np_ = g[F_NP]
    sc = np.zeros(MAX_PLAYERS, np.float64)
    best = -1e9
    for p in range(np_):
        s, left = core.score_player(g, C, AS, p)
        sc[p] = s + 0.01 * left
        if sc[p] > best:
            best = sc[p]
    n_best = 0
    for p in range(np_):
        if sc[p] == best:
            n_best += 1
    for p in range(np_):
        win = 1.0 / n_best if sc[p] == best else 0.0
        other = -1e9
        for q in range(np_):
            if q != p and sc[q] > other:
                other = sc[q]
        m = (sc[p] - other) / 6.0
        squash = 0.5 + 0.5 * m / (1.0 + abs(m))
        out[p] = (1.0 - margin_weight) * win + margin_weight * squash


@njit(cache=True)
def simulate(world, C, AS, tier, word, eps, max_steps, margin_weight, out):
    """Rollout from ``world`` (modified in place) and write the seat values into ``out``."""
    rollout(world, C, AS, tier, word, eps, max_steps)
    outcome_values(world, C, AS, margin_weight, out)


def chain_tiers(C: np.ndarray) -> np.ndarray:
    """Depth of every good in the production chains: 0 for goods made from resources only."""
    from ohmygoods_env.cards import B_CH_G1, B_CH_G2, N_GOODS

    tier = np.zeros(N_GOODS, np.int64)
    for _ in range(N_GOODS):
        for b in range(C.shape[0]):
            gd = C[b, B_GOOD]
            if gd < 0 or C[b, B_KIND] != KIND_PRODUCTION:
                continue
            t = 0
            for col in (B_CH_G1, B_CH_G2):
                if C[b, col] >= 0:
                    t = max(t, tier[C[b, col]] + 1)
            tier[gd] = max(tier[gd], t)
    return tier


# numba checks a cached kernel only against its own file: recompile when the engine changed
_jit.register(globals(), core, _layout, _cards, _rng)
