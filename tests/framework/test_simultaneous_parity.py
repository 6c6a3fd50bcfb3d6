"""The framework's PettingZoo envs play *Oh my Goods!* step for step as its own envs do.

The spec declares phases I and II as a simultaneous choice (``GameSpec.simultaneous``), so
``framework.envs.parallel_env("ohmygoods")`` acts every seat of a phase in the same step,
pads finished seats with ``A_WAIT`` and applies the choices in turn order, as
``ohmygoods_env.envs.parallel_env()`` does. Whole masked random games, 2-4 players, both rule
sets: same agents, observations, masks, rewards, terminations and truncations at every step.
"""

from __future__ import annotations

import numpy as np
import pytest

import ohmygoods_env  # noqa: F401  (registers the game)
from ohmygoods_env import layout as L
from ohmygoods_env.envs import parallel_env as omg_parallel_env
from ohmygoods_env.envs import raw_env as omg_raw_env
from ohmygoods_env.framework.envs import GameAECEnv, parallel_env
from ohmygoods_env.framework.game import SimultaneousChoice, game_spec

CASES = [(n, rules, seed) for n in (2, 3, 4) for rules in ("omg2", "royal") for seed in (0, 1)]


def _same_dicts(a: dict, b: dict, what: str, step: int) -> None:
    assert list(a) == list(b), f"{what} agents differ at step {step}"
    for agent in a:
        for key in ("observation", "action_mask"):
            assert np.array_equal(a[agent][key], b[agent][key]), f"{what} {agent} {key} differs at step {step}"


@pytest.mark.parametrize(("num_players", "rules", "seed"), CASES)
def test_parallel_env_same_as_the_games_own(num_players: int, rules: str, seed: int) -> None:
    _play_both(num_players, rules, seed)


def test_finished_seats_wait_out_the_phase_in_both() -> None:
    """Phase II's fixed step count: some seat finishes early and waits (A_WAIT) while others decide."""
    assert sum(_play_both(4, "omg2", seed) for seed in (0, 1)) > 0


def _play_both(num_players: int, rules: str, seed: int) -> int:
    """Plays one masked random game in both envs, comparing every step; returns the padding waits seen."""
    own = omg_parallel_env(num_players=num_players, rules=rules)
    fw = parallel_env("ohmygoods", num_players=num_players, rules=rules)
    obs_own, _ = own.reset(seed=seed)
    obs_fw, _ = fw.reset(seed=seed)
    rng = np.random.default_rng(seed)
    step, together, waited = 0, 0, 0
    _same_dicts(obs_own, obs_fw, "reset", step)
    while own.agents:
        assert fw.agents == own.agents and fw.acting_agents == own.acting_agents, f"step {step}"
        together = max(together, len(own.acting_agents))
        choice = fw._choice
        if choice is not None:  # a seat of the phase whose line is finished waits (the padding)
            waited += len(set(choice.order) - set(choice.acting()))
            assert all(
                obs_own[fw.possible_agents[p]]["action_mask"][L.A_WAIT]
                for p in choice.order
                if p not in choice.acting()
            )
        actions = {a: int(rng.choice(np.flatnonzero(obs_own[a]["action_mask"]))) for a in own.agents}
        obs_own, rew_own, term_own, trunc_own, _ = own.step(actions)
        obs_fw, rew_fw, term_fw, trunc_fw, _ = fw.step(actions)
        step += 1
        _same_dicts(obs_own, obs_fw, "step", step)
        assert (rew_fw, term_fw, trunc_fw) == (rew_own, term_own, trunc_own), f"step {step}"
    assert fw.agents == [] and all(term_fw.values()) and any(rew_fw.values())
    assert together == num_players  # a phase had every seat decide in the same step
    return waited


@pytest.mark.parametrize(("num_players", "rules", "seed"), CASES[::3])
def test_aec_env_same_as_the_games_own(num_players: int, rules: str, seed: int) -> None:
    own = omg_raw_env(num_players=num_players, rules=rules)
    fw = GameAECEnv("ohmygoods", num_players=num_players, rules=rules)
    own.reset(seed=seed)
    fw.reset(seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while own.agents:
        assert fw.agents == own.agents and fw.agent_selection == own.agent_selection, f"step {step}"
        for agent in own.agents:
            _same_dicts({agent: own.observe(agent)}, {agent: fw.observe(agent)}, "observe", step)
        assert fw.rewards == own.rewards and fw.terminations == own.terminations, f"step {step}"
        assert fw._cumulative_rewards == own._cumulative_rewards, f"step {step}"
        obs, _, term, trunc, _ = own.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        own.step(action)
        fw.step(action)
        step += 1
    assert fw.agents == [] and step > 50


def test_simultaneous_false_asks_one_seat_per_step_in_both() -> None:
    own = omg_parallel_env(num_players=3, simultaneous=False)
    fw = parallel_env("ohmygoods", num_players=3, simultaneous=False)
    obs_own, _ = own.reset(seed=5)
    obs_fw, _ = fw.reset(seed=5)
    rng = np.random.default_rng(5)
    for step in range(60):
        assert len(fw.acting_agents) == 1 and fw.acting_agents == own.acting_agents, f"step {step}"
        actions = {a: int(rng.choice(np.flatnonzero(obs_own[a]["action_mask"]))) for a in own.agents}
        obs_own, *_ = own.step(actions)
        obs_fw, *_ = fw.step(actions)
        _same_dicts(obs_own, obs_fw, "step", step)


def test_the_declaration_of_each_game() -> None:
    spec = game_spec("ohmygoods")
    model = spec.new_game(3, seed=2)
    choice = spec.simultaneous(model)
    assert isinstance(choice, SimultaneousChoice)  # the deal stops at phase I (R4.1)
    assert choice.order == [(int(model.game.state[L.F_FIRST]) + t) % 3 for t in range(3)]
    assert choice.steps_left == 1 and choice.acting() == choice.order
    assert game_spec("goofspiel").simultaneous is None  # its pending seats decide together, once each
    assert game_spec("artificium").simultaneous is None


def test_penalty_mode_in_a_phase_matches() -> None:
    own = omg_parallel_env(num_players=3, illegal="penalty", penalty=-2.0)
    fw = parallel_env("ohmygoods", num_players=3, illegal="penalty", penalty=-2.0)
    obs_own, _ = own.reset(seed=9)
    fw.reset(seed=9)
    assert len(own.acting_agents) == 3  # phase I: everybody at once
    bad = {a: int(np.flatnonzero(obs_own[a]["action_mask"] == 0)[0]) for a in own.agents}
    res_own, res_fw = own.step(bad), fw.step(bad)
    assert res_fw[1] == res_own[1] == dict.fromkeys(own.possible_agents, -2.0)
    _same_dicts(res_own[0], res_fw[0], "penalty", 1)
    assert fw.agents == own.agents == []


def test_an_illegal_action_in_a_phase_raises_and_changes_nothing() -> None:
    fw = parallel_env("ohmygoods", num_players=2)
    obs, _ = fw.reset(seed=3)
    illegal = int(np.flatnonzero(obs["player_1"]["action_mask"] == 0)[0])
    legal = int(np.flatnonzero(obs["player_0"]["action_mask"])[0])
    with pytest.raises(ValueError, match="illegal for player 1 in the simultaneous choice"):
        fw.step({"player_0": legal, "player_1": illegal})
    again = fw.observe("player_0")
    assert np.array_equal(again["observation"], obs["player_0"]["observation"])
    assert sorted(fw.acting_agents) == ["player_0", "player_1"]  # both still to choose
