"""Random games with every invariant checked (A9.8), the invariant checker itself, and the bench function."""

from __future__ import annotations

import pytest

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import Game
from ohmygoods_env.artificium.fuzz import bench, bench_step, run_fuzz


def test_A9_8_random_games_keep_every_invariant_and_end_after_round_four():
    """A9.8: a thousand random games, 2-6 players."""
    r = run_fuzz(games=1000, num_players=0, seed=2026)
    assert r.code == 0, r
    assert r.games == 1000 and r.steps > 1000 * 20


@pytest.mark.parametrize("n", range(2, 7))
def test_A9_8_each_player_count(n):
    """A9.8"""
    r = run_fuzz(games=40, num_players=n, seed=n)
    assert r.code == 0 and r.games == 40


@pytest.mark.parametrize(
    ("field", "delta", "code"),
    [(L.F_COINS, -10, 3), (L.F_BANK, 1, 4), (L.F_DECK_N, 1, 2), (L.F_ROUND, 4, 5)],
)
def test_A9_8_check_invariants_finds_a_broken_row(field, delta, code):
    """A9.8: a corrupted row is reported with its code."""
    g = Game(3, seed=1)
    assert g.check_invariants() == 0
    g.state[field] += delta
    assert g.check_invariants() == code


def test_A9_8_a_card_in_no_valid_place_is_found():
    """A9.8: a hand card moved to a place code that does not exist."""
    g = Game(2, seed=5)
    g.state[L.F_LOC + g.hand(0)[0]] = L.N_LOC
    assert g.check_invariants() == 1


def test_A9_8_a_card_in_two_places_is_found():
    """A9.8: a card listed in the deck but lying in a hand."""
    g = Game(2, seed=5)
    top = int(g.state[L.F_DECK + g.state[L.F_DECK_N] - 1])
    g.state[L.F_LOC + top] = L.L_HAND
    assert g.check_invariants() == 2


def test_bench_reports_steps_per_second():
    row = bench(3, games=20)
    assert row["game"] == "artificium" and row["steps"] > 0 and row["steps_per_s"] > 0
    with pytest.raises(ValueError, match="num_players"):
        run_fuzz(1, num_players=1)


def test_bench_step_is_a_timer_loop_body():
    step = bench_step(4, games_per_call=3)
    a = step()
    b = step()
    assert a[2] == b[2] == 3 and a[0] > 0 and a != b  # new games each call
    with pytest.raises(ValueError):
        bench_step(7)
