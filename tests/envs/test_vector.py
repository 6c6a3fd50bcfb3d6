"""Gymnasium VectorEnv: autoreset modes, masks, seeding, batching of opponents."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from ohmygoods_env import layout as L
from ohmygoods_env.batch import episode_seed
from ohmygoods_env.engine import IllegalActionError
from ohmygoods_env.envs.gym_env import ENV_ID_GYM, OhMyGoodsEnv
from ohmygoods_env.envs.vector import OhMyGoodsVectorEnv


def _masked(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_metadata_declares_the_autoreset_mode() -> None:
    assert OhMyGoodsVectorEnv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    for mode in AutoresetMode:
        env = OhMyGoodsVectorEnv(2, autoreset_mode=mode)
        assert env.metadata["autoreset_mode"] is mode and env.autoreset_mode is mode
    env = gym.make_vec(ENV_ID_GYM, num_envs=3, num_players=3)
    assert isinstance(env.unwrapped, OhMyGoodsVectorEnv)
    assert isinstance(env.metadata["autoreset_mode"], AutoresetMode)
    obs, info = env.reset(seed=0)
    assert obs.shape == (3, L.OBS_DIM) and env.observation_space.contains(obs)
    assert env.action_space.shape == (3,)


def test_same_step_autoreset() -> None:
    env = OhMyGoodsVectorEnv(4, num_players=2, learner_seat="random")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 6:
        masks = env.action_masks()
        assert masks.any(axis=1).all()  # always a live game's mask
        np.testing.assert_array_equal(masks, info["action_mask"].astype(bool))
        episodes = env.games.episode.copy()
        obs, rewards, terminated, truncated, info = env.step(_masked(masks, rng))
        assert obs.dtype == np.float32 and rewards.dtype == np.float64
        assert env.observation_space.contains(obs)
        assert not truncated.any()
        assert (rewards[~terminated] == 0).all()
        if terminated.any():
            rows = np.flatnonzero(terminated)
            ended += rows.size
            assert (info["_final_obs"] == terminated).all()
            for i in rows:
                assert info["final_obs"][i].shape == (L.OBS_DIM,)
                seat = info["seat"][i]  # the new game's seat may differ; the reward was the old seat's
                assert rewards[i] in (-1.0, 0.0, 1.0)
                assert info["final_info"]["rewards"][i].sum() == 0
                assert env.games.episode[i] == episodes[i] + 1
                assert env.games.seeds[i] == episode_seed(3, i, episodes[i] + 1)
                assert int(env.games.state[i, L.F_CUR]) == seat
            assert all(o is None for o in info["final_obs"][~terminated])


def test_next_step_autoreset() -> None:
    env = OhMyGoodsVectorEnv(3, autoreset_mode="NextStep", illegal="raise")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(3000):
        obs, rewards, terminated, truncated, info = env.step(_masked(env.action_masks(), rng))
        if terminated.any():
            break
    i = int(np.flatnonzero(terminated)[0])
    assert "final_obs" not in info
    assert env.action_masks()[i].all()  # any action is accepted (and ignored) for the pending reset
    np.testing.assert_array_equal(obs[i], env.games.observe(players=[env.seats[i]], rows=[i])[0])
    actions = _masked(env.action_masks(), rng)
    actions[i] = L.N_ACTIONS - 1  # illegal in any decision here, but ignored: the env resets instead
    obs, rewards, terminated, truncated, info = env.step(actions)
    assert rewards[i] == 0 and not terminated[i]
    assert env.games.episode[i] == 1 and env.action_masks()[i].sum() < L.N_ACTIONS


def test_disabled_autoreset_and_reset_mask() -> None:
    env = OhMyGoodsVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    done = np.zeros(2, bool)
    while not done.any():
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, _, terminated, _, _ = env.step(actions)
        done |= terminated
    i = int(np.flatnonzero(done)[0])
    assert not env.action_masks()[i].any()
    obs, info = env.reset(options={"reset_mask": done})
    assert env.action_masks()[i].any() and env.games.episode[i] == 1
    assert env.games.episode[1 - i] == (1 if done[1 - i] else 0)


def test_seeding() -> None:
    env = OhMyGoodsVectorEnv(3, learner_seat="random")
    o1, i1 = env.reset(seed=5)
    assert [int(s) for s in env.games.seeds] == [episode_seed(5, i, 0) for i in range(3)]
    o2, i2 = env.reset(seed=5)
    np.testing.assert_array_equal(o1, o2)
    o3, i3 = env.reset(seed=[10, 11, 12])
    assert env.games.seeds.tolist() == [10, 11, 12]
    o4, _ = env.reset()  # next episode of every slot
    assert (env.games.episode >= 1).all()
    with pytest.raises(ValueError):
        env.reset(seed=[1, 2])


def test_vector_games_equal_single_env_games() -> None:
    """Same game seed, same learner actions: same games in the vector env and the single env."""
    seeds = [21, 22, 23]
    venv = OhMyGoodsVectorEnv(3, num_players=3, learner_seat="random", autoreset_mode="Disabled")
    vobs, vinfo = venv.reset(seed=seeds)
    envs = [OhMyGoodsEnv(num_players=3, learner_seat="random") for _ in seeds]
    sobs = [e.reset(options={"game_seed": s})[0] for e, s in zip(envs, seeds, strict=True)]
    rng = np.random.default_rng(3)
    for _ in range(60):
        for i, e in enumerate(envs):
            np.testing.assert_array_equal(vobs[i], sobs[i])
            np.testing.assert_array_equal(venv.games.state[i], e.games.state[0])
        masks = venv.action_masks()
        if not masks.any(axis=1).all():
            break
        actions = _masked(masks, rng)
        vobs, *_ = venv.step(actions)
        sobs = [e.step(int(a))[0] for e, a in zip(envs, actions, strict=True)]


def test_opponents_are_asked_once_per_round_for_all_games() -> None:
    class Batched:
        def __init__(self) -> None:
            self.sizes: list[int] = []

        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            self.sizes.append(len(masks))
            return np.array([np.flatnonzero(m)[0] for m in masks])

    opp = Batched()
    env = OhMyGoodsVectorEnv(16, num_players=4, opponents=opp, learner_seat="random")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(_masked(env.action_masks(), rng))
    assert max(opp.sizes) > 4  # one call serves many games at once


def test_illegal_actions() -> None:
    env = OhMyGoodsVectorEnv(2, illegal="raise")
    env.reset(seed=0)
    actions = np.array([np.flatnonzero(~m)[0] for m in env.action_masks()])
    with pytest.raises(IllegalActionError, match="game 0"):
        env.step(actions)
    env = OhMyGoodsVectorEnv(2)  # penalty by default
    env.reset(seed=0)
    obs, rewards, terminated, truncated, info = env.step(actions)
    assert terminated.all() and (rewards == -1).all() and info["final_info"]["illegal_action"].all()
    with pytest.raises(RuntimeError):
        OhMyGoodsVectorEnv(2).step(actions)


def _trace(env: OhMyGoodsVectorEnv, steps: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        masks = env.action_masks()
        obs, r, te, tr, info = env.step(_masked(masks, rng))
        out.append((obs, r, te, tr, info["action_mask"], info["seat"], info["episode"], masks))
    return out


def test_vector_env_copies_and_pickles_play_on_like_the_original() -> None:
    import copy
    import pickle

    import ohmygoods_agents  # noqa: F401  (registers the agent names)

    env = OhMyGoodsVectorEnv(3, num_players=2, opponents="heuristic", learner_seat="random")
    env.reset(seed=4)
    _trace(env, 20, 0)
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    want = _trace(env, 250, 1)  # long enough for games to end and restart
    assert any(t[2].any() for t in want)
    for c in copies:
        for g, w in zip(_trace(c, 250, 1), want, strict=True):
            for x, y in zip(g, w, strict=True):
                np.testing.assert_array_equal(x, y)


def test_vector_infos_carry_no_game_seed_and_actions_are_checked() -> None:
    env = OhMyGoodsVectorEnv(2, opponents=["random"])
    _, info = env.reset(seed=1)
    assert "game_seed" not in info and info["episode"].tolist() == [0, 0]
    seeds = {int(s) for s in env.games.seeds}
    for v in info.values():
        assert not seeds & {int(x) for x in np.ravel(v) if isinstance(x, (int, np.integer))}
    before = env.games.state.copy()
    for bad, error in (("3", TypeError), (None, TypeError), ([2**70, 0], ValueError), ([0], ValueError)):
        with pytest.raises(error, match="action"):
            env.step(bad)
    np.testing.assert_array_equal(env.games.state, before)
