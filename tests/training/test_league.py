"""The opponent league: per-game opponents, snapshots, batched play and win-rate statistics."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from ohmygoods_training.league import LeagueVecEnv, OpponentPool, snapshot  # noqa: E402
from ohmygoods_training.stats import match, wilson  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from ohmygoods_env.matches import play_batch as play_games  # noqa: E402
from ohmygoods_env.policy import RandomAgent  # noqa: E402


def test_wilson_interval():
    lo, hi = wilson(60, 100)
    assert lo < 0.6 < hi and abs(lo - 0.502) < 0.002 and abs(hi - 0.691) < 0.002
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_pool_parsing_and_sampling():
    pool = OpponentPool("random:3,greedy:1,snapshot", seed=0)
    assert pool.kinds == ["random", "greedy", "snapshot"]
    idx = pool.sample(400)
    assert set(idx) <= {pool.kind_agent["random"], pool.kind_agent["greedy"]}  # no snapshot yet
    with pytest.raises(ValueError):
        OpponentPool("nobody")


def test_league_env_masks_rewards_and_snapshots():
    pool = OpponentPool("random,snapshot", seed=1, max_snapshots=2)
    env = LeagueVecEnv(6, pool, num_players=2, reward="win", seed=1)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=32, policy_kwargs={"net_arch": [16]}, device="cpu")
    for _ in range(3):
        pool.add_snapshot(model.policy)
    assert len(pool.snapshots) == 2
    obs = env.reset()
    assert obs.shape == (6, env.observation_space.shape[0])
    rng = RandomAgent(5)
    finished = 0
    for _ in range(400):
        masks = env.action_masks()
        assert masks.any(axis=1).all()  # every game waits for its learner
        obs, rewards, dones, infos = env.step(rng.act_batch(None, masks.astype(np.int8)))
        for i in np.flatnonzero(dones):
            finished += 1
            assert rewards[i] in (-1.0, 0.0, 1.0) and infos[i]["win"] == rewards[i]
            assert infos[i]["opponent"] in ("random", "snapshot")
    assert finished > 0


def test_play_games_and_match():
    pool = OpponentPool("random", seed=0)
    env = LeagueVecEnv(2, pool, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=32, policy_kwargs={"net_arch": [16]}, device="cpu")
    agent = snapshot(model.policy, deterministic=True)
    rewards, seat_of = play_games([agent, RandomAgent(1)], 6, 2, seed=3)
    assert rewards.shape == (6, 2) and (seat_of[:, 0] == np.arange(6) % 2).all()
    r = match(agent, "random", 6, seed=3)
    assert r.wins + r.ties + r.losses == 6 and r.ci_low <= r.win_rate <= r.ci_high


def test_league_infos_name_the_opponent_and_scale_the_learners_reward():
    """Each game's opponents come from the pool at its start; a finished game's info names the
    kind that played the seat after the learner's, and the reward is the learner's margin x scale."""
    pool = OpponentPool("random,greedy", seed=2)
    env = LeagueVecEnv(8, pool, num_players=2, reward="margin", reward_scale=0.1, seed=4)
    env.reset()
    lg = env._lg
    rng = RandomAgent(3)
    kinds, checked = set(), 0
    for _ in range(600):
        playing = lg.owner[np.arange(8), (lg.seat + 1) % 2].copy()  # the opponent of each running game
        seats = lg.seat.copy()
        obs, rewards, dones, infos = env.step(rng.act_batch(None, env.action_masks()))
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["opponent"] == pool.kind_of(int(playing[i]))
            mine = info["rewards"][seats[i]]
            assert rewards[i] == pytest.approx(0.1 * mine)
            assert info["win"] == np.sign(mine - np.delete(info["rewards"], seats[i]).max())
            kinds.add(info["opponent"])
            checked += 1
    assert checked >= 8 and kinds == {"random", "greedy"}


def test_league_env_reads_reward_as_every_env_does_and_the_old_spelling_warns() -> None:
    pool = OpponentPool("random", seed=0)
    with pytest.warns(DeprecationWarning, match="reward_mode= is deprecated: use reward="):
        env = LeagueVecEnv(2, pool, reward_mode="margin", seed=0)
    assert env.learner_games.games.reward_mode == "margin"
    with pytest.raises(TypeError, match="reward= only"):
        LeagueVecEnv(2, pool, reward="win", reward_mode="margin", seed=0)
    with pytest.raises(TypeError, match="unexpected keyword arguments \\['rewards'\\]"):
        LeagueVecEnv(2, pool, rewards="win", seed=0)
