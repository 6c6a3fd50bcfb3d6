"""Single-agent Gymnasium env: the learner plays one seat, opponent agents play the others.

Also home of :class:`LearnerGames`, which the batched adapters (:mod:`.vector`, :mod:`.sb3`)
share: a :class:`~ohmygoods_env.batch.BatchGames` in which one seat per game is the learner
and the opponents' moves are stepped inside the batch through the opponent protocol of
:mod:`ohmygoods_env.policy` (:class:`~ohmygoods_env.policy.BatchPolicy`,
:func:`~ohmygoods_env.policy.play_owned`).

Opponents
---------
``opponents`` is one opponent for every other seat, or a sequence of ``num_players - 1``
opponents for the seats after the learner's (learner + 1, learner + 2, ... modulo the player
count). An opponent is

* an agent name or spec: ``"heuristic"``, ``"mcts"``, ``"ppo"`` (a shipped agent),
  ``"ppo:PATH"`` — built by :func:`ohmygoods_env.policy.make_agent` from the registry that
  the ``agents`` package fills through the ``ohmygoods.agents`` entry points;
* an agent object (:class:`~ohmygoods_env.policy.Agent` protocol: ``act`` / ``act_batch``),
  or a plain callable ``f(observation, mask) -> int``;
* ``None``: random play.

Agents with ``needs_info_state = True`` (heuristic, greedy, MCTS) are given the redacted
information state of the seat they play, never the true state.

Spaces and episode
------------------
=====================  =======================================================================
observation            ``Box(0, obs_high(), (OBS_DIM,), float32)`` from the learner's seat
                       (:mod:`ohmygoods_env.layout`, ``OBS_BLOCKS``)
action                 ``Discrete(N_ACTIONS)`` (:mod:`ohmygoods_env.actions`)
``action_masks()``     ``bool[N_ACTIONS]`` legal actions now (for sb3-contrib ``MaskablePPO``)
``info``               ``action_mask`` (int8), ``seat``, ``episode`` (games started since the
                       last seeded reset, from 0: an id that reveals nothing of the deal); at the end
                       ``rewards`` (every seat's final reward) and ``illegal_action``
reward                 the learner's final reward when the game ends (``reward_mode``), else 0
illegal action         ``illegal="penalty"`` (default for the env adapters): the game ends,
                       the offender gets ``penalty`` (-1), the others ``-penalty / (P - 1)``;
                       ``illegal="raise"``: ``IllegalActionError``, nothing changes
not an action          ``step("3")``, ``step(None)``, ``step(2**70)``: ``TypeError`` /
                       ``ValueError`` naming the expected int range, nothing changes
=====================  =======================================================================

The penalty default lets unmasked learners (and ``gymnasium.utils.env_checker.check_env``,
which steps with unmasked samples of the action space) run; masked learners never see it.
Opponents with a ``seed(int)`` method are reseeded on ``reset(seed=...)``.

Each :meth:`OhMyGoodsEnv.reset` draws a game seed from the env's ``np_random`` (or takes
``options["game_seed"]``; seeds are ints in ``0 <= seed < 2**64``); ``np_random`` of a
never-seeded env starts from fresh entropy (Gymnasium's contract). The learner's seat is
``learner_seat`` or, with ``"random"``, a seat derived from the game seed. The built-in
random opponent draws from an RNG started from the game seed too, so a game depends only on
its seed and the learner's actions. The game seed is never returned: it would rebuild the
hidden hands and the deck order.

The env pickles and deep-copies (opponents included); a copy plays on exactly like the
original.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from numba import njit

from .. import _jit
from .. import batch as _batch
from .. import layout as L
from .. import spaces as _spaces
from ..batch import BatchGames, opponent_rng_of_seed, seat_of_seed
from ..cards import CardSet
from ..checks import check_seed, offset_seed, optional_seed
from ..policy import BatchPolicy, RandomAgent, play_owned, resolve_agent
from ..rules import DEFAULT_MAX_ROUNDS, RuleSet

ENV_ID_GYM = f"ohmygoods/OhMyGoods-v{L.LAYOUT_VERSION}"
#: earlier ids of this env (their layouts are gone); making one fails with a message naming ENV_ID_GYM
OLD_ENV_IDS_GYM: tuple[str, ...] = tuple(f"ohmygoods/OhMyGoods-v{v}" for v in range(L.LAYOUT_VERSION))


def obs_high(max_rounds: int = DEFAULT_MAX_ROUNDS, cards: CardSet | None = None) -> float:
    """The largest entry of :func:`ohmygoods_env.spaces.observation_high` under these rules and cards."""
    return float(_spaces.observation_high(cards, RuleSet(max_rounds=max_rounds)).max())


def observation_space(max_rounds: int = DEFAULT_MAX_ROUNDS, cards: CardSet | None = None) -> gym.spaces.Box:
    """The single-game observation space: :func:`ohmygoods_env.spaces.observation_space`."""
    return _spaces.observation_space(cards, RuleSet(max_rounds=max_rounds))


def action_space() -> gym.spaces.Discrete:
    return gym.spaces.Discrete(L.N_ACTIONS)


# ===================================================================== opponents

#: the random opponent is the one random agent of :mod:`ohmygoods_env.policy` (kept as a name here)
RandomOpponent = RandomAgent


def action_id(action: Any) -> int:
    """``action`` as an action id, or a ``TypeError`` / ``ValueError`` naming what was expected.

    Accepts a Python or numpy integer (or a one-element integer array); refuses bools,
    strings, floats, ``None`` and ids outside ``0..N_ACTIONS - 1``.
    """
    a = action
    if isinstance(a, np.ndarray) and a.size == 1 and np.issubdtype(a.dtype, np.integer):
        a = a.reshape(-1)[0]
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise TypeError(
            f"an action must be an int action id in 0..{L.N_ACTIONS - 1} (see ohmygoods_env.actions), "
            f"got {type(action).__name__} {action!r}"
        )
    if not 0 <= int(a) < L.N_ACTIONS:
        raise ValueError(f"action {int(a)} is out of range: expected an int action id in 0..{L.N_ACTIONS - 1}")
    return int(a)


def action_ids(actions: Any, n: int) -> np.ndarray:
    """``actions`` as ``int64[n]`` action ids; else ``TypeError`` / ``ValueError`` naming the first bad row, value."""
    try:
        a = np.asarray(actions)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"actions must be {n} int action ids in 0..{L.N_ACTIONS - 1}, got {actions!r}") from exc
    flat = a.reshape(-1)
    if flat.dtype.kind in "iu":
        bad = np.flatnonzero((flat < 0) | (flat >= L.N_ACTIONS))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"row {i}: action {int(flat[i])} is out of range: expected an int action id in 0..{L.N_ACTIONS - 1}"
            )
    else:
        for i, x in enumerate(flat.tolist() if flat.dtype != object else flat):
            try:
                action_id(x)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"row {i}: {exc}") from None
    if a.size != n:
        raise ValueError(f"expected {n} actions (one per env), got shape {a.shape}")
    return flat.astype(np.int64)


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


# ===================================================================== learner batch


class LearnerGames:
    """N games; in each, one seat is the learner and the other seats are opponent policies.

    After every learner step the opponents move, batched over the games where they are
    to move, until every game waits for its learner or has ended. Rewards are the
    learner's (``float32[N]``). With only built-in :class:`~ohmygoods_env.policy.RandomAgent` opponents the
    whole opponent phase is one numba call (RNG words per game in ``opponent_rng``).

    Public hooks for subclasses (the training league draws opponents per game):
    :meth:`assign_opponents` fills ``owner`` for new games, :meth:`policy_of` maps an owner
    index to a :class:`~ohmygoods_env.policy.BatchPolicy`, :meth:`all_random` enables the
    one-kernel path.
    """

    def __init__(
        self,
        num_games: int,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        seed: int = 0,
        *,
        opponents: Any = None,
        learner_seat: int | str = 0,
        reward_mode: str = "win",
        illegal: str = "raise",
        penalty: float = -1.0,
        max_steps: int | None = None,
        cards: CardSet | None = None,
        **rule_options: Any,
    ) -> None:
        self.games = BatchGames(
            num_games,
            num_players,
            rules,
            seed,
            illegal=illegal,
            penalty=penalty,
            reward_mode=reward_mode,
            max_steps=max_steps,
            cards=cards,
            **rule_options,
        )
        P = self.games.num_players
        if learner_seat == "random":
            self._fixed_seat = -1
        elif isinstance(learner_seat, (int, np.integer)) and not isinstance(learner_seat, bool):
            if not 0 <= int(learner_seat) < P:
                raise ValueError(f"learner_seat must be in 0..{P - 1} or 'random', got {learner_seat}")
            self._fixed_seat = int(learner_seat)
        else:
            raise ValueError(f"learner_seat must be an int seat or 'random', got {learner_seat!r}")
        self.opponents = _opponent_list(opponents, P)
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


# ===================================================================== the env


class OhMyGoodsEnv(gym.Env):
    """Oh my Goods! for one learner against opponent policies (see the module docstring).

    >>> env = OhMyGoodsEnv(num_players=2)
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "svg"], "render_fps": 4}

    def __init__(
        self,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        opponents: Any = None,
        learner_seat: int | str = 0,
        reward_mode: str = "win",
        illegal: str = "penalty",
        penalty: float = -1.0,
        max_steps: int | None = None,
        render_mode: str | None = None,
        cards: CardSet | None = None,
        **rule_options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self._lg = LearnerGames(
            1,
            num_players,
            rules,
            0,
            opponents=opponents,
            learner_seat=learner_seat,
            reward_mode=reward_mode,
            illegal=illegal,
            penalty=penalty,
            max_steps=max_steps,
            cards=cards,
            **rule_options,
        )
        self.observation_space = observation_space(self._lg.games.rules.max_rounds, cards)
        self.action_space = action_space()
        self._row = np.zeros(1, np.int64)
        self._needs_reset = True
        self._episode = -1  # reset() makes it 0 for the first game

    @property
    def games(self) -> BatchGames:
        """The underlying one-game batch (state row, masks, seeds)."""
        return self._lg.games

    @property
    def seat(self) -> int:
        """The learner's seat in the current game."""
        return int(self._lg.seat[0])

    @property
    def opponents(self) -> list[Any]:
        return self._lg.opponents

    def action_masks(self) -> np.ndarray:
        """bool[N_ACTIONS]: the learner's legal actions now."""
        return self._lg.games.masks(copy=False)[0].astype(np.bool_)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=optional_seed(seed))
        if options and "game_seed" in options:
            game_seed = check_seed(options["game_seed"], 'options["game_seed"]')
        else:
            game_seed = int(self.np_random.integers(0, 2**63 - 1))
        if seed is not None:
            unique = {id(o): o for o in self._lg.opponents}
            for k, o in enumerate(unique.values()):
                if not isinstance(o, RandomAgent) and callable(getattr(o, "seed", None)):
                    o.seed(offset_seed(seed, 1 + k))
        self._lg.reset(self._row, seeds=[game_seed])
        self._episode = 0 if seed is not None else self._episode + 1
        self._needs_reset = False
        return self._lg.observe()[0], self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._needs_reset:
            raise RuntimeError("call reset() before step() (the game is over or not started)")
        a = action_id(action)
        r, te, tr = self._lg.step(np.array([a], np.int64))
        terminated, truncated = bool(te[0]), bool(tr[0])
        self._needs_reset = terminated or truncated
        info = self._info()
        if terminated:
            info["rewards"] = self._lg.final_rewards(self._row)[0].copy()
            info["illegal_action"] = bool(self._lg.games.penalised[0])
        return self._lg.observe()[0], float(r[0]), terminated, truncated, info

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self._lg.games.masks()[0],
            "seat": self.seat,
            "episode": self._episode,
        }

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: one status line; ``"rgb_array"``: the learner's seat view as ``uint8[H, W, 3]``
        (:func:`~ohmygoods_env.picture.render_image`, needs cairosvg; opponents' hands hidden); ``"svg"``:
        the same view as SVG text (:func:`~ohmygoods_env.picture.render_svg`)."""
        if self.render_mode == "rgb_array":
            from ..picture import render_image

            return render_image(self._lg.games.game(0), viewer=self.seat)
        if self.render_mode == "svg":
            from ..picture import render_svg

            return render_svg(self._lg.games.game(0), viewer=self.seat)
        if self.render_mode != "ansi":
            return None
        s = self._lg.games.state[0]
        if int(s[L.F_DEC]) == L.D_OVER:
            return self._ansi_game_over(int(s[L.F_ROUND]))
        dec = L.DECISION_NAMES[int(s[L.F_DEC])]
        return (
            f"round {int(s[L.F_ROUND])}, {L.PHASE_NAMES[int(s[L.F_PH])]}: "
            f"player {int(s[L.F_CUR])} to decide '{dec}' (learner is seat {self.seat})"
        )

    def _ansi_game_over(self, round_: int) -> str:
        """The ansi line of a finished game: every seat's score (R8.3) and the winners."""
        game = self._lg.games.game(0)
        scores = ", ".join(f"seat {p} {score} ({coins} coins)" for p, (score, coins) in enumerate(game.scores()))
        won = " and ".join(f"seat {p}" for p in game.winners())
        return f"round {round_}, game over: {scores}; won by {won} (learner is seat {self.seat})"


_jit.register(globals(), _batch, L)

__all__: Sequence[str] = (
    "ENV_ID_GYM",
    "OLD_ENV_IDS_GYM",
    "LearnerGames",
    "OhMyGoodsEnv",
    "RandomOpponent",
    "action_id",
    "action_ids",
    "action_space",
    "obs_high",
    "observation_space",
)
