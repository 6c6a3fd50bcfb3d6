"""*Artificium* (Timofey Shargorodsky, 2014): the library's second game, a folder of its own.

Rules: ``docs/artificium/rules.md`` (rule ids A1.1 ...). Tables: :mod:`.cards` (``data/``).
Layout: :mod:`.layout`. Compiled rules: :mod:`.core`. Forward model: :class:`.engine.Game`.
Batch: :class:`.batch.ArtBatch`. Scripted positions: :class:`.scenario.Scenario`. Text view:
:func:`.render.render_text`; SVG view: :func:`.picture.render_svg`. Fuzz and bench: :mod:`.fuzz`.

The facts below are what the framework's game registry needs (a ``GameSpec``); this package
imports nothing from the framework.
"""

from __future__ import annotations

from . import layout as _layout
from .engine import Game, describe
from .render import render_text

NAME = "artificium"
TITLE = "Artificium"
MIN_PLAYERS = _layout.MIN_PLAYERS
MAX_PLAYERS = _layout.MAX_PLAYERS
NUM_ACTIONS = _layout.N_ACTIONS
ENV_VERSION = _layout.LAYOUT_VERSION


def obs_size(num_players: int) -> int:
    """Length of a seat's observation (the same for every player count: absent seats are zeros)."""
    return _layout.OBS_DIM


def new_game(num_players: int, seed: int | None = None, **options: object) -> Game:
    """A new game; ``options`` may hold ``tables`` (an ``ArtTables`` from ``cards.load_tables``)."""
    unknown = set(options) - {"tables"}
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)} for artificium: expected only 'tables'")
    return Game(num_players, seed, options.get("tables"))


__all__ = [
    "ENV_VERSION",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "NUM_ACTIONS",
    "TITLE",
    "Game",
    "describe",
    "new_game",
    "obs_size",
    "render_text",
]
