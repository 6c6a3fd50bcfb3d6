"""*Goofspiel* with a prize row (2-6 players): the library's third game, a folder of its own.

The proof that a game is one folder plus one registration line: :mod:`.engine` is its forward
model (rules in its docstring), :mod:`.game_spec` its :class:`~ohmygoods_env.framework.game.GameSpec`
(registered as ``"goofspiel"``; the package root declares it, ``declare_game("goofspiel", ...)``).
Everything else comes from the framework and the shared tools: the PettingZoo AEC and parallel
envs, the random and IS-MCTS agents, tournaments, the evaluation tiers (its protocol,
``eval_protocol.json``, lives here), the generic browser page and replay pages
(``ohmygoods_env.apps.web_generic``) and the generic bench row (``ohmygoods_env.bench.forward``).
This package imports only the framework.
"""

from __future__ import annotations

from .engine import MAX_PLAYERS, MIN_PLAYERS, NAME, TITLE, Goofspiel, GoofspielRecord, describe, obs_size, render_text

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "TITLE",
    "Goofspiel",
    "GoofspielRecord",
    "describe",
    "obs_size",
    "render_text",
]
