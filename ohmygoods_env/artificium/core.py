"""The *Artificium* rules engine: numba kernels over one game's ``int32`` state row.

This module is the single implementation of the rules in ``docs/artificium/rules.md``
(A1-A9). Every kernel takes the state row ``g`` (see :mod:`ohmygoods_env.artificium.layout`)
and the tables of :mod:`ohmygoods_env.artificium.cards`: ``T`` (card types), ``B`` (board),
``TR`` (score track) and ``CT`` (card -> type). Loops over many games (fuzz, bench, batch)
call the same kernels on the rows of an ``int32[B, STATE_LEN]`` array.

Flow: :func:`init_game` deals and opens the first market; every action goes through
:func:`apply_action` (unchecked) or :func:`step_checked` (checked against
:func:`legal_mask`, state untouched when illegal), which runs everything automatic after
it (reveal, resolution order, draws, round end, final scoring) up to the next decision.
``F_DEC`` is the decision, ``F_CUR`` the seat asked now; during the simultaneous card
choice (A4.1) every seat in :func:`is_pending` may act, in any order.

Chance lives in the row: ``F_RNG`` is a 64-bit xorshift64 state, seeded through the library's
one mixer; both are the game-agnostic kernels of :mod:`ohmygoods_env.framework.rng`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..framework import jit as _jit
from ..framework import rng as _rng
from ..framework.rng import rand_below_at, seed_word, shuffle_at
from . import cards as _cards
from . import layout as _layout
from .cards import (
    B_BUY,
    B_SELL,
    B_TIER,
    EF_FAIR,
    EF_KNIGHT,
    EF_MAGE,
    EF_PRODUCE,
    EF_RECONSTRUCTION,
    EF_SCOUTING,
    EF_THEFT,
    KIND_ACTION,
    N_CARDS,
    N_RES,
    N_TYPES,
    T_COIN,
    T_EFFECT,
    T_IN0,
    T_IN1,
    T_KIND,
    T_OUT,
    T_OUT_N,
    T_VP,
    TRACK_CELLS,
)
from .layout import (
    A_APPLY,
    A_BUY,
    A_DISCARD_CARD,
    A_END_DISCARD,
    A_END_DONE,
    A_KNIGHT,
    A_MAGE_DISCARD,
    A_MARKET_PASS,
    A_PLAY,
    A_RECON,
    A_REDRAW,
    A_SCOUT,
    A_SELL,
    A_SWAP,
    A_TAKE_BACK,
    A_THEFT,
    D_CHOOSE,
    D_KNIGHT,
    D_MAGE,
    D_MARKET,
    D_OVER,
    D_RECON,
    D_RESOLVE,
    D_ROUND_END,
    D_SCOUT,
    D_THEFT,
    F_BANK,
    F_CHOSEN,
    F_COINS,
    F_CUR,
    F_DEC,
    F_DECK,
    F_DECK_N,
    F_ENDED,
    F_FIRST,
    F_KNOW,
    F_LOC,
    F_MAGE_LEFT,
    F_NP,
    F_OUT,
    F_PASSED,
    F_PLAY_STEP,
    F_REDRAWN,
    F_RES,
    F_RES_CARD,
    F_RES_POS,
    F_RNG,
    F_ROUND,
    F_STEPS,
    F_SWAPS,
    F_TURN,
    F_VP,
    HAND_TARGET,
    KNIGHT_STEPS,
    L_CHOSEN,
    L_DECK,
    L_DISCARD,
    L_HAND,
    L_MARKET,
    L_PLAYED,
    L_REVEALED,
    MAGE_DISCARD,
    MAGE_DRAW,
    MARKET_SIZE,
    MAX_PLAYERS,
    N_ACTIONS,
    N_LOC,
    O_CHOSEN,
    O_DEC,
    O_FIRST,
    O_HAND,
    O_MAGE_LEFT,
    O_MARKET,
    O_ME,
    O_NP,
    O_PILES,
    O_PLAYERS,
    O_RESOLVING,
    O_ROUND,
    O_STEP,
    PF_CHOSEN,
    PF_COINS,
    PF_ENDED,
    PF_HAND,
    PF_OUT,
    PF_PASSED,
    PF_PLAYED,
    PF_PRESENT,
    PF_REDRAWN,
    PF_RES,
    PF_REVEALED,
    PF_SWAPS,
    PF_VP,
    PLAYER_FEATURES,
    ROUNDS,
    SC_COINS,
    SC_HAND,
    SC_HAND_ME,
    SC_MARKET,
    SC_PLAYED,
    SC_RES,
    SC_STEP,
    SC_SWAPS,
    SC_VP,
    START_COINS,
    STATE_LEN,
    SWAP_COST,
    THEFT_MAX_TIER,
    TOKENS,
    VP_PER_COINS,
)

ERR_ILLEGAL = -1  # step_checked: the action is not legal now
ERR_RANGE = -2  # step_checked: the action id is outside 0..N_ACTIONS-1
ERR_OVER = -3  # step_checked: the game is over
ERR_PLAYER = -4  # step_checked: this seat is not asked now
ALL_SEATS = (1 << MAX_PLAYERS) - 1

# ===================================================================== chance


@njit(cache=True)
def seed_rng(g, seed):
    """Seed the row's RNG from a 64-bit seed (int64 bit pattern) through the one mixer ``framework.rng.mix64``."""
    seed_word(g, F_RNG, seed)


@njit(cache=True)
def rand_below(g, n):
    """Uniform integer in [0, n) from the row's xorshift64 state (n >= 1)."""
    return rand_below_at(g, F_RNG, n)


# ===================================================================== cards and piles


@njit(cache=True)
def _shuffle_deck(g):
    shuffle_at(g, F_DECK, g[F_DECK_N], g, F_RNG)


@njit(cache=True)
def _reshuffle(g):
    """A1.7: the discard pile becomes the new, shuffled deck. Returns the cards added."""
    n = g[F_DECK_N]
    added = 0
    for c in range(N_CARDS):
        if g[F_LOC + c] == L_DISCARD:
            g[F_LOC + c] = L_DECK
            g[F_KNOW + c] = 0
            g[F_DECK + n] = c
            n += 1
            added += 1
    g[F_DECK_N] = n
    if added > 0:
        _shuffle_deck(g)
    return added


@njit(cache=True)
def draw_to(g, p):
    """Move the top card to ``p``'s hand (A1.7 reshuffle first if needed); -1 when none is left."""
    if g[F_DECK_N] == 0 and _reshuffle(g) == 0:
        return -1
    n = g[F_DECK_N] - 1
    g[F_DECK_N] = n
    c = g[F_DECK + n]
    g[F_LOC + c] = L_HAND + p
    g[F_KNOW + c] = 1 << p
    return c


@njit(cache=True)
def count_at(g, loc):
    n = 0
    for c in range(N_CARDS):
        if g[F_LOC + c] == loc:
            n += 1
    return n


@njit(cache=True)
def first_of_type(g, CT, loc, t):
    """Lowest card id of type ``t`` at ``loc`` (A9.9: cards of one type are interchangeable), or -1."""
    for c in range(N_CARDS):
        if g[F_LOC + c] == loc and CT[c] == t:
            return c
    return -1


@njit(cache=True)
def _discard(g, c):
    g[F_LOC + c] = L_DISCARD
    g[F_KNOW + c] = 0


@njit(cache=True)
def _to_hand_public(g, c, p):
    """A card everyone saw goes to ``p``'s hand: every seat knows it is there (A9.3)."""
    g[F_LOC + c] = L_HAND + p
    g[F_KNOW + c] = ALL_SEATS


# ===================================================================== tokens (A1.6)


@njit(cache=True)
def _gain_coins(g, p, n):
    n = min(n, g[F_BANK])
    g[F_COINS + p] += n
    g[F_BANK] -= n


@njit(cache=True)
def _pay_coins(g, p, n):
    g[F_COINS + p] -= n
    g[F_BANK] += n


@njit(cache=True)
def _gain_res(g, p, r, n):
    n = min(n, g[F_BANK])
    g[F_RES + p * N_RES + r] += n
    g[F_BANK] -= n


@njit(cache=True)
def _pay_res(g, p, r):
    g[F_RES + p * N_RES + r] -= 1
    g[F_BANK] += 1


@njit(cache=True)
def _score(g, TR, p, vp):
    """A5.3, A5.4: move ``p``'s marker ``vp`` cells on; every cell reached or passed gives its resource."""
    old = g[F_VP + p]
    new = old + vp
    for cell in range(old + 1, min(new, TRACK_CELLS - 1) + 1):
        if TR[cell] >= 0:
            _gain_res(g, p, TR[cell], 1)
    g[F_VP + p] = new


# ===================================================================== round start (A2)


@njit(cache=True)
def _next_first(g):
    """A2.4: fewest VP; ties to the nearest seat clockwise from the last first player (itself included)."""
    np_ = g[F_NP]
    prev = g[F_FIRST]
    best = prev
    for k in range(np_):
        q = (prev + k) % np_
        if g[F_VP + q] < g[F_VP + best]:
            best = q
    return best


@njit(cache=True)
def _start_round(g):
    np_ = g[F_NP]
    g[F_ROUND] += 1
    if g[F_ROUND] > 1:
        g[F_FIRST] = _next_first(g)
    first = g[F_FIRST]
    for k in range(np_):  # A2.2, A2.3: deal / draw up to 5, from the first player on
        q = (first + k) % np_
        while count_at(g, L_HAND + q) < HAND_TARGET:
            if draw_to(g, q) < 0:
                break
    for q in range(MAX_PLAYERS):
        g[F_PASSED + q] = 0
        g[F_SWAPS + q] = 0
        g[F_REDRAWN + q] = 0
        g[F_OUT + q] = 0
        g[F_CHOSEN + q] = -1
        g[F_ENDED + q] = 0
    g[F_PLAY_STEP] = 0
    for _ in range(MARKET_SIZE):  # A3.1
        if g[F_DECK_N] == 0 and _reshuffle(g) == 0:
            break
        n = g[F_DECK_N] - 1
        g[F_DECK_N] = n
        c = g[F_DECK + n]
        g[F_LOC + c] = L_MARKET
        g[F_KNOW + c] = 0
    g[F_TURN] = first
    g[F_DEC] = D_MARKET
    g[F_CUR] = first


@njit(cache=True)
def init_game(g, T, B, TR, CT, seed, num_players):
    """A2.1, A2.2, A2.4: a new game for ``num_players`` seats from a 64-bit ``seed`` (int64 bits)."""
    g[:] = 0
    g[F_NP] = num_players
    seed_rng(g, seed)
    for c in range(N_CARDS):
        g[F_LOC + c] = L_DECK
        g[F_DECK + c] = c
    g[F_DECK_N] = N_CARDS
    _shuffle_deck(g)
    g[F_BANK] = TOKENS
    for p in range(num_players):
        _gain_coins(g, p, START_COINS)
    for p in range(MAX_PLAYERS):
        g[F_CHOSEN + p] = -1
    g[F_RES_CARD] = -1
    g[F_FIRST] = rand_below(g, num_players)
    _start_round(g)


# ===================================================================== market (A3)


@njit(cache=True)
def _free_swap(g, p):
    return g[F_SWAPS + p] == 0 and g[F_REDRAWN + p] == 0


@njit(cache=True)
def _legal_market(g, T, B, TR, CT, p, out):
    out[A_MARKET_PASS] = 1
    if _free_swap(g, p) and count_at(g, L_HAND + p) > 0:
        out[A_REDRAW] = 1
    if not _free_swap(g, p) and g[F_COINS + p] < SWAP_COST:
        return
    for give in range(N_TYPES):
        if first_of_type(g, CT, L_HAND + p, give) < 0:
            continue
        for take in range(N_TYPES):
            if take != give and first_of_type(g, CT, L_MARKET, take) >= 0:
                out[A_SWAP + give * N_TYPES + take] = 1


@njit(cache=True)
def _next_market_turn(g):
    np_ = g[F_NP]
    p = g[F_TURN]
    for k in range(1, np_ + 1):
        q = (p + k) % np_
        if g[F_PASSED + q] == 0:
            g[F_TURN] = q
            g[F_CUR] = q
            return
    for c in range(N_CARDS):  # A3.5: the market is discarded
        if g[F_LOC + c] == L_MARKET:
            _discard(g, c)
    _start_play_step(g)


@njit(cache=True)
def _apply_market(g, T, B, TR, CT, p, a):
    if a == A_MARKET_PASS:
        g[F_PASSED + p] = 1
    elif a == A_REDRAW:  # A3.4
        for c in range(N_CARDS):
            if g[F_LOC + c] == L_HAND + p:
                _discard(g, c)
        for _ in range(HAND_TARGET):
            draw_to(g, p)
        g[F_REDRAWN + p] = 1
    else:  # A3.2, A3.3
        give = (a - A_SWAP) // N_TYPES
        take = (a - A_SWAP) % N_TYPES
        if not _free_swap(g, p):
            _pay_coins(g, p, SWAP_COST)
        cg = first_of_type(g, CT, L_HAND + p, give)
        ct = first_of_type(g, CT, L_MARKET, take)
        g[F_LOC + cg] = L_MARKET
        g[F_KNOW + cg] = 0
        _to_hand_public(g, ct, p)
        g[F_SWAPS + p] += 1
    _next_market_turn(g)


# ===================================================================== card play (A4)


@njit(cache=True)
def is_pending(g, p):
    """Whether seat ``p`` is asked now (every unchosen seat during the simultaneous choice, A4.1)."""
    if g[F_DEC] == D_OVER or p < 0 or p >= g[F_NP]:
        return False
    if g[F_DEC] == D_CHOOSE:
        return g[F_OUT + p] == 0 and g[F_CHOSEN + p] < 0
    return g[F_CUR] == p


@njit(cache=True)
def _first_pending(g):
    np_ = g[F_NP]
    for k in range(np_):
        q = (g[F_FIRST] + k) % np_
        if is_pending(g, q):
            return q
    return -1


@njit(cache=True)
def _start_play_step(g):
    """A4.1, A4.8: every seat still in with a hand card chooses; none left ends the round."""
    np_ = g[F_NP]
    anyone = False
    for q in range(np_):
        if g[F_OUT + q] == 0 and count_at(g, L_HAND + q) == 0:
            g[F_OUT + q] = 1
        if g[F_OUT + q] == 0:
            anyone = True
    if not anyone:
        _end_round(g)
        return
    g[F_PLAY_STEP] += 1
    g[F_DEC] = D_CHOOSE
    g[F_CUR] = _first_pending(g)


@njit(cache=True)
def _legal_choose(g, T, B, TR, CT, p, out):
    for t in range(N_TYPES):
        if first_of_type(g, CT, L_HAND + p, t) >= 0:
            out[A_PLAY + t] = 1


@njit(cache=True)
def _apply_choose(g, T, B, TR, CT, p, a):
    c = first_of_type(g, CT, L_HAND + p, a - A_PLAY)
    g[F_LOC + c] = L_CHOSEN + p
    g[F_CHOSEN + p] = c
    nxt = _first_pending(g)
    if nxt >= 0:
        g[F_CUR] = nxt
        return
    for q in range(g[F_NP]):  # A4.2: all reveal together
        if g[F_CHOSEN + q] >= 0:
            g[F_LOC + g[F_CHOSEN + q]] = L_REVEALED + q
            g[F_KNOW + g[F_CHOSEN + q]] = ALL_SEATS
    g[F_RES_POS] = 0
    _next_resolution(g, T, CT)


@njit(cache=True)
def _next_resolution(g, T, CT):
    """A4.3: actions clockwise from the first player, then buildings in the same order (A9.1)."""
    np_ = g[F_NP]
    while g[F_RES_POS] < 2 * MAX_PLAYERS:
        pas = g[F_RES_POS] // MAX_PLAYERS
        k = g[F_RES_POS] % MAX_PLAYERS
        if k < np_:
            q = (g[F_FIRST] + k) % np_
            c = g[F_CHOSEN + q]
            if c >= 0 and (T[CT[c], T_KIND] == KIND_ACTION) == (pas == 0):
                g[F_RES_CARD] = c
                g[F_CUR] = q
                g[F_DEC] = D_RESOLVE
                return
        g[F_RES_POS] += 1
    g[F_RES_CARD] = -1
    _start_play_step(g)


@njit(cache=True)
def _finish_card(g, T, CT, p, to_played):
    """The revealed card of ``p`` is done: face up in front of ``p`` (A4.7) or already moved."""
    c = g[F_RES_CARD]
    if to_played:
        g[F_LOC + c] = L_PLAYED + p
    g[F_CHOSEN + p] = -1
    g[F_DEC] = D_RESOLVE
    g[F_RES_POS] += 1
    _next_resolution(g, T, CT)


# ---------------------------------------------------------------- resolve: trade and choose


@njit(cache=True)
def can_apply(g, T, B, CT, p, c):
    """A4.4, A9.6: whether ``p`` can apply card ``c`` now (inputs, coins, a target)."""
    t = CT[c]
    e = T[t, T_EFFECT]
    if e == EF_SCOUTING:
        return _any_scout_target(g, p)
    if e == EF_THEFT:
        return _any_theft_target(g, B, p)
    if e == EF_RECONSTRUCTION:
        return _any_recon_card(g, T, CT, p)
    if e == EF_FAIR:
        return True
    for k in (T_IN0, T_IN1):
        r = T[t, k]
        if r >= 0 and g[F_RES + p * N_RES + r] < 1 + (1 if k == T_IN1 and T[t, T_IN0] == r else 0):
            return False
    return g[F_COINS + p] >= T[t, T_COIN]


@njit(cache=True)
def _can_sell(g, B, p, r):
    return g[F_RES + p * N_RES + r] > 0 and g[F_BANK] >= B[r, B_SELL] - 1


@njit(cache=True)
def _legal_trade(g, B, p, out):
    """A4.6, A5.2: buy or sell one resource at the board price (the bank must cover a sale)."""
    for r in range(N_RES):
        if g[F_COINS + p] >= B[r, B_BUY]:
            out[A_BUY + r] = 1
        if _can_sell(g, B, p, r):
            out[A_SELL + r] = 1


@njit(cache=True)
def _apply_trade(g, B, p, a):
    if a < A_SELL:
        r = a - A_BUY
        _pay_coins(g, p, B[r, B_BUY])
        _gain_res(g, p, r, 1)
    else:
        r = a - A_SELL
        _pay_res(g, p, r)
        _gain_coins(g, p, B[r, B_SELL])


@njit(cache=True)
def _legal_resolve(g, T, B, TR, CT, p, out):
    _legal_trade(g, B, p, out)
    if can_apply(g, T, B, CT, p, g[F_RES_CARD]):
        out[A_APPLY] = 1
    out[A_DISCARD_CARD] = 1
    out[A_TAKE_BACK] = 1


@njit(cache=True)
def _apply_resolve(g, T, B, TR, CT, p, a):
    c = g[F_RES_CARD]
    if a < A_APPLY:
        _apply_trade(g, B, p, a)
    elif a == A_DISCARD_CARD:  # A4.5
        _discard(g, c)
        _finish_card(g, T, CT, p, False)
    elif a == A_TAKE_BACK:  # A4.5
        _to_hand_public(g, c, p)
        g[F_OUT + p] = 1
        _finish_card(g, T, CT, p, False)
    else:
        _apply_card(g, T, B, TR, CT, p, c)


@njit(cache=True)
def _apply_card(g, T, B, TR, CT, p, c):
    t = CT[c]
    e = T[t, T_EFFECT]
    if e == EF_SCOUTING:
        g[F_DEC] = D_SCOUT
    elif e == EF_THEFT:
        g[F_DEC] = D_THEFT
    elif e == EF_RECONSTRUCTION:
        g[F_DEC] = D_RECON
    elif e == EF_FAIR:  # A6.4
        _gain_coins(g, p, 2 * count_at(g, L_PLAYED + p))
        _finish_card(g, T, CT, p, True)
    else:
        _build(g, T, TR, CT, p, c, t, e)


@njit(cache=True)
def _build(g, T, TR, CT, p, c, t, e):
    """A5.3, A7.1-A7.4: pay the inputs, make the output, score, then the Mage / Knight."""
    for k in (T_IN0, T_IN1):
        if T[t, k] >= 0:
            _pay_res(g, p, T[t, k])
    _pay_coins(g, p, T[t, T_COIN])
    if e == EF_PRODUCE:
        _gain_res(g, p, T[t, T_OUT], T[t, T_OUT_N])
    _score(g, TR, p, T[t, T_VP])
    g[F_LOC + c] = L_PLAYED + p
    if e == EF_MAGE:
        for _ in range(MAGE_DRAW):  # A7.3, A9.5
            draw_to(g, p)
        g[F_MAGE_LEFT] = min(MAGE_DISCARD, count_at(g, L_HAND + p))
        if g[F_MAGE_LEFT] > 0:
            g[F_DEC] = D_MAGE
            return
    elif e == EF_KNIGHT:
        g[F_DEC] = D_KNIGHT
        return
    _finish_card(g, T, CT, p, False)


# ---------------------------------------------------------------- action cards (A6)


@njit(cache=True)
def _any_scout_target(g, p):
    for k in range(1, g[F_NP]):
        if count_at(g, L_HAND + (p + k) % g[F_NP]) > 0:
            return True
    return False


@njit(cache=True)
def _legal_scout(g, T, B, TR, CT, p, out):
    for k in range(1, g[F_NP]):
        if count_at(g, L_HAND + (p + k) % g[F_NP]) > 0:
            out[A_SCOUT + k - 1] = 1


@njit(cache=True)
def _apply_scout(g, T, B, TR, CT, p, a):
    """A6.1: a random card of the target's hand to mine; the target draws one."""
    q = (p + a - A_SCOUT + 1) % g[F_NP]
    i = rand_below(g, count_at(g, L_HAND + q))
    for c in range(N_CARDS):
        if g[F_LOC + c] == L_HAND + q:
            if i == 0:
                g[F_LOC + c] = L_HAND + p
                g[F_KNOW + c] = (1 << p) | (1 << q)
                break
            i -= 1
    draw_to(g, q)
    _finish_card(g, T, CT, p, True)


@njit(cache=True)
def _theft_ok(g, B, p, q, r):
    tier = B[r, B_TIER]
    return tier <= THEFT_MAX_TIER and g[F_RES + q * N_RES + r] > 0 and g[F_COINS + p] >= tier


@njit(cache=True)
def _any_theft_target(g, B, p):
    for k in range(1, g[F_NP]):
        for r in range(N_RES):
            if _theft_ok(g, B, p, (p + k) % g[F_NP], r):
                return True
    return False


@njit(cache=True)
def _legal_theft(g, T, B, TR, CT, p, out):
    for k in range(1, g[F_NP]):
        for r in range(N_RES):
            if _theft_ok(g, B, p, (p + k) % g[F_NP], r):
                out[A_THEFT + (k - 1) * N_RES + r] = 1


@njit(cache=True)
def _apply_theft(g, T, B, TR, CT, p, a):
    """A6.2: pay the tier in coins, move one resource of that type from the target to me."""
    k = (a - A_THEFT) // N_RES + 1
    r = (a - A_THEFT) % N_RES
    q = (p + k) % g[F_NP]
    _pay_coins(g, p, B[r, B_TIER])
    g[F_RES + q * N_RES + r] -= 1
    g[F_RES + p * N_RES + r] += 1
    _finish_card(g, T, CT, p, True)


@njit(cache=True)
def _recon_ok(g, T, CT, p, t):
    return T[t, T_EFFECT] != EF_RECONSTRUCTION and first_of_type(g, CT, L_PLAYED + p, t) >= 0


@njit(cache=True)
def _any_recon_card(g, T, CT, p):
    for t in range(N_TYPES):
        if _recon_ok(g, T, CT, p, t):
            return True
    return False


@njit(cache=True)
def _legal_recon(g, T, B, TR, CT, p, out):
    for t in range(N_TYPES):
        if _recon_ok(g, T, CT, p, t):
            out[A_RECON + t] = 1


@njit(cache=True)
def _apply_recon(g, T, B, TR, CT, p, a):
    """A6.3, A9.7: a card I played this round (not a Reconstruction) back to my hand."""
    _to_hand_public(g, first_of_type(g, CT, L_PLAYED + p, a - A_RECON), p)
    _finish_card(g, T, CT, p, True)


# ---------------------------------------------------------------- Mage and Knight (A7)


@njit(cache=True)
def _legal_knight(g, T, B, TR, CT, p, out):
    for k in range(g[F_NP]):
        out[A_KNIGHT + k] = 1


@njit(cache=True)
def _apply_knight(g, T, B, TR, CT, p, a):
    """A7.4, A9.4: any seat's marker 4 cells back, not below 0; no cell is given back or taken."""
    q = (p + a - A_KNIGHT) % g[F_NP]
    g[F_VP + q] = max(0, g[F_VP + q] - KNIGHT_STEPS)
    _finish_card(g, T, CT, p, False)


@njit(cache=True)
def _legal_mage(g, T, B, TR, CT, p, out):
    for t in range(N_TYPES):
        if first_of_type(g, CT, L_HAND + p, t) >= 0:
            out[A_MAGE_DISCARD + t] = 1


@njit(cache=True)
def _apply_mage(g, T, B, TR, CT, p, a):
    _discard(g, first_of_type(g, CT, L_HAND + p, a - A_MAGE_DISCARD))
    g[F_MAGE_LEFT] -= 1
    if g[F_MAGE_LEFT] == 0:
        _finish_card(g, T, CT, p, False)


# ===================================================================== round end (A5)


@njit(cache=True)
def _end_round(g):
    for c in range(N_CARDS):  # A5.1
        if g[F_LOC + c] >= L_PLAYED:
            _discard(g, c)
    if g[F_ROUND] >= ROUNDS:  # A8.1
        g[F_DEC] = D_OVER
        g[F_CUR] = -1
        return
    g[F_DEC] = D_ROUND_END
    g[F_CUR] = g[F_FIRST]


@njit(cache=True)
def _legal_round_end(g, T, B, TR, CT, p, out):
    for r in range(N_RES):
        if _can_sell(g, B, p, r):
            out[A_SELL + r] = 1
    for t in range(N_TYPES):
        if first_of_type(g, CT, L_HAND + p, t) >= 0:
            out[A_END_DISCARD + t] = 1
    out[A_END_DONE] = 1


@njit(cache=True)
def _apply_round_end(g, T, B, TR, CT, p, a):
    """A5.2: sell, discard hand cards, done; seats in order from the first player."""
    if a < A_END_DISCARD:
        _apply_trade(g, B, p, a)
        return
    if a < A_END_DONE:
        _discard(g, first_of_type(g, CT, L_HAND + p, a - A_END_DISCARD))
        return
    g[F_ENDED + p] = 1
    np_ = g[F_NP]
    for k in range(1, np_):
        q = (p + k) % np_
        if g[F_ENDED + q] == 0:
            g[F_CUR] = q
            return
    _start_round(g)


# ===================================================================== dispatchers


@njit(cache=True)
def legal_mask(g, T, B, TR, CT, p, out):
    """int8 ``out[N_ACTIONS]``: the legal actions of seat ``p`` (all zero if ``p`` is not asked)."""
    out[:] = 0
    if not is_pending(g, p):
        return
    d = g[F_DEC]
    if d == D_MARKET:
        _legal_market(g, T, B, TR, CT, p, out)
    elif d == D_CHOOSE:
        _legal_choose(g, T, B, TR, CT, p, out)
    elif d == D_RESOLVE:
        _legal_resolve(g, T, B, TR, CT, p, out)
    elif d == D_SCOUT:
        _legal_scout(g, T, B, TR, CT, p, out)
    elif d == D_THEFT:
        _legal_theft(g, T, B, TR, CT, p, out)
    elif d == D_RECON:
        _legal_recon(g, T, B, TR, CT, p, out)
    elif d == D_KNIGHT:
        _legal_knight(g, T, B, TR, CT, p, out)
    elif d == D_MAGE:
        _legal_mage(g, T, B, TR, CT, p, out)
    elif d == D_ROUND_END:
        _legal_round_end(g, T, B, TR, CT, p, out)


@njit(cache=True)
def apply_action(g, T, B, TR, CT, p, a):
    """Apply legal action ``a`` of pending seat ``p`` (unchecked), then run to the next decision."""
    g[F_STEPS] += 1
    d = g[F_DEC]
    if d == D_MARKET:
        _apply_market(g, T, B, TR, CT, p, a)
    elif d == D_CHOOSE:
        _apply_choose(g, T, B, TR, CT, p, a)
    elif d == D_RESOLVE:
        _apply_resolve(g, T, B, TR, CT, p, a)
    elif d == D_SCOUT:
        _apply_scout(g, T, B, TR, CT, p, a)
    elif d == D_THEFT:
        _apply_theft(g, T, B, TR, CT, p, a)
    elif d == D_RECON:
        _apply_recon(g, T, B, TR, CT, p, a)
    elif d == D_KNIGHT:
        _apply_knight(g, T, B, TR, CT, p, a)
    elif d == D_MAGE:
        _apply_mage(g, T, B, TR, CT, p, a)
    elif d == D_ROUND_END:
        _apply_round_end(g, T, B, TR, CT, p, a)


@njit(cache=True)
def check_action(g, T, B, TR, CT, p, a):
    """0 when seat ``p`` may play ``a`` now, else the ``ERR_*`` code saying why (the state is only read)."""
    if a < 0 or a >= N_ACTIONS:
        return ERR_RANGE
    if g[F_DEC] == D_OVER:
        return ERR_OVER
    if not is_pending(g, p):
        return ERR_PLAYER
    mask = np.zeros(N_ACTIONS, np.int8)
    legal_mask(g, T, B, TR, CT, p, mask)
    if mask[a] == 0:
        return ERR_ILLEGAL
    return 0


@njit(cache=True)
def step_checked(g, T, B, TR, CT, p, a):
    """Check (:func:`check_action`), then apply; returns 0 or an ``ERR_*`` code (the state is untouched on an
    error)."""
    code = check_action(g, T, B, TR, CT, p, a)
    if code == 0:
        apply_action(g, T, B, TR, CT, p, a)
    return code


# ===================================================================== scoring (A8)


@njit(cache=True)
def final_score(g, B, p):
    """A8.2: score + (coins + every resource sold at the board price) // 4."""
    money = g[F_COINS + p]
    for r in range(N_RES):
        money += g[F_RES + p * N_RES + r] * B[r, B_SELL]
    return g[F_VP + p] + money // VP_PER_COINS


@njit(cache=True)
def winners(g, B, out):
    """A8.3: ``out[p] = 1`` for every seat with the best final score (ties share)."""
    best = -1
    for p in range(g[F_NP]):
        best = max(best, final_score(g, B, p))
    for p in range(g[F_NP]):
        out[p] = 1 if final_score(g, B, p) == best else 0


# ===================================================================== observation (A9.2)


@njit(cache=True)
def _observe_seat(g, CT, q, base, out):
    """Public facts of seat ``q`` into ``out[base:base + PLAYER_FEATURES]``."""
    out[base + PF_PRESENT] = 1.0
    out[base + PF_VP] = g[F_VP + q] / SC_VP
    out[base + PF_COINS] = g[F_COINS + q] / SC_COINS
    for r in range(N_RES):
        out[base + PF_RES + r] = g[F_RES + q * N_RES + r] / SC_RES
    out[base + PF_HAND] = count_at(g, L_HAND + q) / SC_HAND
    out[base + PF_PASSED] = g[F_PASSED + q]
    out[base + PF_SWAPS] = g[F_SWAPS + q] / SC_SWAPS
    out[base + PF_REDRAWN] = g[F_REDRAWN + q]
    out[base + PF_OUT] = g[F_OUT + q]
    out[base + PF_ENDED] = g[F_ENDED + q]
    for c in range(N_CARDS):
        loc = g[F_LOC + c]
        if loc == L_CHOSEN + q:
            out[base + PF_CHOSEN] = 1.0
        elif loc == L_REVEALED + q:
            out[base + PF_REVEALED + CT[c]] = 1.0
        elif loc == L_PLAYED + q:
            out[base + PF_PLAYED + CT[c]] += 1.0 / SC_PLAYED


@njit(cache=True)
def observe(g, T, B, TR, CT, me, out):
    """float32 ``out[OBS_DIM]``: what seat ``me`` may see, seats rotated so that ``me`` comes first.

    Never another seat's hand or face-down card, nor the deck order (A9.2).
    """
    out[:] = 0.0
    np_ = g[F_NP]
    out[O_DEC + g[F_DEC]] = 1.0
    out[O_NP + np_ - 2] = 1.0
    out[O_ROUND] = g[F_ROUND] / float(ROUNDS)
    out[O_FIRST + (g[F_FIRST] - me) % np_] = 1.0
    out[O_ME] = 1.0 if is_pending(g, me) else 0.0
    out[O_PILES] = g[F_DECK_N] / float(N_CARDS)
    out[O_PILES + 1] = count_at(g, L_DISCARD) / float(N_CARDS)
    out[O_PILES + 2] = g[F_BANK] / float(N_CARDS)
    for c in range(N_CARDS):
        loc = g[F_LOC + c]
        if loc == L_HAND + me:
            out[O_HAND + CT[c]] += 1.0 / SC_HAND_ME
        elif loc == L_CHOSEN + me:
            out[O_CHOSEN + CT[c]] = 1.0
        elif loc == L_MARKET:
            out[O_MARKET + CT[c]] += 1.0 / SC_MARKET
    if g[F_DEC] != D_CHOOSE and g[F_DEC] != D_MARKET and g[F_DEC] != D_OVER and g[F_DEC] != D_ROUND_END:
        out[O_RESOLVING + (g[F_CUR] - me) % np_] = 1.0
    out[O_MAGE_LEFT] = g[F_MAGE_LEFT] / float(MAGE_DISCARD)
    out[O_STEP] = g[F_PLAY_STEP] / SC_STEP
    for j in range(np_):
        _observe_seat(g, CT, (me + j) % np_, O_PLAYERS + j * PLAYER_FEATURES, out)


# ===================================================================== invariants


@njit(cache=True)
def check_invariants(g, T, B, TR, CT):
    """0 when the row is consistent, else a code: 1 place, 2 deck, 3 negative, 4 tokens, 5 round, 6 choice."""
    np_ = g[F_NP]
    n = g[F_DECK_N]
    if n < 0 or n > N_CARDS:
        return 2
    seen = np.zeros(N_CARDS, np.int8)
    for i in range(n):
        c = g[F_DECK + i]
        if c < 0 or c >= N_CARDS or g[F_LOC + c] != L_DECK or seen[c]:
            return 2
        seen[c] = 1
    for c in range(N_CARDS):
        loc = g[F_LOC + c]
        if loc < 0 or loc >= N_LOC or (loc >= L_HAND and (loc - L_HAND) % MAX_PLAYERS >= np_):
            return 1
        if loc == L_DECK and seen[c] == 0:
            return 2
    total = g[F_BANK]
    if total < 0:
        return 3
    for p in range(MAX_PLAYERS):
        total += g[F_COINS + p]
        if g[F_COINS + p] < 0 or g[F_VP + p] < 0:
            return 3
        for r in range(N_RES):
            total += g[F_RES + p * N_RES + r]
            if g[F_RES + p * N_RES + r] < 0:
                return 3
    if total != TOKENS:
        return 4
    if g[F_ROUND] < 1 or g[F_ROUND] > ROUNDS:
        return 5
    if count_at(g, L_MARKET) > MARKET_SIZE:
        return 1
    for p in range(np_):
        c = g[F_CHOSEN + p]
        if c >= 0 and g[F_LOC + c] != L_CHOSEN + p and g[F_LOC + c] != L_REVEALED + p:
            # the building being resolved lies played already while its Mage or Knight decision waits (A7.3, A7.4)
            if not (
                c == g[F_RES_CARD] and g[F_LOC + c] == L_PLAYED + p and (g[F_DEC] == D_KNIGHT or g[F_DEC] == D_MAGE)
            ):
                return 6
    return 0


_jit.register(globals(), _cards, _layout, _rng)

__all__ = ["STATE_LEN", "init_game", "legal_mask", "apply_action", "check_action", "step_checked"]
