"""Stable-Baselines3 ``VecEnv`` over :class:`~ohmygoods_env.envs.learner.LearnerGames`.

Usable as is by sb3-contrib ``MaskablePPO`` (``action_masks()`` and
``env_method("action_masks")``)::

    from sb3_contrib import MaskablePPO
    from ohmygoods_env.envs.sb3 import OhMyGoodsVecEnv

    env = OhMyGoodsVecEnv(num_envs=16, seed=0)
    model = MaskablePPO("MlpPolicy", env).learn(100_000)

==========================  ===================================================================
returned by ``step``        content
==========================  ===================================================================
observations                ``float32[N, OBS_DIM]`` from each game's learner seat
rewards                     ``float32[N]``: the learner's final reward in games that ended
dones                       ``bool[N]``; a finished game is restarted in the same step
infos                       one dict per env; for finished games ``terminal_observation``,
                            ``TimeLimit.truncated``, ``rewards`` (every seat) and
                            ``illegal_action``
==========================  ===================================================================

Seeding: ``seed(s)`` (or the ``seed`` argument) makes ``s`` the base seed; env ``i`` plays its
``e``-th game from ``episode_seed(s, i, e)``, applied at the next ``reset()``. Without a
seed the base seed is drawn from the OS. Illegal actions follow ``illegal=`` (default
``"penalty"``, see :mod:`.gym_env`). ``opponents`` takes agent names and specs as in
:mod:`.learner`: one for every other seat (``"heuristic"``), or a list of one per other seat
(``["mcts", "ppo-3p"]`` with ``num_players=3``). Infos never carry the game seed
(it would rebuild the deal). The VecEnv pickles and deep-copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from ..batch import episode_seed
from ..framework.checks import seed_or_fresh
from .common import action_ids, action_space
from .learner import LearnerConfig, LearnerGames, LearnerViews
from .sb3_base import BatchedVecEnv


class OhMyGoodsVecEnv(LearnerViews, BatchedVecEnv):
    """``num_envs`` games of Oh my Goods! for one learner seat each (see the module docstring).

    ``args`` / ``config`` / ``options`` make its :class:`~.learner.LearnerConfig`
    (:meth:`~.learner.LearnerConfig.of`: ``num_players``, ``rules``, ``opponents``,
    ``learner_seat``, ``reward``, ``illegal``, ``penalty``, ``max_steps``, ``cards`` in this
    order or by name, and rule options such as ``max_rounds``). Subclasses may override
    :meth:`make_games` to run a :class:`~.learner.LearnerGames` subclass (the training league
    draws each game's opponents from a pool that way).
    """

    def __init__(
        self,
        num_envs: int = 8,
        *args: Any,
        config: LearnerConfig | None = None,
        seed: int | None = None,
        **options: Any,
    ) -> None:
        self.render_mode = None
        #: what the games play (:class:`~.learner.LearnerConfig`, from ``args``, ``config`` and ``options``)
        self.config = LearnerConfig.of(*args, config=config, **options)
        self._base_seed = seed_or_fresh(seed)
        self._lg = self.make_games(num_envs, self.config, self._base_seed)
        self._pending_seed: int | None = self._base_seed
        self._actions: np.ndarray | None = None
        super().__init__(self._lg.num_games, self._lg.observation_space(), action_space())

    def make_games(self, num_envs: int, config: LearnerConfig, seed: int) -> LearnerGames:
        """The learner games (arguments as :class:`~.learner.LearnerGames`)."""
        return LearnerGames(num_envs, config, seed)

    # ------------------------------------------------------------------ facts
    def action_masks(self) -> np.ndarray:
        """bool[N, N_ACTIONS]: each env's legal actions now."""
        return self._lg.action_masks()

    # ------------------------------------------------------------------ VecEnv API
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Base seed for the next :meth:`reset`; returns each env's first game seed."""
        self._pending_seed = seed_or_fresh(seed)
        return [episode_seed(self._pending_seed, i, 0) for i in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        if self._pending_seed is not None:
            self._base_seed = self._pending_seed
            self._lg.reseed(self._base_seed)
            self._pending_seed = None
        else:
            self._lg.reset(np.arange(self.num_envs))
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._lg.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = action_ids(actions, self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_async() must be called before step_wait()")
        lg = self._lg
        rewards, te, tr = lg.step(self._actions)
        self._actions = None
        dones = te | tr
        obs = lg.observe()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            rows = np.flatnonzero(dones).astype(np.int64)
            final = lg.final_rewards(rows)
            penalised = lg.games.penalised[rows]
            for j, i in enumerate(rows):  # only finished games: SB3 wants a dict per env
                infos[i]["terminal_observation"] = obs[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(tr[i] and not te[i])
                infos[i]["rewards"] = final[j].copy()
                infos[i]["illegal_action"] = bool(penalised[j])
            lg.reset(rows)
            obs[rows] = lg.observe(rows)
        return obs, rewards, dones, infos


__all__ = ["BatchedVecEnv", "OhMyGoodsVecEnv"]
