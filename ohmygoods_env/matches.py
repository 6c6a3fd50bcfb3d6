"""Playing matches between agents of the one agent protocol (:mod:`ohmygoods_env.policy`): the one place
that plays finished games for evaluation, tournaments, training statistics and the league.

* :func:`play_game` — one :class:`~ohmygoods_env.engine.Game`, each agent given only its
  observation, the legal mask and its redacted information state; returns the finished game,
  each seat's thinking time and decisions (the tournament harness). The loop is the
  framework's :func:`~ohmygoods_env.framework.matches.play_match`, the one loop of every game.
* :func:`play_batch` — ``G`` games in one :class:`~ohmygoods_env.batch.BatchGames`, seats
  rotating game by game (:func:`rotating_seats`); the agents answer batched, one call per
  agent per step (training statistics, quick matches). Its old name ``play_games`` still
  works (the same function).

The one series player of every game is the framework's
:func:`~ohmygoods_env.framework.matches.play_games` (one model per game, seeds from
``derive_seed``, a :class:`~ohmygoods_env.framework.matches.GamesResult`). :func:`play_batch` is
this game's batched fast path, kept beside it: it plays every game of a series at once in the
compiled batch engine (game ``i`` dealt from ``framework.seeds.episode_seed(seed, i, 0)``; random
play 1.2 ms a game against 7.9 ms one model at a time, heuristic 44 against 67 ms, on 2 shared
cores), and the training statistics recorded so far (``ohmygoods_training.stats.match``) come from
its stream, so it keeps its seeds and its ``(rewards, seat_of)`` result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .batch import BatchGames
from .engine import Game
from .framework.matches import play_match, rotating_seats
from .game_spec import OhMyGoodsModel
from .policy import BatchPolicy, info_state_of, play_owned

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
    int64[G, P])``: the ``win`` rewards by seat and the seat of each agent per game.
    """
    if len(agents) != num_players:
        raise ValueError(f"need {num_players} agents, got {len(agents)}")
    games = BatchGames(num_games, num_players, rules, seed, illegal="raise", reward_mode="win")
    seat_of, owner = rotating_seats(num_games, num_players)
    rows = np.arange(num_games, dtype=np.int64)
    policies = [a if isinstance(a, BatchPolicy) else BatchPolicy(a) for a in agents]
    rewards = play_owned(games, rows, owner, policies.__getitem__)  # no learner seat: to the end
    return rewards, seat_of


play_games = play_batch  # its earlier name (the framework's play_games is the series player of every game)
