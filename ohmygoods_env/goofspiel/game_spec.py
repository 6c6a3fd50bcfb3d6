"""*Goofspiel* on the framework's interface: its :class:`~ohmygoods_env.framework.game.GameSpec`.

Importing this module registers :data:`GOOFSPIEL` as ``"goofspiel"`` (the package root declares
it, so ``game_spec("goofspiel")`` imports this module on first use). The spec names no page:
``ohmygoods serve`` gives it the generic page (``ohmygoods_env.apps.web_generic``), and its
records (:meth:`~.engine.GoofspielRecord.to_dict`) replay there.
"""

from __future__ import annotations

from typing import Any

from ..framework.game import GameSpec, GameTools, register_game
from .engine import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    REWARD_MODES,
    TITLE,
    Goofspiel,
    GoofspielRecord,
    describe,
    obs_size,
    render_text,
)

__all__ = ["GOOFSPIEL", "Goofspiel", "GoofspielRecord", "describe", "new_game", "obs_size", "render_text"]


def _unit_bounds(num_players: int) -> tuple[float, float]:
    return 0.0, 1.0


def new_game(num_players: int, seed: int | None = None, **options: Any) -> Goofspiel:
    """A new deal; ``options`` may hold ``num_cards`` (2..13, default 3)."""
    return Goofspiel(num_players, seed=seed, **options)


GOOFSPIEL = register_game(
    GameSpec(
        name=NAME,
        title=TITLE,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        num_actions=5,
        obs_size=obs_size,
        new_game=new_game,
        describe=describe,
        render_text=render_text,
        version=0,
        simultaneous=None,  # its pending seats decide together, once each: no padding, step_joint applies them
        obs_bounds=_unit_bounds,
        reward_modes=REWARD_MODES,
        protocol="ohmygoods_env.goofspiel:eval_protocol.json",  # ohmygoods evaluate --game goofspiel
        # ohmygoods demo --game goofspiel and ohmygoods train --game goofspiel (the one loop with the default kit)
        tools=GameTools(
            commands={"demo": "ohmygoods_env.apps.game_demo:main", "train": "ohmygoods_env.apps.game_train:main"}
        ),
    )
)
