"""The generic row of ``ohmygoods bench``: any registered game's forward model in random play.

:func:`forward_row` times whole games through the game's :class:`~ohmygoods_env.framework.game.ForwardModel`
(``spec.make``, ``legal_mask``, a numpy random choice, ``step``), one game at a time, with the bench's one
timer. It needs nothing of the game but its spec, so a game registered from its own folder gets
its row without code: ``forward_rows`` gives one row per registered game. Every decision is an
agent step here (the interface has no forced moves), and games/s counts the games finished.
"""

from __future__ import annotations

import numpy as np

from ..framework.game import game_names, resolve_game
from ..framework.seeds import episode_seed
from .table import Row, measured
from .timer import Step, timed

__all__ = ["forward_row", "forward_rows", "forward_step"]


def forward_step(game: str, num_players: int, games_per_call: int = 4, seed: int = 0) -> Step:
    """A loop body for :func:`~.timer.timed`: each call plays ``games_per_call`` random games of ``game``
    (game ``i`` of call ``c`` dealt from ``episode_seed(seed, i, c)``) and returns ``(steps, steps, games)``."""
    spec = resolve_game(game)
    players = spec.check_num_players(num_players)
    rng = np.random.default_rng(seed)
    calls = [0]

    def step() -> tuple[int, int, int]:
        steps = 0
        for i in range(games_per_call):
            g = spec.make(players, seed=episode_seed(seed, i, calls[0]))
            while not g.done:
                g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
                steps += 1
        calls[0] += 1
        return steps, steps, games_per_call

    return step


def forward_row(game: str, num_players: int | None = None, seconds: float = 2.0) -> Row:
    """The row of ``game``'s forward model in random play (default players: 2, or the game's minimum above it)."""
    spec = resolve_game(game)
    players = num_players if num_players is not None else max(spec.min_players, min(2, spec.max_players))
    return measured(
        f"interface: {spec.name}, random, {players}p",
        1,
        timed(forward_step(spec.name, players), seconds),
        "whole games, Python loop over the interface",
    )


def forward_rows(seconds: float = 2.0, games: list[str] | None = None) -> list[Row]:
    """One :func:`forward_row` per game (default: every registered game, by name)."""
    return [forward_row(name, seconds=seconds) for name in (game_names() if games is None else games)]
