"""Artificium's baseline agents (greedy, heuristic): legal moves, seeds, hidden information (A9.2), strength,
and the registry that finds them."""

from __future__ import annotations

import numpy as np
import pytest
from art_helpers import RES, TYPE, play
from ohmygoods_agents.artificium import GreedyAgent, HeuristicAgent
from ohmygoods_agents.artificium.view import Economy, SeatView

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import Game
from ohmygoods_env.artificium.scenario import Scenario
from ohmygoods_env.framework import agents as fa
from ohmygoods_env.framework.agents import choose, make_agent
from ohmygoods_env.framework.matches import play_games

NAMES = ("greedy", "heuristic")


def _random_positions(num_players: int, seed: int, every: int = 3):
    """Positions of a game between random players (every ``every``-th decision), with the pending seats."""
    g = Game(num_players, seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not g.done:
        pending = g.pending_players()
        if k % every == 0:
            yield g, pending
        k += 1
        g.step_joint({p: int(rng.choice(g.legal_actions(p))) for p in pending})


@pytest.mark.parametrize("num_players", range(2, 7))
def test_agents_choose_only_legal_actions_in_random_positions(num_players: int) -> None:
    """Every decision type (A3-A7) from random play, 2-6 players: the choice is in the seat's mask."""
    agents = [make_agent("artificium", n, seed=3) for n in NAMES]
    seen: set[int] = set()
    for seed in range(3):
        for g, pending in _random_positions(num_players, seed):
            seen.add(g.decision)
            for p in pending:
                mask = g.legal_mask(p)
                for agent in agents:
                    assert mask[choose(agent, g, p)], (agent.name, g.decision_name)
    assert {L.D_MARKET, L.D_CHOOSE, L.D_RESOLVE, L.D_ROUND_END} <= seen


def test_agents_play_whole_games_legally_and_the_engine_stays_consistent() -> None:
    """Games between the two agents and random seats, 2-6 players: every choice is in its seat's mask,
    every invariant holds after every step (A9.8: cards, deck, counts, tokens, market, face-down cards),
    and the game ends after round 4 with a score per seat and at least one winner (A8)."""
    for n in range(2, 7):
        for game in range(2):
            g = Game(n, seed=100 * n + game)
            seats = [make_agent("artificium", name, seed=game) for name in ("heuristic", "greedy")]
            seats += [make_agent("artificium", "random", seed=game + k) for k in range(n - 2)]
            steps = 0
            while not g.done:
                joint = {}
                for p in g.pending_players():
                    a = choose(seats[p], g, p)
                    assert g.legal_mask(p)[a], (seats[p].name, g.decision_name, p)
                    joint[p] = a
                g.step_joint(joint)
                assert g.check_invariants() == 0, (n, game, steps, g.check_invariants())
                steps += 1
            assert g.round == 4 and steps > 20 and g.legal_actions(0) == []
            assert len(g.scores()) == n and g.winners() and set(g.winners()) <= set(range(n))
            assert max(g.scores()) == min(g.scores()[w] for w in g.winners())


def test_the_seat_view_reads_what_the_engine_holds() -> None:
    """SeatView decodes the observation back to the seat's own counts and every board (A9.2)."""
    for g, _pending in _random_positions(4, 11, every=7):
        for p in range(4):
            v = SeatView.read(g.observe(p))
            assert v.decision == g.decision and v.num_players == 4 and v.round == g.round
            assert list(v.hand) == [g.hand_types(p).count(t) for t in range(16)]
            for k in range(4):
                q = (p + k) % 4
                assert (int(v.vp[k]), int(v.coins[k])) == (g.vp(q), g.coins(q))
                assert list(v.res[k]) == g.resources(q)
    with pytest.raises(ValueError, match="shape"):
        SeatView.read(np.zeros(5, np.float32))


@pytest.mark.parametrize("name", NAMES)
def test_an_agent_s_choice_is_the_same_on_hidden_information_twins(name: str) -> None:
    """A9.2, A9.3: a twin re-dealt by determinize (other hands, face-down cards, deck order re-drawn) gets
    the same observation, mask and so the same choice; the twins really differ in hidden cards."""
    differed = 0
    for num_players in (2, 4, 6):
        for g, pending in _random_positions(num_players, 5, every=5):
            for p in pending:
                for s in range(2):
                    twin = g.determinize(p, s)
                    assert np.array_equal(twin.observe(p), g.observe(p))
                    differed += any(sorted(twin.hand(q)) != sorted(g.hand(q)) for q in range(num_players) if q != p)
                    a = choose(make_agent("artificium", name, seed=9), g, p)
                    b = choose(make_agent("artificium", name, seed=9), twin, p)
                    assert a == b, (name, g.decision_name, p)
    assert differed > 20


def test_a_face_down_card_does_not_change_the_other_seats_choice() -> None:
    """A4.1, A9.2: seat 1's face-down Castle or Theft leaves seat 0's and seat 2's choices unchanged."""
    twins = []
    for card in ("Castle", "Theft"):
        s = Scenario(3).hand(0, [TYPE["Sawmill"], TYPE["Farm"]]).hand(1, [TYPE["Castle"], TYPE["Theft"]])
        g = s.hand(2, [TYPE["Fair"], TYPE["Farm"]]).build()
        g.step_player(1, play(card))
        twins.append(g)
    for name in NAMES:
        for p in (0, 2):
            picks = {choose(make_agent("artificium", name, seed=1), g, p) for g in twins}
            assert len(picks) == 1


@pytest.mark.parametrize("name", NAMES)
def test_the_same_seed_plays_the_same_games(name: str) -> None:
    a = play_games("artificium", [name, "random", "random"], 3, seed=4)
    b = play_games("artificium", [name, "random", "random"], 3, seed=4)
    assert [r["scores"] for r in a.games] == [r["scores"] for r in b.games]
    assert [r["seat_decisions"] for r in a.games] == [r["seat_decisions"] for r in b.games]


def test_the_heuristic_buys_the_missing_input_then_applies_its_building() -> None:
    """A4.6, A7.1: a revealed Crystal mine without food and 5 coins: buy food, then apply (3 VP, A5.3)."""
    g = Scenario(2).hand(0, [TYPE["Crystal mine"]]).hand(1, [TYPE["Farm"]]).build()
    g.step_joint({0: play("Crystal mine"), 1: play("Farm")})
    agent = HeuristicAgent(seed=0)
    while g.current_player == 0 and g.decision == L.D_RESOLVE:
        g.step(choose(agent, g, 0))
    assert g.vp(0) >= 3 and g.resources(0)[RES["crystal"]] == 1


def test_the_heuristic_sends_the_knight_to_the_leader() -> None:
    """A7.4: the Castle's Knight moves the opponent with the most points back."""
    s = Scenario(3).hand(0, [TYPE["Castle"]]).hand(1, [TYPE["Farm"]]).hand(2, [TYPE["Farm"]])
    g = s.vp(1, 10).vp(2, 20).resources(0, {"kvass": 1, "sword": 1}).build()
    g.step_joint({0: play("Castle"), 1: play("Farm"), 2: play("Farm")})
    agent = HeuristicAgent(seed=0)
    while g.current_player == 0:
        g.step(choose(agent, g, 0))
    assert g.vp(2) < 20 and g.vp(1) == 10


def test_the_heuristic_beats_random_and_greedy() -> None:
    """Lower 95% Wilson bounds above parity: vs random at 2 and 4 players, vs greedy at 2 players; and it
    never ends a game broke (a hand of dear cards and no coins once cost it whole games)."""
    two = play_games("artificium", ["heuristic", "random"], 12, seed=1)
    assert two.agents[0].win_lo > two.parity
    four = play_games("artificium", ["heuristic", "random", "random", "random"], 8, seed=2)
    assert four.agents[0].win_lo > four.parity
    vs_greedy = play_games("artificium", ["heuristic", "greedy"], 16, seed=3)
    assert vs_greedy.agents[0].win_lo > vs_greedy.parity
    for res in (two, four, vs_greedy):
        assert min(g["scores"][g["agent_index"].index(0)] for g in res.games) > 10


def test_greedy_beats_random() -> None:
    res = play_games("artificium", ["greedy", "random"], 16, seed=5)
    assert res.agents[0].win_lo > res.parity


def test_the_registry_builds_the_agents_and_rejects_arguments() -> None:
    assert isinstance(make_agent("artificium", "greedy", seed=1), GreedyAgent)
    assert isinstance(make_agent("artificium", "heuristic", seed=1), HeuristicAgent)
    assert {"greedy", "heuristic", "random"} <= set(fa.agent_names("artificium"))
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent("artificium", "heuristic:3")
    for agent in (GreedyAgent(), HeuristicAgent()):
        with pytest.raises(ValueError, match="no legal action"):
            agent.act(np.zeros(L.OBS_DIM, np.float32), np.zeros(L.N_ACTIONS, np.int8))


def test_a_fresh_registry_finds_the_agents_through_their_game_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry ``artificium.heuristic`` of ohmygoods.game_agents registers ``heuristic`` for Artificium only."""
    from importlib import metadata

    monkeypatch.setitem(fa._REGISTRY, "artificium", {})
    monkeypatch.setattr(fa.metadata, "entry_points", lambda group: [])
    with pytest.raises(ValueError, match="unknown agent 'heuristic'"):
        make_agent("artificium", "heuristic")
    ep = metadata.EntryPoint("artificium.heuristic", "ohmygoods_agents.artificium:heuristic", fa.ENTRY_POINT_GROUP)
    monkeypatch.setattr(fa.metadata, "entry_points", lambda group: [ep] if group == fa.ENTRY_POINT_GROUP else [])
    assert isinstance(make_agent("artificium", "heuristic", seed=2), HeuristicAgent)
    assert "heuristic" in fa.agent_names("artificium")
    assert "heuristic" not in fa._REGISTRY.get("*", {})


def test_the_economy_follows_the_chains_of_the_card_table() -> None:
    """A7.2: Sawmill and Farm have no inputs (depth 0); Mage tower and Castle sit at the end of the chains."""
    e = Economy()
    assert e.level[TYPE["Sawmill"]] == e.level[TYPE["Farm"]] == 0
    assert e.level[TYPE["Charcoal burner"]] == 1 and e.level[TYPE["Crystal mine"]] == 2
    assert e.level[TYPE["Laboratory"]] == 3 and e.level[TYPE["Mage tower"]] == 4 == e.level[TYPE["Castle"]]
    assert e.gain(TYPE["Castle"], np.zeros(9, np.int64)) == 4 * 8 - 3 - 8 - 1  # A7.4, A8.2
