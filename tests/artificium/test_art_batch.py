"""ArtBatch: rows are single games; masks, observations and steps over the batch."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.batch import ArtBatch, episode_seed
from ohmygoods_env.artificium.engine import Game, IllegalActionError


def _random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)


def test_rows_replay_as_single_games():
    b = ArtBatch(4, 3, seed=77)
    games = [Game(3, seed=episode_seed(77, i, 0)) for i in range(4)]
    rng = np.random.default_rng(0)
    for _ in range(60):
        if b.done.any():
            break
        a = _random_actions(b.masks(), rng)
        b.step(a)
        for i, g in enumerate(games):
            g.step(int(a[i]))
    for i, g in enumerate(games):
        assert np.array_equal(b.state[i], g.state)
        assert np.array_equal(b.observe(np.zeros(4, np.int64))[i], g.observe(0))


def test_an_illegal_row_stops_the_whole_step():
    b = ArtBatch(3, 2, seed=1)
    before = b.state.copy()
    a = np.full(3, L.A_MARKET_PASS, np.int64)
    a[2] = L.A_APPLY
    with pytest.raises(IllegalActionError, match="row 2"):
        b.step(a)
    with pytest.raises(TypeError):
        b.step(np.zeros(2, np.int64))
    assert np.array_equal(b.state, before)


def test_finished_rows_restart():
    b = ArtBatch(2, 2, seed=3)
    rng = np.random.default_rng(1)
    while not b.done.all():
        b.step(_random_actions(b.masks(), rng))  # a finished row ignores its action
    assert len(b.reset_done()) == 2 and not b.done.any() and (b.episodes == 1).all()


def test_a_row_as_a_game():
    b = ArtBatch(3, 4, seed=9)
    g = b.game(1)
    assert np.array_equal(g.state, b.state[1]) and g.seed == episode_seed(9, 1, 0)
    g.step(g.legal_actions()[0])
    assert not np.array_equal(g.state, b.state[1])  # a copy
