"""The Gumbel root of the framework's IS-MCTS (``root="gumbel"``) and the network agent ``gumbel``.

Sequential Halving spends exactly the budget; one legal action is returned as it is; a budget
smaller than the sampled set still chooses among the Gumbel-top-k; the improved policy moves
mass toward an action whose value is clearly higher than the prior says; a seed fixes the
search; and the target (improved policy, value, action) of two *Oh my Goods!* states that
differ only in what the seat cannot see is the same for the same seed.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hidden_twins import hidden_twins
from ohmygoods_agents.ismcts import ISMCTSAgent, completed_q, halving_visits

from ohmygoods_env import Game
from ohmygoods_env import layout as L
from ohmygoods_env.framework.game import InformationSet, JointStepMixin
from ohmygoods_env.game_spec import OhMyGoodsModel
from ohmygoods_env.goofspiel.game_spec import Goofspiel
from ohmygoods_env.policy import info_state_of, make_agent

torch = pytest.importorskip("torch")


class _Spy(InformationSet):
    """Counts the worlds a search draws."""

    __slots__ = ("calls",)

    def __init__(self, model, player):
        super().__init__(model, player)
        self.calls = 0

    def determinize(self, seed: int):
        self.calls += 1
        return super().determinize(seed)


class _OneShot(JointStepMixin):
    """One seat, one decision among ``n`` actions; action ``good`` wins, every other loses. Nothing hidden."""

    num_players, obs_size = 1, 1

    def __init__(self, n: int = 6, good: int = 3) -> None:
        self.num_actions, self.good, self.chosen = n, good, -1

    @property
    def done(self) -> bool:
        return self.chosen >= 0

    @property
    def current_player(self) -> int:
        return -1 if self.done else 0

    def pending_players(self) -> tuple[int, ...]:
        return () if self.done else (0,)

    def legal_mask(self, player: int | None = None) -> np.ndarray:
        return np.full(self.num_actions, 0 if self.done else 1, np.int8)

    def observe(self, player: int) -> np.ndarray:
        return np.zeros(1, np.float32)

    def step(self, action: int) -> None:
        self.chosen = int(action)

    def clone(self) -> _OneShot:
        c = _OneShot(self.num_actions, self.good)
        c.chosen = self.chosen
        return c

    def rewards(self, mode: str = "win") -> np.ndarray:
        return np.array([0.0 if not self.done else (1.0 if self.chosen == self.good else -1.0)], np.float32)

    def determinize(self, player: int, seed: int) -> _OneShot:
        return self.clone()


def _confident_prior(world):
    """Logits that like action 0 and dislike the winning action 3; value 0.5 everywhere."""
    return {0: np.array([3.0, 1.0, 1.0, -1.0, 0.0, 0.0])}, np.array([0.5])


def _goofspiel_bid_state() -> Goofspiel:
    g = Goofspiel(3, seed=4, num_cards=5)
    g.step(int(np.flatnonzero(g.legal_mask())[0]))  # the leader picks; then every seat bids
    return g


@pytest.mark.parametrize(("budget", "k"), [(1, 5), (3, 5), (7, 4), (16, 5), (33, 5), (50, 2), (9, 1)])
def test_sequential_halving_spends_exactly_the_budget(budget: int, k: int) -> None:
    g = _goofspiel_bid_state()
    spy = _Spy(g, 1)
    agent = ISMCTSAgent(iterations=budget, seed=2, root="gumbel", considered=k)
    a = agent.act(g.observe(1), g.legal_mask(1), spy)
    s = agent.last_search
    assert s.simulations == budget == int(s.visits.sum())  # one root visit per simulation
    assert spy.calls == budget + 1  # and one more world for the root's evaluation
    assert a == s.action and g.legal_mask(1)[a]
    assert len(set(s.considered.tolist())) == min(k, 5)
    plan, rem, total = halving_visits(budget, min(k, 5)), min(k, 5), 0
    for per in plan[:-1]:  # every phase but the last ends inside the budget; the last one reaches it
        total += per * rem
        rem = max(1, -(-rem // 2))
    assert total < budget <= total + plan[-1] * rem


def test_halving_gives_the_survivors_more_visits() -> None:
    """16 candidates, 200 simulations: 4 phases of 3, 6, 12 and 28 visits per remaining action."""
    assert halving_visits(200, 16) == [3, 6, 12, 28]
    g = _goofspiel_bid_state()
    agent = ISMCTSAgent(iterations=40, seed=0, root="gumbel", considered=4)
    agent.act(g.observe(2), g.legal_mask(2), InformationSet(g, 2))
    v = np.sort(agent.last_search.visits[agent.last_search.visits > 0])
    assert v.tolist() == [5, 5, 15, 15]  # 5 each in the first phase, the better two get the rest


def test_one_legal_action_is_returned() -> None:
    g = Goofspiel(2, seed=1, num_cards=3)
    while not g.done and int(g.legal_mask(g.pending_players()[0]).sum()) > 1:
        g.step_joint({p: int(np.flatnonzero(g.legal_mask(p))[-1]) for p in g.pending_players()})
    p = g.pending_players()[0]
    only = int(np.flatnonzero(g.legal_mask(p))[0])
    agent = ISMCTSAgent(iterations=20, seed=0, root="gumbel")
    assert agent.act(g.observe(p), g.legal_mask(p), InformationSet(g, p)) == only
    assert agent.last_search.policy[only] == 1.0 and agent.last_search.simulations == 0


def test_a_tiny_budget_chooses_among_the_gumbel_top_k() -> None:
    g = _OneShot(n=6, good=3)
    for seed in range(20):
        agent = ISMCTSAgent(iterations=2, seed=seed, root="gumbel", considered=4, evaluator=_confident_prior)
        a = agent.act(g.observe(0), g.legal_mask(0), InformationSet(g, 0))
        s = agent.last_search
        assert s.simulations == 2 and len(s.considered) == 4
        assert a in s.considered.tolist()
        assert int((s.visits > 0).sum()) == 2  # the two best samples were visited, the rest kept by their prior


def test_the_improved_policy_moves_mass_to_the_clearly_better_action() -> None:
    """Only action 3 wins; the prior gives it 1.3 %. After 24 simulations the improved policy gives it more,
    and every losing action that was visited gets less than its prior."""
    g = _OneShot(n=6, good=3)
    agent = ISMCTSAgent(iterations=24, seed=5, root="gumbel", considered=6, evaluator=_confident_prior)
    a = agent.act(g.observe(0), g.legal_mask(0), InformationSet(g, 0))
    s = agent.last_search
    assert a == 3 and s.q[3] == 1.0
    assert s.policy[3] > 0.9 > s.prior[3] * 10
    visited_losers = [b for b in range(6) if b != 3 and s.visits[b] > 0]
    assert visited_losers and all(s.policy[b] < s.prior[b] for b in visited_losers)
    assert s.policy.sum() == pytest.approx(1.0)


def test_completed_q_mixes_the_value_for_unvisited_actions() -> None:
    n, w = np.array([2.0, 0.0, 1.0]), np.array([2.0, 0.0, 0.0])  # q = 1.0, -, 0.0
    logits = np.log(np.array([0.5, 0.25, 0.25]))
    q, prior = completed_q(n, w, logits, value=0.4, rescale=False)
    mixed = (0.4 + 3 * (0.5 * 1.0 + 0.25 * 0.0) / 0.75) / 4  # (v + N / sum pi * sum pi q) / (1 + N)
    assert q == pytest.approx([1.0, mixed, 0.0]) and prior == pytest.approx([0.5, 0.25, 0.25])
    assert completed_q(n, w, logits, 0.4, rescale=True)[0] == pytest.approx([1.0, mixed, 0.0])


def test_a_seed_fixes_the_search() -> None:
    g = _goofspiel_bid_state()
    runs = []
    for _ in range(2):
        agent = ISMCTSAgent(iterations=30, seed=8, root="gumbel")
        agent.act(g.observe(0), g.legal_mask(0), InformationSet(g, 0))
        runs.append(agent.last_search)
    assert runs[0].action == runs[1].action
    assert np.array_equal(runs[0].policy, runs[1].policy) and np.array_equal(runs[0].visits, runs[1].visits)
    other = ISMCTSAgent(iterations=30, seed=9, root="gumbel")
    other.act(g.observe(0), g.legal_mask(0), InformationSet(g, 0))
    assert not np.array_equal(other.last_search.policy, runs[0].policy)


def test_the_default_root_is_unchanged_and_options_are_checked() -> None:
    agent = ISMCTSAgent(iterations=5)
    assert agent.root == "uct" and agent.name == "ismcts" and agent.last_search is None
    with pytest.raises(ValueError, match="root must be one of"):
        ISMCTSAgent(root="puct")
    with pytest.raises(ValueError, match="Gumbel root only"):
        ISMCTSAgent(evaluator=_confident_prior)
    with pytest.raises(ValueError, match="considered"):
        ISMCTSAgent(root="gumbel", considered=0)
    with pytest.raises(ValueError, match="c_scale"):
        ISMCTSAgent(root="gumbel", c_scale=-1.0)


# ===================================================================== Oh my Goods! with the network


@functools.lru_cache(maxsize=1)
def _twins() -> tuple[tuple[Game, Game, int], ...]:
    """4 two-player omg2 twin pairs (tests/hidden_twins.py, as tests/agents/test_hidden_information.py)."""
    return tuple(hidden_twins(4, 3, players=(2,), rules=("omg2",), game_seed=700, max_moves=120, tries=40))


def test_the_target_ignores_hidden_information() -> None:
    """Same seed, two states that differ only in what the seat cannot see: the same improved policy, value
    and action, through the redacted row (the game's harness) and through the framework's InformationSet."""
    net = make_agent("ppo")
    from ohmygoods_agents.gumbel import GumbelAgent

    assert len(_twins()) >= 3
    for g, h, me in _twins():
        found = []
        for game in (g, h):
            agent = GumbelAgent(net, 8, seed=21)
            a = agent.act(game.observe(me), game.legal_mask(), info_state_of(game.state, me))
            found.append((a, agent.last_search))
            framework = GumbelAgent(net, 8, seed=21)
            model = OhMyGoodsModel(game.clone())
            assert framework.act(model.observe(me), model.legal_mask(me), InformationSet(model, me)) == a
            assert np.array_equal(framework.last_search.policy, agent.last_search.policy)
        (a, s), (b, t) = found
        assert a == b and s.value == t.value
        assert np.array_equal(s.policy, t.policy) and np.array_equal(s.q, t.q)


def test_the_network_agent_plays_a_legal_game_and_spends_its_budget() -> None:
    agent = make_agent("gumbel:4", seed=1)
    assert agent.name == "gumbel:4" and agent.needs_info_state
    g = Game(2, seed=3)
    searched = 0
    for _ in range(30):
        p = g.current_player
        a = agent.act(g.observe(p), g.legal_mask(), info_state_of(g.state, p))
        assert g.legal_mask()[a]
        if len(g.legal_actions()) > 1:
            s = agent.last_search
            assert s.simulations == 4 == s.visits.sum() and 0.0 <= s.value <= 1.0
            assert s.policy[g.legal_mask() == 0].sum() == 0 and s.policy.sum() == pytest.approx(1.0)
            searched += 1
        g.step(a)
    assert searched >= 10


def test_gumbel_names_and_networks_are_checked() -> None:
    from ohmygoods_agents.gumbel import NetworkEvaluator

    with pytest.raises(ValueError, match="number of simulations"):
        make_agent("gumbel:many")
    with pytest.raises(ValueError, match="N >= 1"):
        make_agent("gumbel:0")
    with pytest.raises(TypeError, match="no value head"):
        NetworkEvaluator(make_agent("heuristic"))
    with pytest.raises(ValueError, match="info_state"):
        make_agent("gumbel:2").act(np.zeros(L.OBS_DIM, np.float32), np.ones(L.N_ACTIONS, np.int8))


def test_control_a_search_of_the_true_state_would_see_the_difference() -> None:
    """Control for the test above: searching the true states instead of sampled worlds changes the target
    of some twins, so equal targets there come from the sampler, not from a blind search."""
    net = make_agent("ppo")
    from ohmygoods_agents.gumbel import GumbelAgent

    class Cheat(InformationSet):
        __slots__ = ()

        def determinize(self, seed: int):
            return self._model.clone()

    differ = 0
    for g, h, me in _twins():
        policies = []
        for game in (g, h):
            agent, model = GumbelAgent(net, 8, seed=21), OhMyGoodsModel(game.clone())
            agent.act(model.observe(me), model.legal_mask(me), Cheat(model, me))
            policies.append(agent.last_search.policy)
        differ += not np.array_equal(*policies)
    assert differ >= 1
