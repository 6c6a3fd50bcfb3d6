"""Card play: simultaneous choice, reveal, resolution order, apply / discard / take back, trades
(A4.1-A4.8, A9.1, A9.6, A9.10)."""

from __future__ import annotations

import pytest
from art_helpers import RES, TYPE, buy, choose, hand_names, play, sell, types_at

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import IllegalActionError
from ohmygoods_env.artificium.scenario import Scenario


def _three(first: int = 0):
    return (
        Scenario(3)
        .first_player(first)
        .hand(0, [TYPE["Sawmill"], TYPE["Farm"]])
        .hand(1, [TYPE["Fair"], TYPE["Farm"]])
        .hand(2, [TYPE["Farm"], TYPE["Sawmill"]])
        .build()
    )


def test_A4_1_every_seat_in_the_round_chooses_and_any_may_act_first():
    """A4.1"""
    g = _three()
    assert g.decision == L.D_CHOOSE and g.pending_players() == (0, 1, 2)
    g.step_player(2, play("Farm"))
    assert g.pending_players() == (0, 1)
    g.step_player(0, play("Sawmill"))
    assert g.pending_players() == (1,) and g.current_player == 1


def test_A4_1_no_seat_s_legal_choices_depend_on_another_s():
    """A4.1: seat 1's mask is the same whatever seat 0 laid down."""
    masks = []
    for pick in ("Sawmill", "Farm"):
        g = _three()
        g.step_player(0, play(pick))
        masks.append(g.legal_mask(1).tolist())
    assert masks[0] == masks[1]


def test_A4_2_cards_are_revealed_together_when_all_have_chosen():
    """A4.2"""
    g = _three()
    g.step_player(0, play("Sawmill"))
    g.step_player(1, play("Fair"))
    assert g.cards_at(L.L_REVEALED) == [] and len(g.cards_at(L.L_CHOSEN)) == 1
    g.step_player(2, play("Farm"))
    assert [types_at(g, L.L_REVEALED + p) for p in range(3)] == [["Sawmill"], ["Fair"], ["Farm"]]


def test_A4_3_A9_1_actions_first_then_buildings_clockwise_from_the_first_player():
    """A4.3, A9.1: first player 2; seat 1's action, then seat 2's and seat 0's buildings."""
    g = _three(first=2)
    choose(g, {0: "Sawmill", 1: "Fair", 2: "Farm"})
    order = []
    while g.decision == L.D_RESOLVE and g.round == 1 and len(order) < 3:
        order.append(g.current_player)
        g.step(L.A_APPLY)
    assert order == [1, 2, 0]


def test_A4_4_applying_a_building_makes_its_output():
    """A4.4, A7.1"""
    g = _three()
    choose(g, {0: "Sawmill", 1: "Farm", 2: "Farm"})
    g.step(L.A_APPLY)
    assert g.resources(0)[RES["wood"]] == 2


def test_A4_5_discard_and_stay_or_take_back_and_leave():
    """A4.5: both allowed even when the card could be applied; neither scores."""
    g = _three()
    choose(g, {0: "Sawmill", 1: "Farm", 2: "Farm"})
    assert g.legal_mask()[L.A_APPLY] == 1
    g.step(L.A_DISCARD_CARD)
    assert types_at(g, L.L_DISCARD) == ["Sawmill"] and g.vp(0) == 0
    g.step(L.A_TAKE_BACK)
    assert "Farm" in hand_names(g, 1) and g.vp(1) == 0
    g.step(L.A_APPLY)
    assert g.decision == L.D_CHOOSE and g.pending_players() == (0, 2)  # seat 1 is out


def test_A4_6_buy_and_sell_at_the_board_prices_before_applying():
    """A4.6: a Charcoal burner without wood buys it first; after applying no trade is offered."""
    g = Scenario(2).hand(0, [TYPE["Charcoal burner"]]).hand(1, [TYPE["Farm"]]).resources(0, {"wheat": 1}).build()
    choose(g, {0: "Charcoal burner", 1: "Farm"})
    assert g.legal_mask()[L.A_APPLY] == 0
    g.step(L.A_SELL + RES["wheat"])
    assert g.coins(0) == L.START_COINS + sell("wheat")
    g.step(L.A_BUY + RES["wood"])
    assert g.coins(0) == L.START_COINS + sell("wheat") - buy("wood")
    g.step(L.A_APPLY)
    assert g.resources(0)[RES["coal"]] == 1 and g.current_player == 1
    with pytest.raises(IllegalActionError):
        g.step_player(0, L.A_SELL + RES["coal"])


def test_A4_7_applied_cards_stay_face_up_until_the_round_ends():
    """A4.7"""
    g = _three()
    choose(g, {0: "Sawmill", 1: "Farm", 2: "Farm"})
    for _ in range(3):
        g.step(L.A_APPLY)
    assert types_at(g, L.L_PLAYED + 0) == ["Sawmill"]
    assert g.observe(1)[L.O_PLAYERS + 2 * L.PLAYER_FEATURES + L.PF_PLAYED + TYPE["Sawmill"]] > 0


def test_A4_8_a_seat_without_cards_is_out_and_the_play_ends_when_all_are_out():
    """A4.8"""
    g = Scenario(2).hand(0, [TYPE["Sawmill"], TYPE["Farm"]]).hand(1, [TYPE["Farm"]]).build()
    choose(g, {0: "Sawmill", 1: "Farm"})
    g.step(L.A_APPLY)
    g.step(L.A_APPLY)
    assert g.pending_players() == (0,)
    g.step(play("Farm"))
    g.step(L.A_APPLY)
    assert g.decision == L.D_ROUND_END


def test_A9_6_what_cannot_be_applied():
    """A9.6: missing inputs, no Scouting / Theft / Reconstruction target; Fair always applies."""
    s = Scenario(2).hand(0, [TYPE["Laboratory"], TYPE["Scouting"], TYPE["Theft"], TYPE["Reconstruction"]])
    for card in ("Laboratory", "Scouting", "Theft", "Reconstruction"):
        g = s.hand(1, [TYPE["Fair"]]).build()
        choose(g, {0: card, 1: "Fair"})
        if g.current_player == 1:
            assert g.legal_mask()[L.A_APPLY] == 1  # Fair with nothing played
            g.step(L.A_APPLY)
        assert g.current_player == 0 and g.legal_mask()[L.A_APPLY] == 0, card
        s = Scenario(2).hand(0, [TYPE["Laboratory"], TYPE["Scouting"], TYPE["Theft"], TYPE["Reconstruction"]])


def test_A9_10_a_forced_choice_is_still_asked():
    """A9.10: a seat with one card is asked and has exactly one legal action."""
    g = Scenario(2).hand(0, [TYPE["Farm"]]).hand(1, [TYPE["Farm"], TYPE["Sawmill"]]).build()
    assert 0 in g.pending_players() and g.legal_actions(0) == [play("Farm")]


def test_A4_8_a_seat_out_of_the_play_can_be_scouted_and_stays_out():
    """A4.8, A6.1: seat 1 took its card back (out); seat 2 scouts it; it draws and stays out."""
    s = Scenario(3).hand(0, [TYPE["Farm"]] * 3).hand(1, [TYPE["Farm"], TYPE["Castle"]])
    g = s.hand(2, [TYPE["Scouting"], TYPE["Farm"]]).build()
    choose(g, {0: "Farm", 1: "Farm", 2: "Farm"})
    g.step(L.A_APPLY)
    g.step(L.A_TAKE_BACK)
    g.step(L.A_APPLY)
    assert g.pending_players() == (0, 2)
    choose(g, {0: "Farm", 2: "Scouting"})
    g.step(L.A_APPLY)
    g.step(L.A_SCOUT + 1)  # seat 1 is two seats to the left of seat 2
    assert len(g.hand(1)) == 2 and len(g.hand(2)) == 1
    g.step(L.A_APPLY)
    assert g.pending_players() == (0, 2)
