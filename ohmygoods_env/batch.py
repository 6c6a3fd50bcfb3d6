"""Many games in one array, stepped by one call (Pgx style): :class:`BatchGames`.

A batch is the engine's state layout with a leading game axis; every step, mask and
observation is one numba call over all games (``prange`` over the games for large
batches, a plain loop for small ones). The rules are those of :mod:`ohmygoods_env.core`;
this module only loops over games, keeps bookkeeping arrays and derives seeds.

Arrays owned by a :class:`BatchGames` of ``N`` games and ``P`` players:

==================  ==========================  ==============================================
attribute           shape, dtype                meaning
==================  ==========================  ==============================================
``state``           ``int32[N, STATE_LEN]``     the games (:mod:`ohmygoods_env.layout`)
``masks()``         ``int8[N, N_ACTIONS]``      legal actions of each game's pending decision,
                                                kept current by every step (all 0 when done)
``current_player``  ``int32[N]``                seat to act; -1 when the game is done
``rewards``         ``float32[N, P]``           final rewards of the games that ended in the
                                                last step call, 0 elsewhere
``terminated``      ``bool[N]``                 the game ended (rules, or an illegal-action
                                                penalty)
``truncated``       ``bool[N]``                 the game was cut at ``max_steps`` decisions
``episode``         ``int64[N]``                how many games this slot has started before
                                                the current one
``seeds``           ``int64[N]``                seed of each slot's current game (its 64
                                                bits; :meth:`~BatchGames.seed_of` gives the int)
``penalised``       ``bool[N]``                 ended by the illegal-action penalty
``decisions``       ``int64[N]``                actions applied per slot, forced ones
                                                included, summed over all its games
==================  ==========================  ==============================================

Per-game memory: ``STATE_LEN * 4`` bytes of state, ``N_ACTIONS`` bytes of mask and about 30
bytes of bookkeeping (observations, when asked for, are ``OBS_DIM * 4`` bytes per game).

Seeds: slot ``i`` plays its ``e``-th game (``e = 0, 1, ...``) from the integer seed
:func:`episode_seed` ``(seed, i, e)`` (the framework's one seed recipe, version
:data:`~ohmygoods_env.framework.seeds.SEED_RECIPE_VERSION`), so a game depends only on the base seed, its slot
and its episode number — never on the batch size or on other games. ``Game(num_players,
rules, seed=episode_seed(seed, i, e))`` plays the same game. Seeds are ints in
``0 <= seed < 2**64``; without one (``seed=None``) the base seed is drawn from fresh entropy
and kept in ``base_seed``. The illegal-action ``penalty`` must be a finite number.

Illegal actions (``illegal=``):

* ``"raise"`` (default) — the whole batch is checked first; the first illegal action
  raises :class:`~ohmygoods_env.engine.IllegalActionError` (a ``ValueError``) naming the
  game index, the action and the decision, and no game is changed.
* ``"penalty"`` — Pgx style: the offending game terminates at once. The offender gets
  ``penalty`` (default ``-1.0``) and every other seat ``-penalty / (P - 1)`` (zero sum; solo: the
  one seat gets ``penalty``),
  whatever the reward mode. The engine state of that game is left as it was.

Actions given for games that are already done are ignored (no error) until :meth:`reset`.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np
from numba import njit, prange

if TYPE_CHECKING:
    from .engine import Game

from . import cards as _cards
from . import core
from . import layout as L
from .cards import CardSet, default_cards
from .engine import REWARD_MODES, IllegalActionError, illegal_action_message, observation_tables
from .framework import jit as _jit
from .framework import rng as _rng
from .framework.checks import check_finite, check_flag, check_seed, check_seeds, seed_or_fresh
from .framework.jit import PARALLEL_MIN as PARALLEL_MIN  # re-exported: the batch size of the parallel twins
from .framework.jit import Timed, twin
from .framework.rng import nth_legal as nth_legal  # re-exported: old import path
from .framework.rng import pick_legal
from .framework.rng import rng_below as rng_below  # re-exported: old import path
from .framework.seeds import episode_seed as episode_seed  # re-exported: the one seed recipe
from .rules import RuleSet, make_rules

ILLEGAL_MODES: tuple[str, ...] = ("raise", "penalty")

_M64 = (1 << 64) - 1
_SEAT_SALT = np.uint64(0x5EA7)
_OPP_SALT = np.uint64(0x0990)

# ===================================================================== seeds and RNG


_mix64 = core.mix64  # the one seed mixer (splitmix64)


@njit(cache=True)
def _episode_seed(base, slot, episode):
    """:func:`ohmygoods_env.framework.seeds.episode_seed` compiled, for the slots seeded in one kernel call
    (``tests/framework/test_seed_recipe.py`` checks they agree)."""
    z = _mix64(_mix64(_mix64(np.uint64(base)) + np.uint64(slot)) + np.uint64(episode))
    return np.int64(z >> np.uint64(1))


@njit(cache=True)
def seat_of_seed(seed: int, num_players: int) -> int:
    """A seat in ``0..num_players-1`` derived from a game seed (the learner's seat per game)."""
    z = _mix64(np.uint64(seed) ^ _SEAT_SALT)
    return np.int64((z >> np.uint64(33)) % np.uint64(num_players))


@njit(cache=True)
def opponent_rng_of_seed(seed: int) -> np.uint64:
    """Start word of a game's opponent RNG (kept apart from the game's own RNG word)."""
    z = _mix64(np.uint64(seed) ^ _OPP_SALT)
    if z == 0:
        z = core.GOLDEN
    return z


@twin
def _random_actions(masks, rng, out):
    for i in prange(masks.shape[0]):
        out[i] = pick_legal(masks[i], rng, i)


_RANDOM_ACTIONS = Timed(_random_actions)  # serial or parallel by measured speed (framework.jit.Timed)


def random_actions(masks: np.ndarray, rng: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (-1 for an all-zero row).

    ``rng`` is a ``uint64`` array of non-zero xorshift64 words, one per row, advanced in
    place (see :func:`make_rng`).
    """
    if out is None:
        out = np.empty(masks.shape[0], np.int64)
    if rng.shape[0] < masks.shape[0]:
        raise ValueError(f"rng has {rng.shape[0]} words for {masks.shape[0]} rows")
    _RANDOM_ACTIONS(masks.shape[0], masks, rng, out)
    return out


@njit(cache=True)
def _fill_rng(base, out):
    b = _mix64(base)
    for i in range(out.shape[0]):
        out[i] = _mix64(b + np.uint64(i)) | np.uint64(1)


def make_rng(n: int, seed: int = 0) -> np.ndarray:
    """``n`` independent non-zero xorshift64 words derived from ``seed``."""
    out = np.empty(int(n), np.uint64)
    _fill_rng(np.uint64(int(seed) & _M64), out)  # any int: a random-play stream, not a deal
    return out


# ===================================================================== step kernels
#
# Bookkeeping travels as few arrays as possible (each array argument costs a little at every
# call): ``flags`` is ``bool[3, N]`` (terminated, truncated, penalised) and ``params`` is
# ``float64[3]`` (reward mode, illegal-action penalty, max steps or 0).

_TERM, _TRUNC, _PEN = 0, 1, 2


@njit(cache=True, _nrt=False)
def _settle(g, C, AS, mask):
    """Forced moves (when the game auto-applies them), then the pending decision's mask."""
    if g[L.F_AUTO] == 1:
        return core.apply_forced_mask(g, C, AS, mask)
    return core.legal_mask(g, C, AS, mask)


@njit(cache=True, _nrt=True)
def _end_rewards(g, C, AS, i, rewards, mode):
    """Row ``i`` of ``rewards``: the final rewards of the finished game ``g``."""
    tmp = np.zeros(L.MAX_PLAYERS, np.float64)
    core.final_rewards(g, C, AS, mode, tmp)
    for p in range(rewards.shape[1]):
        rewards[i, p] = tmp[p]


@njit(cache=True, _nrt=False)
def _apply(S, C, AS, i, a, masks, flags, rewards, decisions, params):
    """Apply legal action ``a`` to game ``i``, its forced successors, and note an end."""
    g = S[i]
    before = g[L.F_STEPS]
    core.apply_action(g, C, AS, a)
    _settle(g, C, AS, masks[i])
    decisions[i] += g[L.F_STEPS] - before
    if g[L.F_DEC] == L.D_OVER:
        flags[_TERM, i] = True
        _end_rewards(g, C, AS, i, rewards, np.int64(params[0]))
    elif params[2] > 0 and g[L.F_STEPS] >= params[2]:
        flags[_TRUNC, i] = True


@njit(cache=True, _nrt=False)
def _penalise(S, i, masks, flags, rewards, penalty):
    """Pgx-style end of game ``i`` after an illegal action of its current player."""
    np_ = rewards.shape[1]
    p = S[i, L.F_CUR]
    for q in range(np_):
        rewards[i, q] = penalty if q == p else -penalty / max(np_ - 1, 1)
    flags[_TERM, i] = True
    flags[_PEN, i] = True
    masks[i, :] = 0


@njit(cache=True, _nrt=False)
def _illegal(i, a, masks, flags):
    if flags[_TERM, i] or flags[_TRUNC, i]:
        return False
    return a < 0 or a >= L.N_ACTIONS or masks[i, a] == 0


@njit(cache=True, _nrt=False)
def _step_row(S, C, AS, i, a, masks, flags, rewards, decisions, params):
    if flags[_TERM, i] or flags[_TRUNC, i]:
        return
    if _illegal(i, a, masks, flags):
        _penalise(S, i, masks, flags, rewards, params[1])
    else:
        _apply(S, C, AS, i, a, masks, flags, rewards, decisions, params)


@njit(cache=True, _nrt=False)
def _check(rows, actions, masks, flags, rewards, check):
    """With ``check``, the index into ``rows`` of the first illegal action; else zero the rewards, -1."""
    if check:
        for j in range(rows.shape[0]):
            if _illegal(rows[j], actions[j], masks, flags):
                return j
    rewards[:, :] = 0.0
    return -1


@twin
def _step(S, C, AS, rows, actions, masks, flags, rewards, decisions, params, check):
    bad = _check(rows, actions, masks, flags, rewards, check)
    if bad >= 0:
        return bad
    for j in prange(rows.shape[0]):
        _step_row(S, C, AS, rows[j], actions[j], masks, flags, rewards, decisions, params)
    return -1


_STEP = Timed(_step)


@njit(cache=True, _nrt=False)
def _random_row(S, C, AS, i, until, masks, rng, flags, rewards, decisions, params):
    """Random legal actions in game ``i`` until seat ``until[i]`` is to move or it ends.

    With ``until[i] < 0`` exactly one action is played.
    """
    g = S[i]
    while not (flags[_TERM, i] or flags[_TRUNC, i]):
        if until[i] >= 0 and g[L.F_CUR] == until[i]:
            break
        a = pick_legal(masks[i], rng, i)
        if a < 0:
            break
        _apply(S, C, AS, i, a, masks, flags, rewards, decisions, params)
        if until[i] < 0:
            break


@twin
def _random(S, C, AS, rows, until, masks, rng, flags, rewards, decisions, params):
    rewards[:, :] = 0.0
    for j in prange(rows.shape[0]):
        _random_row(S, C, AS, rows[j], until, masks, rng, flags, rewards, decisions, params)


_RANDOM = Timed(_random)


@njit(cache=True)
def _init_row(S, C, AS, i, seed, masks, flags, decisions, rules):
    g = S[i]
    core.init_game(g, C, AS, seed, rules[0], rules[1], rules[2], rules[3])
    _settle(g, C, AS, masks[i])  # init_game applied the forced moves; this fills the mask
    decisions[i] += g[L.F_STEPS]  # forced moves at the start count as decisions too
    flags[_TERM, i] = g[L.F_DEC] == L.D_OVER
    flags[_TRUNC, i] = False
    flags[_PEN, i] = False


@twin
def _init(S, C, AS, rows, seeds, masks, flags, decisions, rules):
    for j in prange(rows.shape[0]):
        _init_row(S, C, AS, rows[j], seeds[j], masks, flags, decisions, rules)


@njit(cache=True)
def _episode_seeds(base, rows, episode, out):
    for j in range(rows.shape[0]):
        out[j] = _episode_seed(base, np.uint64(rows[j]), np.uint64(episode[rows[j]]))


@njit(cache=True, _nrt=False)
def _observe_row(S, C, AS, tables, i, p, out_row):
    if p < 0:
        p = S[i, L.F_CUR]
        if p < 0:
            p = 0
    core.observe_seat(S[i], C, AS, tables, p, out_row)


@twin
def _observe(S, C, AS, tables, rows, players, out):
    for j in prange(rows.shape[0]):
        _observe_row(S, C, AS, tables, rows[j], players[j], out[j])


@njit(cache=True, _nrt=False)
def _observe_seats_row(S, C, AS, tables, legal, out, masks, i):
    core.observe_seats(S[i], C, AS, tables, out[i], legal[i], masks[i])


@twin
def _observe_seats(S, C, AS, tables, legal, out, masks):
    for i in prange(S.shape[0]):
        _observe_seats_row(S, C, AS, tables, legal, out, masks, i)


# ===================================================================== the batch


def _is_int(x: object) -> bool:
    """An int or numpy integer, not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _check_buffer(name: str, a: object, dtypes: tuple[type, ...], shape: tuple[int, int]) -> None:
    """A ValueError unless ``a`` is a writeable C-contiguous array of one of ``dtypes`` and ``shape``."""
    ok = isinstance(a, np.ndarray) and a.dtype in dtypes and a.shape == shape
    if not (ok and a.flags.c_contiguous and a.flags.writeable):
        kinds = " or ".join(np.dtype(d).name for d in dtypes)
        raise ValueError(f"{name} must be a writeable C-contiguous {kinds}{list(shape)} array, got {a!r:.80}")


def _as_actions(actions: object) -> np.ndarray:
    """``actions`` as an int64 array, or a TypeError naming what was given and what is expected."""
    expected = f"an int array of action ids in [0, {L.N_ACTIONS - 1}], one per game"
    if isinstance(actions, np.ndarray) and actions.dtype == np.int64:
        return actions
    try:
        a = np.asarray(actions)
    except (OverflowError, ValueError) as e:
        raise TypeError(f"actions must be {expected}, got {actions!r}") from e
    if a.dtype.kind == "u":
        return np.minimum(a, L.N_ACTIONS).astype(np.int64)  # too large stays out of range, never wraps
    if a.dtype.kind == "i":
        return a.astype(np.int64)
    if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(np.mod(a, 1) == 0):
        return np.clip(a, -1, L.N_ACTIONS).astype(np.int64)
    raise TypeError(f"actions must be {expected}, got {actions!r} (dtype {a.dtype})")


def _as_rows(rows: object, n: int) -> np.ndarray:
    if rows is None:
        return np.arange(n, dtype=np.int64)
    if type(rows) is np.ndarray and rows.dtype == np.int64 and rows.ndim == 1:  # the common case: checks only
        if rows.size and (rows.min() < 0 or rows.max() >= n):
            raise ValueError(f"row index out of range 0..{n - 1}")
        return rows
    r = np.asarray(rows)
    if r.dtype == np.bool_:
        if r.shape != (n,):
            raise ValueError(f"a boolean row mask must have shape ({n},), got {r.shape}")
        return np.flatnonzero(r).astype(np.int64)
    if r.ndim != 1 or not np.issubdtype(r.dtype, np.integer):
        raise TypeError(f"rows must be a 1-D int array or a bool mask of shape ({n},), got {r.dtype} {r.shape}")
    r = r.astype(np.int64, copy=False)
    if r.size and (r.min() < 0 or r.max() >= n):
        raise ValueError(f"row index out of range 0..{n - 1}")
    return r


class BatchGames:
    """``num_games`` games of the same rules, stepped together (see the module docstring).

    >>> b = BatchGames(4, seed=1)
    >>> rng = make_rng(4, seed=2)
    >>> while not b.done.all():
    ...     rewards, terminated, truncated = b.step(random_actions(b.masks(), rng))
    """

    def __init__(
        self,
        num_games: int,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        seed: int | None = None,
        *,
        illegal: str = "raise",
        penalty: float = -1.0,
        reward_mode: str = "win",
        max_steps: int | None = None,
        cards: CardSet | None = None,
        **rule_options,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal must be one of {list(ILLEGAL_MODES)}, got {illegal!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {list(REWARD_MODES)}, got {reward_mode!r}")
        if max_steps is not None and (not _is_int(max_steps) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
        seed = seed_or_fresh(seed)
        self.rules = make_rules(num_players, rules, **rule_options)
        self.cards = cards if cards is not None else default_cards()
        self.illegal = illegal
        self.penalty = check_finite(penalty, "penalty")
        self.reward_mode = reward_mode
        self.max_steps = int(max_steps) if max_steps is not None else 0
        n = int(num_games)
        self.num_games = n
        self.state = np.zeros((n, L.STATE_LEN), np.int32)
        self._masks = np.zeros((n, L.N_ACTIONS), np.int8)
        self.rewards = np.zeros((n, self.rules.num_players), np.float32)
        self._flags = np.zeros((3, n), np.bool_)
        self._bind_flags()
        self.episode = np.zeros(n, np.int64)
        self.seeds = np.zeros(n, np.int64)
        #: applied actions (forced ones included) per slot, summed over all its games
        self.decisions = np.zeros(n, np.int64)
        self._params = np.array([REWARD_MODES.index(reward_mode), self.penalty, self.max_steps], np.float64)
        r = self.rules
        self._rules = np.array([r.num_players, r.edition_bits, int(r.auto_forced), r.round_limit], np.int64)
        self._all = np.arange(n, dtype=np.int64)
        self._no_seat = np.full(n, -1, np.int64)
        #: the base seed of every slot's episode seeds: the one given, or a fresh one (``seed=None``)
        self.base_seed = seed
        twins = "parallel" if n >= PARALLEL_MIN else "serial"
        _jit.first_use("Oh my Goods!", f"ohmygoods_env.batch.BatchGames/{twins}", [k.pick(n) for k in (_init, _step)])
        self._start(self._all, self._slot_seeds(self._all))

    def _bind_flags(self) -> None:
        #: bool[N] views of the flags: the game ended / was cut at max_steps / ended by the penalty
        self.terminated, self.truncated, self.penalised = self._flags[_TERM], self._flags[_TRUNC], self._flags[_PEN]

    # ------------------------------------------------------------------ copies
    # ``terminated``/``truncated``/``penalised`` are views into ``_flags``: a copy must rebuild
    # them over its own ``_flags``, or it would never see its games end.
    def __getstate__(self) -> dict:
        d = self.__dict__.copy()
        for k in ("terminated", "truncated", "penalised"):
            d.pop(k, None)
        return d

    def __setstate__(self, d: dict) -> None:
        self.__dict__.update(d)
        self._bind_flags()

    def __copy__(self) -> BatchGames:
        """A detached copy (arrays copied): the two batches never share a game."""
        return copy.deepcopy(self)

    # ------------------------------------------------------------------ facts
    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def done(self) -> np.ndarray:
        """bool[N]: terminated or truncated."""
        return self.terminated | self.truncated

    @property
    def current_player(self) -> np.ndarray:
        """int32[N]: seat to act in each game, -1 where the game is done."""
        cur = self.state[:, L.F_CUR].copy()
        cur[self.terminated | self.truncated] = -1
        return cur

    @property
    def decision(self) -> np.ndarray:
        """int32[N]: pending decision (``layout.D_*``) of each game."""
        return self.state[:, L.F_DEC].copy()

    @property
    def memory_per_game(self) -> int:
        """Bytes held per game: state row, mask and bookkeeping."""
        arrays = (self.state, self._masks, self.rewards, self._flags, self.episode, self.seeds, self.decisions)
        return int(sum(a.nbytes for a in arrays + (self._all, self._no_seat)) // self.num_games)

    def masks(self, copy: bool = True) -> np.ndarray:
        """int8[N, N_ACTIONS]: legal actions per game (all 0 for done games).

        With ``copy=False`` the internal buffer is returned read-only; it changes at the next step.
        """
        if check_flag(copy, "copy"):
            return self._masks.copy()
        view = self._masks.view()
        view.flags.writeable = False
        return view

    def observe(
        self, players: np.ndarray | None = None, rows: np.ndarray | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """float32[len(rows), OBS_DIM]: observations of the given games (default: all).

        From each game's current player's seat, or from ``players[j]`` (one seat per row; -1
        means the current player). A finished game is seen from seat 0 unless a seat is given.
        """
        r = self._all if rows is None else _as_rows(rows, self.num_games)
        if players is None:
            pl = self._no_seat[: r.shape[0]]
        else:
            pl = np.asarray(players)
            if pl.dtype.kind not in "iu":
                raise TypeError(f"players must be ints (a seat, or -1 for the player to act), got {players!r}")
            pl = pl.astype(np.int64)
            if pl.shape != r.shape:
                raise ValueError(f"players must have shape {r.shape}, got {pl.shape}")
            if pl.size and (pl.max() >= self.num_players or pl.min() < -1):
                raise ValueError(
                    f"players must be seats in 0..{self.num_players - 1} or -1 (the player to act), got {players!r}"
                )
        if out is None:
            out = np.empty((r.shape[0], L.OBS_DIM), np.float32)
        C, AS = self.cards.buildings, self.cards.assistants
        _observe.pick(r.shape[0])(self.state, C, AS, self._tables(), r, pl, out)
        return out

    def observe_seats(self, out: np.ndarray | None = None, masks: np.ndarray | None = None) -> np.ndarray:
        """float32[N * P, OBS_DIM]: every seat of every game, row ``g * P + p`` seat ``p`` of game ``g``.

        The rows of ``observe(players=seats, rows=games)`` over all games and seats, in one pass
        per game (the cards are read once for all seats). ``masks`` (int8 or bool
        ``[N * P, N_ACTIONS]``, C-contiguous; scratch when not given) receives each row's mask in
        the same pass: the game's legal actions on the current player's row, only
        ``layout.A_WAIT`` on the others (the wait mask of :class:`~.envs.seat_vec.SeatVecEnv`).
        """
        n, p = self.num_games, self.num_players
        out = np.empty((n * p, L.OBS_DIM), np.float32) if out is None else out
        masks = np.empty((n * p, L.N_ACTIONS), np.int8) if masks is None else masks
        _check_buffer("out", out, (np.float32,), (n * p, L.OBS_DIM))
        _check_buffer("masks", masks, (np.int8, np.bool_), (n * p, L.N_ACTIONS))
        C, AS = self.cards.buildings, self.cards.assistants
        obs, m = out.reshape(n, p, L.OBS_DIM), masks.view(np.int8).reshape(n, p, L.N_ACTIONS)
        _observe_seats.pick(n)(self.state, C, AS, self._tables(), self._masks, obs, m)
        return out

    def _tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the observation kernels read per card (``engine.observation_tables``: once per card set)."""
        return observation_tables(self.cards)

    # ------------------------------------------------------------------ framework.batch.BatchEngine
    # (with ``model(i)``, which ``ohmygoods_env.learner_batch.OhMyGoodsBatch`` adds: the forward model lives
    # above this module)
    #: the width of an observation row and of a mask row (the names the learners use)
    obs_dim = L.OBS_DIM
    n_actions = L.N_ACTIONS

    def legal_mask(self, out: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """bool[N, N_ACTIONS]: :meth:`masks` as booleans (of games ``rows`` only, in that order), into ``out``."""
        m = self._masks if rows is None else self._masks[_as_rows(rows, self.num_games)]
        if out is None:
            return m != 0
        np.not_equal(m, 0, out=out)
        return out

    def scores(self) -> np.ndarray:
        """int64[N, P]: each seat's score by R8.3 (final in finished games; leftover coins left out)."""
        C, AS = self.cards.buildings, self.cards.assistants
        out = np.zeros((self.num_games, self.num_players), np.int64)
        for i in range(self.num_games):
            for p in range(self.num_players):
                out[i, p] = core.score_player(self.state[i], C, AS, p)[0]
        return out

    # ------------------------------------------------------------------ acting
    def step(self, actions: np.ndarray, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per game (or per game in ``rows``); forced moves follow automatically.

        Returns ``(rewards float32[N, P], terminated bool[N], truncated bool[N])``: the
        rewards are the final rewards of the games that ended in this call (0 elsewhere).
        Actions of games that are already done are ignored.
        """
        r = self._all if rows is None else _as_rows(rows, self.num_games)
        a = _as_actions(actions)
        if a.shape != r.shape:
            raise ValueError(f"expected {r.shape[0]} actions (one per game), got shape {a.shape}")
        C, AS = self.cards.buildings, self.cards.assistants
        j = _STEP(
            r.shape[0], self.state, C, AS, r, a, self._masks, self._flags, self.rewards, self.decisions, self._params,
            self.illegal == "raise",
        )  # fmt: skip
        if j >= 0:
            self._raise_illegal(int(r[j]), int(a[j]))
        return self.rewards.copy(), self.terminated.copy(), self.truncated.copy()

    def play_random(
        self, rng: np.ndarray, until: np.ndarray | None = None, rows: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play uniformly random legal actions inside one numba call.

        ``rng`` holds one ``uint64`` xorshift64 word per game (indexed by game, advanced in
        place; never the games' own RNG words). With ``until`` (``int[N]``, a seat per game),
        each game plays until that seat is to move or it ends; ``until[i] < 0`` (or no
        ``until``) plays exactly one action. Returns like :meth:`step`.
        """
        r = self._all if rows is None else _as_rows(rows, self.num_games)
        u = self._no_seat if until is None else np.asarray(until, np.int64)
        if u.shape != (self.num_games,):
            raise ValueError(f"until must have shape ({self.num_games},), got {u.shape}")
        if not isinstance(rng, np.ndarray) or rng.dtype != np.uint64 or rng.ndim != 1 or rng.shape[0] < self.num_games:
            raise TypeError(
                f"rng must be a 1-D uint64 array of at least {self.num_games} words (see make_rng), got {rng!r:.80}"
            )
        C, AS = self.cards.buildings, self.cards.assistants
        S, M, F = self.state, self._masks, self._flags
        _RANDOM(r.shape[0], S, C, AS, r, u, M, rng, F, self.rewards, self.decisions, self._params)
        return self.rewards.copy(), self.terminated.copy(), self.truncated.copy()

    # ------------------------------------------------------------------ resets
    def reset(self, mask: np.ndarray | None = None, seed: int | None = None) -> np.ndarray:
        """Start new games; returns the rows that were reset.

        ``mask`` (``bool[N]``) names the slots to restart (default: every done game); each
        gets the next episode of its slot, seeded by :func:`episode_seed`. With ``seed``
        the base seed changes, every episode counter goes back to 0 and all games restart.
        """
        if seed is not None:
            if mask is not None:
                raise ValueError("reset(seed=...) restarts every game; do not pass a mask with it")
            self.base_seed = check_seed(seed)
            self.episode[:] = 0
            self._start(self._all, self._slot_seeds(self._all))
            return self._all.copy()
        if mask is None:
            rows = np.flatnonzero(self.terminated | self.truncated)
        else:
            rows = _as_rows(np.asarray(mask, np.bool_), self.num_games)
        if rows.size:
            self.episode[rows] += 1
            self._start(rows, self._slot_seeds(rows))
        return rows

    def start(self, rows: np.ndarray, seeds: np.ndarray) -> None:
        """Start new games in ``rows`` from explicit seeds (one per row, ints in ``0 <= s < 2**64``).

        The slots' episode counters are not advanced (later resets continue from them).
        """
        r = _as_rows(rows, self.num_games)
        self._start(r, check_seeds(seeds, r.shape[0]).view(np.int64))  # the engine takes the 64 bits as int64

    def game(self, i: int) -> Game:
        """A :class:`~ohmygoods_env.engine.Game` holding a copy of game ``i`` (rendering, inspection, search).

        Stepping it does not change the batch; its record starts at the current position.
        """
        from .engine import Game

        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"game index must be an int in 0..{self.num_games - 1}, got {i!r}")
        if not 0 <= int(i) < self.num_games:
            raise ValueError(f"game index {i} is out of range 0..{self.num_games - 1}")
        return Game.from_state(self.state[int(i)], self.rules, self.cards, seed=self.seed_of(int(i)))

    def seed_of(self, i: int) -> int:
        """The seed (``0 <= s < 2**64``) of game ``i``'s current deal (``seeds`` holds its 64 bits as int64)."""
        return int(self.seeds[i]) & _M64

    def episode_seed(self, slot: int, episode: int | None = None) -> int:
        """Seed of game ``episode`` (default: the current one) of ``slot`` under the base seed."""
        e = int(self.episode[slot]) if episode is None else int(episode)
        return episode_seed(self.base_seed, int(slot), e)

    def _slot_seeds(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(rows.shape[0], np.int64)
        _episode_seeds(np.uint64(self.base_seed), rows.astype(np.int64, copy=False), self.episode, out)
        return out

    def _start(self, rows: np.ndarray, seeds: np.ndarray) -> None:
        rows = rows.astype(np.int64, copy=False)
        self.seeds[rows] = seeds
        self.rewards[rows] = 0.0
        kernel = _init.pick(rows.shape[0])
        C, AS = self.cards.buildings, self.cards.assistants
        kernel(self.state, C, AS, rows, seeds, self._masks, self._flags, self.decisions, self._rules)

    # ------------------------------------------------------------------ errors
    def _raise_illegal(self, i: int, a: int) -> None:
        if not 0 <= a < L.N_ACTIONS:
            raise ValueError(f"game {i}: action {a} is out of range: expected an int in [0, {L.N_ACTIONS - 1}]")
        legal = np.flatnonzero(self._masks[i]).tolist()
        dec, player = int(self.state[i, L.F_DEC]), int(self.state[i, L.F_CUR])
        raise IllegalActionError(f"game {i}: " + illegal_action_message(a, dec, player, legal, self.game(i)))


_jit.register(globals(), core, L, _cards, _rng)
