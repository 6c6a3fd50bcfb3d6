"""Text rendering (spectator and seated views, hidden information) and the ``ohmygoods demo`` command."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game
from ohmygoods_env.render import final_scores_text, render_text


def _player_block(text: str, p: int) -> str:
    for block in text.split("\n\n"):
        if block.startswith(f"Player {p}"):
            return block
    raise AssertionError(f"no block for player {p}")


def _advance(game: Game, rng: np.random.Generator, stop) -> bool:
    while not game.done:
        if stop(game):
            return True
        game.step(int(rng.choice(game.legal_actions())))
    return False


# ---------------------------------------------------------------------------- render


def test_render_at_the_start_shows_market_players_and_assistants() -> None:
    g = Game(3, "omg2", seed=1)
    text = render_text(g)
    assert text.startswith("=== Oh my Goods! (omg2, 3 players) — spectator view")
    assert "Round 1, phase" in text and f"Decision: {g.decision_name}" in text
    assert f"player {g.current_player} to act" in text
    for p in range(3):
        block = _player_block(text, p)
        assert "Charburner" in block and "coal" in block
        assert re.search(r"goods worth 7 coins", block)  # R2.3: 7 coal, 1 coin each
        assert f"Hand of player {p} (5 cards)" in text  # R2.3: 5 hand cards
    assert text.count("position ") == 6  # R2.2: 6 assistants on display with 3 players
    assert "row 1" in text and "row 2" in text and "half-suns" in text


def test_render_market_counts_match_the_state() -> None:
    g = Game(2, seed=4)
    assert _advance(g, np.random.default_rng(4), lambda x: x.phase == L.PH_P4)
    text = render_text(g)
    market = g.market()
    for row in range(2):
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(f"row {row + 1}"))
        nums = [int(x) for x in line.split()[2:]]
        assert nums[:5] == market[row].tolist()
        assert nums[5] == int(g.state[L.F_SUNS + row]) == 2  # R5.1, R6.1: two half-suns per row


def test_seated_view_hides_opponents_hands_and_set_aside_cards() -> None:
    g = Game(2, seed=6)
    rng = np.random.default_rng(6)
    assert _advance(g, rng, lambda x: x.phase == L.PH_P4 and any(int(x.state[L.F_ASIDE + p]) >= 0 for p in (0, 1)))
    for viewer in (0, 1):
        other = 1 - viewer
        text = render_text(g, viewer=viewer)
        assert f"view of player {viewer}" in text and "spectator" not in text
        assert f"Your hand ({len(g.hand(viewer))} cards)" in text
        for c in g.hand(viewer):
            assert f"(card {c})" in text
        for c in g.hand(other):
            assert f"(card {c})" not in text
        aside = int(g.state[L.F_ASIDE + other])
        if aside >= 0:
            assert f"(card {aside})" not in text
            assert "set aside to build: a hidden card" in _player_block(text, other)
        assert f"hand {len(g.hand(other))} cards" in _player_block(text, other)
    spectator = render_text(g)
    for p in (0, 1):
        for c in g.hand(p):
            assert f"(card {c})" in spectator


def test_seated_view_hides_phase_two_choices_until_the_reveal() -> None:
    """R5.2: during phase II an opponent's worker placement is not shown to the others."""
    found = 0
    for seed in range(20):
        g = Game(3, seed=seed)
        rng = np.random.default_rng(seed)

        def placed(x: Game) -> bool:
            if x.phase != L.PH_P2:
                return False
            staff = x.state[L.F_STAFF : L.F_STAFF + L.MAX_PLAYERS * L.MAX_SLOTS]
            return bool(np.isin(staff, (L.STAFF_EFFICIENT, L.STAFF_SLOPPY)).any())

        if not _advance(g, rng, placed):
            continue
        staff = g.state[L.F_STAFF : L.F_STAFF + L.MAX_PLAYERS * L.MAX_SLOTS].reshape(L.MAX_PLAYERS, L.MAX_SLOTS)
        p = int(np.flatnonzero(np.isin(staff, (L.STAFF_EFFICIENT, L.STAFF_SLOPPY)).any(axis=1))[0])
        assert "worker (" in _player_block(render_text(g), p)
        assert "worker (" in _player_block(render_text(g, viewer=p), p)
        for viewer in range(3):
            if viewer != p:
                assert "worker (" not in _player_block(render_text(g, viewer=viewer), p)
        found += 1
        if found == 3:
            break
    assert found == 3


def test_render_pending_payment_and_final_scores() -> None:
    g = Game(2, seed=2, auto_forced=False)
    rng = np.random.default_rng(2)
    assert _advance(g, rng, lambda x: x.decision == L.D_PAY)
    due = int(g.state[L.F_PAY_DUE])
    coins = f"{due} coin{'' if due == 1 else 's'}"
    assert f"to pay: {coins} for" in render_text(g)
    assert f"to pay: {coins} for" in render_text(g, viewer=g.current_player)
    assert "to pay" not in render_text(g, viewer=1 - g.current_player)
    assert not _advance(g, rng, lambda x: False)
    before = g.state.copy()
    text = render_text(g)
    assert np.array_equal(before, g.state)  # rendering never changes the state
    assert text.splitlines()[1].startswith(f"Game over after {g.round} rounds")
    assert final_scores_text(g) in text
    for p, (vp, left) in enumerate(g.scores()):
        assert f"player {p}: {vp} VP, {left} coin{'' if left == 1 else 's'} left over" in text
    winners = g.winners()
    assert text.count("<- winner") == len(winners)


def test_render_text_checks_the_viewer() -> None:
    g = Game(2, seed=0)
    with pytest.raises(ValueError, match="viewer"):
        render_text(g, viewer=2)
    with pytest.raises(TypeError, match="viewer"):
        render_text(g, viewer="0")


def test_seated_view_hides_an_opponents_phase_two_payment() -> None:
    """R5.2, R5.3: paying for an assistant move is a phase-II choice, not shown to the others."""
    for seed in range(300):
        g = Game(2, seed=seed)
        if _advance(g, np.random.default_rng(seed), lambda x: x.phase == L.PH_P2 and x.decision == L.D_PAY):
            break
    else:
        pytest.skip("no phase-II payment in the sampled games")
    p = g.current_player
    assert "Decision: pay" in render_text(g) and "Decision: pay" in render_text(g, viewer=p)
    other = render_text(g, viewer=1 - p)
    assert "Decision: pay" not in other and "hidden until the reveal" in other
    assert "to pay" not in other
    snap = int(g.state[L.F_SNAP_GOODS + p * L.MAX_SLOTS])
    assert _player_block(other, p).count("Charburner") == 1
    assert re.search(rf"Charburner\s.*coal\s+{snap}\s", _player_block(other, p))  # goods as at the start of phase II
