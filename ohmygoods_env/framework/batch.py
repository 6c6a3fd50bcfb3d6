"""The batch-engine protocol: ``N`` games of one player count stepped together, as the learners use them.

:class:`BatchEngine` is what the one self-play loop (:mod:`ohmygoods_training.fast_ppo`) reads of a
game's batch engine, and nothing more: the intersection of *Oh my Goods!*'s
:class:`~ohmygoods_env.batch.BatchGames` and *Artificium*'s
:class:`~ohmygoods_env.artificium.batch.ArtBatch`. The loop observes and masks only the rows it
needs (``rows=``: the learner's rows straight into their sample slots) and builds each engine with
the options its game's training kit names (``make_engine(..., **options)``: *Oh my Goods!*'s rules,
reward mode and round cap); ``rewards`` are those of the mode the engine was built with. A game
names its engine in its tools (``GameTools.batch_engine``, ``"module:Class"``, imported on first
use); :func:`make_engine` builds one as ``factory(num_games, num_players, seed=seed, **options)``. A game without one
(*Goofspiel*) gets :class:`ModelBatch`, the same protocol over a list of its forward models
(a Python loop), or a refusal from :func:`batch_engine` naming what is missing.

Rows: row ``i`` of an engine seeded ``s`` plays its ``e``-th game from
:func:`~ohmygoods_env.framework.seeds.episode_seed` ``(s, i, e)``, so a row's games depend on the
base seed, its slot and its episode only (never on the batch size or on the other rows), and
the game's forward model ``spec.make(P, seed=episode_seed(s, i, e))`` plays the same game.
``tests/framework/test_batch_protocol.py`` checks every registered game's engine for this.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .game import GameSpec, game_tools, resolve_game
from .seeds import episode_seed as _episode_seed

__all__ = ["BatchEngine", "ModelBatch", "batch_engine", "has_batch_engine", "make_engine"]


@runtime_checkable
class BatchEngine(Protocol):
    """``num_games`` games of ``num_players`` seats; one acting seat per game (a simultaneous choice is
    asked one seat at a time, and no observation shows a choice before its reveal)."""

    num_games: int
    num_players: int
    #: the width of an observation row and of a mask row
    obs_dim: int
    n_actions: int

    @property
    def current_player(self) -> np.ndarray:
        """int[N]: each game's acting seat, -1 in finished games."""

    @property
    def done(self) -> np.ndarray:
        """bool[N]: the game has ended (it stays so until :meth:`reset`)."""

    #: int64[N]: each slot's episode (how many games it has finished and restarted)
    episode: np.ndarray

    @property
    def rewards(self) -> np.ndarray:
        """float32[N, P]: the final reward of the games that ended in the last :meth:`step`, in the mode the
        engine was built with (by default the game's ``win`` reward: +1 winners, -1 others, 0 when every
        seat ties); read it before :meth:`reset`."""

    def observe(
        self, players: np.ndarray | None = None, out: np.ndarray | None = None, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """float32[N, obs_dim]: game ``i`` from seat ``players[i]``'s view only (default: its acting seat,
        seat 0 in finished games); written into ``out`` when given (preallocated by the caller). With
        ``rows`` (int[n]), only those games, in that order: float32[n, obs_dim], ``players`` one per row."""

    def legal_mask(self, out: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """bool[N, n_actions]: the acting seat's legal actions (all False in finished games); into ``out``.
        With ``rows``, only those games, in that order."""

    def step(self, actions: np.ndarray) -> Any:
        """One action per game for its acting seat (ignored in finished games); an illegal one raises."""

    def reset(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Deal each slot of ``mask`` (bool[N]; default: every finished game) its next episode; the rows."""

    def episode_seed(self, slot: int, episode: int | None = None) -> int:
        """The seed of game ``episode`` (default: the current one) of ``slot`` (the one seed recipe)."""

    def scores(self) -> np.ndarray:
        """[N, P] numbers: each seat's score (final in finished games), for the loops' margin shaping."""

    def model(self, i: int) -> Any:
        """Game ``i`` as the game's forward model (a copy), for agents that read an information state."""


def has_batch_engine(game: str | GameSpec) -> bool:
    """Whether ``game``'s tools name a batch engine."""
    return game_tools(game).batch_engine is not None


def batch_engine(game: str | GameSpec) -> Callable[..., BatchEngine]:
    """The class (factory) of ``game``'s batch engine; ValueError naming the game when it has none."""
    spec = resolve_game(game)
    factory = game_tools(spec).load("batch_engine")
    if factory is None:
        raise ValueError(
            f"{spec.name} has no batch engine (GameTools.batch_engine): expected a game whose tools name one, "
            "or the forward models' ModelBatch"
        )
    return factory


def make_engine(game: str | GameSpec, num_games: int, num_players: int, seed: int = 0, **options: Any) -> BatchEngine:
    """``game``'s batch engine of ``num_games`` games of ``num_players`` seats from base ``seed``."""
    spec = resolve_game(game)
    return batch_engine(spec)(num_games, spec.check_num_players(num_players), seed=seed, **options)


class ModelBatch:
    """:class:`BatchEngine` over a list of forward models of any registered game (a Python loop):
    the engine of a game without a compiled one, and a reference for those that have one."""

    def __init__(self, game: str | GameSpec, num_games: int, num_players: int, seed: int = 0, **options: Any) -> None:
        self.spec = resolve_game(game)
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        self.num_games, self.num_players = int(num_games), self.spec.check_num_players(num_players)
        self.base_seed, self.options = int(seed), options
        self.episode = np.zeros(self.num_games, np.int64)
        self.games = [self._deal(i) for i in range(self.num_games)]
        self.n_actions = int(self.games[0].num_actions)
        self.obs_dim = int(self.games[0].obs_size)

    def _deal(self, i: int) -> Any:
        return self.spec.make(self.num_players, seed=self.episode_seed(i), **self.options)

    def episode_seed(self, slot: int, episode: int | None = None) -> int:
        e = int(self.episode[slot]) if episode is None else int(episode)
        return _episode_seed(self.base_seed, int(slot), e)

    @property
    def current_player(self) -> np.ndarray:
        return np.array([-1 if g.done else g.current_player for g in self.games], np.int64)

    @property
    def done(self) -> np.ndarray:
        return np.array([g.done for g in self.games], np.bool_)

    @property
    def rewards(self) -> np.ndarray:
        out = np.zeros((self.num_games, self.num_players), np.float32)
        for i, g in enumerate(self.games):
            if g.done:
                out[i] = g.rewards("win")
        return out

    def _rows(self, rows: np.ndarray | None) -> np.ndarray:
        return np.arange(self.num_games) if rows is None else np.asarray(rows, np.int64).reshape(-1)

    def observe(
        self, players: np.ndarray | None = None, out: np.ndarray | None = None, rows: np.ndarray | None = None
    ) -> np.ndarray:
        r = self._rows(rows)
        p = np.maximum(self.current_player[r], 0) if players is None else np.asarray(players, np.int64)
        if out is None:
            out = np.empty((r.size, self.obs_dim), np.float32)
        for j, i in enumerate(r):
            out[j] = self.games[int(i)].observe(int(p[j]))
        return out

    def legal_mask(self, out: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        r = self._rows(rows)
        if out is None:
            out = np.empty((r.size, self.n_actions), np.bool_)
        for j, i in enumerate(r):
            g = self.games[int(i)]
            if g.done:
                out[j] = False
            else:
                out[j] = g.legal_mask(g.current_player) != 0
        return out

    def step(self, actions: np.ndarray) -> None:
        for g, a in zip(self.games, actions, strict=True):
            if not g.done:
                g.step(int(a))

    def reset(self, mask: np.ndarray | None = None) -> np.ndarray:
        rows = np.flatnonzero(self.done if mask is None else np.asarray(mask, np.bool_))
        for i in rows:
            self.episode[i] += 1
            self.games[int(i)] = self._deal(int(i))
        return rows

    def scores(self) -> np.ndarray:
        # a score may be a tuple (Oh my Goods!: score, leftover coins): its first number is the score
        return np.array(
            [[float(s[0] if isinstance(s, tuple) else s) for s in g.scores()] for g in self.games], np.float32
        )

    def model(self, i: int) -> Any:
        return self.games[int(i)].clone()
