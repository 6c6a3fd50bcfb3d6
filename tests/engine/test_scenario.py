"""The scenario builder: exact placement, consistency, start points and clear errors."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from engine_helpers import BRICK, CB_WOOL, EXTRA_CARD, MILL, OFFICE_GRAIN, SAWMILL, TAILOR_7, Picker, deck_order, loc

from ohmygoods_env import layout as L
from ohmygoods_env.scenario import START_POINTS, Scenario, ScenarioError


def test_every_card_in_exactly_one_place_and_exact_placement():
    pk = Picker()
    hand0, hand1 = pk.take("grain", 3), pk.take("clay", 2)
    row1, row2 = pk.row(suns=2, wool=3), pk.row(suns=1, stone=2)
    pile, top = pk.take("wood", 2), pk.take("wood", 3)
    g = (
        Scenario(2, seed=4, auto_forced=False)
        .buildings(0, [MILL, SAWMILL], charburner=CB_WOOL)
        .buildings(1, [BRICK])
        .goods(0, [2, 3, 0])
        .goods(1, {1: 4})
        .hand(0, hand0)
        .hand(1, hand1)
        .set_aside(1, TAILOR_7)
        .worker(0, 1, "sloppy")
        .assistant(1, 0, display=2)
        .market(row1=row1, row2=row2)
        .discard(pile)
        .deck_top(top)
        .first_player(1)
        .round(3)
        .build("phase4", player=1)
    )
    s = g.state
    assert g.check_invariants() == 0
    assert g.buildings(0) == [94 + CB_WOOL, MILL, SAWMILL] and g.buildings(1)[1:] == [BRICK]
    assert g.goods(0) == [2, 3, 0] and g.goods(1) == [0, 4]
    assert g.hand(0) == hand0 and g.hand(1) == hand1
    assert loc(g, TAILOR_7) == L.L_ASIDE + 1 and int(s[L.F_ASIDE + 1]) == TAILOR_7
    assert int(s[L.F_STAFF + 1]) == L.STAFF_SLOPPY
    assert int(s[L.F_STAFF + L.MAX_SLOTS]) == L.STAFF_ASSISTANT and int(s[L.F_A_OWNER + 2]) == 1
    assert g.market().tolist() == [[0, 0, 0, 3, 0], [0, 0, 0, 0, 2]]
    assert [int(x) for x in s[L.F_SUNS : L.F_SUNS + 2]] == [2, 1]
    assert deck_order(g)[:3] == top
    assert {c for c in range(94) if loc(g, c) == L.L_DISCARD} == set(pile)
    assert g.round == 3 and int(s[L.F_FIRST]) == 1 and g.current_player == 1
    counts = np.bincount(s[L.F_LOC : L.F_LOC + 94], minlength=L.N_LOC)
    assert counts.sum() == 94 and counts[L.L_DECK] == int(s[L.F_DECK_N])


def test_rest_order_is_seeded():
    a = Scenario(2, seed=1).build("phase2")
    b = Scenario(2, seed=1).build("phase2")
    c = Scenario(2, seed=2).build("phase2")
    assert a.state.tobytes() == b.state.tobytes()
    assert deck_order(a) != deck_order(c)


@pytest.mark.parametrize("at", START_POINTS)
def test_start_points(at):
    pk = Picker()
    sc = Scenario(3, auto_forced=False).hand(0, pk.take("grain", 2)).hand(1, pk.take("clay", 1))
    if at in ("phase2", "sunset"):
        sc.market(row1=pk.row(suns=2, wool=2))
    if at in ("phase4", "build"):
        sc.market(row1=pk.row(suns=2, wool=2), row2=pk.row(suns=2, stone=2))
    g = sc.build(at)
    assert g.check_invariants() == 0
    expected = {
        "phase1": (L.PH_P1_ASK, L.D_PHASE1, 0),
        "sunrise": (L.PH_P2, L.D_WORKER, 0),
        "phase2": (L.PH_P2, L.D_WORKER, 0),
        "sunset": (L.PH_P4, L.D_PRODUCE, 0),
        "phase4": (L.PH_P4, L.D_PRODUCE, 0),
        "build": (L.PH_P4, L.D_PRODUCE, 1),  # nothing to build or hire: player 1 produces next
    }[at]
    assert (g.phase, g.decision, g.current_player) == expected
    if at == "sunrise":
        assert int(g.state[L.F_SUNS]) == 2
    if at == "sunset":
        assert int(g.state[L.F_SUNS + 1]) == 2


def test_auto_forced_applies_forced_moves_at_the_start_point():
    g = Scenario(2).build("phase4")  # nothing staffed: 'done' is forced for both players
    assert g.round == 1 and g.phase != L.PH_P4


def test_charburner_defaults_avoid_explicit_ones():
    g = Scenario(3).charburner(2, 0).build("phase2")
    assert [g.buildings(p)[0] for p in range(3)] == [95, 96, 94]


def test_eight_buildings_set_the_end_trigger():
    g = Scenario(2).buildings(0, [0, 1, 2, 3, 4, 5, 6]).build("phase2")
    assert int(g.state[L.F_TRIGGER]) == 1


@pytest.mark.parametrize(
    "make,pattern",
    [
        (lambda s: s.hand(0, [5]).hand(1, [5]), r"card 5 \(Iron Smelter\) is used twice: hand of player 0 and hand of"),
        (lambda s: s.hand(0, [MILL]).buildings(1, [MILL]), "is used twice"),
        (lambda s: s.market(row1=[3]).discard([3]), "used twice: market row 1 and discard pile"),
        (lambda s: s.hand(0, [94]), r"card id 94 is out of range; expected 0\.\.93"),
        (lambda s: s.hand(0, [1.0]), "card ids must be ints"),
        (lambda s: s.hand(0, "12"), "expected a list of card ids"),
        (lambda s: s.hand(2, [1]), r"player must be in 0\.\.1, got 2"),
        (lambda s: s.charburner(0, 1).charburner(1, 1), r"Charburners must differ"),
        (lambda s: s.charburner(0, 4), r"charburner index must be in 0\.\.3"),
        (lambda s: s.buildings(0, list(range(9))), "at most 9 fit"),
        (lambda s: s.goods(0, [1, 2]), "goods on slot 1, but the player has 1 buildings"),
        (lambda s: s.buildings(0, [OFFICE_GRAIN]).goods(0, [0, 1]), "which produces none"),
        (lambda s: s.worker(0, 3), "worker on slot 3, but the player has 1 buildings"),
        (lambda s: s.worker(0, 0, "lazy"), "worker mode must be one of"),
        (lambda s: s.buildings(0, [EXTRA_CARD]).worker(0, 1), "not a production building"),
        (lambda s: s.assistant(0, 0, 1).worker(0, 0), "one person per building"),
        (lambda s: s.assistant(0, 0, 6), "only 4 are in play"),
        (lambda s: s.buildings(0, [MILL]).assistant(0, 0, 1).assistant(0, 1, 1), "owned twice"),
        (lambda s: s.display([(0, "A"), (0, "B")]), "assistant card used twice"),
        (lambda s: s.display([(0, "C")]), "assistant side"),
        (lambda s: s.market(row1=[1, 2, 6]), "shows 3 half-suns"),
        (lambda s: s.hand(0, [0]).goods(0, [94]), "needs 94 goods cards but only 93"),
        (lambda s: s.goods(0, [95]), r"count must be in 0\.\.94, got 95"),
        (lambda s: s.rest_to("hand"), "rest_to must be 'deck' or 'discard'"),
        (lambda s: s.round(3, final=True, triggered=False), "requires the end to be triggered"),
    ],
)
def test_inconsistent_scenarios_raise_clear_errors(make, pattern):
    with pytest.raises(ScenarioError, match=pattern):
        make(Scenario(2)).build("phase4")


@pytest.mark.parametrize(
    "make,at,pattern",
    [
        (lambda s: s.market(row1=[1]), "phase1", "the market is empty"),
        (lambda s: s.market(row2=[1]), "phase2", "row 2 is not revealed yet"),
        (lambda s: s.worker(0, 0), "phase2", "worker is not placed yet"),
        (lambda s: s.set_aside(0, 3), "sunrise", "no set-aside card yet"),
        (lambda s: s.worker(0, 0), "build", "worker has left after production"),
        (lambda s: s.first_player(1).worker(1, 0), "phase4", "already had their phase-IV turn"),
        (lambda s: s, "phase9", "unknown start point 'phase9'"),
    ],
)
def test_start_point_consistency(make, at, pattern):
    with pytest.raises(ScenarioError, match=pattern):
        make(Scenario(2)).build(at, player=0 if at in ("phase4", "build") else None)


def test_module_example_runs():
    from ohmygoods_env import scenario

    assert doctest.testmod(scenario).failed == 0


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)
