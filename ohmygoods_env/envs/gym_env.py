"""Single-agent Gymnasium env: the learner plays one seat, opponent policies play the others.

Also home of what the batched adapters (:mod:`.vector`, :mod:`.sb3`) share: the opponent
protocol, the built-in :class:`RandomOpponent` and :class:`LearnerGames`, a
:class:`~ohmygoods_env.batch.BatchGames` in which one seat per game is the learner and the
opponents' moves are stepped inside the batch.

Opponent protocol
-----------------
An opponent is any of

* an object with ``act(observation: float32[OBS_DIM], mask: int8[N_ACTIONS]) -> int`` and
  optionally ``act_batch(observations: float32[N, OBS_DIM], masks: int8[N, N_ACTIONS]) ->
  int array[N]`` (used when present: one call for all games where it is to move);
* a plain callable ``f(observation, mask) -> int``.

An object may set ``needs_observation = False``; it is then given an all-zero observation
instead of one computed for it. ``opponents`` is one opponent for every other seat, or a
sequence of ``num_players - 1`` opponents for the seats after the learner's
(learner + 1, learner + 2, ... modulo the player count). ``None`` means random play.

Spaces and episode
------------------
=====================  =======================================================================
observation            ``Box(0, obs_high(), (OBS_DIM,), float32)`` from the learner's seat
                       (:mod:`ohmygoods_env.layout`, ``OBS_BLOCKS``)
action                 ``Discrete(N_ACTIONS)`` (:mod:`ohmygoods_env.actions`)
``action_masks()``     ``bool[N_ACTIONS]`` legal actions now (for sb3-contrib ``MaskablePPO``)
``info``               ``action_mask`` (int8), ``seat``, ``game_seed``; at the end ``rewards``
                       (every seat's final reward) and ``illegal_action``
reward                 the learner's final reward when the game ends (``reward_mode``), else 0
illegal action         ``illegal="penalty"`` (default for the env adapters): the game ends,
                       the offender gets ``penalty`` (-1), the others ``-penalty / (P - 1)``;
                       ``illegal="raise"``: ``IllegalActionError``, nothing changes
=====================  =======================================================================

The penalty default lets unmasked learners (and ``gymnasium.utils.env_checker.check_env``,
which steps with unmasked samples of the action space) run; masked learners never see it.
Opponents with a ``seed(int)`` method are reseeded on ``reset(seed=...)``.

Each :meth:`OhMyGoodsEnv.reset` draws a game seed from the env's ``np_random`` (or takes
``options["game_seed"]``); the learner's seat is ``learner_seat`` or, with ``"random"``, a
seat derived from the game seed. The built-in random opponent draws from an RNG started
from the game seed too, so a game depends only on its seed and the learner's actions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from numba import njit

from .. import batch as _batch
from .. import layout as L
from ..batch import BatchGames, make_rng, opponent_rng_of_seed, random_actions, refresh_stale_kernels, seat_of_seed
from ..cards import B_VALUE, CardSet, default_cards
from ..rules import DEFAULT_MAX_ROUNDS, RuleSet

ENV_ID_GYM = "ohmygoods/OhMyGoods-v0"


def obs_high(max_rounds: int = DEFAULT_MAX_ROUNDS, cards: CardSet | None = None) -> float:
    """A bound no observation feature can exceed under these rules and cards.

    Features are non-negative; the largest are coin values (every deck card a good of the
    dearest kind, / 30), the round (/ 20), a hand or a market row of all cards per resource
    (/ 5) and Market-Office bonuses (at most one per slot).
    """
    C = (cards if cards is not None else default_cards()).buildings
    coins = L.N_CARDS * int(C[:, B_VALUE].max())
    return float(np.ceil(max(coins / 30.0, max_rounds / 20.0, L.N_CARDS / 5.0, L.MAX_SLOTS)))


def observation_space(max_rounds: int = DEFAULT_MAX_ROUNDS, cards: CardSet | None = None) -> gym.spaces.Box:
    """The single-game observation space: ``Box(0, obs_high(...), (OBS_DIM,), float32)``."""
    return gym.spaces.Box(low=0.0, high=obs_high(max_rounds, cards), shape=(L.OBS_DIM,), dtype=np.float32)


def action_space() -> gym.spaces.Discrete:
    return gym.spaces.Discrete(L.N_ACTIONS)


# ===================================================================== opponents


class RandomOpponent:
    """Uniformly random legal actions, drawn by a numba kernel from its own RNG words."""

    name = "random"
    needs_observation = False
    needs_info_state = False

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        self._seed = int(np.random.SeedSequence().entropy) if seed is None else int(seed)
        self._rng = make_rng(1, self._seed)

    def act(self, observation: np.ndarray | None, mask: np.ndarray, info_state: Any = None) -> int:
        return int(self.act_batch(None, np.asarray(mask)[None, :])[0])

    def act_batch(self, observations: np.ndarray | None, masks: np.ndarray, info_states: Any = None) -> np.ndarray:
        n = masks.shape[0]
        if self._rng.shape[0] < n:
            extra = make_rng(n - self._rng.shape[0], self._seed + self._rng.shape[0])
            self._rng = np.concatenate([self._rng, extra])
        return random_actions(np.ascontiguousarray(masks, np.int8), self._rng[:n])

    def __repr__(self) -> str:
        return "RandomOpponent()"


def _batch_policy(opponent: Any) -> Callable[..., np.ndarray]:
    """``(observations[n], masks[n], info_states[n] | None) -> actions[n]`` for any opponent.

    Opponents with ``needs_info_state = True`` (heuristic, greedy, MCTS) get the redacted
    information state of the seat they play (``infostate.redact``: no hidden information).
    """
    if hasattr(opponent, "act_batch"):
        if getattr(opponent, "needs_info_state", False):
            return lambda obs, masks, infos=None: np.asarray(opponent.act_batch(obs, masks, infos), np.int64).reshape(
                -1
            )
        return lambda obs, masks, infos=None: np.asarray(opponent.act_batch(obs, masks), np.int64).reshape(-1)
    act = opponent.act if hasattr(opponent, "act") else opponent
    if not callable(act):
        raise TypeError(f"an opponent needs act(observation, mask), act_batch(...) or to be callable: {opponent!r}")
    if getattr(opponent, "needs_info_state", False):
        return lambda obs, masks, infos=None: np.fromiter(
            (int(act(o, m, i)) for o, m, i in zip(obs, masks, infos, strict=True)), np.int64, masks.shape[0]
        )
    return lambda obs, masks, infos=None: np.fromiter(
        (int(act(o, m)) for o, m in zip(obs, masks, strict=True)), np.int64, masks.shape[0]
    )


def _info_states(state: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Redacted information states of the acting seat of each of ``rows``."""
    from ..infostate import redact

    out = np.zeros((rows.shape[0], state.shape[1]), np.int32)
    for j, i in enumerate(rows):
        redact(state[i], int(state[i, L.F_CUR]), out[j])
    return out


_ZERO_OBS = np.zeros((1, L.OBS_DIM), np.float32)
_ZERO_OBS.flags.writeable = False


class BatchPolicy:
    """Any opponent as a policy over games of a :class:`~ohmygoods_env.batch.BatchGames`.

    An opponent is an object with ``act_batch(observations, masks[, info_states])`` or
    ``act(observation, mask[, info_state])``, or a plain callable ``(observation, mask)``.
    ``policy(games, rows)`` returns one action per game in ``rows``, each for the seat to act
    there, from that seat's observation (zeros when ``needs_observation`` is False), its mask
    and, when ``needs_info_state`` is True, its redacted information state — never the true
    state. This is the one place where env adapters and training code ask opponents to move.
    """

    def __init__(self, opponent: Any) -> None:
        self.opponent = opponent
        self.needs_observation = bool(getattr(opponent, "needs_observation", True))
        self.needs_info_state = bool(getattr(opponent, "needs_info_state", False))
        self._act = _batch_policy(opponent)

    def __call__(self, games: BatchGames, rows: np.ndarray) -> np.ndarray:
        if self.needs_observation:
            obs = games.observe(rows=rows)
        else:
            obs = np.broadcast_to(_ZERO_OBS, (rows.shape[0], L.OBS_DIM))
        infos = _info_states(games.state, rows) if self.needs_info_state else None
        return self._act(obs, games.masks(copy=False)[rows], infos)


def _opponent_list(opponents: Any, num_players: int) -> list[Any]:
    if opponents is None:
        return [RandomOpponent(0)] * (num_players - 1)
    if isinstance(opponents, (list, tuple)):
        if len(opponents) != num_players - 1:
            raise ValueError(f"give one opponent or {num_players - 1} opponents, got {len(opponents)}")
        return [RandomOpponent(0) if o is None else o for o in opponents]
    return [opponents] * (num_players - 1)


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
    learner's (``float32[N]``). With only built-in :class:`RandomOpponent` opponents the
    whole opponent phase is one numba call (RNG words per game in ``opponent_rng``).
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
        self._fast_random = self._all_random()
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
            self.games.start(r, np.asarray(seeds, np.int64))
        self._begin(r)
        return r

    def reseed(self, seed: int) -> None:
        """New base seed; every slot restarts at episode 0."""
        self.games.reset(seed=int(seed))
        self._begin(self._all)

    def _begin(self, rows: np.ndarray) -> None:
        """Set seats and opponent RNGs of freshly started games; play until their learner moves."""
        begun = rows
        for _ in range(1000):
            _seats_and_rngs(self.games.seeds, rows, self._fixed_seat, self.num_players, self.seat, self.opponent_rng)
            self._assign_opponents(rows)
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

    def _all_random(self) -> bool:
        """Only built-in random opponents: the whole opponent phase is one kernel call."""
        return all(isinstance(o, RandomOpponent) for o in self.opponents)

    def _assign_opponents(self, rows: np.ndarray) -> None:
        """Fill ``owner`` for freshly started games (here: the fixed opponents, by seat after the learner)."""
        P = self.num_players
        rel = (np.arange(P)[None, :] - self.seat[rows, None]) % P
        self.owner[rows] = self._owner_of_rel[rel]

    def _policy(self, k: int) -> BatchPolicy:
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
        self._last_rewards += play_owned(g, rows, self.owner, self._policy)


def play_owned(
    games: BatchGames, rows: np.ndarray, owner: np.ndarray, policy_of: Callable[[int], BatchPolicy]
) -> np.ndarray:
    """Play games ``rows`` until each has ended or waits for a seat with ``owner`` -1.

    ``owner[i, p]`` names who plays seat ``p`` of game ``i``: ``policy_of(owner[i, p])`` (a
    :class:`BatchPolicy`), or -1 for a seat played from outside (the learner). All games
    waiting for the same policy move in one call. Returns the summed final rewards
    (``float32[N, P]``) of the games that ended meanwhile. Without -1 owners it plays the
    games to their end (used for evaluation between fixed agents).
    """
    total = np.zeros((games.num_games, games.num_players), np.float32)
    while True:
        live = rows[~games.done[rows]]
        if live.size == 0:
            return total
        who = owner[live, games.state[live, L.F_CUR]]
        waiting = who >= 0
        if not waiting.any():
            return total
        live, who = live[waiting], who[waiting]
        for k in np.unique(who):
            sel = live[who == k]
            r, _, _ = games.step(policy_of(int(k))(games, sel), rows=sel)
            total += r


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
        super().reset(seed=seed)
        if options and "game_seed" in options:
            game_seed = int(options["game_seed"])
        else:
            game_seed = int(self.np_random.integers(0, 2**63 - 1))
        if seed is not None:
            unique = {id(o): o for o in self._lg.opponents}
            for k, o in enumerate(unique.values()):
                if not isinstance(o, RandomOpponent) and callable(getattr(o, "seed", None)):
                    o.seed(int(seed) + 1 + k)
        self._lg.reset(self._row, seeds=np.array([game_seed], np.int64))
        self._needs_reset = False
        return self._lg.observe()[0], self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._needs_reset:
            raise RuntimeError("call reset() before step() (the game is over or not started)")
        r, te, tr = self._lg.step(np.array([action]).reshape(1))
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
            "game_seed": int(self._lg.games.seeds[0]),
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
        g = self._lg.games
        s = g.state[0]
        dec = L.DECISION_NAMES[int(s[L.F_DEC])]
        return (
            f"round {int(s[L.F_ROUND])}, {L.PHASE_NAMES[int(s[L.F_PH])]}: "
            f"player {int(s[L.F_CUR])} to decide '{dec}' (learner is seat {self.seat})"
        )


refresh_stale_kernels(globals(), _batch, L)

__all__: Sequence[str] = (
    "ENV_ID_GYM",
    "BatchPolicy",
    "LearnerGames",
    "play_owned",
    "OhMyGoodsEnv",
    "RandomOpponent",
    "action_space",
    "obs_high",
    "observation_space",
)
