"""Gymnasium ``VectorEnv`` over :class:`~ohmygoods_env.envs.learner.LearnerGames`.

``num_envs`` games live in one :class:`~ohmygoods_env.batch.BatchGames`; a step is one
batched learner step plus the batched opponent phase (no Python loop over games). Spaces
are the batched versions of :class:`~ohmygoods_env.envs.gym_env.OhMyGoodsEnv`'s:

==========================  ===================================================================
returned                    content
==========================  ===================================================================
observations                ``float32[N, OBS_DIM]`` from each game's learner seat
rewards                     ``float64[N]``: the learner's final reward in games that ended
terminations, truncations   ``bool[N]``
``infos["action_mask"]``    ``int8[N, N_ACTIONS]`` legal actions for the next step
``infos["seat"]``           ``int64[N]`` learner seat
``infos["episode"]``        ``int64[N]``: games each env started since the last seeded reset,
                            from 0 (an id; the game seed is never returned: it would rebuild
                            the deal)
``action_masks()``          ``bool[N, N_ACTIONS]``, the same mask for masked learners
==========================  ===================================================================

Autoreset (``metadata["autoreset_mode"]``, chosen with ``autoreset_mode=``):

* ``SAME_STEP`` (default) — a game that ends is restarted in the same step; the returned
  observation and mask belong to the new game, the last observation is in
  ``infos["final_obs"]`` (object array, ``None`` elsewhere; mask ``infos["_final_obs"]``)
  and ``infos["final_info"]`` holds ``rewards`` (every seat, ``float32[N, P]``) and
  ``illegal_action``. The mask is always a live game's mask, as masked learners need.
* ``NEXT_STEP`` — the ending step returns the final observation; the next step ignores that
  env's action, restarts it and returns reward 0. Its mask is all ones meanwhile (any action
  is accepted and ignored).
* ``DISABLED`` — finished games stay finished until ``reset(options={"reset_mask": m})``.

Seeding: ``reset(seed=s)`` makes ``s`` the base seed (env ``i`` plays its ``e``-th game from
``episode_seed(s, i, e)``); ``reset(seed=[s0, s1, ...])`` starts each env from the given game
seeds (seeds are ints in ``0 <= s < 2**64``). ``reset()`` continues each env's episodes; the
first ``reset()`` of a never-seeded env draws its base seed from fresh entropy. Illegal
actions follow ``illegal=`` (default ``"penalty"``, see :mod:`.gym_env`).
``opponents`` takes agent names and specs as in :mod:`.learner` (``"heuristic"``,
``["mcts", "ppo"]``). The env pickles and deep-copies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..framework.checks import check_seed, check_seeds, fresh_seed
from .common import action_ids, action_space
from .learner import LearnerConfig, LearnerGames, LearnerViews


class OhMyGoodsVectorEnv(LearnerViews, VectorEnv):
    """``num_envs`` games of Oh my Goods! for one learner seat each (see the module docstring).

    ``args`` / ``config`` / ``options`` make its :class:`~.learner.LearnerConfig` as in
    :class:`~.sb3.OhMyGoodsVecEnv` (:meth:`~.learner.LearnerConfig.of`).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 8,
        *args: Any,
        config: LearnerConfig | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        **options: Any,
    ) -> None:
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        #: what the games play (:class:`~.learner.LearnerConfig`, from ``args``, ``config`` and ``options``)
        self.config = LearnerConfig.of(*args, config=config, **options)
        self._lg = LearnerGames(num_envs, self.config)
        self.num_envs = self._lg.num_games
        self.single_observation_space = self._lg.observation_space()
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = np.zeros(self.num_envs, np.bool_)
        self._episode = np.full(self.num_envs, -1, np.int64)  # reset() makes it 0 for the first games
        self._seeded = False

    # ------------------------------------------------------------------ facts
    def action_masks(self) -> np.ndarray:
        """bool[N, N_ACTIONS]: legal actions of each env's next step (see autoreset modes)."""
        m = self._lg.action_masks()
        if self._autoreset.any():
            m[self._autoreset] = True
        return m

    # ------------------------------------------------------------------ API
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        reset_mask = (options or {}).get("reset_mask")
        if reset_mask is not None and self._seeded:
            m = np.asarray(reset_mask)
            if m.shape != (self.num_envs,) or m.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
            rows = np.flatnonzero(m).astype(np.int64)
            seeds = None if seed is None else self._seeds(seed)[rows]
            self._lg.reset(rows, seeds=seeds)
            self._episode[rows] += 1
            self._autoreset[rows] = False
            return self._lg.observe(), self._infos()
        if seed is None and self._seeded:
            self._lg.reset(np.arange(self.num_envs))  # every env: its slot's next episode
        elif seed is None:
            self._lg.reseed(fresh_seed())
        elif np.ndim(seed) == 0:
            self._lg.reseed(check_seed(seed))
        else:
            self._lg.reset(np.arange(self.num_envs), seeds=self._seeds(seed))
        self._autoreset[:] = False
        self._episode = np.zeros(self.num_envs, np.int64) if seed is not None else self._episode + 1
        self._seeded = True
        return self._lg.observe(), self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._seeded:
            raise RuntimeError("call reset() before step()")
        a = action_ids(actions, self.num_envs)
        lg = self._lg
        pending = np.flatnonzero(self._autoreset) if self.autoreset_mode == AutoresetMode.NEXT_STEP else None
        r, te, tr = lg.step(a)  # done games ignore their actions
        rewards = r.astype(np.float64)
        infos: dict[str, Any] = {}
        if pending is not None and pending.size:
            lg.reset(pending)
            self._episode[pending] += 1
            rewards[pending] = 0.0
            te[pending] = False
            tr[pending] = False
        ended = te | tr
        if pending is not None and pending.size:
            ended[pending] = False
        obs = lg.observe()
        if self.autoreset_mode == AutoresetMode.SAME_STEP and ended.any():
            rows = np.flatnonzero(ended).astype(np.int64)
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in rows:
                final_obs[i] = obs[i].copy()
            final_rewards = np.zeros((self.num_envs, lg.num_players), np.float32)
            final_rewards[rows] = lg.final_rewards(rows)
            illegal = np.zeros(self.num_envs, np.bool_)
            illegal[rows] = lg.games.penalised[rows]
            infos["final_obs"] = final_obs
            infos["_final_obs"] = ended.copy()
            infos["final_info"] = {
                "rewards": final_rewards,
                "_rewards": ended.copy(),
                "illegal_action": illegal,
                "_illegal_action": ended.copy(),
            }
            infos["_final_info"] = ended.copy()
            lg.reset(rows)
            self._episode[rows] += 1
            obs[rows] = lg.observe(rows)
        elif self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._autoreset = ended
        infos.update(self._infos())
        return obs, rewards, te, tr, infos

    def _seeds(self, seed: Any) -> np.ndarray:
        """One seed per env: an int for all (``0 <= seed < 2**64``) or ``num_envs`` of them."""
        if np.ndim(seed) == 0:
            return check_seeds([check_seed(seed)] * self.num_envs, self.num_envs, "seed")
        return check_seeds(seed, self.num_envs, "seed")

    def _infos(self) -> dict[str, Any]:
        ones = np.ones(self.num_envs, np.bool_)
        mask = self._lg.games.masks()
        if self._autoreset.any():
            mask[self._autoreset] = 1
        return {
            "action_mask": mask,
            "_action_mask": ones,
            "seat": self._lg.seat.copy(),
            "_seat": ones,
            "episode": self._episode.copy(),
            "_episode": ones,
        }

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the games are plain arrays."""


__all__ = ["OhMyGoodsVectorEnv"]
