"""The action space: one ``Discrete(N_ACTIONS)`` for every decision, and ``describe``.

The ranges are declared once in :mod:`ohmygoods_env.layout` (``_a``); :data:`RANGES` is that
registry and :data:`MEANINGS` says what each range decides. The id table below is generated
from both (:func:`action_table`) and checked against ``docs/layouts.md`` by the tests.
Slots are a player's buildings in the order built; slot 0 is the Charburner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import layout as L
from .cards import A_COST, A_VP, B_RES, RESOURCES, default_cards

if TYPE_CHECKING:
    from .engine import Game

N_ACTIONS = L.N_ACTIONS

#: (name, first id, size) of every action range, in id order (from ``layout._a``)
RANGES: tuple[tuple[str, int, int], ...] = L.ACTION_RANGES

#: range name -> (decision, meaning); ``i`` is the index inside the range
MEANINGS: dict[str, tuple[str, str]] = {
    "keep hand": ("phase I", "keep the hand (R4.1)"),
    "discard hand": ("phase I", "discard the whole hand and draw as many (R4.1, `omg2` only)"),
    "move assistant": ("phase II", "move the assistant on slot `i // 9` to slot `i % 9`, paying 2 coins (R5.3)"),
    "moves done": ("phase II", "no (more) assistant moves"),
    "place worker": ("phase II", "worker to slot `i // 2`, mode `i % 2` (0 efficient, 1 sloppy) (R5.4)"),
    "set aside": ("phase II", "put hand card `i` face down to build in phase IV (R5.5)"),
    "set aside nothing": ("phase II", "build nothing this round"),
    "produce": ("phase IV", "staffed slot `i` produces next (R7.6)"),
    "open chain": ("phase IV", "final round: run the chain of slot `i`, staffed or not (R8.2, `omg2`)"),
    "production done": (
        "phase IV",
        "end production (illegal while a staffed building is covered by the market alone)",
    ),
    "spend hand card": ("phase IV", "discard hand card `i` to supply a missing resource (R7.1, R7.2, R7.4)"),
    "chain with hand card": ("phase IV", "run the chain once, feeding hand card `i` (R7.7, R7.8)"),
    "chain with goods": ("phase IV", "run a goods-only chain once (R7.8)"),
    "stop chain": ("phase IV", "stop running this chain"),
    "build": ("phase IV", "build the set-aside card (R7.10)"),
    "do not build": ("phase IV", "card back to hand (R7.11; `royal`: to the discard pile)"),
    "pay": ("payment", "spend one good from slot `i` (R7.10, R5.3, R7.12); repeated until paid, no change"),
    "hire": ("phase IV", "hire the assistant at display position `i` (R7.12)"),
    "hire nobody": ("phase IV", "hire no assistant (R7.12)"),
    "place assistant": ("phase IV", "put the hired assistant on production slot `i` (R7.12, R7.14)"),
    "discard for new deck": ("empty deck", "discard hand card `i` face down into the new deck (R3.1)"),
    "discard hand, keep one": (
        "phase I",
        "variant R10.1: discard the hand but keep hand card `i`; draw as many as discarded",
    ),
    "wait": (
        "none",
        "nothing to decide: the parallel env's action for seats not to act; never legal in the engine's mask",
    ),
}


def action_table() -> str:
    """The markdown id table of ``docs/layouts.md``, generated from :data:`RANGES` and :data:`MEANINGS`."""
    lines = ["| ids | name | decision | meaning |", "|---|---|---|---|"]
    for name, start, n in RANGES:
        ids = f"{start}..{start + n - 1}" if n > 1 else f"{start}"
        decision, meaning = MEANINGS[name]
        lines.append(f"| {ids} | {name} | {decision} | {meaning} |")
    return "\n".join(lines)


__doc__ = (
    (__doc__ or "") + "\nAction id table::\n\n" + "\n".join("    " + x for x in action_table().splitlines()) + "\n"
)


def action_kind(action: int) -> tuple[str, int]:
    """(range name, index inside the range) of an action id."""
    for name, start, n in RANGES:
        if start <= action < start + n:
            return name, action - start
    raise ValueError(f"action {action} is out of range: expected an int in [0, {N_ACTIONS - 1}]")


def _card(cards, c: int) -> str:
    return f"{cards.name(c)} [{RESOURCES[cards.buildings[c, B_RES]]}] (card {c})"


def describe(action: int, game: Game | None = None) -> str:
    """Human-readable meaning of ``action``; with a game, slots are named by their building.

    >>> describe(197)
    'produce at slot 0'
    """
    name, i = action_kind(int(action))
    cards = game.cards if game is not None else default_cards()

    def slot(s: int) -> str:
        if game is not None and game.current_player >= 0:
            blds = game.buildings(game.current_player)
            if s < len(blds):
                return f"{cards.name(blds[s])} (slot {s})"
        return f"slot {s}"

    if name == "move assistant":
        return f"move assistant from {slot(i // L.MAX_SLOTS)} to {slot(i % L.MAX_SLOTS)} for 2 coins"
    if name == "place worker":
        return f"worker to {slot(i // 2)}, {'sloppy' if i % 2 else 'efficient'}"
    if name in ("set aside", "spend hand card", "chain with hand card", "discard for new deck"):
        verb = {
            "set aside": "set aside to build",
            "spend hand card": "spend for a missing resource",
            "chain with hand card": "feed the chain with",
            "discard for new deck": "discard into the new deck",
        }[name]
        return f"{verb}: {_card(cards, i)}"
    if name == "produce":
        return f"produce at {slot(i)}"
    if name == "open chain":
        return f"open the chain of {slot(i)} (final round)"
    if name == "pay":
        return f"pay with a good from {slot(i)}"
    if name == "place assistant":
        return f"place the assistant on {slot(i)}"
    if name == "hire":
        if game is not None:
            s = game.state
            card, side = int(s[L.F_A_CARD + i]), int(s[L.F_A_SIDE + i])
            a = cards.assistants[card, side]
            return f"hire assistant {card + 1}{'AB'[side]} (position {i}): cost {a[A_COST]}, {a[A_VP]} VP"
        return f"hire the assistant at position {i}"
    if name == "wait":
        return "wait (nothing to decide)"
    if name == "discard hand, keep one":
        return f"discard the hand but keep {_card(cards, i)}"
    return name
