"""The generic front ends (framework/envs) on the example game (2-6 players) and Oh my Goods! (1-4 players).

PettingZoo's api_test / seed_test / parallel_api_test / parallel_seed_test, Gymnasium's
check_env, the vector env; that simultaneous choices are one parallel step; clear errors
with nothing changed.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from env_traces import aec_trace, parallel_trace
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import ohmygoods_env.goofspiel.game_spec  # noqa: F401  (registers "goofspiel")
from ohmygoods_env.framework.envs import (
    GameAECEnv,
    GameParallelEnv,
    GameSingleAgentEnv,
    VectorGameEnv,
    aec_env,
    parallel_env,
)
from ohmygoods_env.framework.envs.vector import episode_seed, random_actions
from ohmygoods_env.framework.game import GameOverError, IllegalActionError

GAMES = [("goofspiel", n) for n in range(2, 7)] + [("ohmygoods", n) for n in range(1, 5)]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations warn by design (as in PettingZoo classic)
        yield


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_pettingzoo_api_and_seed_tests(game: str, n: int) -> None:
    api_test(aec_env(game, num_players=n), num_cycles=400)
    seed_test(lambda: aec_env(game, num_players=n), num_cycles=200)
    parallel_api_test(parallel_env(game, num_players=n), num_cycles=400)
    parallel_seed_test(lambda: parallel_env(game, num_players=n, illegal="penalty"), num_cycles=200)


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_same_seed_same_whole_games(game: str, n: int) -> None:
    """Determinism over whole games with masked actions (the stock parallel_seed_test samples unmasked
    actions, so its penalty-mode game ends at the first step): one seed, the same two games step by step
    (the second dealt from the env's own draw) in the AEC and the parallel env; another seed differs."""
    for make, trace in ((aec_env, aec_trace), (parallel_env, parallel_trace)):
        a = trace(make(game, num_players=n), 42)
        assert a == trace(make(game, num_players=n), 42)
        ends = [i for i, t in enumerate(a) if t[0] == "game over"]
        assert len(ends) == 2 and min(ends[0], ends[1] - ends[0]) > n  # whole games: every seat acted
        assert a != trace(make(game, num_players=n), 43)


@pytest.mark.parametrize(("game", "n"), [("goofspiel", 2), ("goofspiel", 5), ("ohmygoods", 2), ("ohmygoods", 3)])
def test_gymnasium_check_env(game: str, n: int) -> None:
    check_env(GameSingleAgentEnv(game, num_players=n), skip_render_check=True)


def _random_parallel_game(env: GameParallelEnv, seed: int) -> list[list[str]]:
    """Play to the end with random legal actions; returns the acting agents of every step."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    acting = []
    while env.agents:
        acting.append(env.acting_agents)
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, *_ = env.step(actions)
    return acting


@pytest.mark.parametrize("n", range(2, 7))
def test_every_seat_bids_in_the_same_parallel_step(n: int) -> None:
    env = parallel_env("goofspiel", num_players=n, num_cards=4)
    acting = _random_parallel_game(env, seed=n)
    everyone = [f"player_{i}" for i in range(n)]
    # per round: the leader's pick (one agent), then one step in which every seat bids
    assert acting == [x for r in range(4) for x in ([f"player_{r % n}"], everyone)]
    # waiting seats get the one-action wait mask; the game has no wait action, so it is id num_actions
    obs, _ = env.reset(seed=0)
    assert env.wait_action == 6 and env.action_space("player_0").n == 7
    assert obs["player_1"]["action_mask"].tolist() == [0, 0, 0, 0, 0, 0, 1]
    assert obs["player_0"]["action_mask"].tolist() == [0, 0, 0, 0, 1, 1, 0]


def test_ohmygoods_phases_are_simultaneous_as_its_spec_declares_with_its_own_wait_action() -> None:
    from ohmygoods_env import layout as L

    env = parallel_env("ohmygoods", num_players=3)
    obs, _ = env.reset(seed=4)
    assert env.wait_action == L.A_WAIT and env.action_space("player_0").n == L.N_ACTIONS
    assert sorted(env.acting_agents) == env.possible_agents  # phase I (R4.1): every seat at once
    # without the declaration the model's one pending seat is asked per step; the others wait
    env = parallel_env("ohmygoods", num_players=3, simultaneous=False)
    obs, _ = env.reset(seed=4)
    assert len(env.acting_agents) == 1
    waiting = [a for a in env.possible_agents if a not in env.acting_agents]
    assert all(np.flatnonzero(obs[a]["action_mask"]).tolist() == [L.A_WAIT] for a in waiting)


def test_ohmygoods_through_the_adapter_plays_exactly_as_the_engine() -> None:
    from ohmygoods_env.engine import Game

    env = GameAECEnv("ohmygoods", num_players=3)
    env.reset(seed=21)
    g = Game(3, seed=21)
    rng = np.random.default_rng(0)
    for _ in range(300):
        agent = env.agent_selection
        p = env.agent_name_mapping[agent]
        assert p == g.current_player
        obs = env.observe(agent)
        np.testing.assert_array_equal(obs["observation"], g.observe(p))
        np.testing.assert_array_equal(obs["action_mask"], g.legal_mask())
        a = int(rng.choice(np.flatnonzero(g.legal_mask())))
        env.step(a)
        g.step(a)
    assert env.game.record().actions == g.actions


@pytest.mark.parametrize(("game", "n"), [("goofspiel", 3), ("ohmygoods", 2)])
def test_aec_errors_name_the_problem_and_change_nothing(game: str, n: int) -> None:
    env = GameAECEnv(game, num_players=n)
    env.reset(seed=1)
    agent = env.agent_selection
    before = (env.observe(agent)["observation"].copy(), env.game.record().actions)
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    for bad, exc, words in [
        (illegal, IllegalActionError, "illegal"),
        ("1", TypeError, "must be an int"),
        (10**6, ValueError, "out of range"),
    ]:
        with pytest.raises(exc, match=words):
            env.step(bad)
        assert env.agent_selection == agent
        np.testing.assert_array_equal(env.observe(agent)["observation"], before[0])
        assert env.game.record().actions == before[1]
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.observe("player_9")


def test_parallel_errors_name_the_problem_and_change_nothing() -> None:
    env = parallel_env("goofspiel", num_players=3)
    obs, _ = env.reset(seed=2)
    pick = {"player_0": int(np.flatnonzero(obs["player_0"]["action_mask"])[0])}
    cases = [
        ({"player_0": 0}, IllegalActionError, "illegal for player 0"),
        ({"player_0": pick["player_0"], "player_1": 0}, ValueError, "player_1 has nothing to decide"),
        ({}, ValueError, "no action for player_0"),
        ({**pick, "player_7": 6}, ValueError, "unknown agent 'player_7'"),
        ({"player_0": "3"}, TypeError, "must be an int"),
        ([pick["player_0"]], TypeError, "dict"),
    ]
    for actions, exc, words in cases:
        with pytest.raises(exc, match=words):
            env.step(actions)  # type: ignore[arg-type]
        assert env.game.record().actions == [] and env.acting_agents == ["player_0"]
    obs, *_ = env.step({**pick, "player_1": env.wait_action, "player_2": None})
    before = env.game.record().actions
    with pytest.raises(IllegalActionError, match="player 2"):
        env.step({"player_0": 0, "player_1": 0, "player_2": 5})
    assert env.game.record().actions == before  # nobody's bid was applied
    while env.agents:
        obs, *_ = env.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
    with pytest.raises(RuntimeError, match="reset"):
        env.step({})


def test_parallel_penalty_ends_the_game_with_zero_sum_rewards() -> None:
    env = parallel_env("goofspiel", num_players=3, illegal="penalty", penalty=-3.0)
    env.reset(seed=0)
    env.step({"player_0": 3})
    _, rewards, terms, _, _ = env.step({"player_0": 0, "player_1": 5, "player_2": 5})
    assert rewards == {"player_0": 6.0, "player_1": -3.0, "player_2": -3.0} and all(terms.values())  # -(-3) * 2 / 1
    assert env.agents == []


def test_aec_rewards_at_the_end_match_the_game() -> None:
    env = GameAECEnv("goofspiel", num_players=4, reward="score")
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, _, _ = env.last()
        if term:
            final[agent] = reward
        else:
            assert reward == 0.0
        env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.game.done and env.agents == []
    assert final == {f"player_{p}": float(s) for p, s in enumerate(env.game.scores())}


def test_single_agent_env_opponents_by_name_object_and_errors() -> None:
    from ohmygoods_env.framework.agents import RandomAgent

    env = GameSingleAgentEnv("goofspiel", num_players=3, opponents=["random", RandomAgent(1)], learner_seat=1)
    obs, info = env.reset(seed=3)
    assert info["seat"] == 1 and env.game.pending_players()[0] <= 1 and 1 in env.game.pending_players()
    np.testing.assert_array_equal(obs, env.game.observe(1))
    before = env.game.record().actions
    for bad, exc in [("1", TypeError), (99, ValueError)]:
        with pytest.raises(exc):
            env.step(bad)
        assert env.game.record().actions == before
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert reward == float(info["rewards"][1]) and not info["illegal_action"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(ValueError, match="unknown agent 'nobody'.*random"):
        GameSingleAgentEnv("goofspiel", opponents="nobody")
    with pytest.raises(ValueError, match="sequence of 2"):
        GameSingleAgentEnv("goofspiel", num_players=3, opponents=["random"])
    strict = GameSingleAgentEnv("goofspiel", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(0)  # seat 0 picks first: a bid is illegal


def test_single_agent_env_plays_ohmygoods_against_the_packages_agents() -> None:
    env = GameSingleAgentEnv("ohmygoods", num_players=2, opponents="heuristic")
    obs, info = env.reset(seed=5)
    for _ in range(40):
        obs, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if done:
            break
    assert env.game.current_player == 0 or env.game.done
    clone = pickle.loads(pickle.dumps(env))
    np.testing.assert_array_equal(clone.game.observe(0), env.game.observe(0))


@pytest.mark.parametrize(("game", "n"), [("goofspiel", 2), ("goofspiel", 6), ("ohmygoods", 3), ("artificium", 5)])
def test_vector_env_steps_every_pending_seat_and_autoresets(game: str, n: int) -> None:
    import ohmygoods_env  # noqa: F401  (registers "artificium")

    env = VectorGameEnv(game, num_games=3, num_players=n, seed=11)
    ts = env.reset(seed=11)
    assert ts.observation.shape == (3, n, env.obs_size) and ts.action_mask.dtype == np.int8
    assert (ts.action_mask.any(axis=-1) == ts.pending).all()
    rng = np.random.default_rng(0)
    ended, most = 0, 0
    for _ in range(120 if game == "goofspiel" else 600 if game == "artificium" else 1500):
        ts = env.step(random_actions(ts.action_mask, rng))
        ended += int(ts.terminated.sum())
        most = max(most, int(ts.pending.sum(axis=1).max()))
        assert not ts.rewards[~ts.terminated].any()
        assert set(np.unique(ts.rewards[ts.terminated]).tolist()) <= {-1.0, 0.0, 1.0}  # "win" rewards
    assert ended > 0 and (env.episodes > 0).any()
    assert most == (1 if game == "ohmygoods" else n)  # simultaneous choices: every seat pending in one step
    assert ts.pending.any(axis=1).all()  # every slot holds a live game


def test_vector_env_errors_change_no_game_and_seeds_are_per_slot() -> None:
    env = VectorGameEnv("goofspiel", num_games=2, num_players=2, seed=5)
    ts = env.reset()
    before = [g.record().actions for g in env.games]
    acts = random_actions(ts.action_mask, np.random.default_rng(0))
    bad = acts.copy()
    bad[1, env.games[1].current_player] = 0  # a bid in a pick: illegal in game 1
    for wrong, exc, words in [(bad, IllegalActionError, "game 1"), (acts.astype(float), TypeError, "ints of shape")]:
        with pytest.raises(exc, match=words):
            env.step(wrong)
        assert [g.record().actions for g in env.games] == before
    assert env.games[0].seed == episode_seed(5, 0, 1) and env.games[1].seed == episode_seed(5, 1, 1)
    env.reset(seed=5)
    assert env.games[1].seed == episode_seed(5, 1, 0)
    fixed = VectorGameEnv("goofspiel", num_games=1, num_players=2, seed=0, autoreset=False)
    ts = fixed.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(6):
        ts = fixed.step(random_actions(ts.action_mask, rng))
    assert fixed.games[0].done and not ts.pending.any()
    with pytest.raises(ValueError, match="num_games"):
        VectorGameEnv("goofspiel", num_games=0)


def test_generic_envs_refuse_bad_setup() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        GameAECEnv("nope")
    with pytest.raises(ValueError, match="num_players must be in 2..6"):
        parallel_env("goofspiel", num_players=7)
    with pytest.raises(ValueError, match="reward mode"):
        GameAECEnv("goofspiel", reward="best")
    with pytest.raises(ValueError, match="illegal must be"):
        parallel_env("goofspiel", illegal="ignore")
    with pytest.raises(GameOverError):
        env = GameAECEnv("goofspiel")
        env.reset(seed=0)
        g = env.game
        while not g.done:
            g.step(int(np.flatnonzero(g.legal_mask())[0]))
        g.step(0)


@pytest.mark.parametrize("game", ["goofspiel", "ohmygoods", "artificium"])
def test_envs_render_text_and_pickle(game: str) -> None:
    import ohmygoods_env  # noqa: F401  (registers "artificium")

    aec = GameAECEnv(game, num_players=2, render_mode="ansi")
    aec.reset(seed=3)
    assert isinstance(aec.render(), str) and aec.render()
    par = parallel_env(game, num_players=2, render_mode="ansi")
    obs, _ = par.reset(seed=3)
    assert par.render() == aec.render()
    copy = pickle.loads(pickle.dumps(par))
    np.testing.assert_array_equal(copy.observe("player_1")["observation"], obs["player_1"]["observation"])
    single = GameSingleAgentEnv(game, render_mode="ansi")
    single.reset(seed=3)
    assert isinstance(single.render(), str)


@pytest.mark.parametrize("n", [2, 4])
def test_aec_face_down_choice_is_hidden_from_the_next_seat(n: int) -> None:
    """AEC twins that differ only in seat 0's face-down bid show seat 1 the same observation."""
    envs = [GameAECEnv("goofspiel", num_players=n, num_cards=4) for _ in range(2)]
    for env, bid in zip(envs, (0, 3), strict=True):
        env.reset(seed=5)
        env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))  # the leader's pick
        assert env.agent_selection == "player_0"
        env.step(bid)
        assert env.agent_selection == "player_1"
    a, b = (e.observe("player_1") for e in envs)
    np.testing.assert_array_equal(a["observation"], b["observation"])
    np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
    assert envs[0].infos == envs[1].infos


@pytest.mark.parametrize(("game", "n"), [("goofspiel", 3), ("artificium", 4), ("ohmygoods", 2)])
def test_parallel_to_aec_gives_a_cycling_aec_env_that_passes_api_test(game: str, n: int) -> None:
    from pettingzoo.utils.conversions import parallel_to_aec

    import ohmygoods_env  # noqa: F401  (registers "artificium")

    api_test(parallel_to_aec(parallel_env(game, num_players=n)), num_cycles=300)
