"""Stable-Baselines3 ``VecEnv`` over :class:`~ohmygoods_env.envs.gym_env.LearnerGames`.

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
:mod:`.gym_env`: one for every other seat (``"heuristic"``), or a list of one per other seat
(``["mcts", "ppo-3p"]`` with ``num_players=3``). Infos never carry the game seed
(it would rebuild the deal). The VecEnv pickles and deep-copies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from ..batch import BatchGames, episode_seed
from ..cards import CardSet
from ..checks import seed_or_fresh
from ..rules import RuleSet
from .gym_env import LearnerGames, action_ids, action_space, observation_space


class BatchedVecEnv(VecEnv):
    """The per-env plumbing of an SB3 ``VecEnv`` whose ``num_envs`` envs are rows of one batch.

    There are no per-env objects: ``get_attr``/``set_attr``/``env_method`` act on this object
    (a value once per requested env), ``env_method("action_masks")`` returns one mask per
    env (what sb3-contrib's ``MaskablePPO`` asks for), and no env is wrapped. Subclasses
    provide ``reset``, ``step_async``, ``step_wait``, ``seed`` and ``action_masks``.
    """

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release: the games are plain arrays."""

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        assert isinstance(indices, Iterable)
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute of this VecEnv, once per env (the games have no per-env objects)."""
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """Call a method of this VecEnv; ``action_masks`` returns one mask per env."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]


class OhMyGoodsVecEnv(BatchedVecEnv):
    """``num_envs`` games of Oh my Goods! for one learner seat each (see the module docstring).

    Subclasses may override :meth:`make_games` to run a :class:`LearnerGames` subclass (the
    training league draws each game's opponents from a pool that way).
    """

    def __init__(
        self,
        num_envs: int = 8,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        opponents: Any = None,
        learner_seat: int | str = 0,
        reward_mode: str = "win",
        illegal: str = "penalty",
        penalty: float = -1.0,
        max_steps: int | None = None,
        seed: int | None = None,
        cards: CardSet | None = None,
        **rule_options: Any,
    ) -> None:
        self.render_mode = None
        self._base_seed = seed_or_fresh(seed)
        self._lg = self.make_games(
            num_envs,
            num_players,
            rules,
            self._base_seed,
            opponents=opponents,
            learner_seat=learner_seat,
            reward_mode=reward_mode,
            illegal=illegal,
            penalty=penalty,
            max_steps=max_steps,
            cards=cards,
            **rule_options,
        )
        self._pending_seed: int | None = self._base_seed
        self._actions: np.ndarray | None = None
        super().__init__(self._lg.num_games, observation_space(self._lg.games.rules.max_rounds, cards), action_space())

    def make_games(self, *args: Any, **kwargs: Any) -> LearnerGames:
        """The learner games (arguments as :class:`LearnerGames`)."""
        return LearnerGames(*args, **kwargs)

    # ------------------------------------------------------------------ facts
    @property
    def learner_games(self) -> LearnerGames:
        """The :class:`LearnerGames` behind this VecEnv (seats, opponents, final rewards)."""
        return self._lg

    @property
    def games(self) -> BatchGames:
        """The underlying batch (state rows, masks, seeds, episode counters)."""
        return self._lg.games

    @property
    def seats(self) -> np.ndarray:
        """int64[N]: the learner's seat in each game."""
        return self._lg.seat.copy()

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
