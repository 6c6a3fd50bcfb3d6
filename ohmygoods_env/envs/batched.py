"""Pgx-style batched multi-agent front end: :class:`BatchEnv`, ``N`` games stepped by one numba call.

A thin class over :class:`~ohmygoods_env.batch.BatchGames` (which owns the kernels). Every
call returns a :class:`BatchStep` of plain arrays, as Pgx's ``State`` holds them::

    from ohmygoods_env.envs.batched import BatchEnv
    from ohmygoods_env.batch import make_rng, random_actions

    env = BatchEnv(num_games=1024, num_players=3, seed=0)
    ts = env.reset()
    rng = make_rng(1024, seed=1)
    for _ in range(1000):
        actions = random_actions(ts.legal_action_mask.view("int8"), rng)  # or your policy(ts.observation)
        ts = env.step(actions)  # ts.rewards[i, p]: seat p's final reward if game i ended now

=========================  =======================  ==============================================
``BatchStep`` field        shape, dtype             meaning
=========================  =======================  ==============================================
``current_player``         ``int32[N]``             seat to act in each game (always >= 0 with
                                                    autoreset; -1 in a finished game without)
``observation``            ``float32[N, OBS_DIM]``  the acting seat's observation (no hidden
                                                    information of other seats)
``legal_action_mask``      ``bool[N, N_ACTIONS]``   the acting seat's legal actions
``rewards``                ``float32[N, P]``        final rewards of games that ended in this
                                                    call (every seat), 0 elsewhere
``terminated``             ``bool[N]``              the game ended in this call (rules or an
                                                    illegal-action penalty)
``truncated``              ``bool[N]``              the game was cut at ``max_steps`` decisions
=========================  =======================  ==============================================

Autoreset (``autoreset=True``, the default, as Pgx's ``AutoReset``): a game that ends in a
``step`` is restarted in the same call, so ``observation``, ``current_player`` and
``legal_action_mask`` already belong to the slot's next game while ``rewards``,
``terminated`` and ``truncated`` report the game that ended. Slot ``i`` plays its ``e``-th
game from ``batch.episode_seed(seed, i, e)`` (``0 <= seed < 2**64``; without a seed, a base
seed drawn from fresh entropy, kept in ``env.games.base_seed``). Without autoreset a finished game stays
finished (all-zero mask, ``current_player`` -1) until :meth:`BatchEnv.reset`.

Illegal actions: ``illegal="raise"`` (default) raises before any game changes;
``"penalty"`` ends the offending game (Pgx style; see :mod:`ohmygoods_env.batch`).
:meth:`BatchEnv.global_state` is the **privileged** state for centralised critics, never for
a policy.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..batch import BatchGames
from ..cards import CardSet
from ..framework.checks import check_flag, optional_seed
from ..rules import RuleSet
from .common import check_reward, global_state

__all__ = ["BatchEnv", "BatchStep"]


class BatchStep(NamedTuple):
    """What :meth:`BatchEnv.reset` and :meth:`BatchEnv.step` return (see the module docstring)."""

    current_player: np.ndarray
    observation: np.ndarray
    legal_action_mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


class BatchEnv:
    """``num_games`` games for all seats, Pgx style (see the module docstring)."""

    def __init__(
        self,
        num_games: int,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        seed: int | None = None,
        *,
        autoreset: bool = True,
        reward: str = "win",
        illegal: str = "raise",
        penalty: float = -1.0,
        max_steps: int | None = None,
        cards: CardSet | None = None,
        **rule_options: Any,
    ) -> None:
        autoreset = check_flag(autoreset, "autoreset")
        self.games = BatchGames(
            num_games, num_players, rules, seed=optional_seed(seed), illegal=illegal, penalty=penalty,
            reward_mode=check_reward(reward), max_steps=max_steps, cards=cards, **rule_options,
        )  # fmt: skip
        self.autoreset = autoreset
        self.num_games = self.games.num_games
        self._fresh = True

    @property
    def num_players(self) -> int:
        return self.games.num_players

    def reset(self, seed: int | None = None) -> BatchStep:
        """Restart every game: from ``seed`` when given (every episode counter back to 0), else each slot's
        next episode. The first call without a seed returns the games dealt at construction."""
        seed = optional_seed(seed)
        first, self._fresh = self._fresh, False
        if seed is None:
            if not first:
                self.games.reset(np.ones(self.num_games, np.bool_))
        else:
            self.games.reset(seed=seed)
        zeros = np.zeros(self.num_games, np.bool_)
        return self._timestep(np.zeros((self.num_games, self.num_players), np.float32), zeros, zeros.copy())

    def step(self, actions: np.ndarray) -> BatchStep:
        """One action per game (the acting seat's); finished games restart when ``autoreset``."""
        self._fresh = False
        rewards, terminated, truncated = self.games.step(actions)
        if self.autoreset and (terminated.any() or truncated.any()):
            self.games.reset()
        return self._timestep(rewards, terminated, truncated)

    def global_state(self) -> np.ndarray:
        """**Privileged** float32[N, STATE_DIM] (:func:`~.common.global_state`): critics only."""
        g = self.games
        return global_state(g.state, g.observe(np.zeros(self.num_games, np.int64)))

    def _timestep(self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> BatchStep:
        g = self.games
        obs = g.observe()
        return BatchStep(g.current_player, obs, g.masks().view(np.bool_), rewards, terminated, truncated)
