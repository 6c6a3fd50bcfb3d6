"""The action space: one ``Discrete(N_ACTIONS)`` for every decision, and ``describe``.

Action id table (``MAX_SLOTS`` = 9 building slots, 94 deck cards, 8 assistant positions):

==========================  ===========  ====================================================
range                       decision     meaning
==========================  ===========  ====================================================
0 ``A_KEEP``                phase I      keep the hand (R4.1)
1 ``A_DISCARD_HAND``        phase I      discard the whole hand, draw as many (R4.1, omg2)
2..82 ``A_MOVE``            phase II     move assistant from slot ``i // 9`` to ``i % 9``,
                                         2 coins (R5.3)
83 ``A_MOVES_DONE``         phase II     no (more) assistant moves
84..101 ``A_WORKER``        phase II     worker to slot ``i // 2``, efficient (0) / sloppy (1)
                                         (R5.4)
102..195 ``A_ASIDE``        phase II     set aside hand card ``i`` to build (R5.5)
196 ``A_ASIDE_NONE``        phase II     set nothing aside
197..205 ``A_PRODUCE``      phase IV     produce at slot ``i`` next (R7.6)
206..214 ``A_CHAIN_OPEN``   phase IV     final round: open the chain of slot ``i`` (R8.2)
215 ``A_PRODUCTION_DONE``   phase IV     end production (only when no staffed building is
                                         covered by the market alone)
216..309 ``A_SPEND``        phase IV     discard hand card ``i`` for a missing resource (R7.1)
310..403 ``A_CHAIN_HAND``   phase IV     run the chain once, feeding hand card ``i`` (R7.8)
404 ``A_CHAIN_GOODS``       phase IV     run a goods-only chain once (R7.8)
405 ``A_CHAIN_STOP``        phase IV     stop running this chain
406 ``A_BUILD``             phase IV     build the set-aside card (R7.10)
407 ``A_NO_BUILD``          phase IV     do not build (card to hand R7.11; royal: discard)
408..416 ``A_PAY``           payment      spend one good from slot ``i`` (R7.10, R5.3, R7.12)
417..424 ``A_HIRE``         phase IV     hire the assistant at display position ``i`` (R7.12)
425 ``A_NO_HIRE``           phase IV     hire nobody
426..434 ``A_PLACE``        phase IV     put the hired assistant on slot ``i`` (R7.12)
435..528 ``A_REFILL``       empty deck   discard hand card ``i`` into the new deck (R3.1)
529 ``A_WAIT``              (none)       wait: nothing to decide (parallel env only; never
                                         legal in the engine's mask)
==========================  ===========  ====================================================

Slots are a player's buildings in the order built; slot 0 is the Charburner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import layout as L
from .cards import RESOURCES, default_cards

if TYPE_CHECKING:
    from .engine import Game

N_ACTIONS = L.N_ACTIONS

RANGES: tuple[tuple[str, int, int], ...] = (
    ("keep hand", L.A_KEEP, 1),
    ("discard hand", L.A_DISCARD_HAND, 1),
    ("move assistant", L.A_MOVE, L.MAX_SLOTS * L.MAX_SLOTS),
    ("moves done", L.A_MOVES_DONE, 1),
    ("place worker", L.A_WORKER, 2 * L.MAX_SLOTS),
    ("set aside", L.A_ASIDE, L.N_CARDS),
    ("set aside nothing", L.A_ASIDE_NONE, 1),
    ("produce", L.A_PRODUCE, L.MAX_SLOTS),
    ("open chain", L.A_CHAIN_OPEN, L.MAX_SLOTS),
    ("production done", L.A_PRODUCTION_DONE, 1),
    ("spend hand card", L.A_SPEND, L.N_CARDS),
    ("chain with hand card", L.A_CHAIN_HAND, L.N_CARDS),
    ("chain with goods", L.A_CHAIN_GOODS, 1),
    ("stop chain", L.A_CHAIN_STOP, 1),
    ("build", L.A_BUILD, 1),
    ("do not build", L.A_NO_BUILD, 1),
    ("pay", L.A_PAY, L.MAX_SLOTS),
    ("hire", L.A_HIRE, L.N_ASSIST),
    ("hire nobody", L.A_NO_HIRE, 1),
    ("place assistant", L.A_PLACE, L.MAX_SLOTS),
    ("discard for new deck", L.A_REFILL, L.N_CARDS),
    ("wait", L.A_WAIT, 1),
)


def action_kind(action: int) -> tuple[str, int]:
    """(range name, index inside the range) of an action id."""
    for name, start, n in RANGES:
        if start <= action < start + n:
            return name, action - start
    raise ValueError(f"action {action} is out of range: expected an int in [0, {N_ACTIONS - 1}]")


def _card(cards, c: int) -> str:
    return f"{cards.name(c)} [{RESOURCES[cards.buildings[c, 2]]}] (card {c})"


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
            return f"hire assistant {card + 1}{'AB'[side]} (position {i}): cost {a[0]}, {a[1]} VP"
        return f"hire the assistant at position {i}"
    if name == "wait":
        return "wait (nothing to decide)"
    return name
