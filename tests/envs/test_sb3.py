"""SB3 VecEnv: the VecEnv API, masks for sb3-contrib, terminal observations, a short MaskablePPO run."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

from ohmygoods_env import layout as L  # noqa: E402
from ohmygoods_env.batch import episode_seed  # noqa: E402
from ohmygoods_env.envs.sb3 import OhMyGoodsVecEnv  # noqa: E402


def _masked(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_vecenv_api_and_masks() -> None:
    env = OhMyGoodsVecEnv(4, seed=0)
    assert isinstance(env, VecEnv) and env.num_envs == 4
    obs = env.reset()
    assert obs.shape == (4, L.OBS_DIM) and obs.dtype == np.float32
    assert is_masking_supported(env)
    masks = get_action_masks(env)
    assert masks.shape == (4, L.N_ACTIONS) and masks.dtype == np.bool_
    np.testing.assert_array_equal(masks, env.action_masks())
    assert len(env.env_method("action_masks", indices=[1, 3])) == 2
    assert env.get_attr("render_mode") == [None] * 4
    assert env.env_is_wrapped(VecMonitor) == [False] * 4
    assert env.has_attr("games") and not env.has_attr("no_such_attribute")


def test_terminal_observation_and_autoreset() -> None:
    env = OhMyGoodsVecEnv(3, num_players=3, learner_seat="random", seed=1)
    obs = env.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(5000):
        obs, rewards, dones, infos = env.step(_masked(env.action_masks(), rng))
        assert rewards.dtype == np.float32 and len(infos) == 3
        assert env.action_masks().any(axis=1).all()
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["terminal_observation"].shape == (L.OBS_DIM,)
            assert not np.array_equal(info["terminal_observation"], obs[i])  # obs is the new game's
            assert info["TimeLimit.truncated"] is False and info["illegal_action"] is False
            assert rewards[i] in (-1.0, 0.0, 1.0) and info["rewards"].shape == (3,)
            finished += 1
        assert all(not infos[i] for i in np.flatnonzero(~dones))
        assert (rewards[~dones] == 0).all()
        if finished >= 3:
            break
    assert finished >= 3


def test_seeding_is_per_game_and_reproducible() -> None:
    env = OhMyGoodsVecEnv(3)
    seeds = env.seed(42)
    assert list(seeds) == [episode_seed(42, i, 0) for i in range(3)]
    o1 = env.reset()
    assert env.games.seeds.tolist() == list(seeds)
    env.seed(42)
    np.testing.assert_array_equal(o1, env.reset())
    env.reset()  # without a new seed: next episode in every slot
    assert env.games.seeds.tolist() == [episode_seed(42, i, 1) for i in range(3)]
    a = OhMyGoodsVecEnv(2, seed=7)
    b = OhMyGoodsVecEnv(2, seed=7)
    np.testing.assert_array_equal(a.reset(), b.reset())


def test_illegal_action_penalty_and_truncation() -> None:
    env = OhMyGoodsVecEnv(2, seed=0, max_steps=30)
    env.reset()
    bad = np.array([np.flatnonzero(~m)[0] for m in env.action_masks()])
    _, rewards, dones, infos = env.step(bad)
    assert dones.all() and (rewards == -1).all() and all(i["illegal_action"] for i in infos)
    rng = np.random.default_rng(0)
    for _ in range(40):
        _, _, dones, infos = env.step(_masked(env.action_masks(), rng))
        if dones.any():
            break
    assert all(infos[i]["TimeLimit.truncated"] for i in np.flatnonzero(dones))


@pytest.mark.training
def test_maskable_ppo_trains_on_the_vecenv() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = VecMonitor(OhMyGoodsVecEnv(8, seed=0))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=128,
        batch_size=256,
        n_epochs=2,
        policy_kwargs={"net_arch": [64, 64]},
        seed=0,
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=3072)
    assert model.num_timesteps >= 3072
    obs = env.reset()
    masks = get_action_masks(env)
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[np.arange(8), actions].all()
    assert len(model.ep_info_buffer) > 0  # whole games were played during training
    assert all(ep["r"] in (-1.0, 0.0, 1.0) for ep in model.ep_info_buffer)


def test_info_state_opponents_play_inside_the_vec_env():
    """Opponents that need the information state (heuristic) get the redacted one (no hidden info)."""
    from ohmygoods_agents import make_agent

    from ohmygoods_env.envs.sb3 import OhMyGoodsVecEnv

    seen = []

    heuristic = make_agent("heuristic", seed=0)

    class Spy:
        needs_info_state = True

        def act(self, obs, mask, info_state=None):
            assert info_state is not None and info_state[L.F_RNG] == 0  # redacted: no RNG word
            seen.append(1)
            return heuristic.act(obs, mask, info_state)

    env = OhMyGoodsVecEnv(num_envs=2, opponents=Spy(), seed=3)
    env.reset()
    finished, rewards = 0, []
    for _ in range(1500):
        masks = env.action_masks()
        _, r, d, _ = env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        finished += int(d.sum())
        rewards += list(r[d])
    assert seen and finished >= 5
    assert np.mean(rewards) < 0  # the first-legal learner loses to the heuristic


def test_vecenv_pickles_copies_and_takes_opponent_names() -> None:
    import copy
    import pickle

    import ohmygoods_agents  # noqa: F401  (registers the agent names)

    env = OhMyGoodsVecEnv(3, opponents=["greedy"], seed=2)
    assert type(env.learner_games.opponents[0]).__name__ == "GreedyAgent"
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.step(_masked(env.action_masks(), rng))
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]

    def trace(e):
        r = np.random.default_rng(1)
        out = []
        for _ in range(200):
            m = e.action_masks()
            obs, rew, done, infos = e.step(_masked(m, r))
            out.append((obs, rew, done, m, repr([(sorted(i), i.get("rewards")) for i in infos])))
        return out

    want = trace(env)
    assert any(t[2].any() for t in want)
    for c in copies:
        for g, w in zip(trace(c), want, strict=True):
            for x, y in zip(g, w, strict=True):
                np.testing.assert_array_equal(x, y)
    for bad in ("3", None, [2**70] * 3):
        with pytest.raises((TypeError, ValueError), match="action"):
            env.step_async(bad)
