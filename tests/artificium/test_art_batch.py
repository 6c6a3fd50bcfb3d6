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


def test_the_serial_and_parallel_kernels_play_the_same_games():
    """Every loop over rows has a serial and a parallel twin (framework.jit.Timed picks by speed): both give the
    same masks, observations, checks and steps, row for row, over 200 games of 3 seats played to the end."""
    from ohmygoods_env.artificium import batch as art

    b = ArtBatch(200, 3, seed=11)
    rng = np.random.default_rng(5)
    t = b._t()
    for _ in range(400):
        if b.done.all():
            break
        S = b.state
        masks = [np.zeros((b.n, b.n_actions), np.int8) for _ in range(2)]
        obs = [np.zeros((b.n, b.obs_dim), np.float32) for _ in range(2)]
        seats = np.maximum(S[:, art.L.F_CUR], 0).astype(np.int64)
        for k, kernel in enumerate((art._masks.serial, art._masks.parallel)):
            kernel(S, *t, masks[k])
        for k, kernel in enumerate((art._observe.serial, art._observe.parallel)):
            kernel(S, *t, seats, obs[k])
        assert np.array_equal(masks[0], masks[1]) and np.array_equal(obs[0], obs[1])
        a = (rng.random(masks[0].shape) * masks[0]).argmax(1).astype(np.int64)
        a[rng.random(b.n) < 0.05] = b.n_actions  # out of range: refused by both checks
        flags = [np.empty(b.n, np.int8) for _ in range(2)]
        for k, kernel in enumerate((art._check.serial, art._check.parallel)):
            kernel(S, *t, a, flags[k])
        assert np.array_equal(flags[0], flags[1]) and flags[0][~b.done & (a == b.n_actions)].all()
        a = (rng.random(masks[0].shape) * masks[0]).argmax(1).astype(np.int64)
        states = [S.copy(), S.copy()]
        for k, kernel in enumerate((art._apply.serial, art._apply.parallel)):
            kernel(states[k], *t, a)
        assert np.array_equal(states[0], states[1])
        b.state[:] = states[0]
    assert b.done.all()
