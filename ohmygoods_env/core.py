"""The rules engine: numba kernels over one game's ``int32`` state row.

This module is the single implementation of the rules (R2-R8). Every function takes the
state row ``g`` (see :mod:`ohmygoods_env.layout`), the building table ``C`` and the
assistant table ``AS`` (see :mod:`ohmygoods_env.cards`). Loops over many games live in
:mod:`ohmygoods_env.batch`.

Flow: :func:`advance` runs everything automatic (dealing, market reveals, drawing goods,
resolving simultaneous choices, scoring the round end) until a player must decide; it then
sets ``F_DEC`` (the decision) and ``F_CUR`` (who decides). :func:`apply_action` applies one
action *without* checking it; :func:`step_checked` checks it against :func:`legal_mask`
first and leaves the state untouched when it is illegal. With ``F_AUTO`` set, decisions
with exactly one legal action are applied automatically (DESIGN: forced moves).

Chance lives inside the state: ``F_RNG`` holds a per-game 64-bit xorshift64 state (two
int32 words) seeded by :func:`seed_rng` from a 64-bit seed, so a game depends only on its
seed and its actions. :func:`rand_at` is the 32-bit xorshift step that agents use on their
own private words.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _jit
from . import cards as _cards
from . import layout as _layout
from .cards import (
    A_COST,
    A_REQ0,
    A_VP,
    B_CH_G1,
    B_CH_G2,
    B_CH_HAND,
    B_COLOUR,
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
    N_COLOURS,
    N_DECK,
    N_RES,
)
from .layout import (
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
    AF_COST,
    AF_DISPLAY,
    AF_OWNER,
    AF_REQ,
    AF_VP,
    ASSIST_FEATURES,
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
    F_A_CARD,
    F_A_OWNER,
    F_A_SIDE,
    F_ALLOW,
    F_ASIDE,
    F_ASLOT,
    F_AUTO,
    F_BLD,
    F_BLOCKED,
    F_CHAIN_RUNS,
    F_CHAIN_SEL,
    F_CHAIN_SLOT,
    F_CUR,
    F_DEC,
    F_DECK,
    F_DECK_N,
    F_FINAL,
    F_FIRST,
    F_GOODS,
    F_GOODS_MADE,
    F_HALF,
    F_HAND0,
    F_HIRE_K,
    F_LOC,
    F_MAXR,
    F_MISS,
    F_MISS_ANY,
    F_MKT,
    F_MOVED,
    F_NB,
    F_NP,
    F_OWE,
    F_OWE_GOODS,
    F_P1,
    F_PAID_FROM,
    F_PAY_DUE,
    F_PAY_FOR,
    F_PH,
    F_PROD_SLOT,
    F_PRODUCED,
    F_REF_OWE,
    F_REF_RET,
    F_REF_TURN,
    F_RNG,
    F_ROUND,
    F_ROW_CUT,
    F_ROYAL,
    F_SHOWN,
    F_SNAP_ASIDE,
    F_SNAP_ASLOT,
    F_SNAP_GOODS,
    F_SNAP_HAND,
    F_SNAP_STAFF,
    F_STAFF,
    F_STEPS,
    F_SUB,
    F_SUNS,
    F_TRIGGER,
    F_TURN,
    F_VARIANTS,
    L_ASIDE,
    L_BUILT,
    L_DECK,
    L_DISCARD,
    L_ESCROW,
    L_GOODS,
    L_HAND,
    L_LIMBO,
    L_ROW1,
    L_ROW2,
    MAX_PLAYERS,
    MAX_SLOTS,
    N_ACTIONS,
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
    PAY_BUILD,
    PAY_HIRE,
    PAY_MOVE,
    PF_ASIDE,
    PF_ASSISTANTS,
    PF_BUILDINGS,
    PF_COINS,
    PF_HAND,
    PF_IN_PLAY,
    PF_VP,
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
    SUB_PAY,
    SUB_PLACE,
    SUB_PROD,
    SUB_SPEND,
    SUB_WORKER,
    V_KEEP_ONE,
    V_TWO_FOR_ONE,
)

CHARBURNER_BASE = N_DECK  # building ids 94..97 are the Charburners
ERR_ILLEGAL = -1  # step_checked: the action is not legal now
ERR_RANGE = -2  # step_checked: the action id is outside 0..N_ACTIONS-1
ERR_OVER = -3  # step_checked: the game is over
ERR_PLAYER = -4  # step_checked: it is not this player's turn

# ===================================================================== chance


@njit(cache=True)
def rand_at(words, i, n):
    """Uniform integer in [0, n) from the xorshift32 word ``words[i]`` (int32 array, n >= 1)."""
    x = np.int64(words[i]) & 0xFFFFFFFF
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    if x >= 0x80000000:
        words[i] = x - 0x100000000
    else:
        words[i] = x
    return (x * n) >> 32


#: splitmix64's increment (the golden ratio in 64 bits) and its two finaliser multipliers
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def mix64(z):
    """splitmix64 on a ``uint64``: the golden-ratio increment, then the finaliser.

    The package's one seed mixer: the game RNG's seeding (:func:`seed_rng`), the batch's episode
    seeds and RNG words (:mod:`ohmygoods_env.batch`) and the fuzzer's slot RNGs all use it.
    The finaliser is a bijection of 64-bit words.
    """
    z = z + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _store_rng(g, x):
    """Store the uint64 generator state ``x`` in the two int32 words ``F_RNG``, ``F_RNG + 1``."""
    for k in range(2):
        w = np.int64((x >> np.uint64(32 * k)) & _LOW32)
        g[F_RNG + k] = w - 0x100000000 if w >= 0x80000000 else w


@njit(cache=True)
def _load_rng(g):
    lo = np.uint64(np.int64(g[F_RNG]) & 0xFFFFFFFF)
    hi = np.uint64(np.int64(g[F_RNG + 1]) & 0xFFFFFFFF)
    return lo | (hi << np.uint64(32))


@njit(cache=True)
def seed_rng(g, seed):
    """Seed the game's RNG from the 64 bits of ``seed`` (an int64 bit pattern) through :func:`mix64`.

    splitmix64's finaliser is a bijection of 64-bit words, so distinct 64-bit seeds give
    distinct generator states (0, the one state xorshift64 cannot leave, is mapped elsewhere).
    """
    z = mix64(np.uint64(seed))
    if z == np.uint64(0):
        z = GOLDEN
    _store_rng(g, z)


@njit(cache=True)
def rand_below(g, n):
    """Uniform integer in [0, n) from the game's 64-bit xorshift64 state (n >= 1)."""
    x = _load_rng(g)
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    _store_rng(g, x)
    return np.int64(((x >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def _shuffle_deck(g):
    n = g[F_DECK_N]
    for i in range(n - 1, 0, -1):
        j = rand_below(g, i + 1)
        t = g[F_DECK + i]
        g[F_DECK + i] = g[F_DECK + j]
        g[F_DECK + j] = t


@njit(cache=True)
def _gather_into_deck(g, loc_code):
    """Put every card at ``loc_code`` into the deck and shuffle it (R3.1)."""
    n = g[F_DECK_N]
    added = 0
    for c in range(N_CARDS):
        if g[F_LOC + c] == loc_code:
            g[F_LOC + c] = L_DECK
            _set_shown(g, c, False)
            g[F_DECK + n] = c
            n += 1
            added += 1
    g[F_DECK_N] = n
    if added > 0:
        _shuffle_deck(g)
    return added


@njit(cache=True)
def draw_card(g):
    """Top card of the deck, reshuffling the discard pile when the deck is empty (R3.1).

    Returns -1 when deck and discard are both empty; the caller then starts the
    empty-deck refill (or, if a refill brought nothing, gives up the draw).
    """
    if g[F_DECK_N] == 0:
        if _gather_into_deck(g, L_DISCARD) == 0:
            return -1
    n = g[F_DECK_N] - 1
    g[F_DECK_N] = n
    return g[F_DECK + n]


# ===================================================================== small queries


@njit(cache=True)
def hand_count(g, p):
    n = 0
    code = L_HAND + p
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            n += 1
    return n


@njit(cache=True)
def hand_res_counts(g, C, p, out):
    for r in range(N_RES):
        out[r] = 0
    code = L_HAND + p
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            out[C[c, B_RES]] += 1


@njit(cache=True)
def coins(g, C, p):
    """Total coin value of player p's goods (R1.3)."""
    t = 0
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        k = g[F_GOODS + base + s]
        if k > 0:
            t += k * C[g[F_BLD + base + s], B_VALUE]
    return t


@njit(cache=True)
def count_kind(g, C, p, kind):
    n = 0
    for s in range(g[F_NB + p]):
        if C[g[F_BLD + p * MAX_SLOTS + s], B_KIND] == kind:
            n += 1
    return n


@njit(cache=True)
def office_bonus(g, C, p, r):
    """Extra copies of resource r in the market for p's Market Offices (R7.5)."""
    n = 0
    for s in range(g[F_NB + p]):
        if C[g[F_BLD + p * MAX_SLOTS + s], B_OFFICE] == r:
            n += 1
    return n


@njit(cache=True)
def is_production(C, b):
    return C[b, B_KIND] == KIND_PRODUCTION


@njit(cache=True)
def goods_of_type(g, C, p, good, exclude_slot):
    n = 0
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        if s != exclude_slot and C[g[F_BLD + base + s], B_GOOD] == good:
            n += g[F_GOODS + base + s]
    return n


@njit(cache=True)
def n_assistants(g, p):
    n = 0
    for k in range(N_ASSIST):
        if g[F_A_OWNER + k] == p:
            n += 1
    return n


@njit(cache=True)
def _first_card_at(g, code):
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            return c
    return -1


@njit(cache=True)
def is_shown(g, c):
    """1 if card ``c`` was shown when fed into a chain (R3.2, R7.7) and has not been reshuffled since."""
    return (g[F_SHOWN + (c >> 4)] >> (c & 15)) & 1


@njit(cache=True)
def _set_shown(g, c, on):
    w = F_SHOWN + (c >> 4)
    bit = 1 << (c & 15)
    g[w] = (g[w] | bit) if on else (g[w] & ~bit)


@njit(cache=True)
def _first_good(g, code):
    """The good at ``code`` that leaves first: an unshown card if there is one, so which card
    left never depends on hidden identities (then the lowest shown id)."""
    shown = -1
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            if is_shown(g, c) == 0:
                return c
            if shown < 0:
                shown = c
    return shown


# ===================================================================== production helpers


@njit(cache=True)
def _missing(g, C, p, s, miss):
    """Resources building (p, s) still lacks after market and offices (R7.1, R7.4, R7.5).

    Fills ``miss[0:N_RES]`` (named resources) and ``miss[N_RES]`` (Glassmaker: any).
    Returns the total missing.
    """
    b = g[F_BLD + p * MAX_SLOTS + s]
    total = 0
    if C[b, B_NEED_ANY] > 0:
        avail = 0
        for r in range(N_RES):
            miss[r] = 0
            avail += g[F_MKT + r] + g[F_MKT + N_RES + r] + office_bonus(g, C, p, r)
        m = C[b, B_NEED_ANY] - avail
        if m < 0:
            m = 0
        miss[N_RES] = m
        return m
    miss[N_RES] = 0
    for r in range(N_RES):
        need = C[b, B_NEED0 + r]
        m = 0
        if need > 0:
            m = need - (g[F_MKT + r] + g[F_MKT + N_RES + r] + office_bonus(g, C, p, r))
            if m < 0:
                m = 0
        miss[r] = m
        total += m
    return total


@njit(cache=True)
def _coverable(miss, hand_res, allowance):
    """Can the hand supply enough of the missing resources (R7.1, R7.2)?"""
    total = miss[N_RES]
    have = 0
    if total > 0:
        for r in range(N_RES):
            have += hand_res[r]
        if have > total:
            have = total
    else:
        for r in range(N_RES):
            total += miss[r]
            have += min(hand_res[r], miss[r])
    return have >= total - allowance


@njit(cache=True)
def _coverable_v(g, miss, hand_res, allowance, half):
    """:func:`_coverable` with the two-for-one variant (R10.2): two spare hand cards of any
    resource stand in for one missing resource (``half``: one stand-in already spent)."""
    if miss[N_RES] > 0 or (g[F_VARIANTS] & V_TWO_FOR_ONE) == 0:
        return _coverable(miss, hand_res, allowance)
    need = 0
    direct = 0
    hand = 0
    for r in range(N_RES):
        d = min(hand_res[r], miss[r])
        direct += d
        need += miss[r] - d
        hand += hand_res[r]
    short = need - allowance
    if short <= 0:
        return True
    return hand - direct >= 2 * short - half


@njit(cache=True)
def _pair_target(miss, hand_res):
    """The missing resource a completed stand-in pair replaces (R10.2, decision): the one the
    hand covers least (largest shortfall), lowest resource index on ties."""
    best = -1
    gap = -(1 << 30)
    for r in range(N_RES):
        if miss[r] > 0 and miss[r] - hand_res[r] > gap:
            gap = miss[r] - hand_res[r]
            best = r
    return best


@njit(cache=True)
def _market_covered(miss, allowance):
    t = miss[N_RES]
    for r in range(N_RES):
        t += miss[r]
    return t <= allowance


@njit(cache=True)
def _chain_possible(g, C, p, s, hand_res):
    """Can building (p, s) run its chain once now (R7.7, R7.8)?"""
    b = g[F_BLD + p * MAX_SLOTS + s]
    hr = C[b, B_CH_HAND]
    g1 = C[b, B_CH_G1]
    g2 = C[b, B_CH_G2]
    if hr < 0 and g1 < 0:
        return False
    if hr >= 0 and hand_res[hr] == 0:
        return False
    if g1 >= 0:
        need1 = 2 if g1 == g2 else 1
        if goods_of_type(g, C, p, g1, s) < need1:
            return False
    if g2 >= 0 and g2 != g1:
        if goods_of_type(g, C, p, g2, s) < 1:
            return False
    return True


@njit(cache=True)
def _move_good(g, C, p, good, to_slot):
    """Move one good of type ``good`` from p's lowest other slot onto ``to_slot`` (R7.7)."""
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        if s != to_slot and g[F_GOODS + base + s] > 0 and C[g[F_BLD + base + s], B_GOOD] == good:
            c = _first_good(g, L_GOODS + base + s)
            g[F_LOC + c] = L_GOODS + base + to_slot
            g[F_GOODS + base + s] -= 1
            g[F_GOODS + base + to_slot] += 1
            return


@njit(cache=True)
def _run_chain(g, C, p, s, hand_card):
    """Run the chain of (p, s) once: inputs become goods on this building (R7.8)."""
    b = g[F_BLD + p * MAX_SLOTS + s]
    if hand_card >= 0:  # shown to everyone as it is played (R3.2, R7.7)
        g[F_LOC + hand_card] = L_GOODS + p * MAX_SLOTS + s
        _set_shown(g, hand_card, True)
        g[F_GOODS + p * MAX_SLOTS + s] += 1
    if C[b, B_CH_G1] >= 0:
        _move_good(g, C, p, C[b, B_CH_G1], s)
    if C[b, B_CH_G2] >= 0:
        _move_good(g, C, p, C[b, B_CH_G2], s)
    g[F_CHAIN_RUNS] += 1


# ===================================================================== assistants


@njit(cache=True)
def _free_production_slot(g, C, p, exclude):
    """Is there a production building of p with no person (R7.14), other than ``exclude``?"""
    base = p * MAX_SLOTS
    for s in range(g[F_NB + p]):
        if s != exclude and is_production(C, g[F_BLD + base + s]) and g[F_STAFF + base + s] == STAFF_NONE:
            return True
    return False


@njit(cache=True)
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


@njit(cache=True)
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


# ===================================================================== payments


@njit(cache=True)
def _start_payment(g, C, p, amount, purpose):
    g[F_PAY_DUE] = amount
    g[F_PAY_FOR] = purpose
    g[F_SUB] = SUB_PAY
    if amount <= 0:
        _finish_payment(g, C, p)


@njit(cache=True)
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


@njit(cache=True)
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


# ===================================================================== set-up


@njit(cache=True)
def init_game(g, C, AS, seed, num_players, edition, auto, max_rounds):
    """Set up a new game (R2) in row ``g`` from the 64 bits of ``seed`` (int64; see :func:`seed_rng`).

    ``edition``: bit 0 royal (§9); the higher bits are the variants (``V_*`` shifted by 1, R10).
    """
    for i in range(g.shape[0]):
        g[i] = 0
    seed_rng(g, seed)
    g[F_NP] = num_players
    g[F_ROYAL] = edition & 1
    g[F_VARIANTS] = edition >> 1
    g[F_AUTO] = auto
    g[F_MAXR] = max_rounds
    for i in range(MAX_PLAYERS * MAX_SLOTS):
        g[F_BLD + i] = -1
        g[F_ASLOT + i] = -1
    for p in range(MAX_PLAYERS):
        g[F_ASIDE + p] = -1
    # R2.1: one random Charburner each (and a worker)
    cb = np.arange(4)
    for i in range(3, 0, -1):
        j = rand_below(g, i + 1)
        t = cb[i]
        cb[i] = cb[j]
        cb[j] = t
    for p in range(num_players):
        g[F_BLD + p * MAX_SLOTS] = CHARBURNER_BASE + cb[p]
        g[F_NB + p] = 1
    # R2.2: 2/3/4 players -> 4/6/8 random assistants, random side up; solo: 2 (R10.3)
    perm = np.arange(N_ASSIST)
    for i in range(N_ASSIST - 1, 0, -1):
        j = rand_below(g, i + 1)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    shown = 2 * num_players
    for k in range(N_ASSIST):
        if k < shown:
            g[F_A_CARD + k] = perm[k]
            g[F_A_SIDE + k] = rand_below(g, 2)
            g[F_A_OWNER + k] = -1
        else:
            g[F_A_CARD + k] = 0
            g[F_A_SIDE + k] = 0
            g[F_A_OWNER + k] = -2
    # R2.3: shuffle the 94 deck cards; 5 to each hand, 7 coal on each Charburner
    for c in range(N_CARDS):
        g[F_DECK + c] = c
        g[F_LOC + c] = L_DECK
    g[F_DECK_N] = N_CARDS
    _shuffle_deck(g)
    for p in range(num_players):
        for _ in range(5):
            c = draw_card(g)
            g[F_LOC + c] = L_HAND + p
        for _ in range(7):
            c = draw_card(g)
            g[F_LOC + c] = L_GOODS + p * MAX_SLOTS
        g[F_GOODS + p * MAX_SLOTS] = 7
    # R2.4: a random first active player
    g[F_FIRST] = rand_below(g, num_players)
    g[F_PH] = PH_ROUND_START
    g[F_CUR] = -1
    advance(g, C, AS)
    if auto:
        apply_forced(g, C, AS)


# ===================================================================== the automatic flow


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _snapshot_public(g):
    for i in range(MAX_PLAYERS * MAX_SLOTS):
        g[F_SNAP_GOODS + i] = g[F_GOODS + i]
        g[F_SNAP_STAFF + i] = g[F_STAFF + i]
        g[F_SNAP_ASLOT + i] = g[F_ASLOT + i]
    for p in range(MAX_PLAYERS):
        g[F_SNAP_HAND + p] = hand_count(g, p)
        g[F_SNAP_ASIDE + p] = 1 if g[F_ASIDE + p] >= 0 else 0


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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
        s = g[F_PROD_SLOT]
        if g[F_OWE_GOODS] > 0:
            c = _draw_or_interrupt(g)
            if c == -1:
                return False
            if c == -2:
                g[F_OWE_GOODS] = 0
                return False
            g[F_LOC + c] = L_GOODS + p * MAX_SLOTS + s  # R7.3
            g[F_GOODS + p * MAX_SLOTS + s] += 1
            g[F_OWE_GOODS] -= 1
            g[F_GOODS_MADE] += 1
            return False
        hres = np.zeros(N_RES, np.int32)
        hand_res_counts(g, C, p, hres)
        if g[F_GOODS_MADE] > 0 and _chain_possible(g, C, p, s, hres):
            g[F_CHAIN_SLOT] = s  # R7.7
            g[F_CHAIN_RUNS] = 0
            g[F_CHAIN_SEL] = 0
            g[F_SUB] = SUB_CHAIN
        else:
            g[F_SUB] = SUB_PROD
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


# ===================================================================== legal actions


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _legal_produce(g, C, AS, p, out):
    """Mark ``p``'s legal actions: which building produces next, final-round chains, done (R7.6, R8.2)."""
    base = p * MAX_SLOTS
    nb = g[F_NB + p]
    n = 0
    hres = np.zeros(N_RES, np.int32)  # allocated only where used: the batch step calls this per decision
    miss = np.zeros(N_RES + 1, np.int32)
    hand_res_counts(g, C, p, hres)
    mandatory = False
    for s in range(nb):
        st = g[F_STAFF + base + s]
        if st != STAFF_NONE and g[F_PRODUCED + base + s] == 0:
            _missing(g, C, p, s, miss)
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


@njit(cache=True)
def _legal_spend(g, C, AS, p, out):
    """Mark ``p``'s legal actions: hand cards that supply a missing resource (R7.1, R7.2, R7.4)."""
    n = 0
    code = L_HAND + p
    anyres = g[F_MISS_ANY] > 0
    variant = (g[F_VARIANTS] & V_TWO_FOR_ONE) != 0 and not anyres
    if variant:
        hres = np.zeros(N_RES, np.int32)
        hand_res_counts(g, C, p, hres)
        miss = np.zeros(N_RES + 1, np.int32)
        for r in range(N_RES + 1):
            miss[r] = g[F_MISS + r]
        ok = np.zeros(N_RES, np.bool_)  # R10.2: may a card of resource r be a stand-in?
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


@njit(cache=True)
def _legal_chain(g, C, AS, p, out):
    """Mark ``p``'s legal actions: run the chain once or stop (R7.7, R7.8)."""
    base = p * MAX_SLOTS
    n = 0
    s = g[F_CHAIN_SLOT]
    b = g[F_BLD + base + s]
    hres = np.zeros(N_RES, np.int32)
    hand_res_counts(g, C, p, hres)
    if _chain_possible(g, C, p, s, hres):
        hr = C[b, B_CH_HAND]
        if hr >= 0:
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _legal_refill(g, C, AS, p, out):
    """Mark ``p``'s legal actions: hand cards to discard into the new deck (R3.1)."""
    n = 0
    code = L_HAND + p
    for c in range(N_CARDS):
        if g[F_LOC + c] == code:
            out[A_REFILL + c] = 1
            n += 1
    return n


@njit(cache=True)
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


# ===================================================================== applying actions


@njit(cache=True)
def apply_action(g, C, AS, a):
    """Apply action ``a`` of the current player (unchecked), then advance the game."""
    apply_decision(g, C, AS, a)
    advance(g, C, AS)


@njit(cache=True)
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


@njit(cache=True)
def _apply_phase1(g, C, AS, p, a):
    """Record ``p``'s hidden phase-I choice: keep, discard, or discard but one card (R4.1, R10.1)."""
    if a >= A_KEEP_ONE:  # R10.1: discard the hand but card a - A_KEEP_ONE (hidden until all chose)
        g[F_P1 + p] = 2 + a - A_KEEP_ONE
    else:
        g[F_P1 + p] = 1 if a == A_DISCARD_HAND else 0  # hidden until all chose (R4.1)
    g[F_TURN] += 1


@njit(cache=True)
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


@njit(cache=True)
def _apply_worker(g, C, AS, p, a):
    """Place ``p``'s worker on a slot, efficient or sloppy (R5.4)."""
    s = (a - A_WORKER) // 2
    g[F_STAFF + p * MAX_SLOTS + s] = STAFF_SLOPPY if (a - A_WORKER) % 2 == 1 else STAFF_EFFICIENT
    g[F_SUB] = SUB_ASIDE


@njit(cache=True)
def _apply_aside(g, C, AS, p, a):
    """Set a hand card aside, or none, ending ``p``'s phase-II turn (R5.5)."""
    if a < A_ASIDE_NONE:
        c = a - A_ASIDE
        g[F_LOC + c] = L_ASIDE + p
        g[F_ASIDE + p] = c
    g[F_TURN] += 1
    g[F_SUB] = SUB_MOVE
    g[F_MOVED] = 0


@njit(cache=True)
def _produce_at(g, C, p, s):
    """Start production at ``p``'s slot ``s``: what is missing, what may be skipped, goods owed (R7.6, R7.2)."""
    base = p * MAX_SLOTS
    g[F_PRODUCED + base + s] = 1
    g[F_PROD_SLOT] = s
    miss = np.zeros(N_RES + 1, np.int32)
    total = _missing(g, C, p, s, miss)
    for r in range(N_RES + 1):
        g[F_MISS + r] = miss[r]
    st = g[F_STAFF + base + s]
    g[F_ALLOW] = 1 if st == STAFF_SLOPPY else 0
    g[F_OWE_GOODS] = 2 if st == STAFF_EFFICIENT else 1  # R7.2
    g[F_GOODS_MADE] = 0
    g[F_HALF] = 0
    g[F_SUB] = SUB_DRAW if total <= g[F_ALLOW] else SUB_SPEND


@njit(cache=True)
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


@njit(cache=True)
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
        hres = np.zeros(N_RES, np.int32)
        hand_res_counts(g, C, p, hres)
        miss = np.zeros(N_RES + 1, np.int32)
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


@njit(cache=True)
def _apply_chain(g, C, AS, p, a):
    """Run the open chain once, with a hand card or goods, or stop it (R7.7, R7.8)."""
    if a == A_CHAIN_STOP:
        g[F_SUB] = SUB_PROD
        return
    s = g[F_CHAIN_SLOT]
    _run_chain(g, C, p, s, a - A_CHAIN_HAND if a < A_CHAIN_GOODS else -1)
    hres = np.zeros(N_RES, np.int32)
    hand_res_counts(g, C, p, hres)
    if not _chain_possible(g, C, p, s, hres):
        g[F_SUB] = SUB_PROD


@njit(cache=True)
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


@njit(cache=True)
def _apply_pay(g, C, AS, p, a):
    """Pay one good from a slot towards the open payment (R7.10, R5.3, R7.12)."""
    _pay_from(g, C, p, a - A_PAY)


@njit(cache=True)
def _apply_hire(g, C, AS, p, a):
    """Hire the assistant at a display position (payment follows) or nobody (R7.12)."""
    if a == A_NO_HIRE:
        g[F_SUB] = SUB_END
        return
    k = a - A_HIRE
    g[F_HIRE_K] = k
    _start_payment(g, C, p, AS[g[F_A_CARD + k], g[F_A_SIDE + k], A_COST], PAY_HIRE)


@njit(cache=True)
def _apply_place(g, C, AS, p, a):
    """Put the just-hired assistant on a free production slot (R7.12)."""
    s = a - A_PLACE
    g[F_STAFF + p * MAX_SLOTS + s] = STAFF_ASSISTANT
    g[F_ASLOT + p * MAX_SLOTS + s] = g[F_HIRE_K]
    g[F_SUB] = SUB_END


@njit(cache=True)
def _apply_refill(g, C, AS, p, a):
    """Discard a hand card, face down, for the new deck (R3.1)."""
    c = a - A_REFILL
    g[F_LOC + c] = L_LIMBO
    g[F_REF_OWE + p] -= 1
    if g[F_REF_OWE + p] == 0:
        g[F_REF_TURN] += 1


@njit(cache=True)
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


@njit(cache=True)
def apply_forced(g, C, AS):
    """Apply decisions that have exactly one legal action (DESIGN: forced moves)."""
    apply_forced_mask(g, C, AS, np.zeros(N_ACTIONS, np.int8))


@njit(cache=True)
def apply_forced_mask(g, C, AS, mask):
    """:func:`apply_forced`, leaving the legal mask of the decision it stops at in ``mask``.

    Returns that mask's count (0 at the end), so a caller that needs the next mask anyway
    (the batch step) computes it once per decision instead of twice.
    """
    while True:
        n = legal_mask(g, C, AS, mask)
        if n != 1:
            return n
        for a in range(N_ACTIONS):
            if mask[a] == 1:
                apply_action(g, C, AS, a)
                break


@njit(cache=True)
def step_checked(g, C, AS, a):
    """Apply action ``a`` if legal; return 0, or an ``ERR_*`` code with ``g`` unchanged."""
    if g[F_DEC] == D_OVER:
        return ERR_OVER
    if a < 0 or a >= N_ACTIONS:
        return ERR_RANGE
    mask = np.zeros(N_ACTIONS, np.int8)
    legal_mask(g, C, AS, mask)
    if mask[a] == 0:
        return ERR_ILLEGAL
    apply_action(g, C, AS, a)
    if g[F_AUTO] == 1:
        apply_forced(g, C, AS)
    return 0


# ===================================================================== scoring


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


# ===================================================================== observation


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


# ===================================================================== invariants


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


@njit(cache=True)
def _check_deck(g, in_deck):
    """Codes 2, 3: the deck's size, and its cards are distinct and located in the deck."""
    n = g[F_DECK_N]
    if n < 0 or n > N_CARDS:
        return 2
    for i in range(n):
        c = g[F_DECK + i]
        if c < 0 or c >= N_CARDS or in_deck[c] == 1 or g[F_LOC + c] != L_DECK:
            return 3
        in_deck[c] = 1
    return 0


@njit(cache=True)
def _check_places(g, C, in_deck, goods, mkt, suns, built):
    """Codes 1, 3, 7, 9: every card's place is valid; counts goods, market cards, suns and buildings."""
    np_ = g[F_NP]
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        if lc == L_DECK:
            if in_deck[c] == 0:
                return 3
        elif lc == L_ROW1 or lc == L_ROW2:
            mkt[(lc - L_ROW1) * N_RES + C[c, B_RES]] += 1
            suns[lc - L_ROW1] += C[c, B_SUN]
        elif lc >= L_GOODS:
            i = lc - L_GOODS
            if i >= MAX_PLAYERS * MAX_SLOTS or i // MAX_SLOTS >= np_:
                return 1
            goods[i] += 1
        elif lc >= L_BUILT:
            built[c] = 1
            if lc - L_BUILT >= np_:
                return 1
        elif lc >= L_ASIDE:
            if g[F_ASIDE + lc - L_ASIDE] != c:
                return 7
        elif lc >= L_HAND:
            if lc - L_HAND >= np_:
                return 1
        elif lc == L_ESCROW:
            src = g[F_PAID_FROM + c] - 1
            if g[F_PH] != PH_P2 or src < 0 or src // MAX_SLOTS >= np_ or src % MAX_SLOTS >= g[F_NB + src // MAX_SLOTS]:
                return 9
        elif lc == L_LIMBO:
            if g[F_PH] != PH_REFILL:
                return 9
        elif lc < 0:
            return 1
        if lc != L_ESCROW and g[F_PAID_FROM + c] != 0:
            return 9
    return 0


@njit(cache=True)
def _check_counts(g, goods, mkt, suns):
    """Codes 11, 2, 4, 5: the stored half-suns, goods and market counts match the cards."""
    if suns[0] != g[F_SUNS] or suns[1] != g[F_SUNS + 1]:
        return 11
    for i in range(MAX_PLAYERS * MAX_SLOTS):
        if g[F_GOODS + i] < 0:
            return 2
        if goods[i] != g[F_GOODS + i]:
            return 4
    for i in range(2 * N_RES):
        if mkt[i] != g[F_MKT + i]:
            return 5
    return 0


@njit(cache=True)
def _check_slots(g, C, built):
    """Codes 2, 7, 6, 8: building counts, set-aside cards, built cards and staffing per slot."""
    for p in range(g[F_NP]):
        if g[F_NB + p] < 1 or g[F_NB + p] > MAX_SLOTS:
            return 2
        if g[F_ASIDE + p] >= 0 and g[F_LOC + g[F_ASIDE + p]] != L_ASIDE + p:
            return 7
        for s in range(MAX_SLOTS):
            b = g[F_BLD + p * MAX_SLOTS + s]
            if s < g[F_NB + p]:
                if b < N_CARDS:
                    if b < 0 or g[F_LOC + b] != L_BUILT + p:
                        return 6
                    built[b] -= 1
                st = g[F_STAFF + p * MAX_SLOTS + s]
                if st != STAFF_NONE and not is_production(C, b):
                    return 8
                if (st == STAFF_ASSISTANT) != (g[F_ASLOT + p * MAX_SLOTS + s] >= 0):
                    return 8
            elif b != -1 or g[F_GOODS + p * MAX_SLOTS + s] != 0:
                return 6
    for c in range(N_CARDS):
        if built[c] != 0:
            return 6
    for p in range(g[F_NP]):
        if g[F_OWE + p] < 0 or g[F_REF_OWE + p] < 0:
            return 2
    return 0


@njit(cache=True)
def _check_persons(g):
    """Code 10: at most one worker each; every owned assistant on exactly one of its owner's buildings."""
    placed = np.zeros(N_ASSIST, np.int32)
    for p in range(g[F_NP]):
        workers = 0
        for s in range(g[F_NB + p]):
            st = g[F_STAFF + p * MAX_SLOTS + s]
            if st == STAFF_EFFICIENT or st == STAFF_SLOPPY:
                workers += 1
            elif st == STAFF_ASSISTANT:
                k = g[F_ASLOT + p * MAX_SLOTS + s]
                if k >= N_ASSIST or g[F_A_OWNER + k] != p or placed[k] == 1:
                    return 10
                placed[k] = 1
        if workers > 1:
            return 10
    for k in range(N_ASSIST):
        if g[F_A_OWNER + k] >= 0 and placed[k] == 0:
            if not (g[F_PH] == PH_P4 and g[F_SUB] == SUB_PLACE and g[F_HIRE_K] == k):
                return 10  # only a just-hired assistant waits for its place (R7.12)
    return 0


@njit(cache=True)
def _check_shown(g):
    """Code 12: a card shown in a chain (R3.2, R7.7) stays shown until reshuffled."""
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        if is_shown(g, c) == 1 and not (lc >= L_GOODS or lc == L_ESCROW or lc == L_DISCARD):
            return 12
    return 0


@njit(cache=True)
def check_invariants(g, C):
    """Return 0 if the state is consistent, else a positive code naming the first failure.

    1 card count per place mismatch, 2 negative count, 3 deck order mismatch,
    4 goods count mismatch, 5 market count mismatch, 6 building location mismatch,
    7 set-aside mismatch, 8 staffing mismatch, 9 escrow card outside phase II or without the
    building it was paid from (or such a building for a card not in the escrow), refill
    card outside the refill, 10 persons: more than one worker, or an owned assistant not
    on exactly one of its owner's buildings (R7.14), 11 half-suns of a market row mismatch,
    12 a card shown in a chain (R3.2, R7.7) outside the goods, escrow or discard pile.
    The checks run in this order: deck, places, counts, slots, persons, shown cards.
    """
    in_deck = np.zeros(N_CARDS, np.int32)
    code = _check_deck(g, in_deck)
    if code != 0:
        return code
    goods = np.zeros(MAX_PLAYERS * MAX_SLOTS, np.int32)
    mkt = np.zeros(2 * N_RES, np.int32)
    suns = np.zeros(2, np.int32)
    built = np.zeros(N_CARDS, np.int32)
    code = _check_places(g, C, in_deck, goods, mkt, suns, built)
    if code != 0:
        return code
    code = _check_counts(g, goods, mkt, suns)
    if code != 0:
        return code
    code = _check_slots(g, C, built)
    if code != 0:
        return code
    code = _check_persons(g)
    if code != 0:
        return code
    return _check_shown(g)


_jit.register(globals(), _layout, _cards)
