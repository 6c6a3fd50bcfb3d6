"""SeatVecEnv (N games x P seats, SuperSuit convention) and BatchEnv (Pgx style) over BatchGames."""

from __future__ import annotations

import numpy as np
import pytest
from reference_obs import OBSERVE_CASES, reference_observations

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.engine import Game, IllegalActionError
from ohmygoods_env.envs.batched import BatchEnv
from ohmygoods_env.envs.parallel import parallel_env
from ohmygoods_env.envs.pettingzoo_env import STATE_DIM

pytest.importorskip("stable_baselines3", reason="SeatVecEnv is an SB3 VecEnv: pip install -e '.[train]'")
from ohmygoods_env.envs.seat_vec import SeatVecEnv  # noqa: E402


def _random(masks: np.ndarray, rng: np.ndarray) -> np.ndarray:
    return random_actions(np.ascontiguousarray(masks).view(np.int8), rng)


@pytest.mark.parametrize(("num_games", "num_players", "rules"), [(3, 2, "omg2"), (2, 3, "royal"), (2, 4, "omg2")])
def test_matches_supersuit_wrapping_of_parallel_env_step_by_step(num_games: int, num_players: int, rules: str) -> None:
    """Same seeds, same actions: observations, masks, rewards, dones and terminal observations agree."""
    ss = pytest.importorskip("supersuit", reason="pip install -e '.[marl]'")
    ref = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(parallel_env(num_players=num_players, rules=rules, simultaneous=False)),
        num_games,
        base_class="stable_baselines3",
    )
    mine = SeatVecEnv(num_games, num_players, rules)
    obs_ref, _ = ref.venv.reset(seed=10)  # SuperSuit seeds sub-env g with 10 + g
    assert mine.seed(10) == [10 + g for g in range(num_games)]
    obs = mine.reset()
    assert mine.num_envs == ref.num_envs == num_games * num_players
    np.testing.assert_array_equal(obs_ref["observation"], obs)
    np.testing.assert_array_equal(obs_ref["action_mask"].astype(bool), mine.action_masks())
    rng = make_rng(mine.num_envs, seed=num_players)
    ended = 0
    for t in range(2500):
        actions = _random(mine.action_masks(), rng)
        ref.step_async(actions)
        o1, r1, d1, i1 = ref.step_wait()
        o2, r2, d2, i2 = mine.step(actions)
        assert np.array_equal(o1["observation"], o2), t
        assert np.array_equal(o1["action_mask"].astype(bool), mine.action_masks()), t
        assert np.array_equal(r1, r2) and np.array_equal(d1, d2), t
        for k in np.flatnonzero(d1):
            assert np.array_equal(i1[k]["terminal_observation"]["observation"], i2[k]["terminal_observation"])
        ended += int(d1.sum())
    assert ended >= 2 * num_players  # games ended and restarted on both sides (autoreset compared)


def test_rows_masks_rewards_and_errors() -> None:
    env = SeatVecEnv(num_games=4, num_players=3, seed=5)
    obs = env.reset()
    games = [Game(3, seed=5 + g) for g in range(4)]
    masks = env.action_masks()
    for g, game in enumerate(games):
        for p in range(3):
            r = g * 3 + p
            np.testing.assert_array_equal(obs[r], game.observe(p))
            if p == game.current_player:
                np.testing.assert_array_equal(masks[r], game.legal_mask().astype(bool))
            else:
                assert np.flatnonzero(masks[r]).tolist() == [L.A_WAIT]
    state = env.games.state.copy()
    good = _random(masks, make_rng(12, seed=0))
    bad = good.copy()
    waiting = next(r for r in range(12) if masks[r, L.A_WAIT])
    bad[waiting] = 0
    with pytest.raises(ValueError, match=rf"row {waiting} .*nothing to decide.*A_WAIT"):
        env.step(bad)
    acting = next(r for r in range(12) if not masks[r, L.A_WAIT])
    bad = good.copy()
    bad[acting] = int(np.flatnonzero(~masks[acting])[0])
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert np.array_equal(state, env.games.state)
    rng = make_rng(12, seed=1)
    finals = 0
    for _ in range(3000):
        _, rewards, dones, infos = env.step(_random(env.action_masks(), rng))
        for g in np.flatnonzero(dones[::3]):
            rw = rewards[3 * g : 3 * g + 3]
            assert set(rw.tolist()) <= {1.0, -1.0, 0.0} and rw.sum() in (-1.0, 1.0, 0.0)
            assert all(dones[3 * g : 3 * g + 3]) and "terminal_observation" in infos[3 * g]
            finals += 1
        assert not rewards[~dones].any()
    assert finals > 0
    assert env.global_state().shape == (12, STATE_DIM)


def test_maskable_ppo_learns_on_all_seats() -> None:
    """A short MaskablePPO run with shared parameters over every seat's rows."""
    sb3c = pytest.importorskip("sb3_contrib", reason="pip install -e '.[train]'")
    env = SeatVecEnv(num_games=4, num_players=2, seed=0)
    model = sb3c.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=2 * 8 * 32)
    assert model.num_timesteps >= 512
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert all(env.action_masks()[np.arange(8), actions])


def test_batch_env_pgx_style_autoreset() -> None:
    env = BatchEnv(num_games=6, num_players=3, seed=2)
    ts = env.reset()
    ref = BatchGames(6, 3, seed=2)
    assert ts.observation.shape == (6, L.OBS_DIM) and ts.legal_action_mask.dtype == np.bool_
    np.testing.assert_array_equal(ts.observation, ref.observe())
    np.testing.assert_array_equal(ts.current_player, ref.current_player)
    rng = make_rng(6, seed=3)
    ended = 0
    for _ in range(2000):
        actions = _random(ts.legal_action_mask, rng)
        ts = env.step(actions)
        rw, te, _ = ref.step(actions)
        np.testing.assert_array_equal(ts.rewards, rw)
        np.testing.assert_array_equal(ts.terminated, te)
        ref.reset()  # the autoreset BatchEnv does this in step
        np.testing.assert_array_equal(ts.observation, ref.observe())
        assert (ts.current_player >= 0).all() and ts.legal_action_mask.any(axis=1).all()
        ended += int(te.sum())
    assert ended > 0 and env.global_state().shape == (6, STATE_DIM)
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed=1.5)
    before = env.games.episode.copy()
    env.reset()  # no seed: every slot's next episode
    assert np.array_equal(env.games.episode, before + 1)
    np.testing.assert_array_equal(env.reset(seed=2).observation, BatchGames(6, 3, seed=2).observe())
    still = BatchEnv(num_games=2, seed=0, autoreset=False)
    ts = still.reset()
    while not (ts.terminated | ts.truncated).all():
        ts = still.step(np.where(still.games.done, 0, _random(ts.legal_action_mask, make_rng(2, 9))))
        if ts.terminated.any():
            break
    assert (ts.current_player[ts.terminated] == -1).all()


def _step_digest(env: SeatVecEnv, steps: int, seed: int) -> tuple[str, int]:
    """sha256 of every observation, mask, reward, done and info of ``steps`` random steps, and the games ended."""
    import hashlib

    h = hashlib.sha256(env.reset().tobytes())
    rng = make_rng(env.num_envs, seed=seed)
    ended = 0
    for _ in range(steps):
        h.update(env.action_masks().tobytes())
        obs, rewards, dones, infos = env.step(_random(env.action_masks(), rng))
        assert obs.dtype == np.float32 and rewards.dtype == np.float32 and dones.dtype == np.bool_
        h.update(obs.tobytes() + rewards.tobytes() + dones.tobytes())
        for r, info in enumerate(infos):
            if info:
                h.update(f"{r}:{sorted(info)}:{info['TimeLimit.truncated']}".encode())
                h.update(info["terminal_observation"].tobytes())
        ended += int(dones.sum())
    h.update(env.action_masks().tobytes())
    return h.hexdigest(), ended


@pytest.mark.parametrize(
    ("num_players", "rules", "options", "expected"),
    [
        (2, "omg2", {}, "376957788474f161da2e55b1df1e3e23b97f33d11a283c6fede675c2915470a3"),
        (3, "royal", {}, "027e52213b633f8066b1ceea2ee440249f9a9a4dc9707d832de304dda7a1f047"),
        (
            4,
            "omg2",
            {"keep_one": True, "two_for_one": True},
            "057dab08fc6b41e4f78692f3d557c6352a7f984b745195e78c0e77dc5049674a",
        ),
    ],
)
def test_seat_vec_steps_are_pinned(num_players: int, rules: str, options: dict, expected: str) -> None:
    """Observations, masks, rewards, dones and infos of 1,500 random steps of 5 games, byte for byte.

    The digests were computed on the row-by-row ``BatchGames.observe`` path (each seat observed on
    its own); a faster observation of all seats must give the same bytes.
    """
    env = SeatVecEnv(5, num_players, rules, seed=7 + num_players, **options)
    digest, ended = _step_digest(env, 1500, seed=num_players)
    assert ended >= 3 * num_players  # games ended and restarted: terminal observations are covered
    assert digest == expected


@pytest.mark.parametrize(("num_games", "num_players", "rules", "options"), OBSERVE_CASES)
def test_observe_seats_is_observe_of_every_seat(num_games: int, num_players: int, rules: str, options: dict) -> None:
    """``BatchGames.observe_seats``: the bytes of ``core.observe`` seat by seat, and the wait masks, in every phase."""
    g = BatchGames(num_games, num_players, rules, seed=num_players, **options)
    rng = make_rng(num_games, seed=5)
    seats = np.tile(np.arange(num_players), num_games)
    games = np.repeat(np.arange(num_games), num_players)
    phases = set()
    for t in range(800):  # games of 3 and 4 players end after 400 to 700 steps
        g.step(random_actions(g.masks(copy=False), rng))
        if t % 5 == 0 or g.done.any():
            masks = np.ones((num_games * num_players, L.N_ACTIONS), np.bool_)
            obs = g.observe_seats(masks=masks)
            expected = reference_observations(g, seats, games)
            assert np.array_equal(obs.view(np.uint32), expected.view(np.uint32)), t
            wait = np.zeros((num_games, num_players, L.N_ACTIONS), np.bool_)
            wait[:, :, L.A_WAIT] = True
            wait[np.arange(num_games), g.state[:, L.F_CUR]] = g.masks(copy=False).view(np.bool_)
            assert np.array_equal(masks, wait.reshape(masks.shape)), t
            phases.update(g.state[:, L.F_PH].tolist())
        g.reset()  # finished games restart; the finished state itself is observed above
    assert {L.PH_P1_ASK if rules == "omg2" else L.PH_P2, L.PH_P2, L.PH_P4, L.PH_OVER} <= phases


def test_observe_seats_refuses_a_bad_buffer_and_writes_nothing() -> None:
    g = BatchGames(2, 3, seed=0)
    obs = np.zeros((6, L.OBS_DIM), np.float32)
    for bad in (
        {"out": np.zeros((6, L.OBS_DIM), np.float64)},
        {"out": np.zeros((5, L.OBS_DIM), np.float32)},
        {"out": np.zeros((6, L.OBS_DIM + 1), np.float32)[:, 1:]},
        {"out": obs, "masks": np.zeros((6, L.N_ACTIONS), np.int64)},
        {"out": obs, "masks": np.zeros((2, 3, L.N_ACTIONS), np.int8)},
        {"out": obs, "masks": [[0] * L.N_ACTIONS] * 6},
    ):
        name = "masks" if "masks" in bad else "out"
        with pytest.raises(ValueError, match=rf"^{name} must be a writeable C-contiguous .*\[6, "):
            g.observe_seats(**bad)
    assert not obs.any()
    read_only = np.zeros((6, L.OBS_DIM), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="out must be a writeable"):
        g.observe_seats(read_only)
