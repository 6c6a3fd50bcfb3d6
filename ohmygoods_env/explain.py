"""Choices explained in the game's terms, for the seat to act.

:func:`explain` adds to :func:`~ohmygoods_env.actions.describe`'s words what a choice does:
a worker placement says what the building needs, what the market offers now (row 1 only
before sunset, R5.1/R6.1; Market Offices count for their owner, R7.5), what is still
missing in each work mode and what each mode makes (R7.2, R7.4); a card set aside or a
build says its cost against the coins of the player's goods (R7.10); a payment says what
is spent and what is still due; a hand card spent or fed to a chain says what it stands
for; a hire says cost, VP and the buildings needed (R7.12). It reads only what the seat
to act may see (its own hand, the public table), never changes the game, and gives ``""``
for a choice that needs no explaining.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import core
from . import layout as L
from .actions import action_kind
from .cardfacts import card_facts
from .cards import (
    A_COST,
    A_REQ0,
    A_VP,
    B_COST,
    B_GOOD,
    B_NEED0,
    B_NEED_ANY,
    B_RES,
    B_VALUE,
    COLOURS,
    GOODS,
    N_RES,
    RESOURCES,
)

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["explain", "market_now"]


def market_now(game: Game, player: int) -> np.ndarray:
    """Resources ``player`` may use from the market now: both rows as revealed so far plus its offices (R7.5)."""
    s = game.state
    counts = s[L.F_MKT : L.F_MKT + N_RES].astype(int) + s[L.F_MKT + N_RES : L.F_MKT + 2 * N_RES].astype(int)
    bonus = [int(core.office_bonus(s, game.cards.buildings, player, r)) for r in range(N_RES)]
    return counts + np.array(bonus, dtype=int)


def _hand_res(game: Game, player: int) -> np.ndarray:
    out = np.zeros(N_RES, dtype=int)
    for c in game.hand(player):
        out[int(game.cards.buildings[c, B_RES])] += 1
    return out


def _slot_card(game: Game, player: int, slot: int) -> int:
    return int(game.state[L.F_BLD + player * L.MAX_SLOTS + slot])


def _coins(n: int) -> str:
    return f"{n} coin" + ("" if n == 1 else "s")


def _worker(game: Game, player: int, slot: int, mode: int, makes: int | None = None) -> str:
    """Needs, what the market covers now, and the yield of one work mode (R7.2, R7.4)."""
    b = game.cards.buildings[_slot_card(game, player, slot)]
    market, hand = market_now(game, player), _hand_res(game, player)
    good, value = GOODS[int(b[B_GOOD])], int(b[B_VALUE])
    makes = makes if makes is not None else 1 if mode else 2
    if b[B_NEED_ANY] > 0:
        need = int(b[B_NEED_ANY]) - mode
        missing = max(0, need - int(market.sum()))
        needs = f"any {need} resources"
        covered = int(hand.sum()) >= missing
    else:
        per = {r: int(b[B_NEED0 + r]) for r in range(N_RES) if b[B_NEED0 + r] > 0}
        short = {r: max(0, n - int(market[r])) for r, n in per.items()}
        missing = max(0, sum(short.values()) - mode)  # sloppy: one resource may be left out
        needs = " + ".join(f"{n} {RESOURCES[r]}" for r, n in per.items())
        covered = sum(min(short[r], int(hand[r])) for r in per) >= missing
    row2 = "" if game.phase >= L.PH_SUNSET else " (row 2 comes at sunset)"
    if missing == 0:
        now = f"the market covers it now{row2}"
    else:
        now = f"{missing} missing now{row2}, {'your hand can supply them' if covered else 'more than your hand holds'}"
    mode_text = "sloppy: all but one of" if mode else ("efficient: all of" if makes == 2 else "assistant: all of")
    return f"{mode_text} {needs}; {now} -> {makes} {good} ({_coins(makes * value)})"


def _cost(game: Game, player: int, card: int) -> str:
    cost = int(game.cards.buildings[card, B_COST])
    have = int(core.coins(game.state, game.cards.buildings, player))
    state = "you can pay it now" if have >= cost else f"{_coins(cost - have)} short now"
    return f"cost {cost}, your goods are worth {_coins(have)}: {state}"


def _pay(game: Game, player: int, slot: int) -> str:
    b = game.cards.buildings[_slot_card(game, player, slot)]
    due, value = int(game.state[L.F_PAY_DUE]), int(b[B_VALUE])
    left = max(0, due - value)
    return f"spends 1 {GOODS[int(b[B_GOOD])]} worth {_coins(value)}; {due} due, {left} still due after"


def _hire(game: Game, k: int) -> str:
    s = game.state
    a = game.cards.assistants[int(s[L.F_A_CARD + k]), int(s[L.F_A_SIDE + k])]
    need = ", ".join(f"{int(a[A_REQ0 + c])} {COLOURS[c]}" for c in range(len(COLOURS)) if a[A_REQ0 + c] > 0)
    return f"pay {int(a[A_COST])} coins in goods; {int(a[A_VP])} VP; needs buildings: {need or 'none'} (kept)"


def explain(game: Game, action: int) -> str:
    """What ``action`` of the seat to act does, in the game's terms (``""`` when there is nothing to add)."""
    p = game.current_player
    if p < 0:
        return ""
    kind, i = action_kind(int(action))
    if kind == "place worker":
        return _worker(game, p, i // 2, i % 2)
    if kind == "produce":
        staff = int(game.state[L.F_STAFF + p * L.MAX_SLOTS + i])
        if staff == L.STAFF_ASSISTANT:
            return _worker(game, p, i, 0, makes=1)
        return _worker(game, p, i, 1 if staff == L.STAFF_SLOPPY else 0)
    if kind == "set aside":
        f = card_facts(game.cards, i)
        return f"to build in phase IV: {f['vp']} VP; {_cost(game, p, i)}"
    if kind == "build":
        aside = int(game.state[L.F_ASIDE + p])
        return _cost(game, p, aside) if aside >= 0 else ""
    if kind == "do not build":
        return "the card goes to the discard pile" if game.rules.royal else "the card returns to your hand"
    if kind == "pay":
        return _pay(game, p, i)
    if kind in ("spend hand card", "chain with hand card"):
        res = RESOURCES[int(game.cards.buildings[i, B_RES])]
        return f"the card stands for 1 {res}" + (" and goes to the discard pile" if kind == "spend hand card" else "")
    if kind == "hire":
        return _hire(game, i)
    if kind == "place assistant":
        f = card_facts(game.cards, _slot_card(game, p, i))
        need = f["production"]
        each = " + ".join(f"{n} {r}" for r, n in need["needs"].items())
        needs = f"any {need['needs_any']}" if need["needs_any"] else each
        return f"from the next round it works there: needs {needs} -> 1 {f['good']}"
    if kind == "move assistant":
        return "costs 2 coins in goods (R5.3)"
    if kind in ("discard hand", "discard hand, keep one"):
        n = len(game.hand(p)) - (kind != "discard hand")
        return f"discard {n} cards face up and draw {n} new ones (R4.1)"
    if kind == "keep hand":
        return f"keep your {len(game.hand(p))} cards; 2 more come from the deck (R4.2)"
    return ""
