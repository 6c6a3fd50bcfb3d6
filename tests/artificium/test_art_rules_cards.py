"""Scoring, the score track, action cards, Mage and Knight (A5.3, A5.4, A6.1-A6.4, A7.1-A7.4,
A9.4, A9.5, A9.7)."""

from __future__ import annotations

from art_helpers import RES, TABLES, TYPE, choose, hand_names, tier, types_at, vp_of

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.cards import B_TIER, N_RES, RESOURCES, T_COUNT, T_IN0, T_IN1, T_OUT, T_OUT_N
from ohmygoods_env.artificium.scenario import Scenario


def _cells() -> list[tuple[int, int]]:
    return [(int(c), int(TABLES.track[c])) for c in range(len(TABLES.track)) if TABLES.track[c] >= 0]


def gains(old: int, new: int) -> list[int]:
    """Resources the track table gives for a move from ``old`` to ``new`` (A5.4)."""
    out = [0] * N_RES
    for c, r in _cells():
        if old < c <= new:
            out[r] += 1
    return out


def test_A5_3_a_building_scores_its_points_at_once_and_a_discarded_one_nothing():
    """A5.3"""
    g = Scenario(2).hand(0, [TYPE["Sawmill"]]).hand(1, [TYPE["Farm"]]).build()
    choose(g, {0: "Sawmill", 1: "Farm"})
    g.step(L.A_APPLY)
    g.step(L.A_DISCARD_CARD)
    assert g.vp(0) == vp_of("Sawmill") and g.vp(1) == 0


def test_A5_4_reaching_or_passing_a_track_cell_gives_its_resource():
    """A5.4: stopping on the first cell, and passing one with the Laboratory's points."""
    cell, res = _cells()[0]
    g = Scenario(2).vp(0, cell - vp_of("Farm")).hand(0, [TYPE["Farm"]]).hand(1, [TYPE["Farm"]]).build()
    choose(g, {0: "Farm", 1: "Farm"})
    g.step(L.A_APPLY)
    assert gains(cell - vp_of("Farm"), cell)[res] == 1
    assert g.resources(0)[res] == (2 if RESOURCES[res] == "wheat" else 0) + 1
    lab = {"coal": 1, "crystal": 1}
    g = Scenario(2).vp(0, cell - 1).resources(0, lab).hand(0, [TYPE["Laboratory"]]).hand(1, [TYPE["Farm"]]).build()
    choose(g, {0: "Laboratory", 1: "Farm"})
    g.step(L.A_APPLY)
    assert g.vp(0) == cell - 1 + vp_of("Laboratory") and g.resources(0)[res] >= 1


def test_A6_1_scouting_takes_a_random_hand_card_and_the_victim_draws():
    """A6.1"""
    s = Scenario(2).hand(0, [TYPE["Scouting"]]).hand(1, [TYPE["Castle"], TYPE["Castle"], TYPE["Farm"]])
    g = s.deck_top([TYPE["Mage tower"]]).build()
    choose(g, {0: "Scouting", 1: "Farm"})
    g.step(L.A_APPLY)
    assert g.decision == L.D_SCOUT and g.legal_actions() == [L.A_SCOUT]
    g.step(L.A_SCOUT)
    assert hand_names(g, 0) == ["Castle"] and hand_names(g, 1) == ["Castle", "Mage tower"]
    assert types_at(g, L.L_PLAYED + 0) == ["Scouting"]


def test_A6_2_theft_pays_the_tier_and_moves_one_resource():
    """A6.2: tier I for 1 coin, tier II for 2; higher tiers cannot be stolen."""
    by_tier = {t: [r for r in RESOURCES if tier(r) == t] for t in (1, 2, 3)}
    low, mid, high = by_tier[1][0], by_tier[2][0], by_tier[3][0]
    s = Scenario(2).hand(0, [TYPE["Theft"]]).hand(1, [TYPE["Farm"]]).resources(1, {low: 1, mid: 1, high: 1})
    g = s.build()
    choose(g, {0: "Theft", 1: "Farm"})
    g.step(L.A_APPLY)
    legal = g.legal_actions()
    assert legal == sorted(L.A_THEFT + RES[r] for r in (low, mid))
    bank = g.bank()
    g.step(L.A_THEFT + RES[mid])
    assert g.coins(0) == L.START_COINS - tier(mid) and g.bank() == bank + tier(mid)
    assert g.resources(0)[RES[mid]] == 1 and g.resources(1)[RES[mid]] == 0
    assert int(TABLES.board[RES[high], B_TIER]) > L.THEFT_MAX_TIER


def test_A6_3_reconstruction_returns_a_played_card_to_hand():
    """A6.3"""
    g = Scenario(2).played(0, [TYPE["Sawmill"]]).hand(0, [TYPE["Reconstruction"]]).hand(1, [TYPE["Farm"]]).build()
    choose(g, {0: "Reconstruction", 1: "Farm"})
    g.step(L.A_APPLY)
    assert g.legal_actions() == [L.A_RECON + TYPE["Sawmill"]]
    g.step(L.A_RECON + TYPE["Sawmill"])
    assert hand_names(g, 0) == ["Sawmill"] and types_at(g, L.L_PLAYED + 0) == ["Reconstruction"]


def test_A9_7_reconstruction_cannot_return_a_reconstruction():
    """A9.7"""
    s = Scenario(2).played(0, [TYPE["Reconstruction"], TYPE["Farm"]]).hand(0, [TYPE["Reconstruction"]])
    g = s.hand(1, [TYPE["Farm"]]).build()
    choose(g, {0: "Reconstruction", 1: "Farm"})
    g.step(L.A_APPLY)
    assert g.legal_actions() == [L.A_RECON + TYPE["Farm"]]


def test_A6_4_fair_pays_two_coins_per_other_card_played():
    """A6.4"""
    played = [TYPE["Sawmill"], TYPE["Farm"], TYPE["Scouting"]]
    g = Scenario(2).played(0, played).hand(0, [TYPE["Fair"]]).hand(1, [TYPE["Farm"]]).build()
    choose(g, {0: "Fair", 1: "Farm"})
    g.step(L.A_APPLY)
    assert g.coins(0) == L.START_COINS + 2 * len(played)


def test_A7_1_A7_2_every_producing_building_converts_per_the_table():
    """A7.1, A7.2: inputs leave, outputs arrive, as cards.csv says."""
    for t in range(4, 14):
        row = TABLES.types[t]
        ins = {RESOURCES[row[k]]: 1 for k in (T_IN0, T_IN1) if row[k] >= 0}
        g = Scenario(2).resources(0, ins).hand(0, [t]).hand(1, [TYPE["Farm"]]).build()
        choose(g, {0: TABLES.names[t], 1: "Farm"})
        g.step(L.A_APPLY)
        want = gains(0, int(TABLES.types[t, 2]))
        want[row[T_OUT]] += int(row[T_OUT_N])
        assert g.resources(0) == want, TABLES.names[t]
        assert int(row[T_COUNT]) in (6, 8)


def _mage(deck_short: bool = False):
    s = Scenario(2).resources(0, {"kvass": 1, "potion": 1}).hand(0, [TYPE["Mage tower"]]).hand(1, [TYPE["Farm"]])
    if deck_short:  # all but two other cards are in seat 1's hand
        rest = [t for t in range(16) for _ in range(int(TABLES.types[t, T_COUNT]))]
        rest.remove(TYPE["Mage tower"])
        rest.remove(TYPE["Farm"])
        s.hand(1, rest[:-2])
    g = s.build()
    choose(g, {0: "Mage tower", 1: "Farm"})
    g.step(L.A_APPLY)
    return g


def test_A7_3_the_mage_scores_eight_draws_five_and_discards_three():
    """A7.3"""
    g = _mage()
    assert g.vp(0) == vp_of("Mage tower") and g.coins(0) == L.START_COINS - 1
    assert g.decision == L.D_MAGE and len(g.hand(0)) == L.MAGE_DRAW
    for _ in range(L.MAGE_DISCARD):
        g.step(g.legal_actions()[0])
    assert len(g.hand(0)) == L.MAGE_DRAW - L.MAGE_DISCARD and g.current_player == 1


def test_A9_5_the_mage_with_a_short_deck_draws_what_is_left():
    """A9.5: two cards left in deck and discard: draw both, discard both."""
    g = _mage(deck_short=True)
    assert len(g.hand(0)) == 2 and g.state[L.F_MAGE_LEFT] == 2
    g.step(g.legal_actions()[0])
    g.step(g.legal_actions()[0])
    assert g.hand(0) == [] and g.current_player == 1


def _castle(vp1: int):
    s = Scenario(2).resources(0, {"kvass": 1, "sword": 1}).hand(0, [TYPE["Castle"]]).hand(1, [TYPE["Farm"]])
    g = s.vp(1, vp1).build()
    choose(g, {0: "Castle", 1: "Farm"})
    g.step(L.A_APPLY)
    return g


def test_A7_4_the_knight_moves_a_marker_four_back_not_below_zero():
    """A7.4"""
    g = _castle(10)
    assert g.vp(0) == vp_of("Castle") and g.decision == L.D_KNIGHT
    g.step(L.A_KNIGHT + 1)
    assert g.vp(1) == 10 - L.KNIGHT_STEPS
    g = _castle(2)
    g.step(L.A_KNIGHT + 1)
    assert g.vp(1) == 0


def test_A9_4_knight_on_oneself_and_cells_given_again_after_moving_back():
    """A9.4: the owner may be the target; moving back takes nothing; passing a cell again gives it again."""
    cell = next(c for c, _ in _cells() if c >= vp_of("Castle"))
    start = cell - vp_of("Castle")
    have = {"kvass": 1, "sword": 1, "coal": 1, "crystal": 1}
    s = Scenario(2).resources(0, have).hand(0, [TYPE["Castle"], TYPE["Laboratory"]])
    g = s.vp(0, start).hand(1, [TYPE["Farm"], TYPE["Farm"]]).build()
    choose(g, {0: "Castle", 1: "Farm"})
    g.step(L.A_APPLY)
    after_castle = g.resources(0)
    assert g.legal_mask()[L.A_KNIGHT] == 1
    g.step(L.A_KNIGHT)
    back = cell - L.KNIGHT_STEPS
    assert g.vp(0) == back and g.resources(0) == after_castle
    g.step(L.A_APPLY)  # seat 1's Farm
    choose(g, {0: "Laboratory", 1: "Farm"})
    g.step(L.A_APPLY)
    want = list(after_castle)
    want[RES["coal"]] -= 1
    want[RES["crystal"]] -= 1
    want[RES["potion"]] += 1
    for r, n in enumerate(gains(back, back + vp_of("Laboratory"))):
        want[r] += n
    assert g.resources(0) == want and gains(back, back + vp_of("Laboratory"))[int(TABLES.track[cell])] >= 1


def test_A5_3_A7_4_the_rulebook_example_from_sawmill_to_the_knight():
    """A5.3, A7.1, A7.4: the rulebook's example round, step by step, with exact outcomes from the tables.

    Seat 0 plays Sawmill, Mill-bakery, Kvass yard, Armoury (holding 2 wheat, 1 coal, 1 metal before),
    then the Castle: 1 + 2 + 2 + 5 + 8 points, and the Knight sends seat 1 four cells back.
    """
    chain = ["Sawmill", "Mill-bakery", "Kvass yard", "Armoury", "Castle"]
    s = Scenario(2).hand(0, [TYPE[c] for c in chain]).hand(1, [TYPE["Farm"]] * 5).vp(1, 30)
    g = s.resources(0, {"wheat": 2, "coal": 1, "metal": 1}).build()
    for card in chain:
        choose(g, {0: card, 1: "Farm"})
        g.step(L.A_APPLY)  # seat 0 first (first player), then the Knight target if any
        if g.decision == L.D_KNIGHT:
            g.step(L.A_KNIGHT + 1)
        g.step(L.A_APPLY)  # seat 1's Farm
    points = sum(vp_of(c) for c in chain)
    assert points == 1 + 2 + 2 + 5 + 8
    assert g.vp(0) == points
    want = gains(0, points)
    for r, n in {"wood": 2, "food": 1}.items():
        want[RES[r]] += n
    assert g.resources(0) == want and g.coins(0) == L.START_COINS - 1
    farm = vp_of("Farm")
    assert g.vp(1) == 30 + 5 * farm - L.KNIGHT_STEPS
