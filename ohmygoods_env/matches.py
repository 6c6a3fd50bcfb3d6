"""Playing matches between agents of the one agent protocol (:mod:`ohmygoods_env.policy`): *Oh my Goods!*'s
names for the framework's match loops.

* :func:`play_game` — one :class:`~ohmygoods_env.engine.Game`, each agent given only its
  observation, the legal mask and its redacted information state; returns the finished game,
  each seat's thinking time and decisions (the tournament harness). The loop is the
  framework's :func:`~ohmygoods_env.framework.matches.play_match`, the one loop of every game.
* :func:`play_batch` — ``G`` games at once, seats rotating game by game (:func:`rotating_seats`):
  the framework's batched series player :func:`~ohmygoods_env.framework.matches.play_batch` on this
  game's batch engine (:class:`~ohmygoods_env.batch.BatchGames`; game ``i`` dealt from
  ``framework.seeds.episode_seed(seed, i, 0)``), its agents asked through
  :class:`~ohmygoods_env.policy.BatchPolicy` (the game's ``GameTools.batch_policy``), one call per
  agent per step. Returns ``(rewards, seat_of)``; the training statistics recorded so far
  (``ohmygoods_training.stats.match``) come from this stream, which is the same, byte for byte, as
  the game's own loop over :func:`~ohmygoods_env.policy.play_owned` played before (pinned in
  ``tests/framework/test_series_players.py``). Its old name ``play_games`` still works.

The framework's :func:`~ohmygoods_env.framework.matches.play_games` plays a series one forward
model after another (seeds from ``derive_seed``; every agent, searches included): the player of
tournaments and evaluation. Batched, random play costs 1.2 ms a game against 7.9 ms one model at a
time, the heuristic 44 against 67 ms, on 2 shared cores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .engine import Game
from .framework import matches as _fm
from .framework.matches import play_match, rotating_seats
from .game_spec import OhMyGoodsModel
from .policy import GAME, info_state_of

__all__ = ["play_batch", "play_game", "play_games", "rotating_seats"]


def _decide(agent: Any, model: OhMyGoodsModel, player: int) -> int:
    """The harness of this game: observation, legal mask and the redacted information state (copies)."""
    g = model.game
    return int(agent.act(g.observe(player), g.legal_mask(), info_state_of(g.state, player)))


def play_game(agents: Sequence[Any], num_players: int, rules: str, seed: int) -> tuple[Game, list[float], list[int]]:
    """Play one game; agents see only observation, mask and their information state.

    Returns the finished game, each seat's thinking time (s) and number of decisions.
    """
    match = play_match(OhMyGoodsModel(Game(num_players, rules, seed=seed)), agents, _decide)
    return match.model.game, match.thinking, match.decisions


def play_batch(
    agents: Sequence[Any], num_games: int, num_players: int = 2, rules: str = "omg2", seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``num_games`` games between ``agents`` (one per seat), rotating the seats game by game.

    An agent may also be a :class:`~ohmygoods_env.policy.BatchPolicy` (used as it is). Agent ``k``
    sits in seat ``(k + i) % P`` of game ``i``. Returns ``(rewards float32[G, P], seat_of
    int64[G, P])``: the ``win`` rewards by seat (solo: the score) and the seat of each agent per game
    (``framework.matches.play_batch(...)``'s ``rewards`` and ``seat_of``).
    """
    if len(agents) != num_players:
        raise ValueError(f"need {num_players} agents, got {len(agents)}")
    res = _fm.play_batch(GAME, agents, num_games, seed, options={"rules": rules})
    return res.rewards, res.seat_of


play_games = play_batch  # its earlier name (the framework's play_games is the series player of every game)
