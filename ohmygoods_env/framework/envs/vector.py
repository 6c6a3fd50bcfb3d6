"""All-seats vector env over any game of the registry: ``N`` games x every seat, Pgx style, with autoreset.

A thin numpy loop over a list of forward models (a game with a compiled batch engine may
offer a faster one of the same shape). Every call returns a :class:`VecStep`::

    import numpy as np
    import ohmygoods_env  # declares "goofspiel" (ohmygoods_env/goofspiel/)
    from ohmygoods_env.framework.envs.vector import VectorGameEnv, random_actions

    env = VectorGameEnv("goofspiel", num_games=8, num_players=3, seed=0)
    ts = env.reset()
    rng = np.random.default_rng(0)
    ts = env.step(random_actions(ts.action_mask, rng))

=======================  ============================  =================================================
``VecStep`` field        shape, dtype                  meaning
=======================  ============================  =================================================
``observation``          ``float32[N, P, obs_size]``   every seat's own observation
``action_mask``          ``int8[N, P, num_actions]``   each pending seat's legal actions; all zero
                                                       for seats that are not pending
``pending``              ``bool[N, P]``                the seats that act in the next step (every
                                                       seat still to choose in a simultaneous choice)
``rewards``              ``float32[N, P]``             final rewards of games that ended in this
                                                       call, 0 elsewhere
``terminated``           ``bool[N]``                   the game ended in this call
=======================  ============================  =================================================

``step(actions)`` takes ``int[N, P]``: the pending seats' actions (entries of other seats
are ignored; -1 is customary). Every game's actions are checked first — a wrong type
``TypeError``, an illegal action ``IllegalActionError`` naming the game and the seat — and
no game changes on an error. Autoreset: a game that ends is dealt anew in the same call
(``observation``, ``action_mask``, ``pending`` belong to the new game; ``rewards`` and
``terminated`` report the finished one). Slot ``i`` plays its ``e``-th game from the seed
:func:`episode_seed` ``(seed, i, e)``, the framework's one seed recipe (:mod:`ohmygoods_env.framework.seeds`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..checks import check_flag, optional_seed, seed_or_fresh
from ..game import ForwardModel, GameSpec, check_joint
from ..seeds import episode_seed
from .common import GameSetup

__all__ = ["VecStep", "VectorGameEnv", "episode_seed", "random_actions"]


class VecStep(NamedTuple):
    """What :meth:`VectorGameEnv.reset` and :meth:`VectorGameEnv.step` return (see the module docstring)."""

    observation: np.ndarray
    action_mask: np.ndarray
    pending: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray


def random_actions(action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action for every pending seat (-1 for the others): ``int64[N, P]``."""
    m = np.asarray(action_mask)
    noise = np.where(m > 0, rng.random(m.shape), -1.0)
    return np.where(m.any(axis=-1), noise.argmax(axis=-1), -1)


class VectorGameEnv:
    """``num_games`` games of a registered game, every seat, stepped together (see the module docstring)."""

    def __init__(
        self,
        game: str | GameSpec,
        num_games: int,
        num_players: int = 2,
        seed: int | None = None,
        *,
        autoreset: bool = True,
        reward: str = "win",
        **options: Any,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be an int >= 1, got {num_games!r}")
        self.setup = GameSetup(game, num_players, reward, options)
        self.num_games, self.num_players = int(num_games), self.setup.num_players
        self.autoreset = check_flag(autoreset, "autoreset")
        self.base_seed = seed_or_fresh(seed)
        self.episodes = np.zeros(self.num_games, np.int64)
        self.games: list[ForwardModel] = [self._deal(i) for i in range(self.num_games)]
        self.num_actions = self.games[0].num_actions
        self.obs_size = self.games[0].obs_size

    def _deal(self, i: int) -> ForwardModel:
        return self.setup.new_game(episode_seed(self.base_seed, i, int(self.episodes[i])))

    def reset(self, seed: int | None = None) -> VecStep:
        """Deal every game anew: from ``seed`` (episode counters back to 0), else each slot's next game."""
        seed = optional_seed(seed)
        if seed is not None:
            self.base_seed = seed
            self.episodes[:] = 0
        else:
            self.episodes += 1
        self.games = [self._deal(i) for i in range(self.num_games)]
        zeros = np.zeros(self.num_games, np.bool_)
        return self._timestep(np.zeros((self.num_games, self.num_players), np.float32), zeros)

    def step(self, actions: Any) -> VecStep:
        """The pending seats' actions of every game; finished games restart when ``autoreset``."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_games, self.num_players) or acts.dtype.kind not in "iu":
            raise TypeError(
                f"actions must be ints of shape ({self.num_games}, {self.num_players}), got {acts.dtype} {acts.shape}"
            )
        joints: list[dict[int, int] | None] = []
        for i, g in enumerate(self.games):
            if g.done:  # a finished game without autoreset stays finished
                joints.append(None)
                continue
            joint = {p: int(acts[i, p]) for p in g.pending_players()}
            try:
                check_joint(g, joint)
            except (TypeError, ValueError, RuntimeError) as exc:
                raise type(exc)(f"game {i}: {exc}") from None
            joints.append(joint)
        rewards = np.zeros((self.num_games, self.num_players), np.float32)
        terminated = np.zeros(self.num_games, np.bool_)
        for i, (g, joint) in enumerate(zip(self.games, joints, strict=True)):
            if joint is None:
                continue
            g.step_joint(joint)
            if g.done:
                rewards[i] = g.rewards(self.setup.reward)
                terminated[i] = True
                if self.autoreset:
                    self.episodes[i] += 1
                    self.games[i] = self._deal(i)
        return self._timestep(rewards, terminated)

    def _timestep(self, rewards: np.ndarray, terminated: np.ndarray) -> VecStep:
        n, p = self.num_games, self.num_players
        obs = np.zeros((n, p, self.games[0].obs_size), np.float32)
        mask = np.zeros((n, p, self.games[0].num_actions), np.int8)
        pending = np.zeros((n, p), np.bool_)
        for i, g in enumerate(self.games):
            for q in range(p):
                obs[i, q] = g.observe(q)
            for q in g.pending_players():
                mask[i, q] = g.legal_mask(q)
                pending[i, q] = True
        return VecStep(obs, mask, pending, rewards, terminated)
