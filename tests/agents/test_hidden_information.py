"""Agents never see hidden information.

* The choices of the information-state agents are functions of the information state: for
  two true states that differ only in hidden information (opponents' hands, goods and deck
  order swapped, another RNG word — the approach of ``tests/test_infostate.py``) the heuristic,
  the greedy policy and MCTS (fixed seed) choose the same action.
* The harnesses (tournament, terminal game) pass an agent only the observation, the legal
  mask and the redacted information state, as copies.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hidden_twins import hidden_twins
from ohmygoods_agents import Agent, info_state_of, make_agent
from ohmygoods_agents.tournament import play_game

from ohmygoods_env import Game
from ohmygoods_env import layout as L
from ohmygoods_env.infostate import redact


@functools.lru_cache(maxsize=4)
def _twin_states(n: int, seed: int) -> tuple[tuple[Game, Game, int], ...]:
    """Pairs (g, h): h differs from g only in hidden information of the player to move."""
    return tuple(hidden_twins(n, seed))


def _choice(agent: Agent, g: Game, me: int) -> int:
    return agent.act(g.observe(me), g.legal_mask(), info_state_of(g.state, me))


@pytest.mark.parametrize("name", ["heuristic", "greedy"])
def test_rule_based_choices_ignore_hidden_information(name: str) -> None:
    n = 0
    for g, h, me in _twin_states(40, 1):
        assert np.array_equal(info_state_of(g.state, me), info_state_of(h.state, me))
        assert _choice(make_agent(name, seed=7), g, me) == _choice(make_agent(name, seed=7), h, me)
        n += 1
    assert n >= 30


def test_mcts_choice_ignores_hidden_information() -> None:
    n = 0
    for g, h, me in _twin_states(12, 2):
        a = _choice(make_agent("mcts", seed=11, sims=60), g, me)
        b = _choice(make_agent("mcts", seed=11, sims=60), h, me)
        assert a == b
        n += 1
    assert n >= 10


def test_network_guided_mcts_choice_ignores_hidden_information() -> None:
    """``mcts:ppo-3p``: the network reads the observation and the information state, the search
    determinizes from the information state; neither sees what the twins differ in."""
    pytest.importorskip("torch")
    n = 0
    for g, h, me in _twin_states(12, 2):
        a = _choice(make_agent("mcts:ppo-3p", seed=11, sims=40), g, me)
        b = _choice(make_agent("mcts:ppo-3p", seed=11, sims=40), h, me)
        assert a == b
        n += 1
    assert n >= 10


def test_hidden_information_would_change_what_a_cheater_sees() -> None:
    """Control: the twin states really differ in what an omniscient agent could read."""
    differ = 0
    for g, h, me in _twin_states(10, 3):
        hands_g = [g.hand(q) for q in range(g.num_players) if q != me]
        hands_h = [h.hand(q) for q in range(h.num_players) if q != me]
        deck_g = g.state[L.F_DECK : L.F_DECK + g.state[L.F_DECK_N]]
        deck_h = h.state[L.F_DECK : L.F_DECK + h.state[L.F_DECK_N]]
        differ += hands_g != hands_h or not np.array_equal(deck_g, deck_h)
    assert differ >= 8


class _Spy(Agent):
    """Records what the harness passes and checks it against the true game."""

    name = "spy"
    needs_info_state = True

    def __init__(self, game_ref: list[Game]) -> None:
        self.game_ref = game_ref
        self.calls = 0
        self.rng = np.random.default_rng(0)

    def act(self, observation, mask, info_state=None, *extra):
        assert not extra
        g = self.game_ref[0]
        p = g.current_player
        assert np.array_equal(observation, g.observe(p))
        assert np.array_equal(mask, g.legal_mask())
        expected = np.zeros(L.STATE_LEN, np.int32)
        redact(g.state, p, expected)
        assert np.array_equal(info_state, expected)
        assert info_state[L.F_RNG] == 0  # no chance: the future is not passed
        assert not np.shares_memory(info_state, g.state)
        # scribbling on what was passed must not change the game
        before = g.state.copy()
        observation[:] = 0
        info_state[:] = 0
        mask_copy = mask.copy()
        mask[:] = 0
        assert np.array_equal(g.state, before)
        self.calls += 1
        legal = np.flatnonzero(mask_copy)
        return int(legal[self.rng.integers(legal.size)])


def test_tournament_harness_passes_only_observation_mask_and_information_state(monkeypatch) -> None:
    ref: list[Game] = []  # a handle on the game being played
    real_init = Game.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        ref[:] = [self]

    monkeypatch.setattr(Game, "__init__", init)
    spies = [_Spy(ref), _Spy(ref), _Spy(ref)]
    g, thinking, moves = play_game(spies, 3, "omg2", seed=9)
    assert g.done and sum(s.calls for s in spies) == sum(moves) > 50


def test_play_harness_passes_only_observation_mask_and_information_state(monkeypatch) -> None:
    from ohmygoods_env.apps import play as play_mod

    ref: list[Game] = []
    real_init = Game.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        ref[:] = [self]

    monkeypatch.setattr(Game, "__init__", init)
    spy = _Spy(ref)
    out: list[str] = []
    game = play_mod.play([spy], "omg2", seed=4, read=lambda prompt: "1", say=out.append)
    assert game is not None and game.done and spy.calls > 20
