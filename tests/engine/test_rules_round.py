"""Round structure, deck, reshuffle and the empty-deck refill (R3)."""

from __future__ import annotations

import numpy as np
from engine_helpers import (
    CB_GRAIN,
    Picker,
    deck_order,
    discard_pile,
    goods_on,
    legal,
    loc,
    play_passively,
    step_all,
    where,
)

from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game
from ohmygoods_env.scenario import Scenario


def test_r3_phases_in_order_i_ii_iii_iv():
    """R3: phase I decisions, then phase II, then (after the sunset) phase IV, then a new round."""
    g = Game(3, seed=4, auto_forced=False)
    seen = []
    while g.round == 0:
        ph = g.phase
        if not seen or seen[-1] != ph:
            seen.append(ph)
        if ph == L.PH_P2:
            assert g.market()[1].sum() == 0 and int(g.state[L.F_SUNS]) == 2  # row 2 not revealed yet
        if ph == L.PH_P4:
            assert int(g.state[L.F_SUNS + 1]) == 2
        g.step(min(legal(g)))
    assert seen == [L.PH_P1_ASK, L.PH_P2, L.PH_P4]


def test_r3_after_phase_iv_market_discarded_next_player_active():
    """R3: after phase IV the market goes to the discard pile and the next player becomes active."""
    pk = Picker()
    row1, row2 = pk.row(suns=2, grain=2, wool=1), pk.row(suns=2, clay=2)
    hands = [pk.take("wood", 1), pk.take("stone", 1), pk.take("wood", 1)]
    g = (
        Scenario(3, auto_forced=False)
        .first_player(2)
        .hand(0, hands[0])
        .hand(1, hands[1])
        .hand(2, hands[2])
        .market(row1=row1, row2=row2)
        .round(4)
        .build("phase4", player=1)  # last in turn order 2, 0, 1
    )
    assert g.current_player == 1 and legal(g) == {L.A_PRODUCTION_DONE}
    step_all(g, L.A_PRODUCTION_DONE)
    assert g.round == 5 and int(g.state[L.F_FIRST]) == 0
    assert set(row1 + row2) <= discard_pile(g)
    assert g.market().sum() == 0 and int(g.state[L.F_SUNS]) == 0
    assert g.decision == L.D_PHASE1 and g.current_player == 0


def test_r3_1_empty_deck_reshuffles_discard_pile():
    """R3.1: the deck runs out mid-reveal: the discard pile is shuffled into a new deck."""
    pk = Picker()
    last = pk.one("grain", sun=False)
    g = Scenario(2, auto_forced=False).deck_top([last]).rest_to("discard").build("sunrise")
    assert loc(g, last) == L.L_ROW1  # the old deck's last card came first
    assert not discard_pile(g)
    row = [c for c in range(94) if loc(g, c) == L.L_ROW1]
    assert int(g.state[L.F_SUNS]) == 2 and len(row) + int(g.state[L.F_DECK_N]) == 94
    # the new deck is shuffled: another seed gives another order
    g2 = Scenario(2, seed=1, auto_forced=False).deck_top([last]).rest_to("discard").build("sunrise")
    assert deck_order(g) != deck_order(g2)


def _all_cards_placed(hand0, hand1, rules="omg2"):
    """Deck and discard empty: every other card is coal on player 0's Charburner."""
    rest = 94 - len(hand0) - len(hand1)
    return Scenario(2, rules=rules, auto_forced=False).hand(0, hand0).hand(1, hand1).goods(0, [rest])


def test_r3_1_refill_each_player_discards_half_into_a_new_deck():
    """R3.1: deck and discard empty: each player, in turn order, discards floor(hand/2) cards."""
    pk = Picker()
    suns0, plain0 = pk.take("wood", 3, sun=True), pk.take("wood", 3, sun=False)
    sun1, plain1 = pk.take("grain", 1, sun=True), pk.take("grain", 2, sun=False)
    g = _all_cards_placed(suns0 + plain0, sun1 + plain1).build("sunrise")
    assert g.decision == L.D_REFILL and g.current_player == 0
    assert legal(g) == {L.A_REFILL + c for c in suns0 + plain0}
    step_all(g, *(L.A_REFILL + c for c in suns0))
    assert g.decision == L.D_REFILL and g.current_player == 1  # 3 cards: owes 1
    assert where(g, suns0) == [L.L_LIMBO] * 3  # face down, not on the public discard pile
    step_all(g, L.A_REFILL + sun1[0])
    # the 4 discarded cards became the deck; the reveal stopped at the second half-sun
    row = [c for c in range(94) if loc(g, c) == L.L_ROW1]
    assert len(row) == 2 and set(row) <= set(suns0 + sun1)
    assert int(g.state[L.F_DECK_N]) == 2 and not discard_pile(g)
    assert g.hand(0) == sorted(plain0) and g.hand(1) == sorted(plain1)
    assert g.phase == L.PH_P2


def test_r3_1_refill_with_nothing_to_discard_gives_up_the_draws():
    """R3.1 (decision): if the refill yields no card, the market row stays short and play goes on."""
    pk = Picker()
    wood = pk.take("wood", 1)
    g = _all_cards_placed(wood, []).build("sunrise")
    assert g.phase == L.PH_P2 and g.decision == L.D_WORKER
    assert g.market().sum() == 0 and int(g.state[L.F_ROW_CUT]) == 1
    play_passively(g, until=lambda x: x.round == 1)
    # round 1, phase I: the single card stays in hand (nobody can refill, draws are given up)
    assert g.round == 1 and g.decision == L.D_PHASE1 and g.hand(0) == wood


def test_r3_1_refill_in_phase_iv_goods_draw():
    """R3.1: a refill can interrupt production; the producer then draws from the new deck."""
    pk = Picker()
    row1 = pk.row(suns=2, grain=2, wood=1)
    hand1 = pk.take("clay", 4)
    rest = 94 - len(row1) - len(hand1)
    g = (
        Scenario(2, auto_forced=False)
        .charburner(0, CB_GRAIN)
        .worker(0, 0, "efficient")
        .hand(1, hand1)
        .market(row1=row1)
        .goods(0, [rest])
        .build("phase4", player=0)
    )
    step_all(g, L.A_PRODUCE)
    assert g.decision == L.D_REFILL and g.current_player == 1  # player 0 has no hand: owes 0
    step_all(g, L.A_REFILL + hand1[0], L.A_REFILL + hand1[3])
    assert goods_on(g, 0, 0) == rest + 2
    assert where(g, hand1) == [L.L_GOODS, L.L_HAND + 1, L.L_HAND + 1, L.L_GOODS]


def test_r3_2_discard_pile_is_public():
    """R3.2: every player's observation shows the discard pile, card by card."""
    pk = Picker()
    pile = pk.take("wool", 3) + pk.take("stone", 2)
    g = Scenario(3).discard(pile).hand(1, pk.take("grain", 2)).build("phase2")
    for p in range(3):
        obs = g.observe(p)
        shown = np.flatnonzero(obs[L.O_DISCARD : L.O_DISCARD + L.N_CARDS])
        assert shown.tolist() == sorted(pile)
        assert obs[L.O_PILES + 1] == np.float32(5 / 94)
