"""Single-agent Gymnasium env: check_env, registration, opponents, seeding, illegal actions."""

from __future__ import annotations

import importlib
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import ohmygoods_env.envs
from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game, IllegalActionError
from ohmygoods_env.envs.gym_env import ENV_ID_GYM, LearnerGames, OhMyGoodsEnv, obs_high
from ohmygoods_env.policy import RandomAgent


def _first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _last_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def _play(env: OhMyGoodsEnv, rng: np.random.Generator, max_steps: int = 5000) -> tuple[float, dict, int]:
    for n in range(1, max_steps):
        obs, r, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            return r, info, n
        assert r == 0.0
        assert info["action_mask"].any()
    raise AssertionError("game did not end")


@pytest.mark.parametrize(("num_players", "rules", "seat"), [(2, "omg2", 0), (3, "royal", "random"), (4, "omg2", 3)])
def test_check_env_passes(num_players: int, rules: str, seat: int | str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        warnings.filterwarnings("ignore", message=".*alternative render modes.*")
        check_env(OhMyGoodsEnv(num_players=num_players, rules=rules, learner_seat=seat))


def test_registered_and_registration_is_idempotent() -> None:
    assert ENV_ID_GYM == "ohmygoods/OhMyGoods-v1" and ENV_ID_GYM in gym.registry
    importlib.reload(ohmygoods_env.envs)  # must not register twice (gymnasium would warn)
    env = gym.make(ENV_ID_GYM, num_players=3, learner_seat=1)
    check_env(env.unwrapped)
    obs, info = env.reset(seed=4)
    assert obs.shape == (L.OBS_DIM,) and info["seat"] == 1
    assert env.unwrapped.games.current_player[0] == 1


def test_learner_moves_only_at_its_seat_and_sees_its_own_view() -> None:
    env = OhMyGoodsEnv(num_players=3, learner_seat="random", opponents=_first_legal)
    rng = np.random.default_rng(0)
    seats = set()
    for ep in range(6):
        obs, info = env.reset(seed=ep)
        seats.add(info["seat"])
        game = Game(3, seed=int(env.games.seeds[0]))  # the env knows it; info never shows it
        while not game.done and game.current_player != info["seat"]:
            game.step(_first_legal(None, game.legal_mask()))
        np.testing.assert_array_equal(obs, game.observe(info["seat"]))
        for _ in range(40):
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            np.testing.assert_array_equal(env.action_masks(), game.legal_mask().astype(bool))
            obs, r, terminated, truncated, info = env.step(a)
            game.step(a)
            while not game.done and game.current_player != info["seat"]:
                game.step(_first_legal(None, game.legal_mask()))
            np.testing.assert_array_equal(env.games.state[0], game.state)
            np.testing.assert_array_equal(obs, game.observe(info["seat"]))
            if terminated:
                assert r == game.rewards()[info["seat"]]
                break
    assert len(seats) > 1


def test_reset_seed_is_deterministic_and_game_seed_option() -> None:
    env = OhMyGoodsEnv(num_players=2, learner_seat="random")
    o1, i1 = env.reset(seed=7)
    s1 = env.games.state.copy()
    o2, i2 = env.reset(seed=7)
    np.testing.assert_array_equal(o1, o2)
    np.testing.assert_array_equal(s1, env.games.state)
    first = int(env.games.seeds[0])
    env.reset(seed=8)
    assert int(env.games.seeds[0]) != first
    env.reset(options={"game_seed": first})
    np.testing.assert_array_equal(s1, env.games.state)


def test_full_episodes_with_random_opponents() -> None:
    env = OhMyGoodsEnv(num_players=2, reward_mode="margin")
    rng = np.random.default_rng(1)
    for ep in range(3):
        env.reset(seed=ep)
        r, info, _ = _play(env, rng)
        assert r == info["rewards"][env.seat]
        assert info["rewards"].sum() == 0 and not info["illegal_action"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_illegal_action_penalty_by_default_and_raise_on_request() -> None:
    env = OhMyGoodsEnv(num_players=3)
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, r, terminated, truncated, info = env.step(bad)
    assert terminated and r == -1.0 and info["illegal_action"]
    np.testing.assert_array_equal(info["rewards"], np.roll([-1.0, 0.5, 0.5], env.seat))
    env = OhMyGoodsEnv(num_players=2, illegal="raise")
    env.reset(seed=0)
    state = env.games.state.copy()
    with pytest.raises(IllegalActionError, match=f"game 0: action {bad}"):
        env.step(bad)
    np.testing.assert_array_equal(state, env.games.state)


class _ActOnly:
    def __init__(self) -> None:
        self.calls = 0

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        self.calls += 1
        assert observation.shape == (L.OBS_DIM,) and observation.dtype == np.float32
        return _last_legal(observation, mask)


class _Batched:
    def __init__(self) -> None:
        self.sizes: list[int] = []

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise AssertionError("act_batch should be used")

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.shape == (masks.shape[0], L.OBS_DIM) and masks.dtype == np.int8
        self.sizes.append(masks.shape[0])
        return np.array([_first_legal(o, m) for o, m in zip(observations, masks, strict=True)])


def test_opponent_protocol_callable_act_and_act_batch() -> None:
    act_only, batched = _ActOnly(), _Batched()
    lg = LearnerGames(5, 3, seed=1, opponents=[act_only, batched], learner_seat=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert (lg.games.current_player[~lg.done] == 0).all()
        masks = lg.masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        lg.step(acts)
        lg.reset()
    assert act_only.calls > 0 and max(batched.sizes) > 1
    # each opponent is asked at its own seat (seat after the learner's first), seeing its own view
    holder: list[LearnerGames] = []

    def at(rel: int):
        def policy(obs: np.ndarray, mask: np.ndarray) -> int:
            if not holder:  # moves before the learner's first turn, while the batch is built
                return _first_legal(obs, mask)
            lg2 = holder[0]
            cur = int(lg2.games.state[0, L.F_CUR])
            assert cur == (int(lg2.seat[0]) + rel) % 3
            np.testing.assert_array_equal(obs, lg2.games.observe(players=[cur], rows=[0])[0])
            np.testing.assert_array_equal(mask, lg2.games.masks()[0])
            calls[rel] += 1
            return _first_legal(obs, mask)

        return policy

    calls = {1: 0, 2: 0}
    holder.append(LearnerGames(1, 3, seed=2, opponents=[at(1), at(2)], learner_seat=2))
    lg2 = holder[0]
    for _ in range(30):
        if lg2.done[0]:
            break
        lg2.step(np.array([np.flatnonzero(lg2.masks()[0])[0]]))
    assert calls[1] > 0 and calls[2] > 0


def test_random_opponent() -> None:
    opp = RandomAgent(seed=3)
    g = Game(2, seed=0)
    mask = g.legal_mask()
    assert mask[opp.act(np.zeros(L.OBS_DIM, np.float32), mask)] == 1
    masks = np.stack([mask] * 100)
    acts = opp.act_batch(np.zeros((100, L.OBS_DIM), np.float32), masks)
    assert masks[np.arange(100), acts].all()
    assert len(set(acts.tolist())) > 1 or mask.sum() == 1
    opp.seed(3)
    np.testing.assert_array_equal(opp.act_batch(None, masks[:5]), RandomAgent(3).act_batch(None, masks[:5]))


def test_arguments_are_checked_and_bounds_hold() -> None:
    with pytest.raises(ValueError):
        OhMyGoodsEnv(learner_seat=2)
    with pytest.raises(ValueError):
        OhMyGoodsEnv(num_players=3, opponents=[_first_legal])
    with pytest.raises(ValueError):
        OhMyGoodsEnv(render_mode="human")
    env = OhMyGoodsEnv(render_mode="ansi")
    env.reset(seed=0)
    assert "learner is seat 0" in env.render()
    assert obs_high() >= 20 and obs_high(max_rounds=1000) == 50


def test_batch_policy_passes_each_opponent_what_it_asks_for() -> None:
    """BatchPolicy: observations of the acting seat (or zeros when not needed), masks, and the
    redacted information state — never the true state — for opponents that read it."""
    from ohmygoods_env.batch import BatchGames
    from ohmygoods_env.infostate import redact
    from ohmygoods_env.policy import BatchPolicy

    b = BatchGames(4, num_players=3, seed=8)
    rng = np.random.default_rng(0)
    for _ in range(30):  # somewhere mid-game
        b.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in b.masks()]))
    rows = np.array([0, 2, 3], np.int64)
    seen: dict[str, object] = {}

    class Spy:
        def __init__(self, needs_obs: bool, needs_info: bool) -> None:
            self.needs_observation, self.needs_info_state = needs_obs, needs_info

        def act_batch(self, obs, masks, infos=None):
            seen.update(obs=np.array(obs), masks=np.array(masks), infos=None if infos is None else np.array(infos))
            return [int(np.flatnonzero(m)[0]) for m in masks]

    acts = BatchPolicy(Spy(True, True))(b, rows)
    assert acts.dtype == np.int64 and acts.shape == (3,)
    np.testing.assert_array_equal(seen["obs"], b.observe(rows=rows))
    np.testing.assert_array_equal(seen["masks"], b.masks()[rows])
    for j, i in enumerate(rows):
        expected = np.zeros(L.STATE_LEN, np.int32)
        redact(b.state[i], int(b.state[i, L.F_CUR]), expected)
        np.testing.assert_array_equal(seen["infos"][j], expected)
        assert seen["infos"][j][L.F_RNG] == 0 and not np.array_equal(seen["infos"][j], b.state[i])
    BatchPolicy(Spy(False, False))(b, rows)
    assert not seen["obs"].any() and seen["obs"].shape == (3, L.OBS_DIM) and seen["infos"] is None
    calls = []
    plain = BatchPolicy(lambda o, m: calls.append(o.shape) or int(np.flatnonzero(m)[-1]))  # a bare callable
    np.testing.assert_array_equal(plain(b, rows), [int(np.flatnonzero(m)[-1]) for m in b.masks()[rows]])
    assert calls == [(L.OBS_DIM,)] * 3
