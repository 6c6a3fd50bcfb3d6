"""The SB3 loop's opponent league: per-game opponents, frozen policy snapshots, batched play.

The SB3 ``VecEnv`` here, :class:`LeagueVecEnv`, is the envs' ``OhMyGoodsVecEnv`` over
:class:`LeagueGames` (``N`` games in one :class:`~ohmygoods_env.batch.BatchGames`, opponents
moved by the envs' ``play_owned`` / ``BatchPolicy``). In every game one seat is the learner; every other
seat is played by an opponent drawn from an :class:`OpponentPool` **when the game starts**
(so one batch mixes random, rule-based and snapshot opponents). Opponent moves are batched
by opponent: all games waiting for the same opponent are answered in one call
(one torch forward for a frozen snapshot, one numba call for random play).

The pool reads the one league spec of :mod:`ohmygoods_training.league_spec` (``snapshot``, the
baselines, ``mctsN``); ``snapshot`` entries are frozen copies of the learner (:func:`snapshot`, an
:class:`ohmygoods_agents.policy_agents.MLPAgent`), sampled uniformly from the last ``max_snapshots``
ones added with :meth:`OpponentPool.add_snapshot`. This loop trains one seat per game, so ``self``
is read as the old spelling of ``snapshot``. Matches between fixed agents are
:func:`ohmygoods_env.matches.play_games`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from ohmygoods_agents.policy_agents import MLPAgent
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from ohmygoods_env.envs.gym_env import LearnerGames
from ohmygoods_env.envs.learner import DEPRECATED_OPTIONS, _renamed
from ohmygoods_env.envs.sb3 import OhMyGoodsVecEnv
from ohmygoods_env.policy import BatchPolicy, RandomAgent

from .league_spec import SNAPSHOT, keep_snapshot, old_self_as_snapshot, opponent_agent, parse_entries

# ===================================================================== agents


def snapshot(policy: Any, deterministic: bool = False, seed: int = 0, name: str = SNAPSHOT) -> MLPAgent:
    """A frozen copy of a MaskablePPO actor as the agents' :class:`~ohmygoods_agents.policy_agents.MLPAgent`
    (one ``torch.no_grad`` forward per batch; independent of later training)."""
    return MLPAgent.from_sb3_policy(policy, deterministic=deterministic, seed=seed, name=name)


# ===================================================================== pool


class OpponentPool:
    """Weighted opponent kinds plus a rolling list of frozen learner snapshots.

    ``spec`` is a league spec (:mod:`ohmygoods_training.league_spec`) without learner seats:
    ``"random,heuristic,snapshot"`` (equal weights) or ``"random:0.2,heuristic:0.5,snapshot:0.3"``.
    Until the first snapshot is added, ``snapshot`` games go to the other kinds.
    """

    def __init__(
        self, spec: str | Iterable[str] = "random,heuristic,snapshot", max_snapshots: int = 5, seed: int = 0
    ) -> None:
        entries = old_self_as_snapshot(parse_entries(spec))
        self.kinds: list[str] = list(entries)
        self.weights = np.asarray(list(entries.values())) / sum(entries.values())
        self.max_snapshots = int(max_snapshots)
        self.rng = np.random.default_rng(seed)
        # fixed agents: index 0 is reserved for the learner
        self.agents: list[Any] = [None]
        self.kind_agent: dict[str, int] = {}
        for name in self.kinds:
            if name != SNAPSHOT:
                self.kind_agent[name] = len(self.agents)
                self.agents.append(opponent_agent(name, seed))
        self.snapshots: list[int] = []

    def add_snapshot(self, policy: Any) -> None:
        """Freeze ``policy`` (a MaskablePPO policy) into the pool; the oldest beyond ``max_snapshots`` retire."""
        agent = snapshot(
            policy, deterministic=False, seed=int(self.rng.integers(1 << 31)), name=f"{SNAPSHOT}#{len(self.agents)}"
        )
        keep_snapshot(self.agents, self.snapshots, agent, self.max_snapshots)

    def sample(self, n: int) -> np.ndarray:
        """``n`` agent indices (never 0) drawn by kind weights."""
        w = self.weights.copy()
        if not self.snapshots and SNAPSHOT in self.kinds:
            w[self.kinds.index(SNAPSHOT)] = 0.0
            if w.sum() == 0:  # only snapshots and none yet: random play until the first one
                if "random" not in self.kind_agent:
                    self.kind_agent["random"] = len(self.agents)
                    self.agents.append(RandomAgent(int(self.rng.integers(1 << 31))))
                return np.full(n, self.kind_agent["random"], np.int64)
            w /= w.sum()
        kinds = self.rng.choice(len(self.kinds), size=n, p=w)
        out = np.empty(n, np.int64)
        for j, k in enumerate(kinds):
            name = self.kinds[k]
            out[j] = (
                self.snapshots[self.rng.integers(len(self.snapshots))] if name == SNAPSHOT else self.kind_agent[name]
            )
        return out

    def kind_of(self, index: int) -> str:
        """The league entry of pool agent ``index`` (``snapshot`` for a frozen copy)."""
        if index in self.snapshots:
            return SNAPSHOT
        return next((k for k, i in self.kind_agent.items() if i == index), self.agents[index].name)


# ===================================================================== vec env


class LeagueGames(LearnerGames):
    """:class:`~ohmygoods_env.envs.gym_env.LearnerGames` whose opponents are drawn per game from
    an :class:`OpponentPool` when the game starts (owner indices are pool agent indices).

    ``last_opponent`` / ``last_seat`` keep, for each slot, the opponent index of the seat after
    the learner's and the learner's seat of the game that ended last (the next game's are
    drawn at once).
    """

    def __init__(self, *args: Any, pool: OpponentPool, **kwargs: Any) -> None:
        self.pool = pool  # set first: the base class starts the games
        super().__init__(*args, **kwargs)
        self.last_seat = np.zeros(self.num_games, np.int64)
        self.last_opponent = np.zeros(self.num_games, np.int64)

    def all_random(self) -> bool:
        return False

    def assign_opponents(self, rows: np.ndarray) -> None:
        n, P = rows.shape[0], self.num_players
        owner = self.pool.sample(n * P).reshape(n, P)
        owner[np.arange(n), self.seat[rows]] = -1
        self.owner[rows] = owner

    def policy_of(self, k: int) -> BatchPolicy:
        return BatchPolicy(self.pool.agents[k])  # snapshots may replace pool entries between calls

    def reset(self, rows: np.ndarray | None = None, seeds: np.ndarray | None = None) -> np.ndarray:
        r = np.flatnonzero(self.games.done).astype(np.int64) if rows is None else np.asarray(rows, np.int64)
        self.last_seat[r] = self.seat[r]
        self.last_opponent[r] = self.owner[r, (self.seat[r] + 1) % self.num_players]
        return super().reset(r, seeds)


class LeagueVecEnv(OhMyGoodsVecEnv):
    """SB3 ``VecEnv`` (with ``action_masks()``) of ``num_envs`` games against pool opponents.

    :class:`~ohmygoods_env.envs.sb3.OhMyGoodsVecEnv` over :class:`LeagueGames`. The learner's
    seat is drawn per game (``learner_seat="random"``, from the game's seed) or fixed.
    Rewards are the learner's final reward (``reward``, default ``"win"``, as in every env of
    ``ohmygoods_env.envs``; ``reward_mode=`` still works with a ``DeprecationWarning``) times
    ``reward_scale``. Each
    finished game's info holds, besides ``terminal_observation``, ``rewards`` (every seat)
    and ``illegal_action``: ``opponent`` (kind of the seat after the learner's) and ``win``
    (the learner's +1/0/-1 outcome by score).
    """

    def __init__(
        self,
        num_envs: int,
        pool: OpponentPool,
        num_players: int = 2,
        rules: str = "omg2",
        reward: str | None = None,
        reward_scale: float = 1.0,
        learner_seat: int | str = "random",
        seed: int = 0,
        **deprecated: Any,
    ) -> None:
        unknown = sorted(set(deprecated) - set(DEPRECATED_OPTIONS))
        if unknown:
            raise TypeError(f"LeagueVecEnv() got unexpected keyword arguments {unknown}")
        given = ({} if reward is None else {"reward": reward}) | deprecated
        reward = _renamed(given, stacklevel=3).get("reward", "win")  # reward_mode= warns; both is an error
        self.pool = pool
        self.reward_scale = float(reward_scale)
        super().__init__(
            num_envs,
            num_players,
            rules,
            learner_seat=learner_seat,
            reward=reward,
            illegal="penalty",
            seed=seed,
        )

    def make_games(self, *args: Any, **kwargs: Any) -> LeagueGames:
        return LeagueGames(*args, pool=self.pool, **kwargs)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, dones, infos = super().step_wait()
        lg = self.learner_games
        for i in np.flatnonzero(dones):
            all_r, seat = infos[i]["rewards"], int(lg.last_seat[i])
            if lg.games.reward_mode == "win":
                win = float(all_r[seat])
            else:
                win = float(np.sign(all_r[seat] - np.delete(all_r, seat).max()))
            infos[i]["opponent"] = self.pool.kind_of(int(lg.last_opponent[i]))
            infos[i]["win"] = win
        return obs, (rewards * self.reward_scale).astype(np.float32), dones, infos


__all__ = [
    "LeagueGames",
    "LeagueVecEnv",
    "OpponentPool",
    "snapshot",
]
