"""IS-MCTS over the game interface: beats random play on the example game, plays Oh my Goods!, never reads the truth."""

from __future__ import annotations

import numpy as np
import pytest
from ohmygoods_agents.ismcts import ISMCTSAgent

from ohmygoods_env.framework.agents import RandomAgent, choose, make_agent
from ohmygoods_env.framework.game import InformationSet, game_spec
from ohmygoods_env.framework.stats import wilson
from ohmygoods_env.goofspiel.game_spec import Goofspiel


def _play(g: Goofspiel, agents: dict) -> None:
    while not g.done:
        g.step_joint({p: choose(agents[p], g, p) for p in g.pending_players()})


@pytest.mark.parametrize(("n", "cards", "games", "iterations"), [(2, 4, 40, 80), (3, 4, 45, 120)])
def test_ismcts_beats_random_play_clearly(n: int, cards: int, games: int, iterations: int) -> None:
    """Sole or shared wins of the search seat (parity 1/n): the 95% Wilson lower bound lies above parity."""
    wins = 0.0
    for i in range(games):
        seat = i % n
        g = Goofspiel(n, seed=1000 + i, num_cards=cards)
        agents = {p: RandomAgent(seed=10 * i + p) for p in range(n)}
        agents[seat] = ISMCTSAgent(iterations=iterations, seed=i)
        _play(g, agents)
        w = g.winners()
        wins += (1.0 / len(w)) if seat in w else 0.0
    assert wilson(wins, games)[0] > 1.0 / n, (wins, games)


def test_ismcts_is_deterministic_for_a_seed_and_reads_only_worlds() -> None:
    g = Goofspiel(3, seed=4, num_cards=5)
    g.step(int(np.flatnonzero(g.legal_mask())[0]))
    g.step(4)  # seat 0 bids 5 face down
    calls = []

    class Spy(InformationSet):
        __slots__ = ()

        def determinize(self, seed: int):
            calls.append(seed)
            return super().determinize(seed)

    picks = {ISMCTSAgent(iterations=40, seed=3).act(g.observe(1), g.legal_mask(1), Spy(g, 1)) for _ in range(3)}
    assert len(picks) == 1 and g.legal_mask(1)[picks.pop()]
    assert len(calls) == 120  # every iteration searched a fresh world


def test_ismcts_choice_does_not_depend_on_a_hidden_bid() -> None:
    """Twins that differ only in seat 0's face-down bid get the same search from seat 1."""
    a, b = Goofspiel(3, seed=6, num_cards=5), Goofspiel(3, seed=6, num_cards=5)
    for g, bid in ((a, 0), (b, 4)):
        g.step(int(np.flatnonzero(g.legal_mask())[0]))
        g.step(bid)
    pa = ISMCTSAgent(iterations=60, seed=9).act(a.observe(1), a.legal_mask(1), InformationSet(a, 1))
    pb = ISMCTSAgent(iterations=60, seed=9).act(b.observe(1), b.legal_mask(1), InformationSet(b, 1))
    assert pa == pb


def test_ismcts_plays_ohmygoods_through_the_adapter() -> None:
    m = game_spec("ohmygoods").make(2, seed=1)
    agent = make_agent("ohmygoods", "ismcts:3", seed=0)
    assert isinstance(agent, ISMCTSAgent) and agent.iterations == 3
    for _ in range(6):
        p = m.current_player
        a = choose(agent, m, p)
        assert m.legal_mask(p)[a]
        m.step(a)


def test_ismcts_errors() -> None:
    g = Goofspiel(2, seed=0)
    with pytest.raises(ValueError, match="information set"):
        ISMCTSAgent().act(g.observe(0), g.legal_mask(0))
    with pytest.raises(ValueError, match="all zero"):
        ISMCTSAgent().act(g.observe(1), g.legal_mask(1), InformationSet(g, 1))
    with pytest.raises(ValueError, match="iterations"):
        ISMCTSAgent(iterations=0)
    with pytest.raises(ValueError, match="ismcts:N"):
        make_agent("goofspiel", "ismcts:many")


def test_the_registry_finds_ismcts_through_its_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh interpreter that never imported ohmygoods_agents.ismcts finds it in the ohmygoods.game_agents group."""
    from importlib import metadata

    from ohmygoods_env.framework import agents as fa

    monkeypatch.setitem(fa._REGISTRY, "*", {k: v for k, v in fa._REGISTRY["*"].items() if k != "ismcts"})
    monkeypatch.setattr(fa.metadata, "entry_points", lambda group: [])
    with pytest.raises(ValueError, match="unknown agent 'ismcts'"):
        make_agent("goofspiel", "ismcts")
    ep = metadata.EntryPoint("ismcts", "ohmygoods_agents.ismcts:ismcts", fa.ENTRY_POINT_GROUP)
    monkeypatch.setattr(fa.metadata, "entry_points", lambda group: [ep] if group == fa.ENTRY_POINT_GROUP else [])
    agent = make_agent("goofspiel", "ismcts:7", seed=1)
    assert isinstance(agent, ISMCTSAgent) and agent.iterations == 7
    assert "ismcts" in fa.agent_names("goofspiel")
