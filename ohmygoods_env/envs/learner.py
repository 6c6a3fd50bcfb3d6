"""The single-learner core: :class:`LearnerConfig` and :class:`LearnerGames`.

The Gymnasium env (:mod:`.gym_env`), the Gymnasium vector env (:mod:`.vector`), the SB3
``VecEnv`` (:mod:`.sb3`) and the training league all play games in which one seat is the
learner and opponent policies play the others. They build one frozen :class:`LearnerConfig`
(:meth:`LearnerConfig.of` turns their arguments into it) and hand it to :class:`LearnerGames`:
a :class:`~ohmygoods_env.batch.BatchGames` whose opponent moves are stepped inside the batch
through the opponent protocol of :mod:`ohmygoods_env.policy`
(:class:`~ohmygoods_env.policy.BatchPolicy`, :func:`~ohmygoods_env.policy.play_owned`).

Opponents
---------
``opponents`` is one opponent for every other seat, or a sequence of ``num_players - 1``
opponents for the seats after the learner's (learner + 1, learner + 2, ... modulo the player
count). An opponent is

* an agent name or spec: ``"heuristic"``, ``"mcts"``, ``"ppo"`` (a shipped agent),
  ``"ppo:PATH"`` — built by :func:`ohmygoods_env.policy.make_agent` from the framework's agent
  registry, which the ``agents`` package fills through the ``ohmygoods.game_agents`` entry points;
* an agent object (:class:`~ohmygoods_env.policy.Agent` protocol: ``act`` / ``act_batch``),
  or a plain callable ``f(observation, mask) -> int``;
* ``None``: random play.

Agents with ``needs_info_state = True`` (heuristic, greedy, MCTS) are given the redacted
information state of the seat they play, never the true state.

One spelling per option: the final reward is ``reward`` in every env (PettingZoo, Gymnasium,
SB3, batched). ``reward_mode=`` still works in the learner envs, with a ``DeprecationWarning``
that names ``reward``.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from numba import njit

from .. import batch as _batch
from .. import layout as L
from ..batch import BatchGames, opponent_rng_of_seed, seat_of_seed
from ..cards import CardSet
from ..framework import jit as _jit
from ..policy import BatchPolicy, RandomAgent, play_owned, resolve_agent
from ..rules import RuleSet
from .common import check_reward, observation_space

__all__ = ["DEPRECATED_OPTIONS", "LearnerConfig", "LearnerGames", "LearnerViews"]

#: old option names of the learner envs -> the one spelling (accepted with a ``DeprecationWarning``)
DEPRECATED_OPTIONS: dict[str, str] = {"reward_mode": "reward"}


@dataclasses.dataclass(frozen=True)
class LearnerConfig:
    """What a learner env plays: the game, the learner's seat, the opponents, rewards and illegal moves.

    One frozen value that every learner adapter builds once and forwards to
    :class:`LearnerGames`. Build it directly, or with :meth:`of` from an adapter's arguments
    (fields in this order or by name, rule options, deprecated spellings); :meth:`replace`
    returns a changed copy.
    """

    num_players: int = 2
    """Seats per game (1-4); the learner plays one, opponents the others (1: a solo game)."""
    rules: str | RuleSet = "omg2"
    """Rule set name (``"omg2"``, ``"royal"``, ...) or a :class:`~ohmygoods_env.rules.RuleSet`."""
    opponents: Any = None
    """One opponent for every other seat, or one per seat after the learner's (module docstring)."""
    learner_seat: int | str = 0
    """The learner's seat, or ``"random"``: a seat derived from each game's seed."""
    reward: str = "win"
    """The final reward: ``"win"`` (+1/-1/0), ``"score"`` or ``"margin"`` (``engine.REWARD_MODES``)."""
    illegal: str = "penalty"
    """``"penalty"``: an illegal action ends the game with ``penalty``; ``"raise"``: ``IllegalActionError``."""
    penalty: float = -1.0
    """The offender's reward under ``illegal="penalty"`` (the others get ``-penalty / (P - 1)``)."""
    max_steps: int | None = None
    """Cut (truncate) a game after this many decisions; ``None``: never."""
    cards: CardSet | None = None
    """The card tables (``None``: the game's own)."""
    rule_options: tuple[tuple[str, Any], ...] = ()
    """Further rule options (``max_rounds``, ``auto_forced``, variants), as sorted ``(name, value)`` pairs."""

    def __post_init__(self) -> None:
        check_reward(self.reward)
        seat = self.learner_seat
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))):
            raise ValueError(f"learner_seat must be an int seat or 'random', got {seat!r}")
        if isinstance(self.opponents, list):
            object.__setattr__(self, "opponents", tuple(self.opponents))
        object.__setattr__(self, "rule_options", _option_pairs(self.rule_options))

    @classmethod
    def of(cls, *args: Any, config: LearnerConfig | None = None, **options: Any) -> LearnerConfig:
        """The config an adapter is given: ``config`` (or a config as the first positional argument),
        changed by the fields in ``args`` (in field order) and in ``options`` (by name); any other
        name in ``options`` is a rule option. ``reward_mode=`` is read as ``reward=`` with a
        ``DeprecationWarning``."""
        if args and isinstance(args[0], LearnerConfig):
            if config is not None:
                raise TypeError("give the LearnerConfig once: positionally or as config=, not both")
            config, args = args[0], args[1:]
        if config is not None and not isinstance(config, LearnerConfig):
            raise TypeError(f"config must be a LearnerConfig, got {type(config).__name__} {config!r}")
        names = [f.name for f in dataclasses.fields(cls) if f.name != "rule_options"]
        if len(args) > len(names):
            raise TypeError(f"at most {len(names)} positional options ({', '.join(names)}), got {len(args)}")
        given = dict(zip(names, args, strict=False))
        for name, value in _renamed(options, stacklevel=4).items():
            if name in given:
                raise TypeError(f"{name} given twice (positionally and by name)")
            given[name] = value
        base = cls() if config is None else config
        return base.replace(**given) if given else base

    def replace(self, **options: Any) -> LearnerConfig:
        """A copy with these fields changed and these rule options added (``rule_options=`` replaces them
        all); ``reward_mode=`` is read as ``reward=`` with a ``DeprecationWarning``."""
        options = _renamed(options, stacklevel=3)
        names = {f.name for f in dataclasses.fields(self)}
        fields = {k: v for k, v in options.items() if k in names}
        extra = {k: v for k, v in options.items() if k not in names}
        rule_options = dict(_option_pairs(fields.pop("rule_options", self.rule_options)))
        return dataclasses.replace(self, **fields, rule_options={**rule_options, **extra})


def _option_pairs(options: Any) -> tuple[tuple[str, Any], ...]:
    """Rule options (a mapping or ``(name, value)`` pairs) as pairs sorted by name; a ``TypeError`` otherwise."""
    try:
        pairs = [(k, v) for k, v in (options.items() if isinstance(options, Mapping) else options)]
    except (TypeError, ValueError):
        pairs = [(None, None)]
    if not all(isinstance(k, str) for k, _ in pairs):
        raise TypeError(f"rule_options must map option names (str) to values, got {options!r}")
    return tuple(sorted(pairs, key=lambda kv: kv[0]))


def _renamed(options: dict[str, Any], stacklevel: int) -> dict[str, Any]:
    """``options`` with deprecated names replaced by the one spelling (a ``DeprecationWarning`` each)."""
    out = dict(options)
    for old, new in DEPRECATED_OPTIONS.items():
        if old not in out:
            continue
        if new in out:
            raise TypeError(f"give {new}= only: {old}= is its deprecated spelling (got both)")
        warnings.warn(
            f"{old}= is deprecated: use {new}= (one spelling in every env of ohmygoods_env.envs)",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        out[new] = out.pop(old)
    return out


def _opponent_list(opponents: Any, num_players: int) -> list[Any]:
    """One opponent object per seat after the learner's (names and specs built by the registry)."""
    if opponents is None:
        return [RandomAgent(0)] * (num_players - 1)
    if isinstance(opponents, (list, tuple)):
        if len(opponents) != num_players - 1:
            raise ValueError(
                f"opponents: a list needs one opponent per other seat, {num_players - 1} at num_players="
                f"{num_players}, got {len(opponents)} ({list(opponents)!r}); give num_players={len(opponents) + 1}, "
                f"or one opponent (not a list) for every other seat"
            )
        return [resolve_agent(o, seed=k) for k, o in enumerate(opponents, start=1)]
    if num_players == 1:
        return []
    one = resolve_agent(opponents, seed=1)
    return [one] * (num_players - 1)


@njit(cache=True)
def _seats_and_rngs(seeds, rows, fixed, num_players, seat, rng):
    for j in range(rows.shape[0]):
        i = rows[j]
        seat[i] = fixed if fixed >= 0 else seat_of_seed(seeds[i], num_players)
        rng[i] = opponent_rng_of_seed(seeds[i])


class LearnerGames:
    """``num_games`` games played as ``config`` says; in each, one seat is the learner, opponent policies the others.

    After every learner step the opponents move, batched over the games where they are
    to move, until every game waits for its learner or has ended. Rewards are the
    learner's (``float32[N]``). With only built-in :class:`~ohmygoods_env.policy.RandomAgent` opponents the
    whole opponent phase is one numba call (RNG words per game in ``opponent_rng``).
    ``seed`` is the base seed of the games' episode seeds (:func:`~ohmygoods_env.batch.episode_seed`).

    Public hooks for subclasses (the training league draws opponents per game):
    :meth:`assign_opponents` fills ``owner`` for new games, :meth:`policy_of` maps an owner
    index to a :class:`~ohmygoods_env.policy.BatchPolicy`, :meth:`all_random` enables the
    one-kernel path.
    """

    def __init__(self, num_games: int, config: LearnerConfig | None = None, seed: int = 0) -> None:
        if config is None:
            config = LearnerConfig()
        if not isinstance(config, LearnerConfig):
            raise TypeError(
                f"config must be a LearnerConfig (e.g. LearnerConfig(num_players=3)), got {type(config).__name__} "
                f"{config!r}"
            )
        self.config = config
        c = config
        self.games = BatchGames(
            num_games, c.num_players, c.rules, seed, illegal=c.illegal, penalty=c.penalty,
            reward_mode=c.reward, max_steps=c.max_steps, cards=c.cards, **dict(c.rule_options),
        )  # fmt: skip
        P = self.games.num_players
        if c.learner_seat == "random":
            self._fixed_seat = -1
        elif not 0 <= int(c.learner_seat) < P:
            raise ValueError(f"learner_seat must be in 0..{P - 1} or 'random', got {c.learner_seat}")
        else:
            self._fixed_seat = int(c.learner_seat)
        self.opponents = _opponent_list(c.opponents, P)
        self._fast_random = self.all_random()
        # one BatchPolicy per distinct opponent object; _owner_of_rel[k]: its index for the seat k
        # places after the learner (-1 at k = 0: the learner itself)
        index: dict[int, int] = {}
        self._policies: list[BatchPolicy] = []
        self._owner_of_rel = np.full(P, -1, np.int64)
        for k, o in enumerate(self.opponents, start=1):
            if id(o) not in index:
                index[id(o)] = len(self._policies)
                self._policies.append(BatchPolicy(o))
            self._owner_of_rel[k] = index[id(o)]
        n = self.games.num_games
        self.seat = np.zeros(n, np.int64)
        #: int64[N, P]: who plays each seat of each game: a policy index, -1 for the learner
        self.owner = np.full((n, P), -1, np.int64)
        self.opponent_rng = np.zeros(n, np.uint64)
        self._all = np.arange(n, dtype=np.int64)
        self._last_rewards = np.zeros((n, P), np.float32)
        self._begin(self._all)

    # ------------------------------------------------------------------ facts
    @property
    def num_games(self) -> int:
        return self.games.num_games

    @property
    def num_players(self) -> int:
        return self.games.num_players

    @property
    def done(self) -> np.ndarray:
        return self.games.done

    def observation_space(self) -> spaces.Box:
        """One game's observation space under these rules and cards (:func:`.common.observation_space`)."""
        return observation_space(self.games.rules.max_rounds, self.config.cards)

    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """float32[len(rows), OBS_DIM] from the learner's seat of each game."""
        if rows is None:
            return self.games.observe(players=self.seat)
        r = np.asarray(rows, np.int64)
        return self.games.observe(players=self.seat[r], rows=r)

    def masks(self) -> np.ndarray:
        """int8[N, N_ACTIONS]: the learner's legal actions (all 0 where the game is done)."""
        return self.games.masks()

    def action_masks(self) -> np.ndarray:
        """bool[N, N_ACTIONS]: the learner's legal actions (all False where the game is done)."""
        return self.games.masks(copy=False).astype(np.bool_)

    def final_rewards(self, rows: np.ndarray) -> np.ndarray:
        """float32[len(rows), P]: every seat's final reward of finished games (0 if running)."""
        return self._last_rewards[rows]

    # ------------------------------------------------------------------ acting
    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The learners' actions, then the opponents' moves; ``(reward[N], terminated, truncated)``."""
        rewards, _, _ = self.games.step(actions)
        self._last_rewards = rewards
        self._play_opponents(self._all)
        r = self._last_rewards[self._all, self.seat]
        return r.astype(np.float32), self.games.terminated.copy(), self.games.truncated.copy()

    def reset(self, rows: np.ndarray | None = None, seeds: np.ndarray | None = None) -> np.ndarray:
        """Start new games in ``rows`` (default: the done ones): next episode seeds or ``seeds``."""
        if rows is None:
            r = np.flatnonzero(self.games.done).astype(np.int64)
        else:
            r = np.asarray(rows, np.int64)
        if r.size == 0:
            return r
        if seeds is None:
            mask = np.zeros(self.num_games, np.bool_)
            mask[r] = True
            self.games.reset(mask)
        else:
            self.games.start(r, seeds)  # checked there
        self._begin(r)
        return r

    def reseed(self, seed: int) -> None:
        """New base seed; every slot restarts at episode 0."""
        self.games.reset(seed=seed)
        self._begin(self._all)

    def _begin(self, rows: np.ndarray) -> None:
        """Set seats and opponent RNGs of freshly started games; play until their learner moves."""
        begun = rows
        for _ in range(1000):
            _seats_and_rngs(self.games.seeds, rows, self._fixed_seat, self.num_players, self.seat, self.opponent_rng)
            self.assign_opponents(rows)
            self._play_opponents(rows)
            # a game that ends before its learner ever moves is replaced by the slot's next game
            ended = rows[self.games.done[rows]]
            if ended.size == 0:
                break
            mask = np.zeros(self.num_games, np.bool_)
            mask[ended] = True
            self.games.reset(mask)
            rows = ended
        self._last_rewards[begun] = 0.0

    def all_random(self) -> bool:
        """Only built-in random opponents: the whole opponent phase is one kernel call."""
        return all(isinstance(o, RandomAgent) for o in self.opponents)

    def assign_opponents(self, rows: np.ndarray) -> None:
        """Fill ``owner`` for freshly started games (here: the fixed opponents, by seat after the learner)."""
        P = self.num_players
        rel = (np.arange(P)[None, :] - self.seat[rows, None]) % P
        self.owner[rows] = self._owner_of_rel[rel]

    def policy_of(self, k: int) -> BatchPolicy:
        """The policy with owner index ``k``."""
        return self._policies[k]

    def _play_opponents(self, rows: np.ndarray) -> None:
        g = self.games
        if self._fast_random:
            # one kernel call: each game plays random opponent moves until its learner's seat
            # is to move or it ends (a no-op for games already waiting for the learner)
            r, _, _ = g.play_random(self.opponent_rng, until=self.seat, rows=rows)
            self._last_rewards += r
            return
        self._last_rewards += play_owned(g, rows, self.owner, self.policy_of)


class LearnerViews:
    """What every learner adapter shows of its :class:`LearnerGames` (``self._lg``): the games and the seats."""

    _lg: LearnerGames

    @property
    def learner_games(self) -> LearnerGames:
        """The :class:`LearnerGames` behind this env (seats, opponents, final rewards)."""
        return self._lg

    @property
    def games(self) -> BatchGames:
        """The underlying batch (state rows, masks, seeds, episode counters)."""
        return self._lg.games

    @property
    def seats(self) -> np.ndarray:
        """int64[N]: the learner's seat in each game."""
        return self._lg.seat.copy()


_jit.register(globals(), _batch, L)
