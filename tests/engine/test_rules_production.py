"""Phase IV (R7): production, chains, building and hiring — scripted deals, exact outcomes."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import (
    BAKERY,
    BRICK,
    CATTLE_RANCH,
    CB_CLAY,
    CB_GRAIN,
    COOPERAGE,
    EXTRA_CARD,
    GLASSMAKER_11,
    IRON_SMELTER,
    MILL,
    OFFICE_CLAY,
    OFFICE_GRAIN,
    OFFICE_GRAIN_2,
    OFFICE_WOOL,
    SAWMILL,
    SHOEMAKER,
    TAILOR_7,
    TANNERY,
    TOOL_MAKER,
    Picker,
    discard_pile,
    goods_on,
    legal,
    loc,
    staff,
    step_all,
    where,
)

from ohmygoods_env import layout as L
from ohmygoods_env.scenario import Scenario

GOODS0 = L.L_GOODS  # goods on player 0, slot 0


def produce(slot: int) -> int:
    return L.A_PRODUCE + slot


def spend(card: int) -> int:
    return L.A_SPEND + card


# ---------------------------------------------------------------- R7.1 market resources


def test_r7_1_market_counts_for_every_building_and_is_not_consumed():
    """R7.1: two staffed buildings both use the same market cards; the market is unchanged."""
    pk = Picker()
    row1 = pk.row(grain=2, wood=1)
    row2 = pk.row(grain=1, wool=1)
    flour, coal = pk.take("clay", 2), pk.take("stone", 1)
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)  # grain:2 wood:1
        .buildings(0, [MILL])  # grain:3 wool:1
        .assistant(0, 0, display=0)
        .worker(0, 1, "efficient")
        .market(row1=row1, row2=row2)
        .deck_top(flour + coal)
        .build("phase4", player=0)
    )
    before = g.market()
    # both are covered by the market alone (R7.6): both must produce, in the player's order
    assert legal(g) == {produce(0), produce(1)}
    step_all(g, produce(1))  # efficient worker: 2 flour (R7.2)
    assert (g.market() == before).all()
    assert legal(g) == {produce(0)}
    step_all(g, produce(0))  # assistant: 1 coal
    assert goods_on(g, 0, 0) == 1 and goods_on(g, 0, 1) == 2
    assert where(g, coal) == [GOODS0] and where(g, flour) == [GOODS0 + 1] * 2


def test_r7_1_hand_card_supplies_one_building_only():
    """R7.1: a hand card spent for one building is discarded and cannot serve a second one."""
    pk = Picker()
    grain = pk.one("grain")
    row1 = pk.row(grain=1, wood=1, wool=1)
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)  # grain:2 wood:1 -> missing 1 grain
        .buildings(0, [MILL])  # grain:3 wool:1 -> missing 2 grain
        .assistant(0, 0, display=0)
        .worker(0, 1, "sloppy")  # sloppy Mill: missing 2 grain, may skip one
        .hand(0, [grain])
        .market(row1=row1)
        .build("phase4", player=0)
    )
    assert legal(g) == {produce(0), produce(1), L.A_PRODUCTION_DONE}
    step_all(g, produce(1))
    assert legal(g) == {spend(grain)}
    step_all(g, spend(grain))
    assert loc(g, grain) == L.L_DISCARD
    assert goods_on(g, 0, 1) == 1  # sloppy: 1 good
    # the Charburner now lacks a grain card: it can no longer produce
    assert legal(g) == {L.A_PRODUCTION_DONE}


# ---------------------------------------------------------------- R7.2 worker modes (rulebook example)


def _charburner_example(mode: str):
    """Rulebook example: Charburner needs 2 grain + 1 wood, the market shows only 1 grain."""
    pk = Picker()
    wood, grain = pk.one("wood"), pk.one("grain")
    market_grain = pk.one("grain")
    coal = pk.take("stone", 2)
    g = (
        Scenario(2)
        .charburner(0, CB_GRAIN)
        .hand(0, [wood, grain])
        .worker(0, 0, mode)
        .market(row1=[market_grain])
        .deck_top(coal)
        .build("phase4", player=0)
    )
    return g, wood, grain, coal


@pytest.mark.parametrize("played", ["wood", "grain"])
def test_r7_2_sloppy_charburner_example(played):
    """R7.2 rulebook example: sloppy worker plays 1 wood OR 1 grain from hand -> 1 coal."""
    g, wood, grain, coal = _charburner_example("sloppy")
    assert legal(g) == {produce(0), L.A_PRODUCTION_DONE}  # needs hand cards: optional (R7.6)
    step_all(g, produce(0))
    assert g.decision == L.D_SPEND
    assert legal(g) == {spend(wood), spend(grain)}  # the player chooses the resource to skip
    card, kept = (wood, grain) if played == "wood" else (grain, wood)
    g.step(spend(card))
    assert loc(g, card) == L.L_DISCARD
    assert goods_on(g, 0, 0) == 1
    assert where(g, coal) == [GOODS0, L.L_DECK]
    if played == "grain":  # the wood card left in hand can feed the Charburner chain (R7.7)
        assert g.decision == L.D_CHAIN and legal(g) == {L.A_CHAIN_HAND + wood, L.A_CHAIN_STOP}
        g.step(L.A_CHAIN_STOP)
    assert loc(g, kept) == L.L_HAND + 0


def test_r7_2_efficient_charburner_example_must_play_both():
    """R7.2 rulebook example: efficient worker must play both wood and grain -> 2 coal."""
    g, wood, grain, coal = _charburner_example("efficient")
    step_all(g, produce(0))
    assert legal(g) == {spend(wood), spend(grain)}
    g.step(spend(wood))  # the grain card is then forced (auto-applied)
    assert where(g, [wood, grain]) == [L.L_DISCARD, L.L_DISCARD]
    assert goods_on(g, 0, 0) == 2
    assert where(g, coal) == [GOODS0, GOODS0]


def test_r7_2_efficient_cannot_produce_with_one_card_short():
    """R7.2: efficient needs all resources; with only the wood card in hand it cannot produce."""
    pk = Picker()
    wood = pk.one("wood")
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)
        .hand(0, [wood])
        .worker(0, 0, "efficient")
        .market(row1=[pk.one("grain")])
        .build("phase4", player=0)
    )
    assert legal(g) == {L.A_PRODUCTION_DONE}


def test_r7_2_sloppy_covered_by_market_minus_one_produces_one_good():
    """R7.2: sloppy with exactly one resource missing needs no hand card and makes 1 good."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)
        .worker(0, 0, "sloppy")
        .market(row1=pk.row(grain=2))  # the wood is missing
        .build("phase4", player=0)
    )
    assert legal(g) == {produce(0)}  # covered by market alone: mandatory (R7.6)
    step_all(g, produce(0))
    assert goods_on(g, 0, 0) == 1


def test_r7_2_assistant_makes_one_good_and_unstaffed_makes_none():
    """R7.2: an assistant with all resources -> 1 good; a building with no person -> nothing."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)
        .buildings(0, [MILL])  # unstaffed, also covered by the market
        .assistant(0, 0, display=1)
        .market(row1=pk.row(grain=3, wood=1, wool=1))
        .build("phase4", player=0)
    )
    assert legal(g) == {produce(0)}
    step_all(g, produce(0))
    assert goods_on(g, 0, 0) == 1
    assert legal(g) == {L.A_PRODUCTION_DONE}
    step_all(g, L.A_PRODUCTION_DONE)
    assert goods_on(g, 0, 1) == 0


# ---------------------------------------------------------------- R7.3 goods from the deck


def test_r7_3_goods_are_the_top_deck_cards_face_down():
    """R7.3: each good is the top card of the deck, moved face down onto the building."""
    pk = Picker()
    top = [pk.one("wool"), pk.one("clay"), pk.one("stone")]
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)
        .worker(0, 0, "efficient")
        .market(row1=pk.row(grain=2, wood=1))
        .deck_top(top)
        .build("phase4", player=0)
    )
    n = int(g.state[L.F_DECK_N])
    step_all(g, produce(0))
    assert where(g, top) == [GOODS0, GOODS0, L.L_DECK]
    assert int(g.state[L.F_DECK_N]) == n - 2
    assert g.coins(0) == 2  # a good's value is its building's (coal = 1, R1.3)


# ---------------------------------------------------------------- R7.4 Glassmaker


def test_r7_4_glassmaker_takes_any_resources_from_market_and_hand():
    """R7.4: Glassmaker (any 11): 8 market cards + 1 office copy + 2 hand cards of any kind."""
    pk = Picker()
    row1 = pk.row(grain=2, wood=2)
    row2 = pk.row(clay=2, wool=1, stone=1)
    hand = [pk.one("wood"), pk.one("clay"), pk.one("stone")]
    g = (
        Scenario(2)
        .buildings(0, [GLASSMAKER_11, OFFICE_WOOL])
        .worker(0, 1, "efficient")
        .hand(0, hand)
        .market(row1=row1, row2=row2)
        .build("phase4", player=0)
    )
    assert legal(g) == {produce(1), L.A_PRODUCTION_DONE}
    step_all(g, produce(1))
    assert int(g.state[L.F_MISS_ANY]) == 2
    assert legal(g) == {spend(c) for c in hand}  # any resource will do
    step_all(g, spend(hand[0]), spend(hand[2]))
    assert goods_on(g, 0, 1) == 2
    assert where(g, hand) == [L.L_DISCARD, L.L_HAND, L.L_DISCARD]


def test_r7_4_glassmaker_short_of_resources_cannot_produce():
    """R7.4: 8 market cards + 2 hand cards < 11: no production offered."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [GLASSMAKER_11])
        .worker(0, 1, "efficient")
        .hand(0, [pk.one("wood"), pk.one("clay")])
        .market(row1=pk.row(grain=2, wood=2), row2=pk.row(clay=2, wool=1, stone=1))
        .build("phase4", player=0)
    )
    assert legal(g) == {L.A_PRODUCTION_DONE}


# ---------------------------------------------------------------- R7.5 Market Office


def test_r7_5_market_office_bonus_counts_for_its_owner_only():
    """R7.5: a grain office adds 1 grain for its owner only."""
    pk = Picker()
    row1 = pk.row(grain=1, wood=1)  # the Charburner needs grain:2 wood:1

    def charburner_staffed(office_owner: int):
        return (
            Scenario(2, auto_forced=False)
            .charburner(0, CB_GRAIN)
            .charburner(1, CB_CLAY)
            .buildings(office_owner, [OFFICE_GRAIN])
            .worker(0, 0, "efficient")
            .market(row1=row1)
            .build("phase4", player=0)
        )

    # 1 market grain + 1 office grain: covered by the market alone, so mandatory (R7.6)
    assert legal(charburner_staffed(0)) == {produce(0)}
    # the opponent's office does not help player 0, who has no hand cards
    assert legal(charburner_staffed(1)) == {L.A_PRODUCTION_DONE}


def test_r7_5_several_offices_stack():
    """R7.5: two grain offices give 2 extra grain; the Charburner then needs no market grain."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)
        .buildings(0, [OFFICE_GRAIN, OFFICE_GRAIN_2])
        .worker(0, 0, "sloppy")
        .market(row1=pk.row(wood=1))
        .build("phase4", player=0)
    )
    assert legal(g) == {produce(0)}
    step_all(g, produce(0))
    assert goods_on(g, 0, 0) == 1


def test_r7_5_r7_7_office_and_market_never_feed_a_chain():
    """R7.5/R7.7: market clay and a clay office do not feed the Brick chain (hand clay + coal)."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [BRICK, OFFICE_CLAY])  # Brick Manufacture: stone:3 clay:1
        .goods(0, [3])  # coal on the Charburner
        .worker(0, 1, "efficient")
        .hand(0, [pk.one("grain")])
        .market(row1=pk.row(stone=3, clay=2))
        .build("phase4", player=0)
    )
    step_all(g, produce(1))
    assert goods_on(g, 0, 1) == 2
    assert g.decision == L.D_PRODUCE  # no chain decision: no clay in hand
    assert goods_on(g, 0, 0) == 3


# ---------------------------------------------------------------- R7.6 mandatory / optional / order


def test_r7_6_market_covered_production_is_mandatory_hand_production_optional():
    """R7.6: done is illegal while a market-covered staffed building has not produced."""
    pk = Picker()
    wool = pk.take("wool", 1)
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)  # covered by the market
        .buildings(0, [MILL])  # grain:3 wool:1 -> needs the hand wool
        .assistant(0, 0, display=0)
        .worker(0, 1, "efficient")
        .hand(0, wool)
        .market(row1=pk.row(grain=2, wood=1), row2=pk.row(grain=1))
        .build("phase4", player=0)
    )
    assert legal(g) == {produce(0), produce(1)}
    step_all(g, produce(0))
    assert legal(g) == {produce(1), L.A_PRODUCTION_DONE}
    step_all(g, L.A_PRODUCTION_DONE)  # the Mill may be skipped: it needs a hand card
    assert goods_on(g, 0, 1) == 0 and where(g, wool) == [L.L_HAND]


def test_r7_6_r7_7_order_matters_chain_consumes_goods_produced_earlier():
    """R7.6/R7.7: Cattle Ranch first makes cattle, then the Tannery chain turns it into leather."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [CATTLE_RANCH, TANNERY])  # Cattle Ranch: wool:2 clay:2; Tannery: grain:3 wool:2
        .assistant(0, 1, display=0)
        .worker(0, 2, "efficient")
        .market(row1=pk.row(suns=2, wool=2, clay=2), row2=pk.row(suns=2, grain=3))
        .build("phase4", player=0)
    )
    assert legal(g) == {produce(1), produce(2)}
    step_all(g, produce(1))  # 1 cattle; its chain (hand grain) cannot run: empty hand
    assert goods_on(g, 0, 1) == 1 and g.decision == L.D_PRODUCE
    step_all(g, produce(2))  # 2 leather, then the chain may take the cattle
    assert goods_on(g, 0, 2) == 2
    assert g.decision == L.D_CHAIN and legal(g) == {L.A_CHAIN_GOODS, L.A_CHAIN_STOP}
    step_all(g, L.A_CHAIN_GOODS)
    assert goods_on(g, 0, 1) == 0 and goods_on(g, 0, 2) == 3
    assert g.decision == L.D_PRODUCE  # no cattle left: the chain closed by itself


def test_r7_6_order_reversed_gives_no_chain():
    """R7.6: producing the Tannery first leaves no cattle for its chain."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [CATTLE_RANCH, TANNERY])
        .assistant(0, 1, display=0)
        .worker(0, 2, "efficient")
        .market(row1=pk.row(suns=2, wool=2, clay=2), row2=pk.row(suns=2, grain=3))
        .build("phase4", player=0)
    )
    step_all(g, produce(2))
    assert g.decision == L.D_PRODUCE  # no chain: no cattle yet
    step_all(g, produce(1))
    assert goods_on(g, 0, 1) == 1 and goods_on(g, 0, 2) == 2


# ---------------------------------------------------------------- R7.7 / R7.8 chains


def test_r7_7_leather_to_shoes_chain():
    """R7.7 example: the Shoemaker produces, then leather moved from the Tannery becomes shoes."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [TANNERY, SHOEMAKER])  # Shoemaker: grain:2 wool:4, chain good:leather
        .goods(0, {1: 3})  # 3 leather on the Tannery
        .worker(0, 2, "efficient")
        .market(row1=pk.row(suns=2, grain=2), row2=pk.row(suns=2, wool=4))
        .build("phase4", player=0)
    )
    coins = g.coins(0)
    step_all(g, produce(2))
    assert goods_on(g, 0, 2) == 2
    for left in (2, 1, 0):
        assert g.decision == L.D_CHAIN
        step_all(g, L.A_CHAIN_GOODS)
        assert goods_on(g, 0, 1) == left
    assert goods_on(g, 0, 2) == 5
    assert g.decision == L.D_PRODUCE  # leather exhausted: the chain closed
    # 3 leather (6 each) became 3 shoes (8 each), plus 2 new shoes
    assert g.coins(0) == coins - 3 * 6 + 5 * 8


def test_r7_7_chain_may_stop_early_and_only_after_producing():
    """R7.7: a chain runs any number of times (0 included) and only on a producing building."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [TANNERY, SHOEMAKER, CATTLE_RANCH])
        .goods(0, {1: 2, 3: 2})  # 2 leather, 2 cattle
        .worker(0, 2, "efficient")
        .market(row1=pk.row(suns=2, grain=2), row2=pk.row(suns=2, wool=4))
        .build("phase4", player=0)
    )
    step_all(g, produce(2), L.A_CHAIN_GOODS, L.A_CHAIN_STOP)
    assert goods_on(g, 0, 1) == 1 and goods_on(g, 0, 2) == 3
    # the Tannery (unstaffed, cattle available) never gets a chain outside the final round
    assert legal(g) == {L.A_PRODUCTION_DONE}
    step_all(g, L.A_PRODUCTION_DONE)
    assert goods_on(g, 0, 3) == 2 and goods_on(g, 0, 1) == 1


def test_r7_8_brick_example_three_clay_two_coal_make_four_bricks():
    """R7.8 example: Brick Manufacture, 3 clay in hand and 2 coal -> 4 bricks from the chain."""
    pk = Picker()
    clay = pk.take("clay", 3)
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [BRICK])  # stone:3 clay:1, chain hand:clay + good:coal
        .goods(0, [2])
        .worker(0, 1, "efficient")
        .hand(0, clay)
        .market(row1=pk.row(suns=2, stone=3), row2=pk.row(suns=1, clay=1))
        .build("phase4", player=0)
    )
    step_all(g, produce(1))  # market covers it: 2 bricks, no hand card spent
    assert goods_on(g, 0, 1) == 2 and g.hand(0) == sorted(clay)
    assert legal(g) == {L.A_CHAIN_HAND + c for c in clay} | {L.A_CHAIN_STOP}
    step_all(g, L.A_CHAIN_HAND + clay[2], L.A_CHAIN_HAND + clay[0])
    assert goods_on(g, 0, 1) == 2 + 4 and goods_on(g, 0, 0) == 0
    assert where(g, clay) == [GOODS0 + 1, L.L_HAND, GOODS0 + 1]  # the clay cards became bricks
    assert g.decision == L.D_PRODUCE  # no coal left: the chain closed


def test_r7_8_two_input_chain_needs_both_inputs():
    """R7.8: with 3 clay but 1 coal the pair can be formed once: 2 bricks, 2 clay stay in hand."""
    pk = Picker()
    clay = pk.take("clay", 3)
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [BRICK])
        .goods(0, [1])
        .worker(0, 1, "sloppy")
        .hand(0, clay)
        .market(row1=pk.row(suns=2, stone=3))
        .build("phase4", player=0)
    )
    step_all(g, produce(1))  # sloppy: the missing clay is the one resource skipped
    assert goods_on(g, 0, 1) == 1 and len(g.hand(0)) == 3
    step_all(g, L.A_CHAIN_HAND + clay[1])
    assert goods_on(g, 0, 1) == 3 and g.decision == L.D_PRODUCE and len(g.hand(0)) == 2


def test_r7_8_two_goods_chain_tool_maker():
    """R7.8: Tool Maker chain (coal + iron) turns each pair into 2 tools; goods from other slots."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [IRON_SMELTER, TOOL_MAKER])  # Tool Maker: grain:3 clay:3
        .goods(0, [2, 1, 0])  # 2 coal, 1 iron
        .assistant(0, 2, display=0)
        .market(row1=pk.row(suns=2, grain=3), row2=pk.row(suns=2, clay=3))
        .build("phase4", player=0)
    )
    step_all(g, produce(2))
    assert g.decision == L.D_CHAIN and legal(g) == {L.A_CHAIN_GOODS, L.A_CHAIN_STOP}
    step_all(g, L.A_CHAIN_GOODS)
    assert g.goods(0) == [1, 0, 3]
    assert g.decision == L.D_PRODUCE


def test_r7_7_chain_goods_come_from_the_lowest_other_slot():
    """R7.7 (engine decision): chain goods are taken from the lowest other slot holding them."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL, COOPERAGE, SAWMILL + 1])  # two Sawmills with lumber
        .goods(0, {1: 1, 3: 2})
        .worker(0, 2, "efficient")  # Cooperage: stone:2 clay:3, chain good:lumber
        .market(row1=pk.row(suns=2, stone=2), row2=pk.row(suns=2, clay=3))
        .build("phase4", player=0)
    )
    step_all(g, produce(2), L.A_CHAIN_GOODS)
    assert g.goods(0) == [0, 0, 3, 2]


# ---------------------------------------------------------------- R7.9 worker leaves


def test_r7_9_worker_leaves_assistant_stays():
    """R7.9: after production the worker leaves its building; assistants stay."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)
        .buildings(0, [MILL])
        .assistant(0, 1, display=0)
        .worker(0, 0, "efficient")
        .market(row1=pk.row(grain=3, wood=1, wool=1))
        .build("phase4", player=0)
    )
    assert staff(g, 0, 0) == L.STAFF_EFFICIENT
    step_all(g, produce(0), produce(1), L.A_PRODUCTION_DONE)
    assert staff(g, 0, 0) == L.STAFF_NONE
    assert staff(g, 0, 1) == L.STAFF_ASSISTANT


# ---------------------------------------------------------------- R7.10 / R7.11 building


def _build_scenario(rules="omg2", aside=TAILOR_7, goods=(0, 2, 3), **kw):
    return (
        Scenario(2, rules=rules, **kw)
        .buildings(0, [IRON_SMELTER, MILL])
        .goods(0, list(goods))  # iron 3 each, flour 2 each
        .set_aside(0, aside)
        .build("build", player=0)
    )


def test_r7_10_cost_seven_paid_with_two_iron_and_one_flour_no_change():
    """R7.10 example: cost 7 paid with 2 iron (3 each) + 1 flour (2) = 8; no change is given."""
    g = _build_scenario(auto_forced=False)
    assert g.coins(0) == 2 * 3 + 3 * 2
    assert legal(g) == {L.A_BUILD, L.A_NO_BUILD}
    iron_cards = [c for c in range(94) if loc(g, c) == L.L_GOODS + 1]
    step_all(g, L.A_BUILD)
    assert g.decision == L.D_PAY and int(g.state[L.F_PAY_DUE]) == 7
    step_all(g, L.A_PAY + 1, L.A_PAY + 1)
    assert int(g.state[L.F_PAY_DUE]) == 1
    assert legal(g) == {L.A_PAY + 2}  # only flour is left to pay with
    step_all(g, L.A_PAY + 2)
    assert g.buildings(0)[-1] == TAILOR_7 and loc(g, TAILOR_7) == L.L_BUILT + 0
    assert g.goods(0) == [0, 0, 2, 0]
    assert g.coins(0) == 12 - 8  # overpaid by 1, nothing returned
    assert set(iron_cards) <= discard_pile(g)


def test_r7_10_cannot_build_without_enough_goods():
    """R7.10: the goods' total value must reach the cost."""
    g = _build_scenario(goods=(0, 1, 1), auto_forced=False)  # 3 + 2 = 5 < 7
    assert legal(g) == {L.A_NO_BUILD}


def test_r7_11_omg2_unbuilt_card_returns_to_hand():
    """R7.11 (omg2): a set-aside card not built goes back to the hand."""
    g = _build_scenario(auto_forced=False)
    step_all(g, L.A_NO_BUILD)
    assert loc(g, TAILOR_7) == L.L_HAND + 0 and int(g.state[L.F_ASIDE]) == -1


def test_r7_11_omg2_unaffordable_card_returns_to_hand_automatically():
    """R7.11: when building is impossible the forced 'do not build' returns the card to hand."""
    g = _build_scenario(goods=(0, 0, 1))
    assert loc(g, TAILOR_7) == L.L_HAND + 0


# ---------------------------------------------------------------- R7.12 / R7.13 / R7.14 hiring


def _hire_scenario(rules="omg2", aside=None, goods=(0, 0, 5), display=((0, "A"),), **kw):
    # assistant card 0 side A: cost 3, 1 VP, needs charburner + grain + wood buildings
    sc = Scenario(2, rules=rules, **kw).buildings(0, [SAWMILL, MILL]).goods(0, list(goods)).display(list(display))
    if aside is not None:
        sc.set_aside(0, aside)
    return sc


def test_r7_12_hire_pays_cost_keeps_buildings_and_places_at_once():
    """R7.12: pay the cost in coins, own the colours shown, place on a free production building."""
    g = _hire_scenario(auto_forced=False).assistant(0, 1, display=1).display([(0, "A"), (5, "A")])
    g = g.build("build", player=0)
    assert legal(g) == {L.A_HIRE + 0, L.A_NO_HIRE}  # no set-aside card: straight to hiring
    step_all(g, L.A_HIRE + 0, L.A_PAY + 2, L.A_PAY + 2)  # 2 flour = 4 >= 3
    assert g.decision == L.D_PLACE
    assert legal(g) == {L.A_PLACE + 0, L.A_PLACE + 2}  # slot 1 has an assistant (R7.14)
    step_all(g, L.A_PLACE + 2)
    assert staff(g, 0, 2) == L.STAFF_ASSISTANT and int(g.state[L.F_ASLOT + 2]) == 0
    assert int(g.state[L.F_A_OWNER + 0]) == 0
    assert g.buildings(0)[1:] == [SAWMILL, MILL] and g.goods(0) == [0, 0, 3]
    # R8.3: buildings 0 + 2 + 2 VP, assistants 1 + 2 VP, 6 coins -> 1 VP, 1 coin left over
    assert g.scores()[0] == (4 + 3 + 1, 1)


def test_r7_12_requirements_colour_and_cost():
    """R7.12: the cost in coins and one building per colour shown (card 0A: Charburner, grain,
    wood; cost 3) are both required."""

    def offered(buildings, goods) -> bool:
        g = (
            Scenario(2, auto_forced=False)
            .buildings(0, buildings)
            .goods(0, goods)
            .display([(0, "A")])
            .build("build", player=0)
        )
        return g.current_player == 0 and g.decision == L.D_HIRE and L.A_HIRE in legal(g)

    assert offered([SAWMILL, MILL], [0, 0, 2])  # 4 coins, wood + grain
    assert not offered([SAWMILL, MILL], [0, 0, 1])  # 2 coins < 3
    assert not offered([MILL], [0, 5])  # no wood building
    assert not offered([SAWMILL, BRICK], [0, 0, 5])  # no grain building


def test_r7_12_hire_needs_a_free_production_building():
    """R7.12/R7.14: the assistant goes at once to a production building with no person."""

    def scenario(staffed_slots):
        sc = (
            Scenario(2, auto_forced=False)
            .buildings(0, [SAWMILL, MILL, OFFICE_GRAIN])
            .goods(0, [0, 0, 5])
            .display([(0, "A"), (1, "A"), (2, "A"), (3, "A")])
        )
        for k, s in enumerate(staffed_slots):
            sc.assistant(0, s, display=k + 1)
        return sc.build("build", player=0)

    g = scenario([0, 1])
    assert L.A_HIRE + 0 in legal(g)
    step_all(g, L.A_HIRE + 0, L.A_PAY + 2, L.A_PAY + 2)
    assert legal(g) == {L.A_PLACE + 2}  # not the staffed slots, not the Market Office
    g = scenario([0, 1, 2])  # every production building has a person: nowhere to place
    assert g.decision != L.D_HIRE and L.A_HIRE + 0 not in legal(g)


def test_r7_12_omg2_hiring_is_instead_of_building():
    """R7.12 (omg2): after building, no assistant may be hired in the same phase IV."""
    g = _hire_scenario(aside=SAWMILL + 1, goods=(0, 0, 5), auto_forced=False).build("build", player=0)
    step_all(g, L.A_BUILD, L.A_PAY + 2)  # Sawmill cost 2
    assert g.buildings(0)[-1] == SAWMILL + 1
    assert g.current_player == 1 and g.decision == L.D_PRODUCE  # player 0's turn is over
    assert int(g.state[L.F_A_OWNER]) == -1
    g = _hire_scenario(aside=SAWMILL + 1, goods=(0, 0, 5), auto_forced=False).build("build", player=0)
    step_all(g, L.A_NO_BUILD)
    assert g.decision == L.D_HIRE and L.A_HIRE + 0 in legal(g)


def test_r7_12_at_most_one_assistant_per_turn():
    """R7.12: after hiring one assistant the turn is over, even if another is affordable."""
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL, MILL, BRICK])  # card 0A needs grain+wood, card 1A wood+clay
        .goods(0, [0, 0, 8, 0])
        .display([(0, "A"), (1, "A")])
        .build("build", player=0)
    )
    assert legal(g) == {L.A_HIRE + 0, L.A_HIRE + 1, L.A_NO_HIRE}
    step_all(g, L.A_HIRE + 0, L.A_PAY + 2, L.A_PAY + 2, L.A_PLACE + 0)
    assert g.current_player == 1 and g.decision == L.D_PRODUCE
    assert int(g.state[L.F_A_OWNER + 0]) == 0 and int(g.state[L.F_A_OWNER + 1]) == -1


def test_r7_13_earlier_player_in_turn_order_gets_the_assistant():
    """R7.13: both want the same assistant; the earlier player in turn order wins it."""
    g = (
        Scenario(2, auto_forced=False)
        .first_player(1)
        .buildings(0, [SAWMILL, MILL])
        .buildings(1, [SAWMILL + 1, MILL + 1])
        .goods(0, [0, 0, 5])
        .goods(1, [0, 0, 5])
        .display([(0, "A")])
        .build("build", player=1)
    )
    assert g.current_player == 1 and legal(g) == {L.A_HIRE + 0, L.A_NO_HIRE}
    other = g.clone()
    step_all(other, L.A_NO_HIRE, L.A_PRODUCTION_DONE)  # player 1 passes: player 0 may hire it
    assert other.current_player == 0 and legal(other) == {L.A_HIRE + 0, L.A_NO_HIRE}
    step_all(g, L.A_HIRE + 0, L.A_PAY + 2, L.A_PAY + 2, L.A_PLACE + 1)
    assert g.current_player == 0 and g.decision == L.D_PRODUCE
    step_all(g, L.A_PRODUCTION_DONE)  # player 0 finds nobody left to hire
    assert g.round == 1 and int(g.state[L.F_A_OWNER]) == 1


def test_r7_14_one_person_per_building_in_worker_placement():
    """R7.14: the worker may not join an assistant; grey buildings take nobody."""
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [MILL, OFFICE_GRAIN, EXTRA_CARD, SAWMILL])
        .assistant(0, 1, display=0)
        .build("phase2")
    )
    assert g.decision == L.D_WORKER
    assert legal(g) == {L.A_WORKER + 2 * s + m for s in (0, 4) for m in (0, 1)}


def test_r7_3_no_goods_when_deck_and_discard_are_empty_and_hands_small():
    """R7.3 with R3.1 (decision R3.1a): no card can be drawn and nobody holds 2 cards to refill:
    the goods are given up, and without a good the chain is not offered (R7.7)."""
    pk = Picker()
    row1 = pk.row(suns=2, grain=2, wood=1)
    wood = pk.take("wood", 1)  # would feed the Charburner chain
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)
        .worker(0, 0, "efficient")
        .hand(0, wood)
        .market(row1=row1)
        .goods(0, [94 - len(row1) - 1])  # every other card is coal
        .build("phase4", player=0)
    )
    assert int(g.state[L.F_DECK_N]) == 0 and not discard_pile(g)
    step_all(g, produce(0))
    assert goods_on(g, 0, 0) == 94 - len(row1) - 1
    assert g.decision == L.D_PRODUCE and legal(g) == {L.A_PRODUCTION_DONE}
    assert g.hand(0) == wood


def test_r7_5_office_counts_for_glassmaker():
    """R7.5: an office copy counts toward the Glassmaker's any-N."""
    pk = Picker()
    row1 = pk.row(grain=2, wood=2)
    row2 = pk.row(clay=3, wool=2, stone=1)  # 10 market cards
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [GLASSMAKER_11, OFFICE_WOOL])
        .worker(0, 1, "efficient")
        .market(row1=row1, row2=row2)
        .build("phase4", player=0)
    )
    assert legal(g) == {produce(1)}  # 10 + 1 office = 11: covered by the market, mandatory
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [GLASSMAKER_11])
        .worker(0, 1, "efficient")
        .market(row1=row1, row2=row2)
        .build("phase4", player=0)
    )
    assert legal(g) == {L.A_PRODUCTION_DONE}


def test_r7_8_bakery_two_goods_chain_takes_both_inputs():
    """R7.8: Bakery chain flour + coal: one pair gives 2 bread; a lone flour gives nothing."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [MILL, BAKERY])  # Bakery: stone:2 clay:3
        .goods(0, [1, 3, 0])  # 1 coal, 3 flour
        .worker(0, 2, "efficient")
        .market(row1=pk.row(suns=2, stone=2), row2=pk.row(suns=2, clay=3))
        .build("phase4", player=0)
    )
    step_all(g, produce(2), L.A_CHAIN_GOODS)
    assert g.goods(0) == [0, 2, 4]
    assert g.decision == L.D_PRODUCE  # no coal left


def test_r1_4_grey_building_is_built_like_any_other():
    """R7.10/R1.4: grey buildings are built like any other (Extra-card building, cost 6)."""
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [MILL])
        .goods(0, [0, 3])
        .set_aside(0, EXTRA_CARD)
        .build("build", player=0)
    )
    step_all(g, L.A_BUILD, L.A_PAY + 1, L.A_PAY + 1, L.A_PAY + 1)
    assert g.buildings(0) == [94, MILL, EXTRA_CARD] and g.goods(0) == [0, 0, 0]


def test_r3_2_r7_7_hand_cards_fed_into_a_chain_are_public():
    """R3.2, R7.7: the clay cards fed into the chain were shown to everyone: their identities
    stay public as goods (every seat's observation, the information state, the text view);
    the other goods stay hidden."""
    from ohmygoods_env.infostate import hidden_cards, redact
    from ohmygoods_env.render import render_text

    pk = Picker()
    clay = pk.take("clay", 3)
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [BRICK])
        .goods(0, [2])
        .worker(0, 1, "efficient")
        .hand(0, clay)
        .market(row1=pk.row(suns=2, stone=3), row2=pk.row(suns=1, clay=1))
        .build("phase4", player=0)
    )
    step_all(g, produce(1))
    made = [c for c in range(L.N_CARDS) if loc(g, c) == GOODS0 + 1]  # drawn from the deck: hidden
    for seat in (0, 1):
        assert not g.observe(seat)[L.O_SHOWN : L.O_SHOWN + L.N_CARDS].any()
    step_all(g, L.A_CHAIN_HAND + clay[2], L.A_CHAIN_HAND + clay[0])
    for seat in (0, 1):
        shown = np.flatnonzero(g.observe(seat)[L.O_SHOWN : L.O_SHOWN + L.N_CARDS])
        assert shown.tolist() == sorted([clay[0], clay[2]])
        hidden = hidden_cards(g.state, seat)
        assert clay[0] not in hidden and clay[2] not in hidden
        assert all(c in hidden for c in made)  # goods drawn from the deck stay face down
        info = np.zeros_like(g.state)
        redact(g.state, seat, info)
        assert loc(g, clay[0]) == info[L.F_LOC + clay[0]] == GOODS0 + 1  # kept, not redacted
    text = render_text(g, viewer=1)
    assert "shown when fed into a chain" in text and f"(card {clay[2]})" in text
