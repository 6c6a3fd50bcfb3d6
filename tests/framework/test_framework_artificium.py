"""Artificium through the framework: its spec, its PettingZoo and Gymnasium ids, API tests for 2-6 players,
the card choice as one parallel step, IS-MCTS on it."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import ohmygoods_agents.ismcts  # noqa: F401  (registers "ismcts"; installed packages find it by entry point)
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import ohmygoods_env  # noqa: F401  (registers the ids)
from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import Game
from ohmygoods_env.artificium.game_spec import ARTIFICIUM, ENV_ID, ENV_ID_GYM
from ohmygoods_env.framework.agents import choose, make_agent
from ohmygoods_env.framework.game import ForwardModel, game_spec

PLAYERS = range(2, 7)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations warn by design (as in PettingZoo classic)
        yield


def test_spec_and_ids_are_registered() -> None:
    assert game_spec("artificium") is ARTIFICIUM
    assert ENV_ID == "ohmygoods/artificium-v0" and ENV_ID_GYM == "ohmygoods/Artificium-v0"
    assert ENV_ID in pettingzoo.aec_registry and ENV_ID in pettingzoo.parallel_registry
    assert ENV_ID_GYM in gymnasium.registry
    g = ARTIFICIUM.make(4, seed=1)
    assert isinstance(g, ForwardModel) and isinstance(g, Game)
    assert (g.num_actions, g.obs_size) == (ARTIFICIUM.num_actions, ARTIFICIUM.obs_size(4))
    with pytest.raises(TypeError, match="unknown option"):
        pettingzoo.make("parallel", ENV_ID, num_players=3, colour="red")  # fails at construction, not at reset
    with pytest.raises(ValueError, match="num_players must be in 2..6"):
        pettingzoo.make("aec", ENV_ID, num_players=7)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_and_seed_tests(n: int) -> None:
    api_test(pettingzoo.make("aec", ENV_ID, num_players=n), num_cycles=1000)
    seed_test(lambda: pettingzoo.make("aec", ENV_ID, num_players=n), num_cycles=300)
    parallel_api_test(pettingzoo.make("parallel", ENV_ID, num_players=n), num_cycles=1000)
    parallel_seed_test(lambda: pettingzoo.make("parallel", ENV_ID, num_players=n, illegal="penalty"), num_cycles=300)


@pytest.mark.parametrize("n", [2, 6])
def test_gymnasium_id_passes_check_env(n: int) -> None:
    check_env(gymnasium.make(ENV_ID_GYM, num_players=n).unwrapped, skip_render_check=True)


@pytest.mark.parametrize("n", PLAYERS)
def test_the_card_choice_is_one_parallel_step_for_every_seat_in_the_round(n: int) -> None:
    env = pettingzoo.make("parallel", ENV_ID, num_players=n)
    obs, _ = env.reset(seed=n)
    rng = np.random.default_rng(n)
    together = 0
    while env.agents:
        acting = env.acting_agents
        pending = env.game.pending_players()
        assert acting == [f"player_{p}" for p in pending]
        if env.game.decision == L.D_CHOOSE:
            assert len(acting) >= 1
            together += len(acting) == n
        for a, o in obs.items():  # waiting seats: exactly the wait action
            if a not in acting:
                assert np.flatnonzero(o["action_mask"]).tolist() == [L.A_WAIT]
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
    assert together >= 1  # every seat chose its card in one step at least once (the first card of a round)


def test_ismcts_and_the_single_agent_env_play_artificium() -> None:
    g = ARTIFICIUM.make(3, seed=2)
    agent = make_agent("artificium", "ismcts:4", seed=0)
    for _ in range(5):
        pending = g.pending_players()
        g.step_joint({p: choose(agent, g, p) for p in pending})
    env = gymnasium.make(ENV_ID_GYM, num_players=3, opponents="random").unwrapped
    obs, info = env.reset(seed=1)
    for _ in range(30):
        obs, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if done:
            break


def test_bad_actions_raise_the_frameworks_errors_and_change_nothing() -> None:
    from ohmygoods_env.framework.envs import GameAECEnv
    from ohmygoods_env.framework.game import IllegalActionError

    aec = GameAECEnv("artificium", num_players=3)
    aec.reset(seed=4)
    before = aec.game.state.copy()
    agent = aec.agent_selection
    with pytest.raises(IllegalActionError, match=agent):
        aec.step(L.A_WAIT)
    with pytest.raises(TypeError, match="must be an int"):
        aec.step(1.5)
    par = pettingzoo.make("parallel", ENV_ID, num_players=3)
    obs, _ = par.reset(seed=4)
    with pytest.raises(IllegalActionError):
        par.step({a: L.A_WAIT for a in obs})
    with pytest.raises(ValueError, match="unknown agent"):
        par.step({"player_3": 0})
    np.testing.assert_array_equal(aec.game.state, before)
    np.testing.assert_array_equal(par.game.state, before)


def test_ismcts_beats_random_play_at_artificium() -> None:
    """Two players, sole or shared wins of the search seat: the 95% Wilson lower bound lies above parity (1/2)."""
    from ohmygoods_agents.ismcts import ISMCTSAgent

    from ohmygoods_env.framework.agents import RandomAgent
    from ohmygoods_env.framework.stats import wilson

    games, wins = 20, 0.0
    for i in range(games):
        g = ARTIFICIUM.make(2, seed=2000 + i)
        seat = i % 2
        agents = {seat: ISMCTSAgent(iterations=12, seed=i), 1 - seat: RandomAgent(seed=i)}
        while not g.done:
            g.step_joint({p: choose(agents[p], g, p) for p in g.pending_players()})
        w = g.winners()
        wins += 1.0 / len(w) if seat in w else 0.0
    assert wilson(wins, games)[0] > 0.5, (wins, games)


def test_observation_space_bounds_come_from_the_game() -> None:
    from ohmygoods_env.artificium.engine import obs_bounds

    space = pettingzoo.make("aec", ENV_ID, num_players=3).observation_space("player_0")["observation"]
    low, high = obs_bounds()
    np.testing.assert_array_equal(space.low, low)
    np.testing.assert_array_equal(space.high, high)
