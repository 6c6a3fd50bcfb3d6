"""Phase II — sunrise and the simultaneous choices (R5.1-R5.5); phase III — sunset (R6.1)."""

from __future__ import annotations

from engine_helpers import (
    CB_GRAIN,
    EXTRA_CARD,
    MILL,
    OFFICE_GRAIN,
    SAWMILL,
    Picker,
    deck_order,
    discard_pile,
    goods_on,
    legal,
    loc,
    staff,
    step_all,
    where,
)

from ohmygoods_env import layout as L
from ohmygoods_env.cards import RESOURCES
from ohmygoods_env.scenario import Scenario


def test_r5_1_sunrise_reveals_until_two_half_suns():
    """R5.1: cards are revealed into row 1 one at a time until 2 half-suns have appeared."""
    pk = Picker()
    n1, n2, n3 = pk.one("grain", sun=False), pk.one("clay", sun=False), pk.one("clay", sun=False)
    s1, s2, nxt = pk.one("wood", sun=True), pk.one("wool", sun=True), pk.one("stone", sun=True)
    top = [n1, n2, s1, n3, s2, nxt]
    g = Scenario(2, auto_forced=False).deck_top(top).build("sunrise")
    assert where(g, top) == [L.L_ROW1] * 5 + [L.L_DECK]
    assert deck_order(g)[0] == nxt
    counts = dict(zip(RESOURCES, g.market()[0].tolist(), strict=True))
    assert counts == {"grain": 1, "wood": 1, "clay": 2, "wool": 1, "stone": 0}
    assert int(g.state[L.F_SUNS]) == 2 and g.market()[1].sum() == 0


def test_r6_1_sunset_reveals_second_row_until_two_more_half_suns():
    """R6.1: after phase II a second row is revealed until 2 more half-suns; both rows count."""
    pk = Picker()
    row1 = pk.row(suns=2, grain=1, wood=1)
    top = [pk.one("grain", sun=False), pk.one("wool", sun=True), pk.one("stone", sun=True), pk.one("clay")]
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)  # grain:2 wood:1
        .worker(0, 0, "efficient")
        .market(row1=row1)
        .deck_top(top)
        .build("sunset")
    )
    assert where(g, top) == [L.L_ROW2] * 3 + [L.L_DECK]
    assert g.market()[0].tolist() == [1, 1, 0, 0, 0] and g.market()[1].tolist() == [1, 0, 0, 1, 1]
    assert g.phase == L.PH_P4 and g.decision == L.D_PRODUCE
    assert legal(g) == {L.A_PRODUCE}  # grain from row 1 + row 2 covers the Charburner (mandatory)


def test_r5_2_choices_in_turn_order_revealed_after_everyone_chose():
    """R5.2: phase II choices are asked player by player (from the first player) and take effect
    together; row 2 is revealed only after all of them."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .first_player(1)
        .hand(0, pk.take("grain", 2))
        .hand(1, pk.take("clay", 2))
        .market(row1=pk.row(suns=2, wool=2))
        .build("phase2")
    )
    order = []
    while g.phase == L.PH_P2:
        order.append((g.current_player, g.decision))
        step_all(g, L.A_WORKER if g.decision == L.D_WORKER else L.A_ASIDE_NONE)
    assert order == [(1, L.D_WORKER), (1, L.D_ASIDE), (0, L.D_WORKER), (0, L.D_ASIDE)]
    assert staff(g, 0, 0) == staff(g, 1, 0) == L.STAFF_EFFICIENT
    assert int(g.state[L.F_SUNS + 1]) == 2


def _mover(goods, extra=()):
    """Player 0 owns an assistant on the Sawmill (slot 1); the Mill (slot 2) is free."""
    return (
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL, MILL, *extra])
        .goods(0, goods)
        .assistant(0, 1, display=0)
        .market(row1=Picker().row(suns=2, stone=2))
        .build("phase2")
    )


def test_r5_3_move_assistant_for_two_coins():
    """R5.3: move an assistant to another free production building for 2 coins; the payment is
    discarded at the reveal (hidden until then)."""
    g = _mover([3, 0, 2], extra=[OFFICE_GRAIN])
    assert g.decision == L.D_MOVE
    # to the Charburner (slot 0) or the Mill (slot 2); never to the office (slot 3)
    assert legal(g) == {L.A_MOVES_DONE, L.A_MOVE + 1 * 9 + 0, L.A_MOVE + 1 * 9 + 2}
    step_all(g, L.A_MOVE + 1 * 9 + 2)
    assert g.decision == L.D_PAY and int(g.state[L.F_PAY_DUE]) == 2
    assert legal(g) == {L.A_PAY + 0, L.A_PAY + 2}
    paid = [c for c in range(94) if loc(g, c) == L.L_GOODS + 2]
    step_all(g, L.A_PAY + 2)  # one flour (2 coins) pays exactly
    assert staff(g, 0, 1) == L.STAFF_NONE and staff(g, 0, 2) == L.STAFF_ASSISTANT
    assert int(g.state[L.F_ASLOT + 2]) == 0 and int(g.state[L.F_ASLOT + 1]) == -1
    assert sorted(where(g, paid)) == [L.L_ESCROW, L.L_GOODS + 2]
    assert not discard_pile(g)
    # Decision R5.3a: the moved assistant may not move again this phase (5 coins are left)
    assert g.decision == L.D_WORKER
    step_all(g, L.A_WORKER + 2 * 0)
    while g.phase == L.PH_P2:
        step_all(g, min(legal(g)))
    assert len(discard_pile(g) & set(paid)) == 1  # discarded at the reveal


def test_r5_3_each_assistant_moves_at_most_once():
    """R5.3 / decision R5.3a: two assistants may each move once per phase II, 2 coins each."""
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL, MILL, SAWMILL + 1, MILL + 1])
        .goods(0, [6])
        .assistant(0, 1, display=0)
        .assistant(0, 2, display=1)
        .market(row1=Picker().row(suns=2, stone=2))
        .build("phase2")
    )
    step_all(g, L.A_MOVE + 1 * 9 + 3, L.A_PAY, L.A_PAY)
    moves = {a for a in legal(g) if L.A_MOVE <= a < L.A_MOVES_DONE}
    assert moves == {L.A_MOVE + 2 * 9 + t for t in (0, 1, 4)}  # only the unmoved one, to a free building
    step_all(g, L.A_MOVE + 2 * 9 + 1, L.A_PAY, L.A_PAY)
    assert g.decision == L.D_WORKER and g.coins(0) == 2
    assert [staff(g, 0, s) for s in range(5)] == [0, L.STAFF_ASSISTANT, 0, L.STAFF_ASSISTANT, 0]


def test_r5_3_move_needs_two_coins_and_a_free_building():
    """R5.3: with fewer than 2 coins, or no free production building, no move is offered."""
    g = _mover([1, 0, 0])
    assert g.decision == L.D_WORKER  # 1 coin: the move step is skipped
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL, EXTRA_CARD])
        .goods(0, [5])
        .assistant(0, 0, display=0)
        .assistant(0, 1, display=1)
        .market(row1=Picker().row(suns=2, stone=2))
        .build("phase2")
    )
    # player 0 has nothing to decide (no move, no free building, no hand): player 1 is asked
    assert g.phase == L.PH_P2 and g.current_player == 1 and g.decision == L.D_WORKER


def test_r5_3_payment_may_overpay():
    """R5.3/R7.10: a 3-coin good pays the 2-coin move; no change is given."""
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL, MILL, 5])  # 5 = Iron Smelter (iron, 3 coins)
        .goods(0, {3: 1})
        .assistant(0, 1, display=0)
        .market(row1=Picker().row(suns=2, stone=2))
        .build("phase2")
    )
    step_all(g, L.A_MOVE + 1 * 9 + 2, L.A_PAY + 3)
    assert g.coins(0) == 0 and goods_on(g, 0, 3) == 0 and g.decision == L.D_WORKER


def test_r5_4_worker_efficient_or_sloppy_on_free_production_building():
    """R5.4: the worker goes under a production building with no assistant, in either mode."""
    g = _mover([0, 0, 0], extra=[OFFICE_GRAIN])
    assert g.decision == L.D_WORKER
    assert legal(g) == {L.A_WORKER + 2 * s + m for s in (0, 2) for m in (0, 1)}
    step_all(g, L.A_WORKER + 2 * 2 + 1)
    assert staff(g, 0, 2) == L.STAFF_SLOPPY


def test_r5_4_worker_idles_when_no_building_is_free():
    """R5.4 (decision): with every production building staffed by assistants the worker idles."""
    pk = Picker()
    g = (
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL])
        .assistant(0, 0, display=0)
        .assistant(0, 1, display=1)
        .hand(0, pk.take("grain", 1))
        .market(row1=pk.row(suns=2, stone=2))
        .build("phase2")
    )
    assert g.current_player == 0 and g.decision == L.D_ASIDE  # no worker decision at all
    step_all(g, L.A_ASIDE_NONE)
    assert [staff(g, 0, s) for s in range(2)] == [L.STAFF_ASSISTANT] * 2


def test_r5_5_set_aside_one_hand_card_or_none():
    """R5.5: optionally put one hand card face down as the building to build in phase IV."""
    pk = Picker()
    hand = pk.take("grain", 3)
    g = Scenario(2, auto_forced=False).hand(0, hand).market(row1=pk.row(suns=2, stone=2)).build("phase2")
    step_all(g, L.A_WORKER)
    assert legal(g) == {L.A_ASIDE_NONE} | {L.A_ASIDE + c for c in hand}
    step_all(g, L.A_ASIDE + hand[1])
    assert loc(g, hand[1]) == L.L_ASIDE + 0 and int(g.state[L.F_ASIDE]) == hand[1]
    assert g.hand(0) == [hand[0], hand[2]]


def test_r5_5_no_hand_no_question():
    """R5.5: a player without hand cards is not asked to set one aside."""
    g = Scenario(2, auto_forced=False).market(row1=Picker().row(suns=2, stone=2)).build("phase2")
    step_all(g, L.A_WORKER)
    assert g.current_player == 1 and g.decision == L.D_WORKER
