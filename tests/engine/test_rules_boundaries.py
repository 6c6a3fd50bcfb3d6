"""Exact boundaries of the rules, for both rule sets: a cost met to the coin, the 7th and the 8th building.

Each test sits on the edge an off-by-one comparison in the engine would move: paying exactly
the cost is allowed (R7.10 "at least its cost", R7.12 "pay its cost in coins"; §9 point 2 keeps
hiring in ``royal``), one coin less is not; 8 buildings end the game (R8.1; §9: ``royal`` ends
the same way), 7 do not.
"""

from __future__ import annotations

import pytest
from engine_helpers import CARDS, IRON_SMELTER, MILL, SAWMILL, TAILOR_7, legal, play_passively, staff, step_all

from ohmygoods_env import layout as L
from ohmygoods_env.cards import A_COST, B_COST
from ohmygoods_env.scenario import Scenario

RULES = ["omg2", "royal"]
HIRED = 0  # assistant card 0, side A: cost 3, needs a Charburner, a grain and a wood building
HIRE_COST = int(CARDS.assistants[HIRED, 0, A_COST])


def _hiring(rules: str, goods: list[int]):
    """Player 0 at the build step with a Charburner, a Sawmill (wood, lumber) and a Mill (grain, flour)."""
    return (
        Scenario(2, rules=rules, auto_forced=False)
        .buildings(0, [SAWMILL, MILL])
        .goods(0, goods)
        .display([(HIRED, "A")])
        .build("build", player=0)
    )


@pytest.mark.parametrize("rules", RULES)
def test_r7_12_hiring_with_exactly_the_cost_in_coins_is_allowed(rules) -> None:
    """R7.12: goods worth exactly the assistant's cost hire it (1 coal + 1 lumber = 3 = cost)."""
    g = _hiring(rules, [1, 1, 0])
    assert HIRE_COST == 3 and g.coins(0) == HIRE_COST
    assert g.decision == L.D_HIRE and legal(g) == {L.A_HIRE + HIRED, L.A_NO_HIRE}
    step_all(g, L.A_HIRE + HIRED, L.A_PAY + 0, L.A_PAY + 1)
    assert g.decision == L.D_PLACE
    step_all(g, L.A_PLACE + 1)
    assert int(g.state[L.F_A_OWNER + HIRED]) == 0 and staff(g, 0, 1) == L.STAFF_ASSISTANT
    assert g.coins(0) == 0 and g.goods(0) == [0, 0, 0]


@pytest.mark.parametrize("rules", RULES)
def test_r7_12_one_coin_short_of_the_cost_hires_nobody(rules) -> None:
    g = _hiring(rules, [0, 1, 0])  # 1 lumber = 2 < 3
    assert g.coins(0) == HIRE_COST - 1
    assert L.A_HIRE + HIRED not in legal(g)


def _building(rules: str, goods: list[int]):
    """Player 0 at the build step with the Tailor's Shop (cost 7) set aside; iron is worth 3, flour 2."""
    return (
        Scenario(2, rules=rules, auto_forced=False)
        .buildings(0, [IRON_SMELTER, MILL])
        .goods(0, goods)
        .set_aside(0, TAILOR_7)
        .build("build", player=0)
    )


@pytest.mark.parametrize("rules", RULES)
def test_r7_10_building_with_goods_worth_exactly_the_cost_is_allowed(rules) -> None:
    """R7.10: goods whose total value is exactly the cost build the card (1 iron + 2 flour = 7)."""
    cost = int(CARDS.buildings[TAILOR_7, B_COST])
    g = _building(rules, [0, 1, 2])
    assert cost == 7 and g.coins(0) == cost
    assert legal(g) == {L.A_BUILD, L.A_NO_BUILD}
    step_all(g, L.A_BUILD, L.A_PAY + 1, L.A_PAY + 2, L.A_PAY + 2)
    assert g.buildings(0)[-1] == TAILOR_7 and g.coins(0) == 0


@pytest.mark.parametrize("rules", RULES)
def test_r7_10_one_coin_short_of_the_cost_cannot_build(rules) -> None:
    g = _building(rules, [0, 0, 3])  # 3 flour = 6 < 7
    assert g.coins(0) == 6
    assert L.A_BUILD not in legal(g)


SIX = [SAWMILL, SAWMILL + 1, 2, 3, 4, MILL]  # with the Charburner: 7 buildings, the Mill in slot 6


def _one_more_building(rules: str, owned: list[int]):
    """Player 0 builds the Mill's twin (cost 3, paid with 2 flour) in round 5, owning ``owned`` + a Charburner."""
    return (
        Scenario(2, rules=rules, auto_forced=False)
        .buildings(0, owned)
        .goods(0, {len(owned): 5})
        .set_aside(0, MILL + 1)
        .round(5)
        .build("build", player=0)
    )


@pytest.mark.parametrize("rules", RULES)
def test_r8_1_the_seventh_building_does_not_end_the_game(rules) -> None:
    """R8.1: 8 buildings trigger the end; with 7 the game goes on past the next round."""
    g = _one_more_building(rules, SIX[:-1])  # 6 buildings (Charburner included) -> the 7th
    step_all(g, L.A_BUILD, L.A_PAY + 5, L.A_PAY + 5)
    assert len(g.buildings(0)) == 7 and int(g.state[L.F_TRIGGER]) == 0
    play_passively(g, until=lambda x: x.round == 8)
    assert not g.done and int(g.state[L.F_FINAL]) == 0 and int(g.state[L.F_TRIGGER]) == 0


@pytest.mark.parametrize("rules", RULES)
def test_r8_1_the_eighth_building_ends_the_game_one_round_later(rules) -> None:
    """R8.1 (§9: royal alike): the 8th building finishes this round, then one more full round ends the game."""
    g = _one_more_building(rules, SIX)  # 7 buildings -> the 8th
    step_all(g, L.A_BUILD, L.A_PAY + 6, L.A_PAY + 6)
    assert len(g.buildings(0)) == 8 and int(g.state[L.F_TRIGGER]) == 1 and not g.done
    play_passively(g, until=lambda x: x.round == 6)
    assert int(g.state[L.F_FINAL]) == 1 and not g.done
    play_passively(g)
    assert g.done and g.round == 7
