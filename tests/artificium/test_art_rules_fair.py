"""The Fair (A6.4): 2 coins from the bank for every card its player applied this round, itself not counted.

The seed's card text (``/work/shared/seeds/001``, "Ярмарка"): "at once take from the bank 2 coins for
every card you played this round, not counting this Fair". Played means applied and lying face up
(A4.7): a discarded card (A4.5) or one taken back by a Reconstruction (A6.3) does not count, nor do
another seat's cards; the bank pays what it holds (A1.6, shared supply).
"""

from __future__ import annotations

from art_helpers import TYPE, choose, types_at

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.scenario import Scenario


def _fair(played: list[str], other_played: list[str] = ()):
    """Seat 0 lays a Fair with ``played`` already face up in front of it; seat 1 a Farm."""
    s = Scenario(2).played(0, [TYPE[n] for n in played]).played(1, [TYPE[n] for n in other_played])
    g = s.hand(0, [TYPE["Fair"]]).hand(1, [TYPE["Farm"]]).build()
    choose(g, {0: "Fair", 1: "Farm"})
    assert g.current_player == 0 and g.decision == L.D_RESOLVE  # the action card resolves first (A4.3)
    return g


def test_A6_4_a_fair_alone_gives_nothing_and_still_applies() -> None:
    """A6.4, A9.6: with no other card applied the Fair gives 0 coins, yet it can be applied; it then lies played."""
    g = _fair([])
    assert g.legal_mask()[L.A_APPLY] == 1
    bank = g.bank()
    g.step(L.A_APPLY)
    assert g.coins(0) == L.START_COINS and g.bank() == bank
    assert types_at(g, L.L_PLAYED + 0) == ["Fair"]


def test_A6_4_only_the_seat_s_own_applied_cards_count() -> None:
    """A6.4: seat 1's three applied cards give seat 0 nothing; seat 0's one card gives 2."""
    g = _fair(["Sawmill"], other_played=["Farm", "Sawmill", "Scouting"])
    bank = g.bank()
    g.step(L.A_APPLY)
    assert g.coins(0) == L.START_COINS + 2 and g.bank() == bank - 2
    assert g.coins(1) == L.START_COINS


def test_A6_4_an_earlier_fair_counts_this_one_does_not() -> None:
    """A6.4: a Fair applied earlier this round is a played card (2 coins); the Fair resolving is not counted."""
    g = _fair(["Fair", "Farm"])
    g.step(L.A_APPLY)
    assert g.coins(0) == L.START_COINS + 2 * 2
    assert types_at(g, L.L_PLAYED + 0) == ["Fair", "Fair", "Farm"]


def test_A6_4_a_discarded_card_does_not_count() -> None:
    """A4.5, A6.4: a card discarded instead of applied is not played; the Fair of a later step counts only
    the applied Farm."""
    s = Scenario(2).hand(0, [TYPE["Sawmill"], TYPE["Farm"], TYPE["Fair"]])
    g = s.hand(1, [TYPE["Farm"], TYPE["Farm"], TYPE["Farm"]]).build()
    choose(g, {0: "Sawmill", 1: "Farm"})
    assert g.current_player == 0
    g.step(L.A_DISCARD_CARD)  # seat 0 discards its Sawmill and stays in
    g.step(L.A_APPLY)  # seat 1's Farm
    choose(g, {0: "Farm", 1: "Farm"})
    g.step(L.A_APPLY)
    g.step(L.A_APPLY)
    choose(g, {0: "Fair", 1: "Farm"})
    assert g.current_player == 0 and types_at(g, L.L_PLAYED + 0) == ["Farm"]
    coins = g.coins(0)
    g.step(L.A_APPLY)
    assert g.coins(0) == coins + 2


def test_A6_4_a_card_taken_back_by_a_reconstruction_does_not_count() -> None:
    """A6.3, A6.4: the Farm taken back to hand no longer lies played; the Reconstruction itself does."""
    s = Scenario(2).played(0, [TYPE["Farm"], TYPE["Sawmill"]]).hand(0, [TYPE["Reconstruction"], TYPE["Fair"]])
    g = s.hand(1, [TYPE["Farm"], TYPE["Farm"]]).build()
    choose(g, {0: "Reconstruction", 1: "Farm"})
    g.step(L.A_APPLY)
    g.step(L.A_RECON + TYPE["Farm"])
    g.step(L.A_APPLY)  # seat 1's Farm
    choose(g, {0: "Fair", 1: "Farm"})
    assert types_at(g, L.L_PLAYED + 0) == ["Reconstruction", "Sawmill"]
    coins = g.coins(0)
    g.step(L.A_APPLY)
    assert g.coins(0) == coins + 2 * 2


def test_A6_4_the_bank_pays_what_it_holds() -> None:
    """A1.6 (shared supply): 3 cards due 6 coins, the bank holds 3: the Fair gives 3 and the tokens stay 100."""
    played = [TYPE["Farm"], TYPE["Sawmill"], TYPE["Scouting"]]
    s = Scenario(2).coins(0, 5).coins(1, 92).played(0, played).hand(0, [TYPE["Fair"]])
    g = s.hand(1, [TYPE["Farm"]]).build()
    assert g.bank() == 3
    choose(g, {0: "Fair", 1: "Farm"})
    g.step(L.A_APPLY)
    assert g.coins(0) == 5 + 3 and g.bank() == 0
    assert g.check_invariants() == 0
