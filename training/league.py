"""Opponent league for self-play training: per-game opponents, frozen policy snapshots, batched play.

The SB3 ``VecEnv`` here, :class:`LeagueVecEnv`, runs ``N`` games in one
:class:`~ohmygoods_env.batch.BatchGames`. In every game one seat is the learner; every other
seat is played by an opponent drawn from an :class:`OpponentPool` **when the game starts**
(so one batch mixes random, rule-based and self-play opponents). Opponent moves are batched
by opponent: all games waiting for the same opponent are answered in one call
(one torch forward for a frozen snapshot, one numba call for random play).

==================  ===============================================================================
pool entry          opponent
==================  ===============================================================================
``random``          uniformly random legal actions (numba kernel over the waiting games)
``greedy``          :class:`agents.greedy.GreedyAgent`
``heuristic``       :class:`agents.heuristic.HeuristicAgent` (given each player's information state)
``self``            a frozen snapshot of the learner (:class:`PolicyAgent`), sampled uniformly from
                    the last ``max_snapshots`` ones added with :meth:`OpponentPool.add_snapshot`
==================  ===============================================================================

:func:`play_games` is the same machinery without a learner: it plays a batch of games
between fixed agents to the end (used for evaluation).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames
from ohmygoods_env.envs.gym_env import BatchPolicy, RandomOpponent, action_space, observation_space
from ohmygoods_env.envs.sb3 import BatchedVecEnv

POOL_KINDS: tuple[str, ...] = ("random", "greedy", "heuristic", "self")


# ===================================================================== agents


class PolicyAgent:
    """A frozen copy of a MaskablePPO actor: masked logits of a batch in one ``torch.no_grad`` forward.

    ``deterministic=True`` plays the most likely legal action, else samples from the masked
    distribution with its own generator. Copies only the actor (``mlp_extractor.policy_net``
    and ``action_net``), so a snapshot is small and independent of later training.
    """

    needs_observation = True
    needs_info_state = False

    def __init__(self, policy: Any, deterministic: bool = False, seed: int = 0, name: str = "self") -> None:
        self.name = name
        self.deterministic = bool(deterministic)
        self.features = copy.deepcopy(policy.features_extractor).cpu().eval()
        self.body = copy.deepcopy(policy.mlp_extractor.policy_net).cpu().eval()
        self.head = copy.deepcopy(policy.action_net).cpu().eval()
        self._gen = torch.Generator().manual_seed(int(seed))

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        with torch.no_grad():
            x = torch.as_tensor(np.asarray(observations, np.float32))
            out = self.head(self.body(self.features(x)))
            return out.masked_fill(~torch.as_tensor(np.asarray(masks, np.bool_)), -torch.inf)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, info_states: Any = None) -> np.ndarray:
        logits = self.logits(observations, masks)
        with torch.no_grad():
            if self.deterministic:
                return logits.argmax(dim=1).numpy().astype(np.int64)
            probs = torch.softmax(logits, dim=1)
            return torch.multinomial(probs, 1, generator=self._gen).squeeze(1).numpy().astype(np.int64)

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        return int(self.act_batch(np.asarray(observation)[None, :], np.asarray(mask)[None, :])[0])


def baseline_agent(name: str, seed: int = 0) -> Any:
    """A batched opponent for a baseline name: ``random``, ``greedy``, ``heuristic`` or ``ppo:PATH``."""
    if name == "random":
        return RandomOpponent(seed)
    if name in ("greedy", "heuristic", "mcts"):
        from agents import make_agent

        kwargs = {"sims": 50} if name == "mcts" else {}
        return make_agent(name, seed=seed, **kwargs)  # BatchPolicy passes each its information state
    if name.startswith("ppo:"):
        return load_policy_agent(name[4:], deterministic=True, seed=seed)
    raise ValueError(f"unknown baseline {name!r}: expected random, greedy, heuristic, mcts or ppo:PATH")


def load_policy_agent(path: str, deterministic: bool = True, seed: int = 0) -> PolicyAgent:
    """A :class:`PolicyAgent` from a saved MaskablePPO zip."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(path, device="cpu")
    return PolicyAgent(model.policy, deterministic=deterministic, seed=seed, name=f"ppo:{path}")


def advance(
    games: BatchGames, rows: np.ndarray, owner: np.ndarray, agents: Sequence[Any], stop_owner: int = -1
) -> np.ndarray:
    """Play ``rows`` until each has ended or waits for a seat owned by ``stop_owner``.

    ``owner[i, p]`` is the index in ``agents`` of the player of seat ``p`` in game ``i``
    (``stop_owner`` marks the learner). Returns the final rewards (``float32[N, P]``) of the
    games that ended meanwhile (0 elsewhere).
    """
    total = np.zeros((games.num_games, games.num_players), np.float32)
    while True:
        live = rows[~games.done[rows]]
        if live.size == 0:
            return total
        cur = games.state[live, L.F_CUR].astype(np.int64)
        who = owner[live, cur]
        waiting = who != stop_owner
        if not waiting.any():
            return total
        live, cur, who = live[waiting], cur[waiting], who[waiting]
        for k in np.unique(who):
            sel = live[who == k]
            r, _, _ = games.step(BatchPolicy(agents[int(k)])(games, sel), rows=sel)
            total += r


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
    rewards = advance(games, rows, owner, agents, stop_owner=-1)
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
                self.agents.append(baseline_agent(name, seed))
        self.snapshots: list[int] = []

    def add_snapshot(self, policy: Any) -> None:
        """Freeze ``policy`` (a MaskablePPO policy) into the pool; the oldest beyond ``max_snapshots`` retire."""
        agent = PolicyAgent(policy, deterministic=False, seed=int(self.rng.integers(1 << 31)))
        agent.name = f"self#{len(self.agents)}"
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
                    self.agents.append(RandomOpponent(int(self.rng.integers(1 << 31))))
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


class LeagueVecEnv(BatchedVecEnv):
    """SB3 ``VecEnv`` (with ``action_masks()``) of ``num_envs`` games against pool opponents.

    The learner's seat is drawn per game (``learner_seat="random"``) or fixed. Rewards are
    the learner's final reward (``reward_mode``) times ``reward_scale``. Each finished game's
    info holds ``terminal_observation``, ``opponent`` (kind of the seat after the learner's)
    and ``win`` (the learner's +1/0/-1 outcome by score).
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
        self.games = BatchGames(num_envs, num_players, rules, seed, illegal="penalty", reward_mode=reward_mode)
        self.P = num_players
        self.reward_scale = float(reward_scale)
        self.learner_seat = learner_seat
        self.rng = np.random.default_rng(seed + 1)
        self.seat = np.zeros(num_envs, np.int64)
        self.owner = np.zeros((num_envs, num_players), np.int64)
        self._all = np.arange(num_envs, dtype=np.int64)
        self._actions: np.ndarray | None = None
        self._rewards = np.zeros((num_envs, num_players), np.float32)
        self.render_mode = None
        super().__init__(num_envs, observation_space(self.games.rules.max_rounds), action_space())
        self._begin(self._all)

    # ------------------------------------------------------------------ games
    def _begin(self, rows: np.ndarray) -> None:
        for _ in range(1000):
            n = rows.shape[0]
            if self.learner_seat == "random":
                self.seat[rows] = self.rng.integers(self.P, size=n)
            else:
                self.seat[rows] = int(self.learner_seat)
            self.owner[rows] = self.pool.sample(n * self.P).reshape(n, self.P)
            self.owner[rows, self.seat[rows]] = 0
            self.advance(rows)
            ended = rows[self.games.done[rows]]
            if ended.size == 0:
                break
            mask = np.zeros(self.num_envs, np.bool_)
            mask[ended] = True
            self.games.reset(mask)
            rows = ended
        self._rewards[rows] = 0.0

    def advance(self, rows: np.ndarray) -> None:
        self._rewards += advance(self.games, rows, self.owner, self.pool.agents, stop_owner=0)

    def action_masks(self) -> np.ndarray:
        return self.games.masks(copy=False).astype(np.bool_)

    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        r = self._all if rows is None else rows
        return self.games.observe(players=self.seat[r], rows=r)

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        return self.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        assert self._actions is not None, "step_async() first"
        self._rewards[:] = 0.0
        r, _, _ = self.games.step(self._actions)
        self._rewards += r
        self._actions = None
        self.advance(self._all)
        done = self.games.done.copy()
        mine = self._rewards[self._all, self.seat]
        rewards = (mine * self.reward_scale).astype(np.float32)
        obs = self.observe()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        rows = np.flatnonzero(done).astype(np.int64)
        if rows.size:
            for i in rows:
                all_r = self._rewards[i]
                others = np.delete(all_r, self.seat[i])
                win = float(np.sign(all_r[self.seat[i]] - others.max()))
                if self.games.reward_mode == "win":
                    win = float(all_r[self.seat[i]])
                infos[i] = {
                    "terminal_observation": obs[i].copy(),
                    "TimeLimit.truncated": bool(self.games.truncated[i] and not self.games.terminated[i]),
                    "opponent": self.pool.kind_of(int(self.owner[i, (self.seat[i] + 1) % self.P])),
                    "win": win,
                }
            mask = np.zeros(self.num_envs, np.bool_)
            mask[rows] = True
            self.games.reset(mask)
            self._begin(rows)
            obs[rows] = self.observe(rows)
        return obs, rewards, done, infos

    def seed(self, seed: int | None = None) -> Sequence[None]:
        return [None for _ in range(self.num_envs)]


__all__ = [
    "POOL_KINDS",
    "LeagueVecEnv",
    "OpponentPool",
    "PolicyAgent",
    "advance",
    "baseline_agent",
    "load_policy_agent",
    "play_games",
]
