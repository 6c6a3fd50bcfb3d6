"""The *Artificium* rows of ``ohmygoods bench``: its compiled engine in random play, 2 to 6 players.

Each row times :func:`ohmygoods_env.artificium.fuzz.bench_step` (whole random games played by the
compiled kernels, one game at a time, no checks) with the bench's one timer, so the figures
stand next to the *Oh my Goods!* rows of the same run. Every decision of *Artificium* is asked
(no forced moves are applied for the player), so agent steps = decisions.
"""

from __future__ import annotations

from .table import Row, measured
from .timer import timed

__all__ = ["PLAYERS", "artificium_rows"]

#: player counts of the rows (the game is for 2 to 6)
PLAYERS = (2, 4, 6)


def artificium_rows(seconds: float, players: tuple[int, ...] = PLAYERS) -> list[Row]:
    """One row per player count: random play through the compiled *Artificium* engine."""
    from ..artificium.fuzz import bench_step

    return [
        measured(f"artificium engine, random, {n}p", 1, timed(bench_step(n), seconds), "whole games, compiled loop")
        for n in players
    ]
