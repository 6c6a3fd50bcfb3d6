"""Information states: what one player may know, and worlds sampled consistently with it.

Search agents need more than the observation vector: they need a full state to simulate
from. This module provides it without leaking anything:

* :func:`redact` turns a true state row into player ``me``'s **information state**: a state
  row of the same layout in which everything hidden from ``me`` is replaced by a canonical
  placeholder. Hidden from ``me`` are: opponents' hand cards and set-aside cards
  (identities; counts are public), the identities of all goods (face down, R1.3), the deck
  order (R3.2), cards paid into the phase-II escrow or discarded for the empty-deck rule
  (R3.1), opponents' undisclosed phase-I and phase-II choices (R5.2), including how far an
  opponent acting in phase II has got and how much it paid (an opponent's goods, worker and
  assistants are as ``me`` saw them at the start of phase II: goods it paid into the escrow
  go back to the buildings they left, so a shown good is where ``me`` last saw it),
  the decision counter (it counts hidden choices) and the RNG state (all future chance).
  Two true states that differ only in hidden information give byte-identical information
  states (tested).
* :func:`determinize` samples a full state from an information state: hidden cards are dealt
  at random into the hidden places, the RNG word is fresh, and opponents who already made
  their hidden phase-II choices in this round get random legal choices. The sample passes
  ``check_invariants`` and gives ``me`` exactly the same observation as the true state.

For leak tests of one's own agents or features: :func:`hidden_cards` lists the cards whose
place is hidden from a seat (the rule :func:`redact` applies), and :func:`swap_cards`
exchanges the places of two cards in a state row, so a twin state that differs only in
hidden information is two lines away (swap hidden cards, change ``F_RNG``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import cards as _cards
from . import core
from . import layout as _layout
from .core import hand_count, is_production, is_shown, rand_at
from .framework import jit as _jit
from .layout import (
    D_MOVE,
    F_ASIDE,
    F_ASLOT,
    F_BLD,
    F_CUR,
    F_DEC,
    F_DECK,
    F_DECK_N,
    F_FIRST,
    F_GOODS,
    F_LOC,
    F_MOVED,
    F_NB,
    F_NP,
    F_P1,
    F_PAID_FROM,
    F_PAY_DUE,
    F_PAY_FOR,
    F_PH,
    F_RNG,
    F_SNAP_ASIDE,
    F_SNAP_ASLOT,
    F_SNAP_GOODS,
    F_SNAP_STAFF,
    F_STAFF,
    F_STEPS,
    F_SUB,
    F_TURN,
    L_ASIDE,
    L_DECK,
    L_ESCROW,
    L_GOODS,
    L_HAND,
    L_LIMBO,
    MAX_PLAYERS,
    MAX_SLOTS,
    N_CARDS,
    PH_P1_ASK,
    PH_P2,
    STAFF_EFFICIENT,
    STAFF_NONE,
    STAFF_SLOPPY,
    SUB_MOVE,
    SUB_PAY,
)


@njit(cache=True)
def _is_hidden(g, c, me):
    """Is card ``c`` hidden from seat ``me``? Goods (on a building or paid into the phase-II escrow)
    are, unless the card was shown when it was fed into a chain (R3.2, R7.7)."""
    loc = g[F_LOC + c]
    if loc >= L_GOODS or loc == L_ESCROW:  # escrow: goods paid in phase II, still goods until the reveal
        return is_shown(g, c) == 0
    if loc == L_DECK or loc == L_LIMBO:
        return True
    if L_HAND <= loc < L_HAND + MAX_PLAYERS:
        return loc - L_HAND != me
    if L_ASIDE <= loc < L_ASIDE + MAX_PLAYERS:
        return loc - L_ASIDE != me
    return False


@njit(cache=True)
def _acted_in_phase2(g, q):
    """Has seat q already made its (hidden) phase-II choices this round?"""
    np_ = g[F_NP]
    return g[F_PH] == PH_P2 and (q - g[F_FIRST]) % np_ < g[F_TURN]


@njit(cache=True)
def _revert_hidden_choices(g, me):
    """Undo opponents' undisclosed choices, leaving only what ``me`` can see."""
    np_ = g[F_NP]
    if g[F_PH] == PH_P1_ASK:
        for q in range(np_):
            if q != me:
                g[F_P1 + q] = 0
    if g[F_PH] != PH_P2:
        return
    if g[F_CUR] != me:
        g[F_MOVED] = 0  # which assistants the acting opponent moved
    # goods paid into the escrow for assistant moves go back to the buildings they left, where
    # ``me`` last saw them (a shown card keeps its public identity there, R3.2, R7.7)
    for c in range(N_CARDS):
        if g[F_LOC + c] == L_ESCROW:
            src = g[F_PAID_FROM + c] - 1
            if src // MAX_SLOTS != me:
                g[F_LOC + c] = L_GOODS + src
                g[F_PAID_FROM + c] = 0
    for q in range(np_):
        if q == me:
            continue
        base = q * MAX_SLOTS
        # goods counts, worker and assistants as ``me`` saw them at the start of phase II
        for s in range(g[F_NB + q]):
            g[F_GOODS + base + s] = g[F_SNAP_GOODS + base + s]
            g[F_STAFF + base + s] = g[F_SNAP_STAFF + base + s]
            g[F_ASLOT + base + s] = g[F_SNAP_ASLOT + base + s]
        # a set-aside card chosen this phase goes back to the hand
        if g[F_SNAP_ASIDE + q] == 0 and g[F_ASIDE + q] >= 0:
            g[F_LOC + g[F_ASIDE + q]] = L_HAND + q
            g[F_ASIDE + q] = -1


_DECK_PLACE = 1 << 20  # sorts after every (location << 8 | paid-from) place


@njit(cache=True)
def _deal_hidden(g, me, shuffle_word):
    """Give the hidden cards to the hidden places: sorted (redact) or shuffled (determinize).

    A place is a location code and, in the escrow, the building the card was paid from
    (``F_PAID_FROM``), so a dealt card takes over both.
    """
    ids = np.empty(N_CARDS, np.int64)
    keys = np.empty(N_CARDS, np.int64)
    n = 0
    m = 0  # hidden cards outside the deck: their places, sorted, come first
    for c in range(N_CARDS):
        lc = g[F_LOC + c]
        if _is_hidden(g, c, me):
            ids[n] = c
            n += 1
            if lc != L_DECK:
                keys[m] = lc << 8 | g[F_PAID_FROM + c]
                m += 1
    keys[:m].sort()
    keys[m:n] = _DECK_PLACE  # deck cards sort last, in deck-position order
    deck_n = g[F_DECK_N]
    if shuffle_word != 0:
        tmp = np.zeros(1, np.int32)
        tmp[0] = shuffle_word
        for i in range(n - 1, 0, -1):
            j = _rand_in(tmp, i + 1)
            t = ids[i]
            ids[i] = ids[j]
            ids[j] = t
    d = 0
    for i in range(n):
        c = ids[i]
        k = keys[i]
        if k == _DECK_PLACE:
            g[F_LOC + c] = L_DECK
            g[F_PAID_FROM + c] = 0
            g[F_DECK + d] = c
            d += 1
        else:
            g[F_LOC + c] = k >> 8
            g[F_PAID_FROM + c] = k & 255
            if L_ASIDE <= k >> 8 < L_ASIDE + MAX_PLAYERS:
                g[F_ASIDE + (k >> 8) - L_ASIDE] = c
    g[F_DECK_N] = deck_n


@njit(cache=True)
def _rand_in(word, n):
    """The games' xorshift32 (``core.rand_at``) on a one-element int32 RNG array."""
    return rand_at(word, 0, n)


@njit(cache=True)
def redact(g, me, out):
    """Write ``me``'s information state (see module docstring) into ``out``."""
    for i in range(g.shape[0]):
        out[i] = g[i]
    _revert_hidden_choices(out, me)
    _deal_hidden(out, me, 0)
    out[F_RNG] = 0
    out[F_RNG + 1] = 0
    # the decision counter counts opponents' hidden choices (assistant moves, payments)
    out[F_STEPS] = 0
    if out[F_PH] == PH_P2 and out[F_CUR] != me:
        # an opponent mid-turn in phase II: how far it got (moves, payment) is hidden (R5.2)
        out[F_SUB] = SUB_MOVE
        out[F_DEC] = D_MOVE
    if not (out[F_CUR] == me and out[F_SUB] == SUB_PAY):
        # the payment fields outlive a payment: an opponent's phase-II payment would show
        out[F_PAY_DUE] = 0
        out[F_PAY_FOR] = 0


@_jit.twin
def _redact_rows(state, rows, out):
    """Row ``j`` of ``out``: the information state of the acting seat of game ``rows[j]`` of a batch state."""
    for j in prange(rows.shape[0]):
        g = state[rows[j]]
        redact(g, g[F_CUR], out[j])


#: one thread or all of numba's, whichever has been faster per row (``framework.jit.Timed``)
_REDACT_ROWS = _jit.Timed(_redact_rows)


def redact_rows(state: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The information states (``int32[len(rows), STATE_LEN]``) of the acting seat of each game ``rows`` names
    in a batch state (rows as numpy indexes them: negative ones count from the end); one compiled call."""
    state = np.ascontiguousarray(state, np.int32)
    idx = np.ascontiguousarray(np.arange(state.shape[0])[rows], np.int64)  # numpy's checks and meaning of rows
    out = np.empty((idx.shape[0], state.shape[1]), np.int32)
    _REDACT_ROWS(idx.shape[0], state, idx, out)
    return out


@njit(cache=True)
def determinize(info, C, me, rng_word, out):
    """Sample a full state consistent with information state ``info`` (seat ``me``).

    ``rng_word`` is a non-zero 32-bit seed; the sampled game gets its own fresh RNG word.
    """
    for i in range(info.shape[0]):
        out[i] = info[i]
    word = np.zeros(1, np.int32)
    word[0] = rng_word if rng_word != 0 else 0x2545F491
    _deal_hidden(out, me, word[0])
    _rand_in(word, 2)
    w = word[0]
    out[F_RNG] = w if w != 0 else 1  # a fresh 64-bit game RNG state, never 0
    _rand_in(word, 2)
    out[F_RNG + 1] = word[0]
    # opponents who already chose in this phase II get random legal choices (R5.4, R5.5)
    np_ = out[F_NP]
    for q in range(np_):
        if q == me or not _acted_in_phase2(out, q):
            continue
        base = q * MAX_SLOTS
        free = 0
        for s in range(out[F_NB + q]):
            if is_production(C, out[F_BLD + base + s]) and out[F_STAFF + base + s] == STAFF_NONE:
                free += 1
        if free > 0:
            pick = _rand_in(word, free)
            for s in range(out[F_NB + q]):
                if is_production(C, out[F_BLD + base + s]) and out[F_STAFF + base + s] == STAFF_NONE:
                    if pick == 0:
                        out[F_STAFF + base + s] = STAFF_SLOPPY if _rand_in(word, 2) == 1 else STAFF_EFFICIENT
                        break
                    pick -= 1
        h = hand_count(out, q)
        if h > 0 and _rand_in(word, 2) == 1:
            pick = _rand_in(word, h)
            for c in range(N_CARDS):
                if out[F_LOC + c] == L_HAND + q:
                    if pick == 0:
                        out[F_LOC + c] = L_ASIDE + q
                        out[F_ASIDE + q] = c
                        break
                    pick -= 1


# ===================================================================== leak-test helpers


def hidden_cards(state: np.ndarray, me: int) -> list[int]:
    """Ids of the deck cards whose place is hidden from seat ``me`` in ``state`` (a true state row).

    Deck, escrow and empty-deck discards, goods (face down) except cards shown when fed into a
    chain (R3.2, R7.7), opponents' hands and set-aside cards — the places :func:`redact` hides.
    """
    g = np.ascontiguousarray(state, np.int32)
    return [c for c in range(N_CARDS) if _is_hidden(g, c, int(me))]


def swap_cards(state: np.ndarray, a: int, b: int) -> None:
    """Exchange the places of cards ``a`` and ``b`` in ``state`` in place (deck positions,
    set-aside pointers and the escrow's paid-from buildings follow), keeping the row
    consistent (``check_invariants`` holds).
    """
    for c in (a, b):
        if not 0 <= int(c) < N_CARDS:
            raise ValueError(f"card id {c} is out of range: expected 0..{N_CARDS - 1}")
    s = state
    la, lb = int(s[F_LOC + a]), int(s[F_LOC + b])
    s[F_LOC + a], s[F_LOC + b] = lb, la
    s[F_PAID_FROM + a], s[F_PAID_FROM + b] = int(s[F_PAID_FROM + b]), int(s[F_PAID_FROM + a])
    deck = s[F_DECK : F_DECK + int(s[F_DECK_N])]
    ia, ib = np.flatnonzero(deck == a), np.flatnonzero(deck == b)
    deck[ia], deck[ib] = b, a
    for p in range(MAX_PLAYERS):
        if s[F_ASIDE + p] == a:
            s[F_ASIDE + p] = b
        elif s[F_ASIDE + p] == b:
            s[F_ASIDE + p] = a


_jit.register(globals(), core, _layout, _cards)
