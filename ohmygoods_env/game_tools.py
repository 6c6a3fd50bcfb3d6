"""What the shared commands need of *Oh my Goods!* (:class:`~ohmygoods_env.framework.game.GameTools`).

The spec ``"ohmygoods"`` names :data:`TOOLS` (``GameSpec.tools``); :func:`ohmygoods_env.framework.game.game_tools`
imports this module on first use. What lives above the library (its shipped checkpoints in the
agents package, its command lines and engine warm-up in :mod:`ohmygoods_env.apps`) is named as
``"module:function"``, imported only by the layer that uses it (``GameTools.load``).
"""

from __future__ import annotations

from typing import Any

from .framework.game import GameTools
from .rules import EDITIONS

__all__ = ["LEADERBOARD_AGENTS", "TOOLS"]

#: the agents of its leaderboard (``ohmygoods evaluate --leaderboard`` without ``--agents``)
LEADERBOARD_AGENTS = "random,greedy,heuristic,mcts-100,ppo,ppo-long,ppo-3p,ppo-4p,ppo-solo"


def _play_game(agents: list, players: int, rules: str, seed: int) -> tuple[dict, int, int, Any]:
    """One tournament game on the engine's own loop: the row's results, rounds, decisions and record."""
    from .matches import play_game

    g, thinking, moves = play_game(agents, players, rules, seed)
    row = {
        "scores": [s for s, _ in g.scores()],
        "leftover": [left for _, left in g.scores()],
        "winners": g.winners(),
        "thinking_s": [round(t, 4) for t in thinking],
        "seat_decisions": moves,
    }
    return row, g.round, len(g.actions), g.record()


def _hello(hello: dict, info: Any = None, obs_dim: int | None = None) -> dict:
    """The hello of an external agent: one observation size for every player count, the env name of its layout."""
    from . import layout as L

    return {**hello, "env": f"oh_my_goods-v{L.LAYOUT_VERSION}", "obs_dim": L.OBS_DIM, "state_len": L.STATE_LEN}


TOOLS = GameTools(
    env_name="oh_my_goods",
    rules=EDITIONS,
    search_agents=("mcts",),
    leaderboard_agents=LEADERBOARD_AGENTS,
    docs_dir="docs",
    out_prefix="",
    checkpoints="ohmygoods_agents.checkpoint:shipped_checkpoints",
    warm="ohmygoods_env.apps.common:warm_engine",
    play_game=_play_game,
    hello=_hello,
    commands={
        "demo": "ohmygoods_env.apps.demo:main",
        "play": "ohmygoods_env.apps.play:main",
        "fuzz": "ohmygoods_env.apps.fuzz:main",
        "train": "ohmygoods_env.apps.train:main",
    },
    # the one training loop's Oh my Goods! parts: the slot network, its prior, shaping, numba league agents
    training_kit="ohmygoods_training.ohmygoods_kit:OhMyGoodsKit",
    batch_engine="ohmygoods_env.learner_batch:OhMyGoodsBatch",  # BatchGames as framework.batch.BatchEngine
    batch_policy="ohmygoods_env.policy:batch_policy",  # its agents read the engine's redacted state rows
)
