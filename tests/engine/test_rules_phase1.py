"""Phase I — new hand cards (R4.1-R4.3)."""

from __future__ import annotations

import pytest
from engine_helpers import EXTRA_CARD, EXTRA_CARD_2, Picker, discard_pile, legal, step_all, where

from ohmygoods_env import layout as L
from ohmygoods_env.scenario import Scenario


def test_r4_1_discard_whole_hand_and_draw_as_many():
    """R4.1 (omg2): discarding the whole hand draws as many cards, then 2 more (R4.2)."""
    pk = Picker()
    h0, h1 = pk.take("grain", 3), pk.take("clay", 2)
    top = pk.take("wool", 7, sun=False)
    g = Scenario(2).hand(0, h0).hand(1, h1).deck_top(top).build("phase1")
    assert g.decision == L.D_PHASE1 and g.current_player == 0
    assert legal(g) == {L.A_KEEP, L.A_DISCARD_HAND}  # all or nothing: no partial discard
    step_all(g, L.A_DISCARD_HAND)
    assert g.current_player == 1 and g.hand(0) == sorted(h0)  # hidden until everyone chose
    step_all(g, L.A_KEEP)
    assert where(g, h0) == [L.L_DISCARD] * 3 and discard_pile(g) == set(h0)
    assert g.hand(0) == sorted(top[:5])  # 3 replaced + 2 new, drawn first (turn order)
    assert g.hand(1) == sorted(h1 + top[5:7])


def test_r4_1_player_with_empty_hand_is_not_asked():
    """R4.1: with no hand cards there is nothing to discard; only the other player is asked."""
    pk = Picker()
    g = Scenario(2, auto_forced=False).hand(1, pk.take("grain", 2)).build("phase1")
    assert g.decision == L.D_PHASE1 and g.current_player == 1


def test_r4_1_absent_in_royal():
    """§9 royal: no discard-all option: phase I draws at once and phase II begins."""
    pk = Picker()
    h0, top = pk.take("grain", 3), pk.take("wool", 4, sun=False)
    g = Scenario(2, rules="royal", auto_forced=False).hand(0, h0).deck_top(top).build("phase1")
    assert g.phase == L.PH_P2
    assert g.hand(0) == sorted(h0 + top[:2]) and g.hand(1) == sorted(top[2:4])


def test_r4_2_two_cards_each_no_hand_limit():
    """R4.2: every player gets 2 cards, in turn order, however many they hold."""
    pk = Picker()
    big = pk.take("grain", 12)
    top = pk.take("wool", 6, sun=False)
    g = (
        Scenario(3)
        .first_player(1)
        .hand(0, big)
        .hand(1, pk.take("clay", 1))
        .hand(2, pk.take("clay", 1))
        .deck_top(top)
        .build("phase1")
    )
    for _ in range(3):
        step_all(g, L.A_KEEP)
    assert len(g.hand(0)) == 14 and set(top[4:6]) <= set(g.hand(0))  # seat 0 is last in turn order
    assert set(top[0:2]) <= set(g.hand(1)) and set(top[2:4]) <= set(g.hand(2))


@pytest.mark.parametrize(
    "hand_size,extra_buildings,expected",
    [
        (3, 1, 3 + 2 + 1),  # R4.3: 3 cards (not more than 3): 1 extra card
        (4, 1, 4 + 2),  # more than 3: no extra card
        (0, 1, 0 + 2 + 1),
        (2, 2, 2 + 2 + 2),  # Decision: two Extra-card buildings stack
        (5, 2, 5 + 2),
        (3, 0, 3 + 2),
    ],
)
def test_r4_3_extra_card_building(hand_size, extra_buildings, expected):
    """R4.3 (omg2): +1 card per Extra-card building unless more than 3 cards at the start of phase I."""
    pk = Picker()
    hand = pk.take("grain", hand_size)
    g = (
        Scenario(2, auto_forced=False)
        .hand(0, hand)
        .buildings(0, [EXTRA_CARD, EXTRA_CARD_2][:extra_buildings])
        .build("phase1")
    )
    while g.phase == L.PH_P1_ASK:
        step_all(g, L.A_KEEP)
    assert len(g.hand(0)) == expected
    assert len(g.hand(1)) == 2


def test_r4_3_hand_size_counted_before_discarding():
    """R4.1 + R4.3: the 'more than 3' test uses the hand at the start of the phase."""
    pk = Picker()
    for size, expected in ((3, 3 + 2 + 1), (4, 4 + 2)):
        g = Scenario(2, auto_forced=False).hand(0, pk.take("grain", size)).buildings(0, [EXTRA_CARD]).build("phase1")
        step_all(g, L.A_DISCARD_HAND)
        assert len(g.hand(0)) == expected
