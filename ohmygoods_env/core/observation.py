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
from ..framework.native import local_zeros
from ..layout import (
    A_WAIT,
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
    F_SHOWN,
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
    OBS_DIM,
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
    STAFF_ASSISTANT,
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
    hand_res = local_zeros(N_RES, np.int64)  # on the stack: a kernel without reference counting may observe
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
    hand = g[F_SNAP_HAND + q] if snap else hand_count(g, q)
    _player_totals(g, AS, q, rel, snap, hand, money, vp, out)


@njit(cache=True, inline="always")
def _player_totals(g, AS, q, rel, snap, hand, money, vp, out):
    """Seat ``q``'s totals at relative seat ``rel``, given its hand size and its buildings' coins and points."""
    o = O_PLAYERS + rel * PLAYER_FEATURES
    nas = 0
    for k in range(N_ASSIST):
        if g[F_A_OWNER + k] == q:
            nas += 1
            vp += AS[g[F_A_CARD + k], g[F_A_SIDE + k], A_VP]
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
    """Write player ``me``'s observation (float32[OBS_DIM]) into ``out``: the reference.

    Seats are rotated so that ``me`` is seat 0. Never shows an opponent's hand, set-aside
    card, phase-I choice, undisclosed phase-II choices (opponents are shown as they were
    at the start of phase II until the reveal), goods identities or the deck order.

    The engine's paths write the same bytes faster with :func:`observe_seat` (one seat) and
    :func:`observe_seats` (every seat), from the card set's tables; tests compare them with this
    function byte for byte.
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
def observe_with_mask(g, C, AS, tables, me, obs, mask):
    """``observe`` for seat ``me`` (written by :func:`observe_seat`, ``tables = seat_tables(C)``) and, in the
    same call, its legal mask (all 0 unless ``me`` acts now).

    One dispatch instead of two for the single-game envs, which return both every step.
    """
    observe_seat(g, C, AS, tables, me, obs)
    if g[F_CUR] == me:
        legal_mask(g, C, AS, mask)
    else:
        for i in range(mask.shape[0]):
            mask[i] = 0


# ------------------------------------------------------------------ every seat at once

# observe_seats writes the card blocks from O_PILES to O_MARKET whole and zeroes the rest of each row
if (O_HAND, O_HANDRES, O_ASIDE, O_DISCARD, O_SHOWN, O_MARKET) != (
    O_PILES + 2,
    O_HAND + N_CARDS,
    O_HANDRES + N_RES,
    O_ASIDE + N_CARDS,
    O_DISCARD + N_CARDS,
    O_SHOWN + N_CARDS,
):
    raise ImportError(
        "observe_seats expects the piles, hand, hand per resource, set-aside, discard and shown blocks in one run"
    )
# _own_cards counts a hand's resources in 8-bit fields of one int64
if N_RES > 8 or N_CARDS > 255:
    raise ImportError("_own_cards counts at most 255 cards of each of at most 8 resources")
# seat_tables pads a building's list of fixed slot features with SF_GOODS, which every slot then writes
if SF_GOODS in (SF_PRESENT, SF_VALUE, SF_PRODUCED, SF_VP) or not 0 <= SF_GOODS < SLOT_FEATURES:
    raise ImportError("seat_tables pads with SF_GOODS, a feature of its own")


@njit(cache=True)
def seat_tables(C):
    """What :func:`observe_seats` reads per building and card: ``(feat, val, res)``.

    Building ``b``'s slot as :func:`_observe_slot` writes it with no goods, staff or production
    (the features that never change) is ``val[b, j]`` at ``feat[b, j]`` and zero elsewhere
    (padded with 0.0 at ``SF_GOODS``, which every slot writes after); ``res[c]`` is card ``c``'s resource.
    """
    dense = np.zeros((C.shape[0], SLOT_FEATURES), np.float32)
    width = 1
    for b in range(C.shape[0]):
        _observe_slot(C, dense[b], 0, b, 0, STAFF_NONE, 0)
        width = max(width, np.sum(_set_bits(dense[b])))
    feat = np.full((C.shape[0], width), SF_GOODS, np.int64)
    val = np.zeros((C.shape[0], width), np.float32)
    for b in range(C.shape[0]):
        j = 0
        for i in np.flatnonzero(_set_bits(dense[b])):
            feat[b, j], val[b, j] = i, dense[b, i]
            j += 1
    res = np.empty(N_CARDS, np.int64)
    for c in range(N_CARDS):
        res[c] = C[c, B_RES]
    return feat, val, res


@njit(cache=True)
def _set_bits(x):
    """bool per entry of float32 ``x``: not +0.0 (-0.0 counts as set: the bytes differ)."""
    return x.view(np.uint32) != 0


#: :func:`_observe_pending` and :func:`_observe_assistants` compiled into :func:`observe_seats` (no call);
#: under ``NUMBA_DISABLE_JIT`` they are the plain functions (no ``py_func``)
_pending_inline = njit(inline="always")(getattr(_observe_pending, "py_func", _observe_pending))
_assistants_inline = njit(inline="always")(getattr(_observe_assistants, "py_func", _observe_assistants))


@njit(cache=True, inline="always")
def _public_cards(g, row):
    """The discard pile and the shown goods of ``row``, every entry written; returns the discard size.

    The shown goods are read from the set bits of ``F_SHOWN`` (a card or two in a game) rather
    than by testing every card's bit (:func:`queries.is_shown`, 16 cards to a word)."""
    ndisc = 0
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        ndisc += lc == L_DISCARD
        row[O_DISCARD + c] = 1.0 if lc == L_DISCARD else 0.0
        row[O_SHOWN + c] = 0.0
    for w in range((N_CARDS + 15) // 16):
        bits = g[F_SHOWN + w] & 0xFFFF
        while bits:
            low = bits & -bits
            bits ^= low
            j = 0
            while (1 << j) != low:
                j += 1
            c = 16 * w + j
            if c < N_CARDS and (g[F_LOC + c] >= L_GOODS or g[F_LOC + c] == L_ESCROW):
                row[O_SHOWN + c] = 1.0  # escrow: paid in phase II, a good until the reveal (R5.2)
    return ndisc


@njit(cache=True, inline="always")
def _own_cards(g, res, row, me):
    """``me``'s hand (by card and per resource) and set-aside card, every entry written; returns the hand size."""
    hand, aside = L_HAND + me, L_ASIDE + me
    counts = 0  # the hand's cards per resource, 8 bits each (at most N_CARDS < 256 per resource)
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        counts += np.int64(lc == hand) << (8 * res[c])
        row[O_HAND + c] = 1.0 if lc == hand else 0.0
        row[O_ASIDE + c] = 1.0 if lc == aside else 0.0
    n = 0
    for r in range(N_RES):
        k = (counts >> (8 * r)) & 255
        n += k
        row[O_HANDRES + r] = k / SC_HANDRES
    return n


@njit(cache=True, inline="always")
def _seat_player(g, C, AS, feat, val, q, rel, snap, hand, out):
    """:func:`_observe_player` with each slot's fixed features from :func:`seat_tables`; ``hand``:
    ``q``'s hand size (read unless ``snap``)."""
    qb = q * MAX_SLOTS
    goods = F_SNAP_GOODS if snap else F_GOODS
    staff = F_SNAP_STAFF if snap else F_STAFF
    money = 0
    vp = 0
    for s in range(g[F_NB + q]):
        b = g[F_BLD + qb + s]
        k = g[goods + qb + s]
        st = g[staff + qb + s]
        money += k * C[b, B_VALUE]
        vp += C[b, B_VP]
        so = O_SLOTS + (rel * MAX_SLOTS + s) * SLOT_FEATURES
        for j in range(feat.shape[1]):
            out[so + feat[b, j]] = val[b, j]
        out[so + SF_GOODS] = k / SC_SF_GOODS
        out[so + SF_VALUE] = k * C[b, B_VALUE] / SC_SF_VALUE
        for j in range(STAFF_ASSISTANT):  # the one-hot of staff 1..3 (_observe_slot), without a branch
            out[so + SF_STAFF + j] = 1.0 if st == j + 1 else 0.0
        out[so + SF_PRODUCED] = g[F_PRODUCED + qb + s]
    _player_totals(g, AS, q, rel, snap, g[F_SNAP_HAND + q] if snap else hand, money, vp, out)


@njit(cache=True, inline="always")
def _copy_table(g, C, obs, me):
    """Row ``me``'s table (:func:`_observe_table`): row 0's, with what depends on the seat rewritten
    (the pending decision shown to the player to act only, "I am the active player", the active
    player's relative seat, the Market-Office bonus)."""
    np_ = obs.shape[0]
    row, row0 = obs[me], obs[0]
    for i in range(O_PILES):
        row[i] = row0[i]
    for i in range(O_PEND_SLOT - O_MARKET):
        row[O_MARKET + i] = row0[O_MARKET + i]
    dec = g[F_DEC]
    row[O_DEC + dec] = 1.0 if g[F_CUR] == me or dec == D_OVER else 0.0
    row[O_FLAGS + 3] = 1.0 if g[F_FIRST] == me else 0.0
    row[O_FIRST + g[F_FIRST] % np_] = 0.0
    row[O_FIRST + (g[F_FIRST] - me) % np_] = 1.0
    for r in range(N_RES):
        row[O_OFFICE + r] = 0.0
    for s in range(g[F_NB + me]):  # office_bonus for every resource in one pass
        r = C[g[F_BLD + me * MAX_SLOTS + s], B_OFFICE]
        if r >= 0:
            row[O_OFFICE + r] += 1.0
    for r in range(N_RES):
        row[O_OFFICE + r] = int(row[O_OFFICE + r]) / SC_OFFICE


@njit(cache=True, inline="always")
def _copy_assistants(g, obs, me):
    """Row ``me``'s assistants: row 0's, with each owner turned relative to ``me``."""
    np_ = obs.shape[0]
    row, row0 = obs[me], obs[0]
    for i in range(N_ASSIST * ASSIST_FEATURES):
        row[O_ASSIST + i] = row0[O_ASSIST + i]
    for k in range(N_ASSIST):
        ow = g[F_A_OWNER + k]
        if ow != -1 and ow != -2:
            o = O_ASSIST + k * ASSIST_FEATURES + AF_OWNER
            row[o + ow % np_] = 0.0
            row[o + (ow - me) % np_] = 1.0


@njit(cache=True, inline="always")
def _seat_masks(g, legal_row, masks):
    """The current player's row of ``masks`` is ``legal_row``, every other row allows ``A_WAIT`` only.

    A current player of -1 (a finished game) is the last seat, as numpy indexing reads it.
    """
    np_ = masks.shape[0]
    cur = g[F_CUR]
    if cur < 0:
        cur += np_
    for p in range(np_):
        m = masks[p]
        if p == cur:
            for a in range(m.shape[0]):
                m[a] = legal_row[a]
        else:
            for a in range(m.shape[0]):
                m[a] = 0
            m[A_WAIT] = 1


@njit(cache=True, _nrt=False)
def observe_seat(g, C, AS, tables, me, row):
    """The bytes :func:`observe` writes for seat ``me``, built like one row of :func:`observe_seats`.

    ``tables = seat_tables(C)``. Only the row's constant runs are zeroed, the card blocks are written
    whole without a branch per card, the slots from the tables: every per-seat observation of the
    engine (``BatchGames.observe``, ``Game.observe``, the single-game envs), 2-3x faster than
    :func:`observe`, which stays the reference (tests compare the two byte for byte).
    """
    feat, val, res = tables
    for i in range(O_PILES):
        row[i] = 0.0
    for i in range(OBS_DIM - O_MARKET):  # range(O_MARKET, OBS_DIM) compiles to a loop 8x slower
        row[O_MARKET + i] = 0.0
    ndisc = _public_cards(g, row)
    row[O_PILES] = g[F_DECK_N] / SC_PILES
    row[O_PILES + 1] = ndisc / SC_PILES
    hand = _own_cards(g, res, row, me)
    np_ = g[F_NP]
    hidden_phase2 = g[F_PH] == PH_P2
    for rel in range(np_):
        q = (me + rel) % np_
        snap = hidden_phase2 and rel > 0
        _seat_player(g, C, AS, feat, val, q, rel, snap, hand if rel == 0 or snap else hand_count(g, q), row)
    _pending_inline(g, me, row)
    _observe_table(g, C, me, row)
    _assistants_inline(g, AS, me, row)


@njit(cache=True, _nrt=False)
def observe_seats(g, C, AS, tables, obs, legal_row, masks):
    """Every seat's observation and mask in one call: ``obs[p]`` holds the bytes ``observe(g, C, AS, p)`` writes.

    ``obs`` is float32[NP, OBS_DIM], ``masks`` int8[NP, N_ACTIONS]: the current player's row is
    ``legal_row`` (the game's legal mask), every other row the wait mask (only ``A_WAIT``);
    ``tables = seat_tables(C)``. The discard pile, shown goods, table and assistants are worked out
    once and copied (what depends on the seat rewritten), the cards are scanned without a branch
    per card, the slots written from the tables.
    """
    feat, val, res = tables
    np_ = obs.shape[0]
    for p in range(np_):
        row = obs[p]
        for i in range(O_PILES):
            row[i] = 0.0
        for i in range(OBS_DIM - O_MARKET):  # range(O_MARKET, OBS_DIM) compiles to a loop 8x slower
            row[O_MARKET + i] = 0.0
    row0 = obs[0]
    ndisc = _public_cards(g, row0)
    hidden_phase2 = g[F_PH] == PH_P2
    for q in range(np_):
        row = obs[q]
        for i in range(O_MARKET - O_DISCARD):
            row[O_DISCARD + i] = row0[O_DISCARD + i]
        row[O_PILES] = g[F_DECK_N] / SC_PILES
        row[O_PILES + 1] = ndisc / SC_PILES
        hand = _own_cards(g, res, row, q)
        for rel in range(np_):  # q as seen by each seat: at relative seat rel of row q - rel
            _seat_player(g, C, AS, feat, val, q, rel, hidden_phase2 and rel > 0, hand, obs[(q - rel) % np_])
    if 0 <= g[F_CUR] < np_:
        _pending_inline(g, g[F_CUR], obs[g[F_CUR]])
    _observe_table(g, C, 0, row0)
    _assistants_inline(g, AS, 0, row0)
    for p in range(1, np_):
        _copy_table(g, C, obs, p)
        _copy_assistants(g, obs, p)
    _seat_masks(g, legal_row, masks)


_jit.register(globals(), _layout, _cards, queries, legal)
