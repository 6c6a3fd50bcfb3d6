"""Setup (R2) and components in play (R1.3-R1.5)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import EXTRA_CARD, MILL, OFFICE_GRAIN, SAWMILL, C, Picker, goods_on, legal, step_all

from ohmygoods_env import layout as L
from ohmygoods_env.cards import B_COLOUR, B_RES, CHARBURNER_COLOUR, RESOURCES
from ohmygoods_env.engine import Game
from ohmygoods_env.scenario import Scenario

SEEDS = range(40)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_r2_1_each_player_gets_one_random_charburner_and_a_worker(n):
    """R2.1: one distinct Charburner (ids 94..97) per player in slot 0; the worker is not placed yet."""
    seen_by_p0 = set()
    for seed in SEEDS:
        g = Game(n, seed=seed)
        cbs = [g.buildings(p) for p in range(n)]
        assert all(len(b) == 1 and 94 <= b[0] <= 97 for b in cbs)
        assert len({b[0] for b in cbs}) == n
        assert not g.state[L.F_STAFF : L.F_STAFF + L.MAX_PLAYERS * L.MAX_SLOTS].any()
        seen_by_p0.add(cbs[0][0])
    assert seen_by_p0 == {94, 95, 96, 97}  # random


@pytest.mark.parametrize("n,shown", [(2, 4), (3, 6), (4, 8)])
def test_r2_2_assistants_on_display(n, shown):
    """R2.2: 2/3/4 players -> 4/6/8 random assistant cards, random side up; the rest leave."""
    sides, cards_seen = set(), set()
    for seed in SEEDS:
        g = Game(n, seed=seed)
        owner = g.state[L.F_A_OWNER : L.F_A_OWNER + L.N_ASSIST]
        assert (owner[:shown] == -1).all() and (owner[shown:] == -2).all()
        cards = g.state[L.F_A_CARD : L.F_A_CARD + shown]
        assert len(set(cards.tolist())) == shown
        sides.update(g.state[L.F_A_SIDE : L.F_A_SIDE + shown].tolist())
        cards_seen.update(cards.tolist())
    assert sides == {0, 1} and cards_seen == set(range(8))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_r2_3_five_cards_in_hand_and_seven_coal(n):
    """R2.3: shuffled deck; 5 hand cards and 7 coal on the Charburner per player."""
    for seed in range(10):
        g = Game(n, seed=seed)
        assert g.decision == L.D_PHASE1  # nothing else happened yet (omg2)
        for p in range(n):
            assert len(g.hand(p)) == 5 and g.goods(p) == [7] and g.coins(p) == 7
        assert int(g.state[L.F_DECK_N]) == 94 - 12 * n
        assert g.check_invariants() == 0
    orders = {tuple(Game(n, seed=s).state[L.F_DECK : L.F_DECK + 94 - 12 * n]) for s in range(5)}
    assert len(orders) == 5


@pytest.mark.parametrize("n", [2, 3, 4])
def test_r2_4_random_first_player_decides_first(n):
    """R2.4: a random player is the first active player; phase I starts with them."""
    firsts = set()
    for seed in SEEDS:
        g = Game(n, seed=seed)
        first = int(g.state[L.F_FIRST])
        assert g.current_player == first
        firsts.add(first)
    assert firsts == set(range(n))


def test_r1_3_card_in_exactly_one_place_and_good_value_from_building():
    """R1.3: a card is a resource, a building or a good; a good is worth its building's value."""
    g = Game(3, seed=5)
    loc = g.state[L.F_LOC : L.F_LOC + L.N_CARDS]
    assert ((loc >= 0) & (loc < L.N_LOC)).all()
    assert g.check_invariants() == 0
    pk = Picker()
    g = Scenario(2).buildings(0, [SAWMILL, MILL]).goods(0, [1, 2, 3]).hand(0, pk.take("grain", 2)).build("phase2")
    # coal 1, lumber 2, flour 2 whatever cards lie face down there
    assert g.coins(0) == 1 * 1 + 2 * 2 + 3 * 2


def test_r1_4_grey_buildings_cannot_be_staffed_or_produce():
    """R1.4: Market Offices and the Extra-card building have no production and take nobody."""
    g = Scenario(2, auto_forced=False).buildings(0, [OFFICE_GRAIN, EXTRA_CARD]).build("phase2")
    assert g.decision == L.D_WORKER and legal(g) == {L.A_WORKER, L.A_WORKER + 1}  # Charburner only
    with pytest.raises(ValueError, match="not a production building"):
        Scenario(2).buildings(0, [OFFICE_GRAIN]).worker(0, 1).build("phase4")


def test_r1_5_building_colour_is_its_resource_charburners_have_their_own():
    """R1.5: colour = resource printed on the card; Charburners have their own colour."""
    deck = C[:94]
    assert (deck[:, B_COLOUR] == deck[:, B_RES]).all()
    assert (C[94:, B_COLOUR] == CHARBURNER_COLOUR).all() and (C[94:, B_RES] == -1).all()
    assert CHARBURNER_COLOUR == len(RESOURCES)


def test_r1_5_charburner_colour_counts_for_hiring():
    """R1.5/R7.12: an assistant requiring a Charburner needs the Charburner's own colour."""
    g = (
        Scenario(2, auto_forced=False, cards=None)
        .buildings(0, [SAWMILL, MILL])
        .goods(0, [0, 0, 2])
        .display([(0, "A")])  # needs charburner + grain + wood
        .build("build", player=0)
    )
    assert L.A_HIRE in legal(g)
    step_all(g, L.A_HIRE, L.A_PAY + 2, L.A_PAY + 2)
    assert goods_on(g, 0, 2) == 0 and int(g.state[L.F_A_OWNER]) == 0


def test_r2_setup_is_a_permutation_of_all_cards():
    """R2.3/R1.1: after setup each of the 94 deck cards lies in exactly one place."""
    for n in (2, 3, 4):
        g = Game(n, seed=11)
        loc = g.state[L.F_LOC : L.F_LOC + L.N_CARDS]
        counts = np.bincount(loc, minlength=L.N_LOC)
        assert counts[L.L_DECK] == int(g.state[L.F_DECK_N])
        assert sum(counts[L.L_HAND + p] for p in range(n)) == 5 * n
        assert sum(counts[L.L_GOODS + p * L.MAX_SLOTS] for p in range(n)) == 7 * n
        assert counts.sum() == 94
