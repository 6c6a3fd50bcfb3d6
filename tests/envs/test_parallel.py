"""PettingZoo parallel env: API and seed conformance, wait masks, rewards, errors, hidden information."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec

from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game, IllegalActionError
from ohmygoods_env.envs import ENV_ID, make
from ohmygoods_env.envs.parallel import OhMyGoodsParallelEnv, parallel_env
from ohmygoods_env.envs.pettingzoo_env import STATE_DIM, env
from ohmygoods_env.infostate import hidden_cards, swap_cards

CONFIGS = [(n, r) for n in (2, 3, 4) for r in ("omg2", "royal")]


def _actions(e: OhMyGoodsParallelEnv, obs: dict, rng: np.random.Generator) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in e.agents}


@pytest.mark.parametrize(("num_players", "rules"), CONFIGS)
def test_parallel_api_test(num_players: int, rules: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(num_players=num_players, rules=rules), num_cycles=2000)


@pytest.mark.parametrize(("num_players", "rules"), [(2, "omg2"), (4, "royal")])
def test_parallel_seed_test(num_players: int, rules: str) -> None:
    # the seed test samples actions without masks: illegal actions end the game with a penalty
    parallel_seed_test(lambda: parallel_env(num_players=num_players, rules=rules, illegal="penalty"), num_cycles=500)


def test_penalty_mode_ends_the_game_zero_sum() -> None:
    e = parallel_env(num_players=3, illegal="penalty", penalty=-2.0)
    obs, _ = e.reset(seed=8)
    actor = e.acting_agent
    illegal = int(np.flatnonzero(obs[actor]["action_mask"] == 0)[0])
    state = e.game.state.copy()
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in e.agents}
    obs, rewards, terms, _, _ = e.step({**actions, actor: illegal})
    assert np.array_equal(state, e.game.state) and e.agents == [] and all(terms.values())
    assert rewards == {a: -2.0 if a == actor else 1.0 for a in e.possible_agents}
    assert all(np.flatnonzero(o["action_mask"]).tolist() == [L.A_WAIT] for o in obs.values())
    e.reset(seed=8)
    with pytest.raises(TypeError, match="action must be an int"):
        e.step({**actions, actor: "1"})
    with pytest.raises(ValueError, match="illegal must be"):
        parallel_env(illegal="ignore")


def test_registered_in_pettingzoo_registries() -> None:
    assert ENV_ID == "ohmygoods/oh_my_goods-v2"
    assert ENV_ID in pettingzoo.aec_registry and ENV_ID in pettingzoo.parallel_registry
    aec = pettingzoo.make("aec", ENV_ID, num_players=3, rules="royal")
    par = pettingzoo.make("parallel", ENV_ID, num_players=3)
    assert isinstance(aec, pettingzoo.AECEnv) and isinstance(par, OhMyGoodsParallelEnv)
    assert aec.unwrapped.game.rules.edition == "royal" and par.possible_agents == [f"player_{i}" for i in range(3)]
    for kind in ("aec", "parallel"):
        for old in ("ohmygoods/oh_my_goods-v0", "ohmygoods/oh_my_goods-v1"):
            with pytest.raises(pettingzoo.env_registry.exceptions.VersionNotFound, match="v2"):
                pettingzoo.make(kind, old)
    assert isinstance(make(ENV_ID, parallel=True, num_players=4), OhMyGoodsParallelEnv)


def _one_actor(e: OhMyGoodsParallelEnv, obs: dict, rng: np.random.Generator) -> dict:
    """Step ``e`` with random actions until exactly one seat acts (outside phases I and II)."""
    while len(e.acting_agents) != 1:
        obs, *_ = e.step(_actions(e, obs, rng))
    return obs


def test_bad_actions_raise_and_change_nothing() -> None:
    e = parallel_env(num_players=3)
    obs = _one_actor(e, e.reset(seed=4)[0], np.random.default_rng(4))
    actor = e.acting_agent
    waiting = next(a for a in e.agents if a != actor)
    legal = int(np.flatnonzero(obs[actor]["action_mask"])[0])
    illegal = int(np.flatnonzero(obs[actor]["action_mask"] == 0)[0])
    state = e.game.state.copy()
    waits = dict.fromkeys(e.agents, L.A_WAIT)
    cases = [
        ({**waits, actor: illegal}, IllegalActionError, rf"action {illegal}\b"),
        ({**waits, actor: legal, waiting: legal}, ValueError, rf"{waiting} has nothing to decide.*A_WAIT"),
        ({a: L.A_WAIT for a in e.agents if a != actor}, ValueError, rf"no action for {actor}"),
        ({**waits, actor: legal, "player_9": 0}, ValueError, "unknown agent 'player_9'"),
        ({**waits, actor: "3"}, TypeError, "action must be an int"),
        ({**waits, actor: L.A_WAIT}, IllegalActionError, "illegal"),  # the actor may not wait
        ([legal], TypeError, "dict"),
    ]
    for actions, error, pattern in cases:
        with pytest.raises(error, match=pattern):
            e.step(actions)
        assert np.array_equal(state, e.game.state)
    e.step({actor: legal})  # waiting seats may be left out
    assert not np.array_equal(state, e.game.state)


@pytest.mark.parametrize("seed", [1.5, "7", True, np.float64(2.0)])
def test_reset_seed_must_be_an_int(seed: object) -> None:
    for e in (parallel_env(), env()):
        with pytest.raises(TypeError, match="seed must be an int"):
            e.reset(seed=seed)
    e = parallel_env()
    e.reset(seed=np.int64(7))
    assert e.seed_used == 7 and np.array_equal(e.game.state, Game(2, seed=7).state)


def test_round_trip_through_parallel_to_aec() -> None:
    """parallel_to_aec gives a cycling AEC env that passes api_test and plays the same game."""
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(parallel_to_aec(parallel_env(num_players=3)), num_cycles=300)
    aec = parallel_to_aec(parallel_env(num_players=3))
    assert aec_to_parallel(aec).unwrapped is aec.unwrapped  # back again: the same parallel env
    aec.reset(seed=5)
    par = aec.unwrapped
    rng = np.random.default_rng(5)
    for agent in aec.agent_iter():
        obs, reward, term, trunc, info = aec.last()
        seat = par.agent_name_mapping[agent]
        if term or trunc:
            assert reward == float(par.game.rewards("win")[seat])
            aec.step(None)
            continue
        # each seat reads its parallel observation and mask; phases I and II ask several seats per cycle
        assert np.array_equal(obs["observation"], par.observe(agent)["observation"])
        assert (obs["action_mask"][L.A_WAIT] == 1) == (agent not in par.acting_agents)
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    g = Game.replay(par.game.record())
    assert g.done and np.array_equal(g.state, par.game.state)


def test_aec_env_is_not_parallelizable_and_says_so() -> None:
    e = env()
    assert e.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(e)


def _rows(e: OhMyGoodsParallelEnv) -> list[np.ndarray]:
    choice = e._choice  # the spec's simultaneous phase in progress (envs.simultaneous.SimultaneousPhase) or None
    return [e.game.state] + ([line.row for line in choice.lines.values()] if choice is not None else [])


@pytest.mark.parametrize(("num_players", "rules"), [(2, "omg2"), (3, "royal"), (4, "omg2")])
def test_hidden_cards_swapped_change_nothing_for_the_seat(num_players: int, rules: str) -> None:
    """R3.2, R4.1, R5.2: swapping two cards hidden from a seat leaves its observation, mask and info as is.

    The owner of a swapped hand card must see the change, so the test cannot pass vacuously.
    """
    e = parallel_env(num_players=num_players, rules=rules)
    obs, _ = e.reset(seed=20 + num_players)
    rng = np.random.default_rng(num_players)
    checked = seen_by_owner = 0
    while e.agents:
        if rng.random() < 0.1:
            for p, agent in enumerate(e.possible_agents):
                hidden = hidden_cards(e.game.state, p)
                if len(hidden) < 2:
                    continue
                a, b = (int(c) for c in rng.choice(hidden, 2, replace=False))
                twin = copy.deepcopy(e)
                for row in _rows(twin):  # the game and, in phases I and II, each seat's own line
                    swap_cards(row, a, b)
                assert twin.game.check_invariants() == 0
                mine, theirs = e.observe(agent), twin.observe(agent)
                assert np.array_equal(mine["observation"], theirs["observation"])
                assert np.array_equal(mine["action_mask"], theirs["action_mask"])
                assert twin._infos()[agent] == e._infos()[agent]
                checked += 1
                loc = e.game.state[L.F_LOC + a]
                owner = int(loc - L.L_HAND) if L.L_HAND <= loc < L.L_HAND + num_players else -1
                if owner >= 0 and e.game.state[L.F_LOC + b] != loc:
                    o = e.possible_agents[owner]
                    assert not np.array_equal(e.observe(o)["observation"], twin.observe(o)["observation"])
                    seen_by_owner += 1
        obs, *_ = e.step(_actions(e, obs, rng))
    assert checked > 20 and seen_by_owner > 0


@pytest.mark.parametrize("cls", ["aec", "parallel"])
def test_global_state_is_privileged_and_complete(cls: str) -> None:
    """state(): float32[STATE_DIM] in state_space; it changes when a hidden card moves (the policy's obs does not)."""
    e = env(num_players=3) if cls == "aec" else parallel_env(num_players=3)
    e.reset(seed=3)
    s = e.state()
    assert s.shape == (STATE_DIM,) and s.dtype == np.float32 and e.unwrapped.state_space.contains(s)
    game = e.unwrapped.game
    np.testing.assert_array_equal(s[: L.OBS_DIM], game.observe(0))
    places = s[L.OBS_DIM : L.OBS_DIM + L.N_CARDS * 22].reshape(L.N_CARDS, 22)
    assert np.array_equal(places.sum(1), np.ones(L.N_CARDS))
    hand1 = game.hand(1)
    assert all(places[c, L.L_HAND + 1] == 1 for c in hand1)
    deck = [c for c in hidden_cards(game.state, 0) if game.state[L.F_LOC + c] == L.L_DECK]
    before = game.observe(0)
    swap_cards(game.state, hand1[0], deck[0])
    assert np.array_equal(before, game.observe(0))  # seat 0 cannot tell ...
    assert not np.array_equal(s, e.state())  # ... the critic can


def test_render_modes_match_the_aec_env() -> None:
    """The parallel env renders through the AEC env's spectator view, SVG included."""
    from ohmygoods_env.envs.parallel import parallel_env

    for mode in ("ansi", "svg"):
        env = parallel_env(num_players=2, render_mode=mode)
        env.reset(seed=5)
        out = env.render()
        assert isinstance(out, str) and out
        expected = "<svg" if mode == "svg" else "=== Oh my Goods! (omg2, 2 players) — spectator view"
        assert out.startswith(expected)
