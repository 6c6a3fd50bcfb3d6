"""The player-aid variants (R10.1 keep one, R10.2 two for one): off by default, scripted tests."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import CB_GRAIN, Picker, discard_pile, goods_on, legal, step_all

from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game
from ohmygoods_env.rules import RuleSet
from ohmygoods_env.scenario import Scenario


def produce(slot: int) -> int:
    return L.A_PRODUCE + slot


def spend(card: int) -> int:
    return L.A_SPEND + card


def test_r10_variants_are_off_by_default_and_validated():
    r = RuleSet()
    assert not r.keep_one and not r.two_for_one and r.edition_bits == 0
    assert RuleSet(keep_one=True, two_for_one=True).edition_bits == 6
    assert RuleSet(edition="royal", two_for_one=True).edition_bits == 5
    with pytest.raises(TypeError, match="keep_one must be a bool"):
        RuleSet(keep_one=1)
    g = Game(2, seed=1, two_for_one=True)
    assert g.state[L.F_VARIANTS] == L.V_TWO_FOR_ONE
    assert g.observe(g.current_player)[L.O_VARIANTS : L.O_VARIANTS + 2].tolist() == [0.0, 1.0]


@pytest.mark.parametrize("keep_one", [False, True])
def test_r10_1_keep_one_card_when_discarding_the_hand(keep_one):
    pk = Picker()
    h0, h1 = pk.take("grain", 3), pk.take("clay", 2)
    top = pk.take("wool", 7, sun=False)
    g = Scenario(2, auto_forced=False, keep_one=keep_one).hand(0, h0).hand(1, h1).deck_top(top).build("phase1")
    assert g.decision == L.D_PHASE1 and g.current_player == 0
    kept_actions = {L.A_KEEP_ONE + c for c in h0}
    assert legal(g) == {L.A_KEEP, L.A_DISCARD_HAND} | (kept_actions if keep_one else set())
    if not keep_one:
        return
    step_all(g, L.A_KEEP_ONE + h0[1])
    assert g.hand(0) == sorted(h0)  # hidden until everyone chose (R4.1)
    step_all(g, L.A_KEEP)
    assert discard_pile(g) == {h0[0], h0[2]}
    # 2 discarded -> 2 replacement cards, then 2 more (R4.2); the kept card stays
    assert g.hand(0) == sorted([h0[1], *top[:4]])
    assert g.hand(1) == sorted(h1 + top[4:6])


def test_r10_1_not_offered_with_one_card():
    pk = Picker()
    g = Scenario(2, auto_forced=False, keep_one=True).hand(0, pk.take("grain", 1)).build("phase1")
    assert legal(g) == {L.A_KEEP, L.A_DISCARD_HAND}


@pytest.mark.parametrize("make", [lambda: RuleSet(2, "royal", keep_one=True), lambda: Game(2, "royal", keep_one=True)])
def test_r10_1_keep_one_is_refused_in_royal_where_it_can_never_apply(make):
    """§9 royal has no discarding of the hand in phase I (R9.1), so keep one (R10.1) would be a dead switch."""
    with pytest.raises(ValueError, match=r"keep_one \(R10.1\) needs omg2: royal has no discarding .*R9.1"):
        make()


def _charburner(hand_res: list[str], mode: str, two_for_one: bool):
    """Charburner needs 2 grain + 1 wood; the market shows 1 grain: 1 grain and 1 wood missing."""
    pk = Picker()
    hand = [pk.one(r) for r in hand_res]
    market_grain = pk.one("grain")
    coal = pk.take("stone", 2)
    g = (
        Scenario(2, auto_forced=False, two_for_one=two_for_one)
        .charburner(0, CB_GRAIN)
        .hand(0, hand)
        .worker(0, 0, mode)
        .market(row1=[market_grain])
        .deck_top(coal)
        .build("phase4", player=0)
    )
    return g, hand, coal


@pytest.mark.parametrize("two_for_one", [False, True])
def test_r10_2_two_hand_cards_stand_in_for_one_missing_resource(two_for_one):
    g, hand, coal = _charburner(["stone", "clay", "stone", "clay"], "efficient", two_for_one)
    if not two_for_one:
        assert legal(g) == {L.A_PRODUCTION_DONE}  # no grain or wood in hand: cannot produce
        return
    assert legal(g) == {produce(0), L.A_PRODUCTION_DONE}
    step_all(g, produce(0))
    assert g.decision == L.D_SPEND and legal(g) == {spend(c) for c in hand}
    step_all(g, spend(hand[0]))
    assert g.state[L.F_HALF] == 1 and g.observe(0)[L.O_PEND_HALF] == 1.0
    step_all(g, spend(hand[1]))  # the pair replaces the grain (decision: largest shortfall, then order)
    assert g.state[L.F_HALF] == 0 and g.state[L.F_MISS] == 0 and g.state[L.F_MISS + 1] == 1
    step_all(g, spend(hand[2]), spend(hand[3]))
    assert goods_on(g, 0, 0) == 2  # efficient: 2 goods (R7.2)
    assert g.hand(0) == [] and set(hand) <= discard_pile(g)


def test_r10_2_not_enough_spare_cards_and_sloppy_allowance():
    g, _, _ = _charburner(["stone", "clay", "wool"], "efficient", True)
    assert legal(g) == {L.A_PRODUCTION_DONE}  # 2 missing need 4 stand-ins
    g, hand, _ = _charburner(["stone", "clay"], "sloppy", True)
    assert legal(g) == {produce(0), L.A_PRODUCTION_DONE}  # sloppy: 1 missing may stay missing
    step_all(g, produce(0), spend(hand[0]), spend(hand[1]))
    assert goods_on(g, 0, 0) == 1


@pytest.mark.parametrize("agent", ["random", "greedy", "heuristic", "mcts"])
def test_r10_agents_play_whole_games_with_the_variants_on(agent):
    from ohmygoods_agents import info_state_of, make_agent

    for n, rules in ((1, "omg2"), (3, "omg2"), (2, "royal")):
        g = Game(n, rules, seed=5, keep_one=rules == "omg2", two_for_one=True)
        players = [make_agent(agent, seed=p, **({"sims": 10} if agent == "mcts" else {})) for p in range(n)]
        while not g.done:
            p = g.current_player
            mask = g.legal_mask()
            a = players[p].act(g.observe(p), mask, info_state_of(g.state, p))
            assert mask[a] == 1
            g.step(a)
            assert g.check_invariants() == 0
        assert np.isfinite(g.rewards("score")).all()
