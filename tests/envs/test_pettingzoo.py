"""PettingZoo AEC env: API and seed conformance, rewards, errors, pickling, masks, rendering."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from env_traces import aec_trace, parallel_trace
from pettingzoo.test import api_test, seed_test

import ohmygoods_env
from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game, IllegalActionError
from ohmygoods_env.envs import ENV_ID, make
from ohmygoods_env.envs.pettingzoo_env import INFO_KEYS, env, game_infos, observation_high, raw_env

CONFIGS = [(n, r) for n in (2, 3, 4) for r in ("omg2", "royal")]


def _random_action(e, rng: np.random.Generator) -> int:
    obs, *_ = e.last()
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def _play_to_end(e, rng: np.random.Generator, max_steps: int = 5000) -> int:
    """Step the acting agent with random legal actions until the game is over; returns steps taken."""
    for i in range(max_steps):
        if e.unwrapped.game.done:
            return i
        e.step(_random_action(e, rng))
    raise AssertionError("game did not end")


@pytest.mark.parametrize(("num_players", "rules"), CONFIGS)
def test_api_test(num_players: int, rules: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations warn by design (as in PettingZoo classic)
        api_test(env(num_players=num_players, rules=rules), num_cycles=1000)


@pytest.mark.parametrize(("num_players", "rules"), CONFIGS)
def test_seed_test(num_players: int, rules: str) -> None:
    seed_test(lambda: env(num_players=num_players, rules=rules), num_cycles=500)


@pytest.mark.parametrize(("num_players", "rules"), CONFIGS)
def test_same_seed_same_whole_games(num_players: int, rules: str) -> None:
    """Determinism over whole games with masked random actions (PettingZoo's parallel_seed_test samples
    unmasked actions, so in penalty mode its game ends at the first step): two envs with one seed agree
    at every step of two games, the second game dealt from the env's own draw; another seed differs."""
    from ohmygoods_env.envs.parallel import parallel_env

    for new_env, trace in ((env, aec_trace), (parallel_env, parallel_trace)):
        a = trace(new_env(num_players=num_players, rules=rules), 42)
        assert a == trace(new_env(num_players=num_players, rules=rules), 42)
        games = [i for i, t in enumerate(a) if t[0] == "game over"]
        assert len(games) == 2 and min(games[0], games[1] - games[0]) > 100  # whole games, not one step
        assert a != trace(new_env(num_players=num_players, rules=rules), 43)


def test_metadata_agents_and_spaces() -> None:
    e = raw_env(num_players=3)
    assert e.metadata == {
        "render_modes": ["human", "ansi", "rgb_array", "svg"],
        "name": "oh_my_goods_v2",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    assert str(e) == "oh_my_goods_v2" and str(env()) == "oh_my_goods_v2"
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    space = e.observation_space("player_1")
    assert list(space.spaces) == ["observation", "action_mask"]
    assert space["observation"].shape == (L.OBS_DIM,) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (L.N_ACTIONS,) and space["action_mask"].dtype == np.int8
    assert float(space["observation"].low.min()) == 0.0
    assert e.action_space("player_2").n == L.N_ACTIONS


def test_exports_and_make() -> None:
    assert ohmygoods_env.env is env and ohmygoods_env.raw_env is raw_env
    assert ENV_ID == f"ohmygoods/oh_my_goods-v{L.LAYOUT_VERSION}" == "ohmygoods/oh_my_goods-v2"
    e = make(ENV_ID, num_players=4, rules="royal")
    assert e.unwrapped.possible_agents == [f"player_{i}" for i in range(4)]
    assert e.unwrapped.game.rules.edition == "royal"
    with pytest.raises(ValueError, match="ohmygoods/oh_my_goods-v2"):
        make("ohmygoods/unknown-v9")
    for old in ("ohmygoods/oh_my_goods-v0", "ohmygoods/oh_my_goods-v1"):
        for parallel in (False, True):
            with pytest.raises(ValueError, match=r"earlier .*layout.*'ohmygoods/oh_my_goods-v2'"):
                make(old, parallel=parallel)


def test_constructor_validates_arguments() -> None:
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="points")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb")
    with pytest.raises(ValueError, match="num_players"):
        raw_env(num_players=5)
    with pytest.raises(ValueError, match="rules"):
        raw_env(rules="deluxe")


def test_reset_seed_matches_engine_game() -> None:
    e = raw_env(num_players=3, rules="royal")
    e.reset(seed=123)
    g = Game(3, "royal", seed=123)
    assert np.array_equal(e.game.state, g.state)
    assert e.agent_selection == f"player_{g.current_player}"
    assert e.seed_used == 123


def test_reset_seed_none_draws_from_env_rng() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=7)
    b.reset(seed=7)
    a.reset()
    b.reset()
    assert a.seed_used == b.seed_used  # a seeded env draws the same sequence of fresh seeds
    assert np.array_equal(a.game.state, b.game.state)
    seeds = set()
    for _ in range(5):
        a.reset()
        seeds.add(a.seed_used)
    assert len(seeds) == 5
    assert raw_env().reset() is None


def test_only_acting_agent_has_a_mask_and_all_observations_in_bounds() -> None:
    rng = np.random.default_rng(3)
    for n, rules in CONFIGS:
        e = raw_env(num_players=n, rules=rules)
        e.reset(seed=n)
        steps = 0
        while not e.game.done:
            for agent in e.agents:
                obs = e.observe(agent)
                assert e.observation_space(agent).contains(obs), (agent, steps)
                # the env's fused observe+mask kernel gives exactly the engine's observation
                assert np.array_equal(obs["observation"], e.game.observe(e.agent_name_mapping[agent]))
                if agent == e.agent_selection:
                    assert np.array_equal(obs["action_mask"], e.game.legal_mask())
                    assert obs["action_mask"].sum() >= 1
                else:
                    assert not obs["action_mask"].any()
            # infos: numbers only, the same keys for every agent; the acting seat's decision id
            for agent in e.agents:
                expected = e.game.decision if agent == e.agent_selection else -1
                assert e.infos[agent] == {"decision": expected, "score": 0, "leftover_coins": 0, "winner": 0}
            assert L.DECISION_NAMES[e.infos[e.agent_selection]["decision"]] == e.game.decision_name
            e.step(_random_action(e, rng))
            steps += 1
        for agent in e.agents:
            obs = e.observe(agent)
            assert not obs["action_mask"].any()
            assert e.observation_space(agent).contains(obs)


@pytest.mark.parametrize(("num_players", "rules"), [(2, "omg2"), (3, "royal"), (4, "omg2")])
def test_infos_equal_a_rebuild_from_the_game_at_every_step(num_players: int, rules: str) -> None:
    """The env keeps its infos up to date step by step; at every step (dead steps included) they
    equal :func:`game_infos` rebuilt from the game, with the keys of ``INFO_KEYS`` for every agent.
    An info dict handed out by ``last()`` is a snapshot: later steps do not change it."""
    e = env(num_players=num_players, rules=rules)
    e.reset(seed=100 + num_players)
    rng = np.random.default_rng(num_players)
    held: list[tuple[dict[str, int], dict[str, int]]] = []
    game = e.unwrapped.game
    steps = 0
    while e.agents:
        rebuilt = game_infos(game, e.agents, e.unwrapped.agent_name_mapping)
        assert e.infos == rebuilt, steps
        assert all(tuple(info) == INFO_KEYS for info in e.infos.values())
        assert all(type(v) is int for info in e.infos.values() for v in info.values())
        obs, _, term, trunc, info = e.last()
        held.append((info, dict(info)))
        if term or trunc:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert game.done and steps > 100
    for info, copy in held:
        assert info == copy


def test_observation_high_covers_engine_scales() -> None:
    high = observation_high()
    assert high.shape == (L.OBS_DIM,) and high.dtype == np.float32
    assert high.min() >= 1.0
    # hand size feature (hand / 10) must allow all 94 cards in one hand
    assert high[L.O_PLAYERS] >= L.N_CARDS / 10


@pytest.mark.parametrize(("num_players", "rules"), [(2, "omg2"), (3, "royal"), (4, "omg2")])
def test_final_rewards_reach_every_agent(num_players: int, rules: str) -> None:
    e = env(num_players=num_players, rules=rules)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    _play_to_end(e, rng)
    game = e.unwrapped.game
    expected = game.rewards("win")
    winners = game.winners()
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert len(e.agents) == num_players
    for i, agent in enumerate(e.possible_agents):
        assert e.rewards[agent] == pytest.approx(float(expected[i]))
        assert e.infos[agent]["winner"] == (i in winners)
        assert (e.infos[agent]["score"], e.infos[agent]["leftover_coins"]) == game.scores()[i]
    values = np.array([e.rewards[a] for a in e.possible_agents])
    if len(winners) == num_players:
        assert not values.any()
    else:
        assert np.all(values != 0)
        assert set(values.tolist()) <= {1.0, -1.0}
        assert values.sum() == len(winners) - (num_players - len(winners))
    # every agent, not only the last mover, reads its reward from last(), then steps None
    seen = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        assert terminated and not truncated
        assert not obs["action_mask"].any()
        seen[agent] = reward
        e.step(None)
    assert seen == {a: float(expected[i]) for i, a in enumerate(e.possible_agents)}
    assert e.agents == []


def test_score_and_margin_reward_modes() -> None:
    for mode in ("score", "margin"):
        e = raw_env(num_players=3, reward=mode)
        e.reset(seed=5)
        _play_to_end(e, np.random.default_rng(5))
        scores = [s for s, _ in e.game.scores()]
        got = [e.rewards[a] for a in e.possible_agents]
        if mode == "score":
            assert got == [float(s) for s in scores]
        else:
            assert got == [float(s - max(scores[:i] + scores[i + 1 :])) for i, s in enumerate(scores)]


def test_step_after_the_end(caplog: pytest.LogCaptureFixture) -> None:
    e = env(num_players=2)
    e.reset(seed=2)
    _play_to_end(e, np.random.default_rng(2))
    with pytest.raises(ValueError, match="None"):
        e.step(0)  # a terminated agent may only step None (_was_dead_step)
    e.step(None)
    e.step(None)
    assert e.agents == []
    state = e.unwrapped.game.state.copy()
    e.step(None)  # OrderEnforcingWrapper: a logged warning, nothing changes
    assert "step() called after all agents are terminated" in caplog.text
    assert np.array_equal(state, e.unwrapped.game.state) and e.agents == []
    caplog.clear()
    raw = raw_env()
    raw.reset(seed=2)
    _play_to_end(raw, np.random.default_rng(2))
    raw.step(None)
    raw.step(None)
    raw.step(0)  # the raw env behaves the same way
    assert "step() called after all agents are terminated" in caplog.text


def test_order_is_enforced_before_reset() -> None:
    e = env()
    for call in (e.last, lambda: e.step(0), lambda: e.observe("player_0")):
        with pytest.raises(AssertionError, match="reset"):
            call()
    with pytest.raises(AttributeError, match="before reset"):
        _ = e.agent_selection
    e.reset(seed=0)
    obs, reward, term, trunc, info = e.last()
    assert (reward, term, trunc) == (0.0, False, False)
    assert info == {"decision": e.unwrapped.game.decision, "score": 0, "leftover_coins": 0, "winner": 0}
    assert e.last(observe=False)[0] is None


def test_unknown_agent_is_a_clear_error() -> None:
    e = raw_env()
    e.reset(seed=0)
    for bad in ("player_7", 0, None):
        with pytest.raises(ValueError, match=r"unknown agent .*player_0"):
            e.observe(bad)


def test_illegal_action_raises_and_changes_nothing() -> None:
    e = env(num_players=3)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(25):
        e.step(_random_action(e, rng))
    game = e.unwrapped.game
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = (game.state.copy(), e.agent_selection, dict(e.rewards), dict(e._cumulative_rewards), list(game.actions))
    decision = game.decision_name
    with pytest.raises(ValueError, match=rf"action {illegal}\b.*'{decision}'") as info:
        e.step(illegal)
    assert isinstance(info.value, IllegalActionError)
    after = (game.state, e.agent_selection, dict(e.rewards), dict(e._cumulative_rewards), list(game.actions))
    assert np.array_equal(before[0], after[0]) and before[1:] == after[1:]
    with pytest.raises(ValueError, match=rf"out of range.*'{decision}'"):
        e.step(L.N_ACTIONS)
    with pytest.raises(ValueError, match="out of range"):
        e.step(-1)
    assert np.array_equal(before[0], game.state)
    e.step(_random_action(e, rng))  # the env still works


@pytest.mark.parametrize("bad", ["3", 1.0, None, True, [1]])
def test_wrong_action_type_raises_type_error(bad: object) -> None:
    e = env()
    e.reset(seed=1)
    state = e.unwrapped.game.state.copy()
    with pytest.raises(TypeError, match="action must be an int"):
        e.step(bad)
    assert np.array_equal(state, e.unwrapped.game.state)


def test_numpy_integer_actions_accepted() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=9)
    b.reset(seed=9)
    act = int(np.flatnonzero(a.observe(a.agent_selection)["action_mask"])[0])
    a.step(act)
    b.step(np.int64(act))
    assert np.array_equal(a.game.state, b.game.state)


@pytest.mark.parametrize("wrapped", [True, False])
def test_pickle_mid_game_continues_identically(wrapped: bool) -> None:
    e = env(num_players=3, rules="omg2") if wrapped else raw_env(num_players=3, rules="omg2")
    e.reset(seed=21)
    rng = np.random.default_rng(21)
    for _ in range(150):
        e.step(_random_action(e, rng))
    copy = pickle.loads(pickle.dumps(e))
    assert copy.unwrapped.game.state is not e.unwrapped.game.state
    rng_a, rng_b = np.random.default_rng(99), np.random.default_rng(99)
    while not e.unwrapped.game.done:
        assert copy.agent_selection == e.agent_selection
        oa, ob = e.last(), copy.last()
        assert np.array_equal(oa[0]["observation"], ob[0]["observation"])
        assert np.array_equal(oa[0]["action_mask"], ob[0]["action_mask"])
        assert oa[1:] == ob[1:]
        e.step(_random_action(e, rng_a))
        copy.step(_random_action(copy, rng_b))
    assert copy.unwrapped.game.done
    assert copy.rewards == e.rewards and copy.infos == e.infos
    assert copy.unwrapped.game.actions == e.unwrapped.game.actions
    # the pickled env's own RNG travels too: the next unseeded reset deals the same game
    e.reset()
    copy.reset()
    assert np.array_equal(e.unwrapped.game.state, copy.unwrapped.game.state)


def test_auto_forced_flag_reaches_the_engine() -> None:
    e = raw_env(auto_forced=False)
    e.reset(seed=0)
    assert e.game.rules.auto_forced is False
    forced = 0
    while not e.game.done and forced == 0:
        mask = e.observe(e.agent_selection)["action_mask"]
        forced += int(mask.sum() == 1)
        e.step(int(np.flatnonzero(mask)[0]))
    assert forced == 1  # with auto_forced=False single-action decisions are asked


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    e = env(num_players=3, render_mode="ansi")
    e.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(40):
        e.step(_random_action(e, rng))
    text = e.render()
    assert isinstance(text, str)
    for p in range(3):
        assert f"Player {p}" in text
    assert "spectator view" in text and "Charburner" in text and "market" in text
    h = env(num_players=2, render_mode="human")
    h.reset(seed=8)
    assert h.render() is None
    assert "Player 1" in capsys.readouterr().out
    h.step(_random_action(h, rng))  # human mode renders after each step
    assert "Player 0" in capsys.readouterr().out
    none = env()
    none.reset(seed=8)
    with pytest.warns(UserWarning, match="render mode"):
        assert none.render() is None
