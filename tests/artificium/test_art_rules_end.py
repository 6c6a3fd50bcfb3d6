"""The end of a round and of the game (A5.1, A5.2, A8.1-A8.3)."""

from __future__ import annotations

from art_helpers import RES, TYPE, choose, sell, types_at

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.scenario import Scenario


def _one_step_round(round_: int = 1, **kw):
    s = Scenario(2).round(round_).hand(0, [TYPE["Sawmill"], TYPE["Castle"]]).hand(1, [TYPE["Farm"]])
    for p, v in kw.items():
        s.vp(int(p[1:]), v)
    g = s.build()
    choose(g, {0: "Sawmill", 1: "Farm"})
    g.step(L.A_APPLY)
    g.step(L.A_APPLY)
    assert g.pending_players() == (0,)  # seat 1 has no card left (A4.8)
    g.step(L.A_PLAY + TYPE["Castle"])
    g.step(L.A_TAKE_BACK)
    return g


def test_A5_1_played_cards_are_discarded_at_the_end_of_the_round():
    """A5.1"""
    g = _one_step_round()
    assert g.decision == L.D_ROUND_END
    assert types_at(g, L.L_DISCARD) == ["Farm", "Sawmill"] and g.cards_at(L.L_PLAYED) == []


def test_A5_2_players_may_sell_and_discard_then_the_next_round_starts():
    """A5.2: selling and discarding are offered, buying is not; then round 2 starts with a market."""
    g = _one_step_round()
    assert g.current_player == 0
    mask = g.legal_mask()
    assert mask[L.A_SELL + RES["wood"]] == 1 and mask[L.A_BUY : L.A_BUY + 9].sum() == 0
    assert mask[L.A_END_DISCARD + TYPE["Castle"]] == 1
    g.step(L.A_SELL + RES["wood"])
    assert g.coins(0) == L.START_COINS + sell("wood")
    g.step(L.A_END_DISCARD + TYPE["Castle"])
    g.step(L.A_END_DONE)
    assert g.current_player == 1
    g.step(L.A_END_DONE)
    assert g.round == 2 and g.decision == L.D_MARKET
    assert len(g.hand(0)) == L.HAND_TARGET and len(g.cards_at(L.L_MARKET)) == L.MARKET_SIZE


def test_A8_1_the_game_ends_after_the_card_play_of_round_four():
    """A8.1: no round-end step in round 4."""
    g = _one_step_round(round_=4)
    assert g.done and g.current_player == -1 and g.pending_players() == ()


def test_A8_2_final_score_sells_everything_and_counts_four_coins_a_point():
    """A8.2"""
    s = Scenario(2).round(4).hand(0, [TYPE["Farm"]]).hand(1, [TYPE["Farm"]]).coins(0, 6)
    g = s.resources(0, {"sword": 1, "coal": 2}).vp(0, 10).build()
    choose(g, {0: "Farm", 1: "Farm"})
    g.step(L.A_DISCARD_CARD)
    g.step(L.A_DISCARD_CARD)
    assert g.done
    money = 6 + sell("sword") + 2 * sell("coal")
    assert g.scores()[0] == 10 + money // L.VP_PER_COINS


def test_A8_3_the_highest_score_wins_and_ties_share():
    """A8.3"""
    g = _one_step_round(round_=4, p0=7, p1=3)
    s = g.scores()
    assert g.winners() == [p for p in range(2) if s[p] == max(s)]
    assert list(g.rewards("win")) == [1.0 if p in g.winners() else -1.0 for p in range(2)]
    g2 = Scenario(2).round(4).hand(0, [TYPE["Farm"]]).hand(1, [TYPE["Farm"]]).build()
    choose(g2, {0: "Farm", 1: "Farm"})
    g2.step(L.A_APPLY)
    g2.step(L.A_APPLY)
    assert g2.winners() == [0, 1] and list(g2.rewards("win")) == [0.0, 0.0]
    assert list(g2.rewards("score")) == g2.scores()
