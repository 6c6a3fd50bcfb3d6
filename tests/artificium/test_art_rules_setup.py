"""Components, tokens and the start of a round (A1.4, A1.6, A1.7, A2.1-A2.5)."""

from __future__ import annotations

import numpy as np
from art_helpers import RES, TABLES, TYPE, sell

from ohmygoods_env.artificium import core
from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import Game
from ohmygoods_env.artificium.scenario import Scenario


def _tokens(g: Game) -> int:
    return g.bank() + sum(g.coins(p) + sum(g.resources(p)) for p in range(g.num_players))


def test_A1_4_every_player_starts_with_five_coins_and_score_zero():
    """A1.4"""
    for n in range(L.MIN_PLAYERS, L.MAX_PLAYERS + 1):
        g = Game(n, seed=n)
        assert [g.coins(p) for p in range(n)] == [L.START_COINS] * n
        assert [g.vp(p) for p in range(n)] == [0] * n
        assert g.bank() == L.TOKENS - n * L.START_COINS


def test_A1_6_tokens_are_conserved_through_a_game():
    """A1.6: bank + coins + resources stays 100."""
    g = Game(4, seed=11)
    rng = np.random.default_rng(0)
    while not g.done:
        p = int(rng.choice(g.pending_players()))
        g.step_player(p, int(rng.choice(g.legal_actions(p))))
        assert _tokens(g) == L.TOKENS


def test_A1_6_a_gain_takes_what_the_bank_holds():
    """A1.6 decision: Sawmill with an empty bank makes nothing; the token count stays 100."""
    g = Scenario(2).coins(0, 90).coins(1, 10).hand(0, [TYPE["Sawmill"]]).hand(1, [TYPE["Farm"]]).build()
    assert g.bank() == 0
    g.step_joint({0: L.A_PLAY + TYPE["Sawmill"], 1: L.A_PLAY + TYPE["Farm"]})
    g.step(L.A_APPLY)
    assert g.resources(0)[RES["wood"]] == 0 and _tokens(g) == L.TOKENS


def test_A1_6_a_sale_needs_the_bank_to_cover_its_extra_coins():
    """A1.6 decision: selling for s coins takes s - 1 from the bank; not legal when the bank is short."""
    dear = max(RES, key=sell)
    assert sell(dear) >= 2
    s = Scenario(2).coins(0, 94).coins(1, 5).resources(0, {dear: 1}).hand(0, [TYPE["Fair"]]).hand(1, [TYPE["Farm"]])
    g = s.build()
    g.step_joint({0: L.A_PLAY + TYPE["Fair"], 1: L.A_PLAY + TYPE["Farm"]})
    assert g.bank() == 0
    assert g.legal_mask(0)[L.A_SELL + RES[dear]] == 0
    g2 = Scenario(2).coins(0, 80).resources(0, {dear: 1}).hand(0, [TYPE["Fair"]]).hand(1, [TYPE["Farm"]]).build()
    g2.step_joint({0: L.A_PLAY + TYPE["Fair"], 1: L.A_PLAY + TYPE["Farm"]})
    bank = g2.bank()
    g2.step(L.A_SELL + RES[dear])
    assert g2.coins(0) == 80 + sell(dear) and g2.bank() == bank - (sell(dear) - 1)


def test_A1_7_an_empty_deck_is_refilled_from_the_discard_pile():
    """A1.7: drawing from an empty deck reshuffles the discard pile; with both empty nothing is drawn."""
    g = Game(2, seed=3)
    s = g.state
    for i in range(int(s[L.F_DECK_N])):
        s[L.F_LOC + s[L.F_DECK + i]] = L.L_DISCARD
    n = int(s[L.F_DECK_N])
    s[L.F_DECK_N] = 0
    assert core.draw_to(s, 0) >= 0
    assert s[L.F_DECK_N] == n - 1 and len(g.cards_at(L.L_DISCARD)) == 0
    assert g.check_invariants() == 0
    for c in g.cards_at(L.L_DECK):
        s[L.F_LOC + c] = L.L_HAND + 1
    s[L.F_DECK_N] = 0
    assert core.draw_to(s, 0) == -1


def test_A2_1_every_card_is_in_one_place_after_the_deal():
    """A2.1: the 108 cards, shuffled together, each in exactly one place; the deck differs by seed."""
    a, b = Game(3, seed=1), Game(3, seed=2)
    locs = a.state[L.F_LOC : L.F_LOC + 108]
    assert len(locs) == sum(int(x) for x in TABLES.types[:, 1]) and a.check_invariants() == 0
    assert a.full_state_view()["deck_top_last"] != b.full_state_view()["deck_top_last"]


def test_A2_2_round_one_deals_five_cards_each_and_opens_the_market():
    """A2.2"""
    for n in range(2, 7):
        g = Game(n, seed=40 + n)
        assert [len(g.hand(p)) for p in range(n)] == [L.HAND_TARGET] * n
        assert len(g.cards_at(L.L_MARKET)) == L.MARKET_SIZE
        assert g.decision == L.D_MARKET and g.round == 1


def test_A2_3_later_rounds_draw_up_to_five_and_keep_more():
    """A2.3: a hand of 2 is filled to 5; a hand of 7 (after a Mage) is kept whole."""
    g = Scenario(2).hand(0, [TYPE["Farm"]] * 2).hand(1, [TYPE["Sawmill"]] * 7).build(at="market")
    core._start_round(g.state)
    assert g.round == 2
    assert len(g.hand(0)) == L.HAND_TARGET and len(g.hand(1)) == 7


def test_A2_4_first_player_random_in_round_one():
    """A2.4: every seat is first in some seed."""
    firsts = {Game(3, seed=s).first_player for s in range(40)}
    assert firsts == {0, 1, 2}


def test_A2_4_fewest_points_then_nearest_clockwise_from_the_last_first_player():
    """A2.4 and its decision: the previous first player is at distance 0."""
    g = Scenario(4).vp(0, 5).vp(1, 3).vp(2, 7).vp(3, 3).first_player(2).build(at="market")
    assert core._next_first(g.state) == 3
    g = Scenario(4).vp(0, 5).vp(1, 3).vp(2, 3).vp(3, 3).first_player(2).build(at="market")
    assert core._next_first(g.state) == 2
    g = Scenario(4).vp(0, 1).vp(1, 3).vp(2, 3).vp(3, 3).first_player(2).build(at="market")
    assert core._next_first(g.state) == 0


def test_A2_5_a_game_has_four_rounds():
    """A2.5: a game goes through rounds 1..4 and ends in round 4."""
    g = Game(3, seed=5)
    rng = np.random.default_rng(5)
    seen = set()
    while not g.done:
        seen.add(g.round)
        p = int(rng.choice(g.pending_players()))
        g.step_player(p, int(rng.choice(g.legal_actions(p))))
    assert seen == set(range(1, L.ROUNDS + 1)) and g.round == L.ROUNDS
