"""End of the game and scoring (R8.1-R8.3, decision R8.4)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import (
    BRICK,
    CATTLE_RANCH,
    MILL,
    SAWMILL,
    SHOEMAKER,
    TAILOR_7,
    TANNERY,
    Picker,
    legal,
    play_passively,
    step_all,
)

from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game
from ohmygoods_env.scenario import Scenario

SEVEN = [SAWMILL, SAWMILL + 1, 2, 3, 4, MILL]  # + Charburner = 7 buildings; the Mill is slot 6


def _eighth_building(rules="omg2", first=0, builder=0):
    return (
        Scenario(2, rules=rules, auto_forced=False)
        .first_player(first)
        .buildings(builder, SEVEN)
        .goods(builder, {6: 5})
        .set_aside(builder, MILL + 1)  # cost 3
        .round(5)
        .build("build", player=builder)
    )


def test_r8_1_eighth_building_finishes_round_then_one_more():
    """R8.1: the 8th building triggers the end: this round ends, one more full round is played."""
    g = _eighth_building()
    step_all(g, L.A_BUILD, L.A_PAY + 6, L.A_PAY + 6)
    assert len(g.buildings(0)) == 8 and int(g.state[L.F_TRIGGER]) == 1
    assert not g.done and g.current_player == 1 and g.decision == L.D_PRODUCE  # the round goes on
    play_passively(g, until=lambda x: x.round == 6)
    assert int(g.state[L.F_FINAL]) == 1 and not g.done and int(g.state[L.F_FIRST]) == 1
    play_passively(g, until=lambda x: x.phase == L.PH_P4 and x.current_player == 0)
    assert g.round == 6 and not g.done  # the final round includes everyone's phase IV
    play_passively(g)
    assert g.done and g.round == 7 and g.current_player == -1
    assert g.legal_actions() == []


def test_r8_1_trigger_by_last_player_still_plays_one_more_round():
    """R8.1: triggered by the last player of the round, the next round is still played in full."""
    g = _eighth_building(first=1, builder=0)
    step_all(g, L.A_BUILD, L.A_PAY + 6, L.A_PAY + 6)
    assert g.round == 6 and int(g.state[L.F_FINAL]) == 1 and not g.done
    play_passively(g)
    assert g.round == 7


def test_r8_1_at_most_nine_buildings():
    """R8.1: nobody can own more than 9 buildings (8 trigger the end, at most one more follows)."""
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [*SEVEN, MILL + 1, BRICK])
        .goods(0, {6: 9})
        .set_aside(0, 10)  # Iron Smelter, cost 9
        .round(3, final=True)
        .build("build", player=0)
    )
    assert len(g.buildings(0)) == 9 and g.coins(0) >= 9
    assert legal(g) == {L.A_NO_BUILD}


def _final_round(rules="omg2"):
    pk = Picker()
    clay = pk.take("clay", 2)
    return (
        Scenario(2, rules=rules, auto_forced=False)
        .buildings(0, [CATTLE_RANCH, TANNERY, SHOEMAKER, BRICK])
        .goods(0, {0: 1, 1: 2, 2: 1})  # 1 coal, 2 cattle, 1 leather
        .worker(0, 3, "efficient")  # on the Shoemaker, which the market does not cover
        .hand(0, clay)
        .market(row1=pk.row(suns=2, stone=2))
        .round(9, final=True)
        .build("phase4", player=0)
    )


def test_r8_2_final_round_chains_of_all_buildings():
    """R8.2 (omg2): in the final round the chains of all buildings may run, staffed or not,
    produced or not; an opening must run at least once."""
    g = _final_round()
    opens = {a - L.A_CHAIN_OPEN for a in legal(g) if L.A_CHAIN_OPEN <= a < L.A_PRODUCTION_DONE}
    # Tannery (cattle), Shoemaker (leather, staffed, not produced), Brick (clay + coal);
    # not the Charburner (no wood in hand) nor the Cattle Ranch (no grain in hand)
    assert opens == {2, 3, 4}
    step_all(g, L.A_CHAIN_OPEN + 2)
    assert legal(g) == {L.A_CHAIN_GOODS}  # stopping before the first run is not allowed
    step_all(g, L.A_CHAIN_GOODS)
    assert legal(g) == {L.A_CHAIN_GOODS, L.A_CHAIN_STOP}
    step_all(g, L.A_CHAIN_GOODS)
    assert g.goods(0) == [1, 0, 3, 0, 0] and g.decision == L.D_PRODUCE  # no cattle left: closed
    step_all(g, L.A_CHAIN_OPEN + 3)  # leather -> shoes on the staffed, unproduced Shoemaker
    assert legal(g) == {L.A_CHAIN_GOODS}
    step_all(g, L.A_CHAIN_GOODS, L.A_CHAIN_STOP)
    assert g.goods(0) == [1, 0, 2, 1, 0]
    assert L.A_CHAIN_OPEN + 3 in legal(g) and L.A_CHAIN_OPEN + 2 not in legal(g)
    clay = g.hand(0)
    step_all(g, L.A_CHAIN_OPEN + 4)
    assert legal(g) == {L.A_CHAIN_HAND + c for c in clay}
    step_all(g, L.A_CHAIN_HAND + clay[0])  # clay + coal -> 2 bricks; no coal left: closed
    assert g.goods(0) == [0, 0, 2, 1, 2] and g.decision == L.D_PRODUCE


def test_r8_2_absent_in_royal():
    """§9 royal: no special final round: no chain openings in phase IV."""
    g = _final_round("royal")
    assert not any(L.A_CHAIN_OPEN <= a < L.A_PRODUCTION_DONE for a in legal(g))
    assert legal(g) == {L.A_PRODUCTION_DONE}


def test_r8_2_no_chain_openings_before_the_final_round():
    """R8.2: outside the final round only a building that produced may run its chain (R7.7)."""
    g = _final_round()
    g.state[L.F_FINAL] = 0
    g.state[L.F_TRIGGER] = 0
    assert legal(g) == {L.A_PRODUCTION_DONE}


def _scored(goods0, goods1, **kw):
    """Player 0: Mill + Sawmill + assistant (1 VP); player 1: Tailor's Shop + Brick Manufacture."""
    return (
        Scenario(2, max_rounds=1, **kw)
        .first_player(0)
        .buildings(0, [MILL, SAWMILL])
        .buildings(1, [TAILOR_7, BRICK])
        .goods(0, goods0)
        .goods(1, goods1)
        .display([(0, "A")])
        .assistant(0, 1, display=0)
        .build("build", player=1)
    )


def test_r8_3_score_and_tiebreak_by_leftover_coins():
    """R8.3: VP of buildings + assistants + 1 per 5 coins; tie broken by coins left over."""
    g = _scored({1: 7}, {2: 6})  # 14 coins -> 2 VP + 4; 12 coins -> 2 VP + 2
    assert g.done
    assert g.scores() == [(2 + 2 + 1 + 2, 4), (3 + 2 + 2, 2)]
    assert g.winners() == [0]
    assert g.rewards("win").tolist() == [1.0, -1.0]
    assert g.rewards("score").tolist() == [7.0, 7.0]
    assert g.rewards("margin").tolist() == [0.0, 0.0]


def test_r8_3_full_tie_is_shared():
    """R8.3: same score and same leftover coins: the win is shared (all tie: reward 0)."""
    g = _scored({1: 6}, {2: 5})  # 12 coins -> 2 VP + 2 left; 10 coins -> 2 VP + 0 left
    assert g.scores() == [(7, 2), (7, 0)] and g.winners() == [0]
    g = _scored({1: 6}, {2: 6})
    assert g.scores() == [(7, 2), (7, 2)]
    assert g.winners() == [0, 1] and g.rewards("win").tolist() == [0.0, 0.0]


def test_r8_3_shared_win_among_three():
    """R8.3: two players tie for first, the third loses."""
    g = (
        Scenario(3, max_rounds=1)
        .buildings(0, [MILL])
        .buildings(1, [MILL + 1])
        .buildings(2, [SAWMILL])
        .goods(0, {1: 3})
        .goods(1, {1: 3})
        .goods(2, {1: 1})
        .display([])
        .build("build", player=2)
    )
    assert g.done and g.winners() == [0, 1]
    assert g.rewards("win").tolist() == [1.0, 1.0, -1.0]
    assert g.rewards("margin").tolist() == [0.0, 0.0, -1.0]


@pytest.mark.parametrize("rules", ["omg2", "royal"])
def test_r8_4_round_cap_ends_and_scores(rules):
    """Decision R8.4: the game also ends after max_rounds rounds and is scored by R8.3."""
    g = Game(2, rules=rules, seed=3, max_rounds=2, auto_forced=False)
    play_passively(g)
    assert g.done and g.round == 2 and int(g.state[L.F_TRIGGER]) == 0
    w = g.winners()
    expected = [0.0, 0.0] if len(w) == 2 else [1.0 if p in w else -1.0 for p in range(2)]
    assert g.rewards("win").tolist() == expected
    assert np.array_equal(g.rewards("score"), np.array([s for s, _ in g.scores()], np.float32))


def test_r8_rewards_zero_while_running():
    """Rewards are given at the end only."""
    g = Game(2, seed=1)
    assert g.rewards("win").tolist() == [0.0, 0.0]
