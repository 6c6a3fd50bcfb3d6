"""Every agent follows the protocol: legal actions over whole games, 2-4 players, both rule sets."""

from __future__ import annotations

import numpy as np
import pytest
from ohmygoods_agents import AGENT_NAMES, Agent, info_state_of, make_agent

from ohmygoods_env import Game
from ohmygoods_env import layout as L

FAST = {"mcts": {"sims": 20}}


def _agent(name: str, seed: int) -> Agent:
    return make_agent(name, seed=seed, **FAST.get(name, {}))


@pytest.mark.parametrize("rules", ["omg2", "royal"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_agents_play_whole_games_with_legal_actions(players: int, rules: str) -> None:
    names = ["mcts", "heuristic", "greedy", "random"]
    # enough games that every agent sits at the table, in mixed lineups
    n_games = -(-len(names) // players)
    for k in range(n_games):
        lineup = [names[(k * players + s) % len(names)] for s in range(players)]
        agents = [_agent(n, 10 + s) for s, n in enumerate(lineup)]
        g = Game(players, rules, seed=players * 7 + k)
        decisions = 0
        while not g.done:
            p = g.current_player
            mask = g.legal_mask()
            a = agents[p].act(g.observe(p), mask, info_state_of(g.state, p))
            assert isinstance(a, int)
            assert mask[a] == 1, f"{agents[p].name} chose illegal action {a} in {g.decision_name}"
            g.step(a)
            decisions += 1
        assert decisions > 20
        assert g.check_invariants() == 0


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "mcts"])
def test_every_agent_on_every_decision_kind(name: str) -> None:
    """Drive games with the agent in all seats until every decision kind was met (legal answers)."""
    seen: set[int] = set()
    agent = _agent(name, 3)
    for seed in range(3):
        for rules in ("omg2", "royal"):
            g = Game(2, rules, seed=seed, auto_forced=False)
            while not g.done:
                p = g.current_player
                mask = g.legal_mask()
                a = agent.act(g.observe(p), mask, info_state_of(g.state, p))
                assert mask[a] == 1
                seen.add(g.decision)
                g.step(a)
    assert {L.D_PHASE1, L.D_WORKER, L.D_ASIDE, L.D_PRODUCE, L.D_CHAIN, L.D_BUILD, L.D_PAY} <= seen


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "mcts"])
def test_act_batch_and_call(name: str) -> None:
    g = Game(3, seed=5)
    obs, masks, infos = [], [], []
    for _ in range(6):
        p = g.current_player
        obs.append(g.observe(p))
        masks.append(g.legal_mask())
        infos.append(info_state_of(g.state, p))
        g.step(g.legal_actions()[-1])
    agent = _agent(name, 1)
    acts = agent.act_batch(np.stack(obs), np.stack(masks), np.stack(infos))
    assert acts.shape == (6,)
    for a, m in zip(acts, masks, strict=True):
        assert m[a] == 1
    a = agent(obs[0], masks[0], infos[0])
    assert masks[0][a] == 1


@pytest.mark.parametrize("name", ["greedy", "heuristic", "mcts"])
def test_agents_that_read_the_information_state_say_so_without_it(name: str) -> None:
    g = Game(2, seed=1)
    with pytest.raises(ValueError, match="information state"):
        _agent(name, 0).act(g.observe(g.current_player), g.legal_mask())
    assert _agent(name, 0).needs_info_state


def test_random_agent_needs_only_the_mask_and_is_seeded() -> None:
    g = Game(2, seed=1)
    mask = g.legal_mask()
    obs = g.observe(g.current_player)
    assert not make_agent("random").needs_info_state
    a = [make_agent("random", seed=4).act(obs, mask) for _ in range(3)]
    assert len(set(a)) == 1 and mask[a[0]] == 1


def test_registry_errors() -> None:
    assert "ppo:PATH" in AGENT_NAMES
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("alphago")
    with pytest.raises(FileNotFoundError):
        make_agent("ppo:/nonexistent/model.json")
    with pytest.raises(ValueError, match="can run any code"):
        make_agent("ppo:/nonexistent/model.zip")
    with pytest.raises(ValueError, match="empty argument"):
        make_agent("ppo:")
    with pytest.raises(ValueError, match="budget"):
        make_agent("mcts", sims=None, seconds=None)


def test_mcts_seconds_budget_is_respected() -> None:
    g = Game(2, seed=2)
    while g.decision != L.D_WORKER:
        g.step(g.legal_actions()[0])
    p = g.current_player
    agent = make_agent("mcts", seed=0, sims=None, seconds=0.05)
    import time

    t0 = time.perf_counter()
    a = agent.act(g.observe(p), g.legal_mask(), info_state_of(g.state, p))
    assert time.perf_counter() - t0 < 1.0
    assert g.legal_mask()[a] == 1 and agent.last_sims > 0


def test_heuristic_keeps_no_per_decision_state() -> None:
    """Acting leaves the agent's attributes as they were; a decision does not depend on the
    decisions before it (the caches live on the per-decision view)."""
    from ohmygoods_agents import info_state_of

    h = make_agent("heuristic", seed=3)
    before = {k: (type(v), v if np.isscalar(v) else None) for k, v in vars(h).items()}
    g = Game(3, seed=8)
    positions = []
    while not g.done and len(positions) < 60:
        p = g.current_player
        positions.append((g.observe(p), g.legal_mask(), info_state_of(g.state, p)))
        g.step(h.act(*positions[-1]))
    after = {k: (type(v), v if np.isscalar(v) else None) for k, v in vars(h).items()}
    assert after == before
    backwards = [make_agent("heuristic", seed=3).act(*x) for x in positions[::-1]]
    reused = [h.act(*x) for x in positions[::-1]]
    assert reused == backwards
