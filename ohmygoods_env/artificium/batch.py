"""Many *Artificium* games at once: :class:`ArtBatch`, rows of one ``int32[N, STATE_LEN]`` array.

Each row is one game (the kernels of :mod:`ohmygoods_env.artificium.core`); the loops over
rows are compiled. ``step`` takes one action per row for the row's current player (during
the simultaneous choice, A4.1, that is the first seat from the first player that has not
chosen; the others follow in later steps, and no observation shows a choice before the
reveal). Seeds are 64-bit; row ``i`` of a batch seeded ``s`` plays the game ``Game(n, seed)``
with ``seed = episode_seed(s, i, episode)`` (the framework's one seed recipe,
:mod:`ohmygoods_env.framework.rng`), so a row replays as a single :class:`Game`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..framework import jit as _jit
from ..framework import rng as _rng
from ..framework.checks import check_seed
from ..framework.seeds import episode_seed as episode_seed  # the one seed recipe (re-exported)
from . import cards as _cards
from . import core
from . import layout as L
from .cards import ArtTables, default_tables
from .engine import Game, IllegalActionError, _check_int

# The loops over rows: serial and parallel twins (framework.jit), run by Timed, which takes the faster one per
# call site (a batch of 4,096 games steps on every core; a few dozen rows stay on one)


@_jit.twin
def _masks(S, T, B, TR, CT, out):
    for i in prange(S.shape[0]):
        core.legal_mask(S[i], T, B, TR, CT, S[i, L.F_CUR], out[i])


@_jit.twin
def _check(S, T, B, TR, CT, actions, bad):
    """``bad[i] = 1`` where row ``i`` plays on and ``actions[i]`` is not legal for its current seat
    (:func:`core.check_action`; finished rows ignore their action)."""
    for i in prange(S.shape[0]):
        bad[i] = S[i, L.F_DEC] != L.D_OVER and core.check_action(S[i], T, B, TR, CT, S[i, L.F_CUR], actions[i]) != 0


@_jit.twin
def _apply(S, T, B, TR, CT, actions):
    """Every row that plays on takes its (checked) action and what follows it automatically."""
    for i in prange(S.shape[0]):
        if S[i, L.F_DEC] != L.D_OVER:
            core.apply_action(S[i], T, B, TR, CT, S[i, L.F_CUR], actions[i])


@_jit.twin
def _observe(S, T, B, TR, CT, players, out):
    for i in prange(S.shape[0]):
        core.observe(S[i], T, B, TR, CT, players[i], out[i])


_MASKS, _CHECK, _APPLY, _OBSERVE = (_jit.Timed(k) for k in (_masks, _check, _apply, _observe))


class ArtBatch:
    """``n`` games of ``num_players`` seats; masks, observations and steps for every row at once."""

    def __init__(self, n: int, num_players: int, seed: int = 0, tables: ArtTables | None = None) -> None:
        self.n = _check_int(n, "n", 1, 1 << 20)
        self.num_players = _check_int(num_players, "num_players", L.MIN_PLAYERS, L.MAX_PLAYERS)
        self.seed = check_seed(seed)
        self.tables = tables if tables is not None else default_tables()
        self.state = np.zeros((self.n, L.STATE_LEN), np.int32)
        self.episodes = np.zeros(self.n, np.int64)
        kernels = [k.pick(self.n) for k in (_masks, _check, _apply, _observe)]
        _jit.first_use("Artificium", "ohmygoods_env.artificium.batch.ArtBatch", (core.init_game, *kernels))
        for i in range(self.n):
            self._start(i)

    # ------------------------------------------------- framework.batch.BatchEngine (the names the learners use)
    #: the width of an observation row and of a mask row
    obs_dim = L.OBS_DIM
    n_actions = L.N_ACTIONS

    @property
    def num_games(self) -> int:
        return self.n

    @property
    def rewards(self) -> np.ndarray:
        """float32[n, num_players]: the ``win`` reward of finished rows (A8.3: +1 the best score, -1 the others,
        0 when every seat ties), 0 in rows still playing."""
        out = np.zeros((self.n, self.num_players), np.float32)
        rows = np.flatnonzero(self.done)
        if rows.size:
            s = self._scores(rows).astype(np.float32)
            best = s.max(axis=1, keepdims=True)
            win = np.where(s == best, 1.0, -1.0).astype(np.float32)
            win[(s == best).all(axis=1)] = 0.0
            out[rows] = win
        return out

    @property
    def episode(self) -> np.ndarray:
        """int64[n]: each row's episode (the protocol's name of :attr:`episodes`)."""
        return self.episodes

    def legal_mask(self, out: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """bool[n, N_ACTIONS]: :meth:`masks` as booleans (of rows ``rows`` only, in that order), into ``out``."""
        m = self.masks() if rows is None else self._masks_of(np.asarray(rows, np.int64).reshape(-1))
        if out is None:
            return m != 0
        np.not_equal(m, 0, out=out)
        return out

    def reset(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Start the next episode in each row of ``mask`` (bool[n]; default: every finished row); the rows."""
        if mask is None:
            return self.reset_done()
        m = np.asarray(mask, np.bool_)
        if m.shape != (self.n,):
            raise ValueError(f"mask must be a bool array of shape ({self.n},), got shape {m.shape}")
        rows = np.flatnonzero(m)
        for i in rows:
            self.episodes[i] += 1
            self._start(int(i))
        return rows

    def episode_seed(self, slot: int, episode: int | None = None) -> int:
        """The seed of game ``episode`` (default: the current one) of row ``slot``."""
        e = int(self.episodes[slot]) if episode is None else int(episode)
        return episode_seed(self.seed, int(slot), e)

    def model(self, i: int) -> Game:
        """Row ``i`` as the game's forward model (:meth:`game`)."""
        return self.game(i)

    def _t(self) -> tuple[np.ndarray, ...]:
        t = self.tables
        return t.types, t.board, t.track, t.card_type

    def _start(self, i: int) -> None:
        s = episode_seed(self.seed, i, int(self.episodes[i]))
        core.init_game(self.state[i], *self._t(), np.int64(s - (1 << 64) if s >= 1 << 63 else s), self.num_players)

    @property
    def current_player(self) -> np.ndarray:
        return self.state[:, L.F_CUR].copy()

    @property
    def done(self) -> np.ndarray:
        return self.state[:, L.F_DEC] == L.D_OVER

    def masks(self) -> np.ndarray:
        """int8[n, N_ACTIONS]: the current player's legal actions per row (zeros in finished rows)."""
        out = np.zeros((self.n, L.N_ACTIONS), np.int8)
        _MASKS(self.n, self.state, *self._t(), out)
        return out

    def _masks_of(self, rows: np.ndarray) -> np.ndarray:
        if rows.size and (rows.min() < 0 or rows.max() >= self.n):
            raise ValueError(f"rows must be in [0, {self.n - 1}]")
        out = np.zeros((rows.size, L.N_ACTIONS), np.int8)
        _MASKS(rows.size, self.state[rows], *self._t(), out)
        return out

    def observe(
        self, players: np.ndarray | None = None, out: np.ndarray | None = None, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """float32[n, OBS_DIM] from ``players[i]``'s seat (default: each row's current player, 0 at the end);
        written into ``out`` (float32[n, OBS_DIM]) when given. With ``rows``, of those rows only, in that
        order (``players``: one seat per row)."""
        r = None if rows is None else np.asarray(rows, np.int64).reshape(-1)
        if r is not None and r.size and (r.min() < 0 or r.max() >= self.n):
            raise ValueError(f"rows must be in [0, {self.n - 1}]")
        state = self.state if r is None else self.state[r]
        n = state.shape[0]
        p = np.maximum(state[:, L.F_CUR], 0) if players is None else np.asarray(players, np.int64)
        if p.shape != (n,) or (p < 0).any() or (p >= self.num_players).any():
            raise ValueError(f"players must be {n} seats in [0, {self.num_players - 1}]")
        if out is None:
            out = np.zeros((n, L.OBS_DIM), np.float32)
        else:
            if out.shape != (n, L.OBS_DIM) or out.dtype != np.float32:
                raise ValueError(f"out must be float32[{n}, {L.OBS_DIM}], got {out.dtype}{list(out.shape)}")
            out[:] = 0.0
        _OBSERVE(n, state, *self._t(), p.astype(np.int64), out)
        return out

    def step(self, actions: np.ndarray) -> None:
        """One action per row for its current player (ignored in finished rows); every row is checked first,
        none applied on an error."""
        a = np.asarray(actions)
        if a.shape != (self.n,) or a.dtype.kind not in "iu":
            raise TypeError(f"actions must be an int array of shape ({self.n},), got {a.dtype} {a.shape}")
        a = a.astype(np.int64)
        flags = np.empty(self.n, np.int8)
        _CHECK(self.n, self.state, *self._t(), a, flags)
        bad = np.flatnonzero(flags)
        if bad.size:
            i = int(bad[0])
            raise IllegalActionError(f"row {i}: action {int(a[i])} is not legal for seat {int(self.state[i, L.F_CUR])}")
        _APPLY(self.n, self.state, *self._t(), a)

    def scores(self) -> np.ndarray:
        """int[n, num_players]: A8.2 scores per row."""
        return self._scores(range(self.n))

    def _scores(self, rows) -> np.ndarray:
        return np.array(
            [[core.final_score(self.state[i], self.tables.board, p) for p in range(self.num_players)] for i in rows]
        )

    def game(self, i: int) -> Game:
        """Row ``i`` as a :class:`Game` (a copy) that continues from its position."""
        row = _check_int(i, "row", 0, self.n - 1)
        seed = episode_seed(self.seed, row, int(self.episodes[row]))
        return Game.from_state(self.state[row], seed, self.tables)

    def reset_done(self) -> np.ndarray:
        """Start a new game in every finished row; returns the rows restarted."""
        rows = np.flatnonzero(self.done)
        for i in rows:
            self.episodes[i] += 1
            self._start(int(i))
        return rows


_jit.register(globals(), core, _cards, L, _rng)
