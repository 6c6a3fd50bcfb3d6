"""Conformance of every registered game's batch engine to ``framework.batch.BatchEngine``.

Parametrized over the registered games: the engine a game's tools name (``GameTools.batch_engine``)
and, for every game, ``ModelBatch`` over its forward models. A game registered later gets these
cases without an edit here.
"""

from __future__ import annotations

import numpy as np
import pytest

import ohmygoods_env.goofspiel.game_spec  # noqa: F401  (registers goofspiel)
from ohmygoods_env.framework.batch import BatchEngine, ModelBatch, batch_engine, has_batch_engine, make_engine
from ohmygoods_env.framework.game import game_names, resolve_game

CASES = [(g, "engine") for g in game_names() if has_batch_engine(g)] + [(g, "model") for g in game_names()]
IDS = [f"{g}-{kind}" for g, kind in CASES]
MAX_STEPS = 3000


def _make(game: str, kind: str, n: int, players: int, seed: int) -> BatchEngine:
    if kind == "engine":
        return make_engine(game, n, players, seed=seed)
    return ModelBatch(game, n, players, seed=seed)


def _players(game: str) -> int:
    return resolve_game(game).min_players if resolve_game(game).min_players > 1 else 2


def _pick(masks: np.ndarray, t: int) -> np.ndarray:
    """A legal action per live row that depends on the row's index, the step and its mask only."""
    out = np.zeros(masks.shape[0], np.int64)
    for i, m in enumerate(masks):
        legal = np.flatnonzero(m)
        if legal.size:
            out[i] = legal[(7 * t + 3 * i) % legal.size]
    return out


def test_the_cases_cover_both_compiled_engines_and_goofspiel_declares_none():
    assert {g for g, kind in CASES if kind == "engine"} >= {"ohmygoods", "artificium"}
    assert not has_batch_engine("goofspiel")
    with pytest.raises(ValueError, match="goofspiel has no batch engine"):
        batch_engine("goofspiel")


@pytest.mark.parametrize(("game", "kind"), CASES, ids=IDS)
def test_shapes_dtypes_and_buffers(game, kind):
    P = _players(game)
    b = _make(game, kind, 3, P, seed=4)
    assert isinstance(b, BatchEngine)
    assert (b.num_games, b.num_players) == (3, P)
    obs, mask = b.observe(), b.legal_mask()
    assert obs.dtype == np.float32 and obs.shape == (3, b.obs_dim)
    assert mask.dtype == np.bool_ and mask.shape == (3, b.n_actions)
    obs_buf = np.full((3, b.obs_dim), 7.0, np.float32)  # stale values a written buffer must not keep
    mask_buf = np.ones((3, b.n_actions), np.bool_)
    assert b.observe(out=obs_buf) is obs_buf and b.legal_mask(out=mask_buf) is mask_buf
    np.testing.assert_array_equal(obs_buf, obs)
    np.testing.assert_array_equal(mask_buf, mask)
    cur = b.current_player
    assert cur.shape == (3,) and cur.dtype.kind == "i" and (cur >= 0).all() and not b.done.any()
    np.testing.assert_array_equal(b.observe(np.maximum(cur, 0)), obs)  # default seat: the acting one
    assert b.rewards.shape == (3, P) and b.scores().shape == (3, P)
    m = b.model(1)  # row 1 as the game's forward model, a copy
    assert m.current_player == cur[1]
    np.testing.assert_array_equal(m.observe(int(cur[1])), obs[1])
    np.testing.assert_array_equal(m.legal_mask(int(cur[1])) != 0, mask[1])
    m.step(int(np.flatnonzero(mask[1])[0]))
    np.testing.assert_array_equal(b.observe(), obs)  # stepping the copy leaves the batch alone


@pytest.mark.parametrize(("game", "kind"), CASES, ids=IDS)
def test_each_row_is_its_seeds_forward_model_masks_non_empty_until_done(game, kind):
    """Row ``i`` plays ``spec.make(P, seed=episode_seed(s, i, 0))`` decision by decision: the same acting seat,
    observation, mask, end and ``win`` reward; a live row always has a legal action, a finished one none."""
    spec, P = resolve_game(game), _players(game)
    b = _make(game, kind, 3, P, seed=11)
    twins = [spec.make(P, seed=b.episode_seed(i)) for i in range(3)]
    for t in range(MAX_STEPS):
        cur, done, mask = b.current_player, b.done, b.legal_mask()
        np.testing.assert_array_equal(mask.any(axis=1), ~done)
        np.testing.assert_array_equal(cur < 0, done)
        obs = b.observe(np.maximum(cur, 0))
        for i, g in enumerate(twins):
            assert bool(g.done) == bool(done[i])
            if not g.done:
                assert g.current_player == cur[i]
                np.testing.assert_array_equal(g.legal_mask(g.current_player) != 0, mask[i])
                np.testing.assert_array_equal(g.observe(int(cur[i])), obs[i])
        if done.all():
            break
        a = _pick(mask, t)
        b.step(a)
        ended = b.done & ~done
        for i, g in enumerate(twins):
            if not g.done:
                g.step(int(a[i]))
        for i in np.flatnonzero(ended):
            np.testing.assert_array_equal(b.rewards[i], twins[i].rewards("win"))
    assert b.done.all(), f"{game}: games did not end in {MAX_STEPS} steps"
    assert set(np.unique(b.rewards)) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize(("game", "kind"), CASES, ids=IDS)
def test_reset_deals_the_next_episode_of_the_masked_rows_only(game, kind):
    """A finished row stays finished (its actions ignored) until ``reset``; ``reset(mask)`` deals the next
    episode of those rows only, ``reset()`` the finished ones."""
    spec, P = resolve_game(game), _players(game)
    b = _make(game, kind, 3, P, seed=2)
    first = [b.episode_seed(i) for i in range(3)]
    for t in range(MAX_STEPS):
        if b.done.any():
            break
        b.step(_pick(b.legal_mask(), t))
    r = int(np.flatnonzero(b.done)[0])
    others = [i for i in range(3) if i != r]
    b.step(_pick(b.legal_mask(), 1))  # a finished row ignores its action: it stays finished
    assert b.done[r]
    before, still_done = b.observe(), b.done.copy()
    mask = np.zeros(3, np.bool_)
    mask[r] = True
    np.testing.assert_array_equal(b.reset(mask), [r])
    assert not b.done[r] and (b.done[others] == still_done[others]).all()
    assert b.episode_seed(r) == b.episode_seed(r, 1) != first[r]
    assert [b.episode_seed(i) for i in others] == [first[i] for i in others]
    after = b.observe()
    np.testing.assert_array_equal(after[others], before[others])
    twin = spec.make(P, seed=b.episode_seed(r))
    np.testing.assert_array_equal(after[r], twin.observe(twin.current_player))
    np.testing.assert_array_equal(b.reset(), np.flatnonzero(still_done & (np.arange(3) != r)))
    assert not b.done.any()


@pytest.mark.parametrize(("game", "kind"), CASES, ids=IDS)
def test_a_rows_games_do_not_depend_on_the_batch_size(game, kind):
    """Rows 0..1 of a batch of 2 and of a batch of 4 from the same seed play the same games (the same actions
    given), across an episode boundary; another seed deals other games."""
    P = _players(game)
    small, big = _make(game, kind, 2, P, seed=9), _make(game, kind, 4, P, seed=9)
    other = _make(game, kind, 2, P, seed=10)
    assert not np.array_equal(small.observe(), other.observe())
    resets = 0
    for t in range(MAX_STEPS):
        np.testing.assert_array_equal(small.observe(), big.observe()[:2])
        np.testing.assert_array_equal(small.legal_mask(), big.legal_mask()[:2])
        a = _pick(big.legal_mask(), t)
        small.step(a[:2])
        big.step(a)
        if small.done.any():
            np.testing.assert_array_equal(small.rewards[small.done], big.rewards[:2][small.done])
            np.testing.assert_array_equal(small.done, big.done[:2])
            mask = np.zeros(4, np.bool_)
            mask[:2] = small.done
            small.reset(small.done)
            big.reset(mask)
            resets += 1
        if resets >= 2:
            break
    assert resets >= 2


@pytest.mark.parametrize(("game", "kind"), CASES, ids=IDS)
def test_rows_observe_and_mask_those_games_only_and_episode_counts_resets(game, kind):
    """``observe(players, rows=, out=)`` and ``legal_mask(rows=, out=)`` give the rows of the whole batch's
    answer, in the order asked (what the training loop reads of its learner rows); ``episode`` counts each
    slot's restarts."""
    P = _players(game)
    b = _make(game, kind, 5, P, seed=9)
    assert b.episode.tolist() == [0] * 5
    rows = np.array([3, 0, 4], np.int64)
    for t in range(40):
        cur = b.current_player.astype(np.int64)
        seats = np.array([(t + int(r)) % P for r in rows], np.int64)  # any seat's view, not only the actor's
        whole = b.observe(np.array([(t + i) % P for i in range(5)], np.int64))
        out = np.full((rows.size, b.obs_dim), 7.0, np.float32)
        assert b.observe(seats, rows=rows, out=out) is out
        np.testing.assert_array_equal(out, whole[rows])
        mask = np.ones((rows.size, b.n_actions), np.bool_)
        assert b.legal_mask(rows=rows, out=mask) is mask
        np.testing.assert_array_equal(mask, b.legal_mask()[rows])
        np.testing.assert_array_equal(b.observe(rows=rows), b.observe(np.maximum(cur, 0))[rows])
        b.step(_pick(b.legal_mask(), t))
        if b.done.any():
            before = b.episode.copy()
            restarted = b.reset()
            assert (b.episode[restarted] == before[restarted] + 1).all()
            assert (np.delete(b.episode, restarted) == np.delete(before, restarted)).all()
