"""Opponent league for self-play training: per-game opponents, frozen policy snapshots, batched play.

The SB3 ``VecEnv`` here, :class:`LeagueVecEnv`, is the envs' ``OhMyGoodsVecEnv`` over
:class:`LeagueGames` (``N`` games in one :class:`~ohmygoods_env.batch.BatchGames`, opponents
moved by the envs' ``play_owned`` / ``BatchPolicy``). In every game one seat is the learner; every other
seat is played by an opponent drawn from an :class:`OpponentPool` **when the game starts**
(so one batch mixes random, rule-based and self-play opponents). Opponent moves are batched
by opponent: all games waiting for the same opponent are answered in one call
(one torch forward for a frozen snapshot, one numba call for random play).

==================  ===============================================================================
pool entry          opponent
==================  ===============================================================================
``random``          uniformly random legal actions (numba kernel over the waiting games)
``greedy``          :class:`ohmygoods_agents.greedy.GreedyAgent`
``heuristic``       :class:`ohmygoods_agents.heuristic.HeuristicAgent` (given each player's information state)
``mcts``            :class:`ohmygoods_agents.mcts.MCTSAgent` with 50 simulations
``self``            a frozen snapshot of the learner (:func:`snapshot`, an
                    :class:`ohmygoods_agents.checkpoint.PolicyAgent`), sampled uniformly from the last
                    ``max_snapshots`` ones added with :meth:`OpponentPool.add_snapshot`
==================  ===============================================================================

Fixed pool entries are built by the one agent registry (:func:`ohmygoods_agents.make_agent`); every
opponent moves through the opponent protocol of :mod:`ohmygoods_env.policy`.
==================  ===============================================================================

:func:`play_games` is the same machinery without a learner: it plays a batch of games
between fixed agents to the end (used for evaluation).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from ohmygoods_agents import make_agent
from ohmygoods_agents.checkpoint import PolicyAgent
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from ohmygoods_env.batch import BatchGames
from ohmygoods_env.envs.gym_env import LearnerGames
from ohmygoods_env.envs.sb3 import OhMyGoodsVecEnv
from ohmygoods_env.policy import BatchPolicy, RandomAgent, play_owned

POOL_KINDS: tuple[str, ...] = ("random", "greedy", "heuristic", "mcts", "self")
#: constructor arguments of pool entries built by name (the league's MCTS is a small budget)
POOL_AGENT_KWARGS: dict[str, dict[str, Any]] = {"mcts": {"sims": 50}}


# ===================================================================== agents


def snapshot(policy: Any, deterministic: bool = False, seed: int = 0, name: str = "self") -> PolicyAgent:
    """A frozen copy of a MaskablePPO actor as the agents' :class:`~ohmygoods_agents.checkpoint.PolicyAgent`
    (one ``torch.no_grad`` forward per batch; independent of later training)."""
    return PolicyAgent.from_sb3_policy(policy, deterministic=deterministic, seed=seed, name=name)


def play_games(
    agents: Sequence[Any], num_games: int, num_players: int = 2, rules: str = "omg2", seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``num_games`` games between ``agents`` (one per seat), rotating the seats game by game.

    Agent ``k`` sits in seat ``(k + i) % P`` of game ``i``. Returns ``(rewards float32[G, P],
    seat_of int64[G, P])``: the ``win`` rewards by seat and the seat of each agent per game.
    """
    if len(agents) != num_players:
        raise ValueError(f"need {num_players} agents, got {len(agents)}")
    games = BatchGames(num_games, num_players, rules, seed, illegal="raise", reward_mode="win")
    g = np.arange(num_games)[:, None]
    seat_of = (np.arange(num_players)[None, :] + g) % num_players
    owner = np.zeros((num_games, num_players), np.int64)
    owner[g, seat_of] = np.arange(num_players)[None, :]
    rows = np.arange(num_games, dtype=np.int64)
    policies = [BatchPolicy(a) for a in agents]
    rewards = play_owned(games, rows, owner, policies.__getitem__)  # no learner seat: to the end
    return rewards, seat_of


# ===================================================================== pool


class OpponentPool:
    """Weighted opponent kinds plus a rolling list of frozen learner snapshots.

    ``spec`` is ``"random,heuristic,self"`` (equal weights) or ``"random:0.2,heuristic:0.5,self:0.3"``.
    Until the first snapshot is added, ``self`` games go to the other kinds.
    """

    def __init__(self, spec: str | Iterable[str] = "random,heuristic,self", max_snapshots: int = 5, seed: int = 0):
        items = spec.split(",") if isinstance(spec, str) else list(spec)
        self.kinds: list[str] = []
        weights: list[float] = []
        for item in items:
            item = item.strip()
            if not item:
                continue
            name, _, w = item.partition(":")
            if name not in POOL_KINDS:
                raise ValueError(f"unknown opponent {name!r}: expected some of {list(POOL_KINDS)}")
            self.kinds.append(name)
            weights.append(float(w) if w else 1.0)
        if not self.kinds:
            raise ValueError("the opponent pool is empty")
        self.weights = np.asarray(weights) / np.sum(weights)
        self.max_snapshots = int(max_snapshots)
        self.rng = np.random.default_rng(seed)
        # fixed agents: index 0 is reserved for the learner
        self.agents: list[Any] = [None]
        self.kind_agent: dict[str, int] = {}
        for name in self.kinds:
            if name != "self":
                self.kind_agent[name] = len(self.agents)
                self.agents.append(make_agent(name, seed=seed, **POOL_AGENT_KWARGS.get(name, {})))
        self.snapshots: list[int] = []

    def add_snapshot(self, policy: Any) -> None:
        """Freeze ``policy`` (a MaskablePPO policy) into the pool; the oldest beyond ``max_snapshots`` retire."""
        agent = snapshot(
            policy, deterministic=False, seed=int(self.rng.integers(1 << 31)), name=f"self#{len(self.agents)}"
        )
        if len(self.snapshots) >= self.max_snapshots:
            old = self.snapshots.pop(0)
            self.agents[old] = agent  # games that still hold the old index now meet the new snapshot
            self.snapshots.append(old)
        else:
            self.snapshots.append(len(self.agents))
            self.agents.append(agent)

    def sample(self, n: int) -> np.ndarray:
        """``n`` agent indices (never 0) drawn by kind weights."""
        w = self.weights.copy()
        if not self.snapshots and "self" in self.kinds:
            w[self.kinds.index("self")] = 0.0
            if w.sum() == 0:  # only 'self' and no snapshot yet: random play until the first one
                if "random" not in self.kind_agent:
                    self.kind_agent["random"] = len(self.agents)
                    self.agents.append(RandomAgent(int(self.rng.integers(1 << 31))))
                return np.full(n, self.kind_agent["random"], np.int64)
            w /= w.sum()
        kinds = self.rng.choice(len(self.kinds), size=n, p=w)
        out = np.empty(n, np.int64)
        for j, k in enumerate(kinds):
            name = self.kinds[k]
            out[j] = self.snapshots[self.rng.integers(len(self.snapshots))] if name == "self" else self.kind_agent[name]
        return out

    def kind_of(self, index: int) -> str:
        return "self" if index in self.snapshots else self.agents[index].name


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
    Rewards are the learner's final reward (``reward_mode``) times ``reward_scale``. Each
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
        reward_mode: str = "win",
        reward_scale: float = 1.0,
        learner_seat: int | str = "random",
        seed: int = 0,
    ) -> None:
        self.pool = pool
        self.reward_scale = float(reward_scale)
        super().__init__(
            num_envs,
            num_players,
            rules,
            learner_seat=learner_seat,
            reward=reward_mode,
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
    "POOL_KINDS",
    "LeagueGames",
    "LeagueVecEnv",
    "OpponentPool",
    "play_games",
    "snapshot",
]
