"""The action space: one ``Discrete(N_ACTIONS)`` for every decision, its id table, and ``describe``.

The ranges are declared once in :mod:`ohmygoods_env.layout` (``_a``); :data:`RANGES` is that
registry and :data:`MEANINGS` says what each range decides. The id table below is generated
from both (:func:`action_table`) and checked against ``docs/layouts.md`` by the tests.
Slots are a player's buildings in the order built; slot 0 is the Charburner.
:func:`describe` and the one illegal-action message live with the forward model
(:mod:`ohmygoods_env.engine`, which uses them without importing this module) and are
re-exported here.
"""

from __future__ import annotations

from . import layout as L
from .engine import action_kind, describe, illegal_action_message

__all__ = [
    "MEANINGS",
    "N_ACTIONS",
    "RANGES",
    "action_kind",
    "action_table",
    "describe",
    "illegal_action_message",
]

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
