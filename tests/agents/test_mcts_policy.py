"""Network + search: ``mcts:SPEC`` lets a policy network bias the root of the IS-MCTS."""

from __future__ import annotations

import numpy as np
import pytest
from ohmygoods_agents import info_state_of, make_agent
from ohmygoods_agents.mcts import MCTSAgent

from ohmygoods_env import Game
from ohmygoods_env import layout as L


class _Peaked:
    """A stand-in policy whose probabilities sit on one chosen action (when legal)."""

    name = "peaked"

    def __init__(self, action: int) -> None:
        self.action = action

    def logits(self, observations, masks, info_states=None):
        z = np.where(np.asarray(masks, bool), 0.0, -np.inf)
        z[:, self.action] = np.where(np.asarray(masks)[:, self.action] == 1, 20.0, -np.inf)
        return z


def _worker_decision(seed: int) -> tuple[Game, int]:
    g = Game(2, seed=seed)
    while g.decision != L.D_WORKER or len(g.legal_actions()) < 3:
        g.step(g.legal_actions()[0])
    return g, g.current_player


def test_the_policy_steers_the_root() -> None:
    g, p = _worker_decision(4)
    obs, mask, info = g.observe(p), g.legal_mask(), info_state_of(g.state, p)
    plain = MCTSAgent(seed=0, sims=40).act(obs, mask, info)
    legal = [int(a) for a in np.flatnonzero(mask)]
    for target in [a for a in legal if a != plain][:2]:
        guided = MCTSAgent(seed=0, sims=40, policy=_Peaked(target), c_puct=50.0)
        assert guided.act(obs, mask, info) == target
        assert guided.last_sims == 40 and max(guided.last_visits, key=guided.last_visits.get) == target


def test_a_confident_network_cannot_hide_actions_from_the_search() -> None:
    """Every root action gets simulations however peaked the prior (the UCT term keeps exploring)."""
    g, p = _worker_decision(4)
    obs, mask, info = g.observe(p), g.legal_mask(), info_state_of(g.state, p)
    legal = [int(a) for a in np.flatnonzero(mask)]
    agent = MCTSAgent(seed=0, sims=200, policy=_Peaked(legal[-1]), c_puct=1.0)
    assert agent.act(obs, mask, info) in legal
    assert set(agent.last_visits) == set(legal)
    assert all(n >= 2 for n in agent.last_visits.values())
    assert sum(agent.last_visits.values()) == 200


@pytest.mark.parametrize("players", [2, 3])
def test_mcts_with_a_shipped_network_plays_whole_games(players: int) -> None:
    pytest.importorskip("torch")
    spec = "mcts:ppo" if players == 2 else "mcts:ppo-3p"
    agent = make_agent(spec, seed=1, sims=10)
    assert agent.name == spec and agent.needs_observation and agent.needs_info_state
    g = Game(players, seed=9)
    while not g.done:
        p = g.current_player
        mask = g.legal_mask()
        a = agent.act(g.observe(p), mask, info_state_of(g.state, p)) if p == 0 else int(np.flatnonzero(mask)[-1])
        assert mask[a] == 1
        g.step(a)
    assert g.check_invariants() == 0


def test_bad_policies_and_inputs_are_refused() -> None:
    with pytest.raises(TypeError, match="logits"):
        MCTSAgent(policy=make_agent("heuristic"))
    with pytest.raises(ValueError, match="c_puct"):
        MCTSAgent(policy=_Peaked(0), c_puct=0.0)
    g, p = _worker_decision(1)
    with pytest.raises(ValueError, match="observation"):
        MCTSAgent(seed=0, sims=5, policy=_Peaked(0)).act(None, g.legal_mask(), info_state_of(g.state, p))
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("mcts:alphago")
