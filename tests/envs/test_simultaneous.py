"""Simultaneous phases (R4.1, R5.2): the parallel env asks every seat at once, in a fixed number of steps.

* Same game as the sequential engine: every seat's observation, mask and action at each of
  its decisions equal the sequential engine's at the same decision of the same game.
* Hidden-choice twins: two parallel envs that differ only in one seat's phase-II choice (move
  an assistant and pay, or not) take the same number of steps for the phase, and every other
  seat sees the same observations, masks and infos at every one of them.
* The AEC env stays sequential, but no seat observes anything that depends on an earlier
  seat's hidden choice.
"""

from __future__ import annotations

import copy
from collections import defaultdict

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game
from ohmygoods_env.envs.parallel import OhMyGoodsParallelEnv, parallel_env
from ohmygoods_env.envs.pettingzoo_env import env

CONFIGS = [(2, "omg2"), (3, "omg2"), (3, "royal"), (4, "omg2")]


def _random_actions(e: OhMyGoodsParallelEnv, obs: dict, rng: np.random.Generator) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in e.agents}


def _is_move_choice(o: dict) -> bool:
    """A phase-II "move an assistant or not" decision with a move on offer."""
    m = o["action_mask"]
    return bool(m[L.A_MOVES_DONE]) and bool(m[L.A_MOVE : L.A_MOVES_DONE].any())


@pytest.mark.parametrize(("num_players", "rules"), CONFIGS)
def test_every_seat_decides_as_in_the_sequential_engine(num_players: int, rules: str) -> None:
    """Each seat's observation, mask and info at each of its decisions, and the game that results,
    are the sequential engine's; several seats act in one step in phases I and II only."""
    e = parallel_env(num_players=num_players, rules=rules)
    obs, infos = e.reset(seed=11 + num_players)
    rng = np.random.default_rng(num_players)
    log: dict[int, list] = defaultdict(list)  # per seat: (observation, mask, info decision, action)
    together = 0
    while e.agents:
        acting = e.acting_agents
        assert e.acting_agent == (acting[0] if acting else None)
        if len(acting) != 1:  # several at once, or nobody: a seat that finished waits for the phase's end
            together += 1
            assert e.game.phase in (L.PH_P1_ASK, L.PH_P2)
        actions = _random_actions(e, obs, rng)
        for a in e.agents:
            p = e.agent_name_mapping[a]
            m = obs[a]["action_mask"]
            assert m.dtype == np.int8 and e.observation_space(a).contains(obs[a])
            if a in acting:
                assert m[L.A_WAIT] == 0 and infos[a]["decision"] >= 0
                log[p].append((obs[a]["observation"], m, infos[a]["decision"], actions[a]))
            else:
                assert np.flatnonzero(m).tolist() == [L.A_WAIT] and infos[a]["decision"] == -1
        obs, rewards, terms, truncs, infos = e.step(actions)
    assert together > 0
    g = Game(num_players, rules, seed=11 + num_players)
    assert e.game.actions == [x[3] for x in _sequential(g, e.game.actions, log)]
    assert g.done and g.check_invariants() == 0 and np.array_equal(g.state, e.game.state)
    final = g.rewards("win")
    assert rewards == {f"player_{i}": float(final[i]) for i in range(num_players)}


def _sequential(g: Game, actions: list[int], log: dict[int, list]) -> list:
    """Replay ``actions`` on ``g``; each decision must match the next logged one of its seat."""
    queues = {p: list(entries) for p, entries in log.items()}
    seen = []
    for a in actions:
        p = g.current_player
        o, m, dec, act = queues[p].pop(0)
        assert act == a and dec == g.decision
        assert np.array_equal(m, g.legal_mask())
        assert np.array_equal(o, g.observe(p))
        seen.append((o, m, dec, act))
        g.step(a)
    assert not any(queues.values())
    return seen


def _phase2_twins(num_players: int, rules: str, seed: int):
    """A parallel env at a phase-II step where some seat can move an assistant or not, and a copy."""
    e = parallel_env(num_players=num_players, rules=rules)
    obs, _ = e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while e.agents:
        if e.game.phase == L.PH_P2:
            movers = [a for a in e.agents if _is_move_choice(obs[a])]
            if movers:
                return e, copy.deepcopy(e), obs, movers[0]
        obs, *_ = e.step(_random_actions(e, obs, rng))
    return None


def _first_legal(o: dict) -> int:
    return int(np.flatnonzero(o["action_mask"])[0])


@pytest.mark.parametrize(("num_players", "rules"), CONFIGS)
def test_phase_ii_steps_and_what_others_see_do_not_depend_on_a_hidden_choice(num_players: int, rules: str) -> None:
    """Issue 26: a waiting seat saw 3, 4 or 5 steps before its own phase-II decision depending on what
    an earlier seat chose. Now the phase's step count and every other seat's observations, masks
    and infos are the same whether the seat keeps its assistant or moves it and pays."""
    checked = 0
    for seed in range(40):
        found = _phase2_twins(num_players, rules, seed)
        if found is None:
            continue
        keep, move, obs, mover = found
        moves = np.flatnonzero(obs[mover]["action_mask"][L.A_MOVE : L.A_MOVES_DONE]) + L.A_MOVE
        others = [a for a in keep.agents if a != mover]
        steps = {}
        outs = {}
        for name, e, first in (("keep", keep, L.A_MOVES_DONE), ("move", move, int(moves[0]))):
            o = obs
            seen = []
            n = 0
            while e.game.phase == L.PH_P2 and e.agents:
                actions = {a: _first_legal(o[a]) for a in e.agents}
                if n == 0:
                    actions[mover] = first
                o, _, _, _, infos = e.step(actions)
                n += 1
                seen.append([(o[a]["observation"].tobytes(), o[a]["action_mask"].tobytes(), infos[a]) for a in others])
            steps[name], outs[name] = n, seen
        assert steps["keep"] == steps["move"]
        assert outs["keep"][:-1] == outs["move"][:-1]  # the last step is the reveal
        assert not np.array_equal(keep.game.state, move.game.state)  # control: the choices differed
        checked += 1
        if checked >= 3:
            break
    assert checked >= 2


def test_illegal_action_of_one_simultaneous_seat_raises_and_changes_nothing() -> None:
    e = parallel_env(num_players=3)
    obs, _ = e.reset(seed=4)
    acting = e.acting_agents
    assert len(acting) == 3  # phase I: every seat with cards chooses at once (R4.1)
    legal = {a: _first_legal(obs[a]) for a in acting}
    bad = {**legal, acting[1]: L.A_WAIT}
    before = {a: e.observe(a)["observation"].copy() for a in acting}
    state = e.game.state.copy()
    with pytest.raises(ValueError, match=f"illegal for player {e.agent_name_mapping[acting[1]]} "):
        e.step(bad)
    with pytest.raises(ValueError, match=f"no action for {acting[2]}"):
        e.step({acting[0]: legal[acting[0]], acting[1]: legal[acting[1]]})
    assert np.array_equal(state, e.game.state) and e.acting_agents == acting
    assert all(np.array_equal(before[a], e.observe(a)["observation"]) for a in acting)
    e.step(legal)
    assert e.game.phase != L.PH_P1_ASK


def test_penalty_for_several_offenders_is_zero_sum() -> None:
    e = parallel_env(num_players=4, illegal="penalty", penalty=-1.0)
    obs, _ = e.reset(seed=2)
    acting = e.acting_agents
    assert len(acting) == 4
    actions = {a: _first_legal(obs[a]) for a in acting}
    actions[acting[0]] = actions[acting[2]] = L.A_WAIT
    _, rewards, terms, _, _ = e.step(actions)
    assert all(terms.values()) and e.agents == []
    assert rewards[acting[0]] == rewards[acting[2]] == -1.0 and rewards[acting[1]] == rewards[acting[3]] == 1.0


def test_aec_env_later_seats_see_nothing_of_an_earlier_hidden_choice() -> None:
    """The AEC env asks phase II one seat at a time; what a later seat receives at each of its turns
    (observation, mask, reward, flags, info) until the reveal is the same whatever the earlier
    seat chose, and so is the number of its turns."""
    checked = 0
    for seed in range(60):
        e = env(num_players=3)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        twin = None
        for _agent in e.agent_iter(3000):
            o, _, term, trunc, _ = e.last()
            if term or trunc:
                break
            g = e.unwrapped.game
            if g.phase == L.PH_P2 and _is_move_choice(o) and g.state[L.F_TURN] + 1 < g.num_players:
                twin = copy.deepcopy(e)
                break
            e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        if twin is None:
            continue
        mover = e.agent_selection
        o, *_ = e.last()
        move = int(np.flatnonzero(o["action_mask"][L.A_MOVE : L.A_MOVES_DONE])[0]) + L.A_MOVE
        seen = []
        for x, first in ((e, L.A_MOVES_DONE), (twin, move)):
            x.step(first)
            turns = defaultdict(list)
            for agent in x.agent_iter(200):
                if x.unwrapped.game.phase != L.PH_P2:
                    break
                o, r, term, trunc, info = x.last()
                if agent != mover:
                    turns[agent].append((o["observation"].tobytes(), o["action_mask"].tobytes(), r, term, trunc, info))
                x.step(int(np.flatnonzero(o["action_mask"])[0]))
            seen.append(dict(turns))
        assert seen[0] == seen[1] and seen[0]
        checked += 1
        if checked >= 4:
            break
    assert checked >= 2


def test_one_seat_per_step_on_request() -> None:
    """``simultaneous=False`` asks phase I and II one seat per step, as the engine (and SeatVecEnv) do."""
    e = parallel_env(num_players=3, simultaneous=False)
    obs, _ = e.reset(seed=1)
    rng = np.random.default_rng(1)
    while e.agents:
        assert len(e.acting_agents) == 1 and e.acting_agent == f"player_{e.game.current_player}"
        obs, *_ = e.step(_random_actions(e, obs, rng))
    with pytest.raises(TypeError, match="simultaneous must be a bool"):
        parallel_env(simultaneous="no")


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_made_during_a_simultaneous_phase_plays_on_like_the_original(how: str) -> None:
    import pickle

    e = parallel_env(num_players=3)
    obs, _ = e.reset(seed=9)
    assert len(e.acting_agents) == 3
    f = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    rng = np.random.default_rng(9)
    while e.agents:
        actions = _random_actions(e, obs, rng)
        obs, rewards, *_ = e.step(actions)
        other, rewards_f, *_ = f.step(actions)
        assert e.acting_agents == f.acting_agents and rewards == rewards_f
        assert all(np.array_equal(obs[a]["observation"], other[a]["observation"]) for a in obs)
    assert np.array_equal(e.game.state, f.game.state)
