"""The card market (A3.1-A3.5, A9.9)."""

from __future__ import annotations

from art_helpers import TABLES, TYPE, hand_names, swap, types_at

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import Game, IllegalActionError
from ohmygoods_env.artificium.scenario import Scenario

MARKET = ["Farm", "Castle", "Fair", "Theft", "Laboratory", "Armoury"]


def _market(n: int = 3, first: int = 0, **coins: int) -> Game:
    s = Scenario(n).first_player(first).market([TYPE[m] for m in MARKET])
    for p in range(n):
        s.hand(p, [TYPE["Sawmill"], TYPE["Kvass yard"]])
    for p, c in coins.items():
        s.coins(int(p[1:]), c)
    return s.build(at="market")


def test_A3_1_six_cards_face_up():
    """A3.1: six market cards, visible to every seat."""
    g = Game(4, seed=9)
    assert len(g.cards_at(L.L_MARKET)) == L.MARKET_SIZE
    for p in range(4):
        assert g.observe(p)[L.O_MARKET : L.O_MARKET + 16].sum() * 3.0 == L.MARKET_SIZE


def test_A3_2_turns_go_clockwise_from_the_first_player_and_a_pass_is_final():
    """A3.2"""
    g = _market(3, first=1)
    assert g.current_player == 1
    g.step(L.A_MARKET_PASS)
    assert g.current_player == 2
    g.step(swap("Sawmill", "Farm"))
    assert g.current_player == 0
    g.step(L.A_MARKET_PASS)
    assert g.current_player == 2  # seat 1 passed: never asked again this round
    g.step(L.A_MARKET_PASS)
    assert g.decision == L.D_CHOOSE


def test_A3_2_the_card_given_goes_to_the_market_and_types_must_differ():
    """A3.2 decision: a swap exchanges two different types; the given card can be taken by the next seat."""
    g = _market(3)
    assert g.legal_mask()[swap("Sawmill", "Sawmill")] == 0
    g.step(swap("Kvass yard", "Castle"))
    assert "Kvass yard" in types_at(g, L.L_MARKET) and "Castle" in hand_names(g, 0)
    assert g.legal_mask(1)[swap("Sawmill", "Kvass yard")] == 1


def test_A3_3_first_swap_free_then_two_coins():
    """A3.3"""
    g = _market(2)
    g.step(swap("Sawmill", "Farm"))
    assert g.coins(0) == L.START_COINS
    g.step(swap("Sawmill", "Fair"))  # seat 1's free swap
    g.step(swap("Kvass yard", "Theft"))
    assert g.coins(0) == L.START_COINS - L.SWAP_COST
    assert g.bank() == L.TOKENS - 2 * L.START_COINS + L.SWAP_COST


def test_A3_3_no_paid_swap_without_two_coins():
    """A3.3"""
    g = _market(2, p0=1)
    g.step(swap("Sawmill", "Farm"))
    g.step(L.A_MARKET_PASS)
    mask = g.legal_mask(0)
    assert mask[L.A_SWAP : L.A_SWAP + 256].sum() == 0 and mask[L.A_MARKET_PASS] == 1


def test_A3_4_redraw_discards_the_hand_and_draws_five_instead_of_the_free_swap():
    """A3.4"""
    top = ["Castle", "Castle", "Mage tower", "Farm", "Farm"]
    s = Scenario(2).market([TYPE[m] for m in MARKET]).hand(0, [TYPE["Sawmill"]] * 3).hand(1, [TYPE["Farm"]])
    g = s.deck_top([TYPE[t] for t in top]).build(at="market")
    g.step(L.A_REDRAW)
    assert hand_names(g, 0) == sorted(top)
    assert types_at(g, L.L_DISCARD) == ["Sawmill"] * 3
    g.step(L.A_MARKET_PASS)
    assert g.legal_mask(0)[L.A_REDRAW] == 0  # once per round
    g.step(swap("Castle", "Fair"))
    assert g.coins(0) == L.START_COINS - L.SWAP_COST  # the free swap was used by the redraw


def test_A3_4_no_redraw_after_a_swap():
    """A3.4"""
    g = _market(2)
    assert g.legal_mask()[L.A_REDRAW] == 1
    g.step(swap("Sawmill", "Farm"))
    g.step(L.A_MARKET_PASS)
    assert g.legal_mask(0)[L.A_REDRAW] == 0
    before = g.state.copy()
    try:
        g.step(L.A_REDRAW)
    except IllegalActionError:
        pass
    assert (g.state == before).all()


def test_A3_5_the_market_is_discarded_when_all_have_passed():
    """A3.5"""
    g = _market(2)
    g.step(L.A_MARKET_PASS)
    g.step(L.A_MARKET_PASS)
    assert g.cards_at(L.L_MARKET) == [] and types_at(g, L.L_DISCARD) == sorted(MARKET)


def test_A9_9_actions_name_types_and_move_the_lowest_card_of_the_type():
    """A9.9"""
    g = _market(2)
    farms = [c for c in g.cards_at(L.L_MARKET) if TABLES.card_type[c] == TYPE["Farm"]]
    g.step(swap("Sawmill", "Farm"))
    assert min(farms) in g.hand(0)
