"""Royal Goods (docs/rules.md §9): the points where the 1st edition differs from omg2."""

from __future__ import annotations

import pytest
from engine_helpers import BRICK, EXTRA_CARD, EXTRA_CARD_2, MILL, SAWMILL, Picker, legal, loc, play_passively, step_all

from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game
from ohmygoods_env.scenario import Scenario


def test_s9_no_discard_all_in_phase_i():
    """§9 point 1: no discard-all option; a royal game never asks the phase-I question."""
    for seed in range(10):
        g = Game(2, rules="royal", seed=seed, auto_forced=False)
        assert g.decision != L.D_PHASE1
        while g.round < 3:
            assert g.decision != L.D_PHASE1
            g.step(min(legal(g)))


def _builder(rules, aside=SAWMILL + 1, owned=0):
    sc = (
        Scenario(2, rules=rules, auto_forced=False)
        .buildings(0, [SAWMILL, MILL, BRICK])
        .goods(0, {2: 8})  # 16 coins of flour
        .set_aside(0, aside)
        .display([(0, "A"), (1, "A"), (2, "A")])
    )
    for k in range(owned):
        sc.assistant(0, k, display=k + 1)
    return sc.build("build", player=0)


def test_s9_build_and_hire_in_the_same_phase_iv():
    """§9 point 2: royal allows building and hiring in one phase IV (omg2: instead of)."""
    g = _builder("royal")
    step_all(g, L.A_BUILD, L.A_PAY + 2)
    assert loc(g, SAWMILL + 1) == L.L_BUILT + 0
    assert g.decision == L.D_HIRE and {L.A_HIRE, L.A_HIRE + 1} <= legal(g)
    step_all(g, L.A_HIRE + 1, L.A_PAY + 2, L.A_PAY + 2, L.A_PLACE + 4)  # on the new Sawmill
    assert int(g.state[L.F_A_OWNER + 1]) == 0 and int(g.state[L.F_STAFF + 4]) == L.STAFF_ASSISTANT
    g = _builder("omg2")
    step_all(g, L.A_BUILD, L.A_PAY + 2)
    assert g.current_player == 1  # omg2: the turn ended with the building


@pytest.mark.parametrize("rules,offered", [("royal", False), ("omg2", True)])
def test_s9_two_assistants_may_hire_no_more(rules, offered):
    """§9 point 2: in royal a player with 2 assistants may hire no more (omg2 has no such cap)."""
    g = _builder(rules, owned=2)
    step_all(g, L.A_NO_BUILD)
    if offered:
        assert g.decision == L.D_HIRE and L.A_HIRE in legal(g)
    else:
        assert g.current_player == 1


def test_s9_unbuilt_card_goes_to_discard():
    """§9 point 3: a planned building that is not built is discarded (omg2: back to hand)."""
    g = _builder("royal")
    step_all(g, L.A_NO_BUILD)
    assert loc(g, SAWMILL + 1) == L.L_DISCARD and int(g.state[L.F_ASIDE]) == -1
    g = _builder("omg2")
    step_all(g, L.A_NO_BUILD)
    assert loc(g, SAWMILL + 1) == L.L_HAND + 0


def test_s9_unaffordable_card_goes_to_discard():
    """§9 point 3: also when building is impossible (forced 'do not build')."""
    g = (
        Scenario(2, rules="royal")
        .goods(0, [1])
        .set_aside(0, BRICK)  # cost 2 > 1 coin
        .hand(0, Picker().take("grain", 1))
        .build("build", player=0)
    )
    assert loc(g, BRICK) == L.L_DISCARD


def test_s9_no_final_round_chains():
    """§9 point 4: no special final round: royal games still end one round after the trigger."""
    g = (
        Scenario(2, rules="royal", auto_forced=False)
        .buildings(0, [SAWMILL, SAWMILL + 1, 2, 3, 4, MILL])
        .goods(0, {6: 5})
        .set_aside(0, MILL + 1)
        .round(2)
        .build("build", player=0)
    )
    step_all(g, L.A_BUILD, L.A_PAY + 6, L.A_PAY + 6)
    play_passively(g, until=lambda x: x.round == 3)
    assert int(g.state[L.F_FINAL]) == 1
    while not g.done:
        acts = legal(g)
        assert not any(L.A_CHAIN_OPEN <= a < L.A_PRODUCTION_DONE for a in acts)
        g.step(min(acts))
    assert g.round == 4


@pytest.mark.parametrize("hand_size,extra_buildings", [(0, 1), (3, 1), (4, 1), (6, 1), (4, 2), (7, 2)])
def test_r4_3_royal_extra_card_building_gives_its_card_unconditionally(hand_size, extra_buildings):
    """R4.3, §9: in Royal Goods every Extra-card building gives 1 card in phase I, whatever the hand size."""
    pk = Picker()
    g = (
        Scenario(2, rules="royal", auto_forced=False)
        .hand(0, pk.take("grain", hand_size))
        .buildings(0, [EXTRA_CARD, EXTRA_CARD_2][:extra_buildings])
        .build("phase1")
    )
    while g.phase in (L.PH_P1_ASK, L.PH_P1_RESOLVE, L.PH_P1_DRAW) and not g.done:
        step_all(g, L.A_KEEP)
    assert len(g.hand(0)) == hand_size + 2 + extra_buildings
    assert len(g.hand(1)) == 2
