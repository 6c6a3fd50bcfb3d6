"""The game interface (framework/game.py) on the example game: registry, step_joint, hidden information, records."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env.framework import game as fg
from ohmygoods_env.framework.game import (
    ForwardModel,
    GameOverError,
    IllegalActionError,
    InformationSet,
    game_names,
    game_spec,
    register_game,
)
from ohmygoods_env.goofspiel.game_spec import GOOFSPIEL, Goofspiel


def _snapshot(g: Goofspiel) -> tuple:
    return (list(g.deck), list(g.row), g.hands.tolist(), g.bids.tolist(), g.score.tolist(), g.round, g.phase)


def _to_bidding(g: Goofspiel) -> None:
    """Play the leader's pick (the first legal one) so the game is in a simultaneous bid."""
    g.step(int(np.flatnonzero(g.legal_mask())[0]))


def test_registry_names_specs_and_refuses_a_second_spec_under_a_name() -> None:
    assert {"goofspiel", "ohmygoods"} <= set(game_names())
    assert game_spec("goofspiel") is GOOFSPIEL
    assert register_game(GOOFSPIEL) is GOOFSPIEL  # the same spec again: a no-op
    other = fg.GameSpec(**{**GOOFSPIEL.__dict__, "title": "Another"})
    with pytest.raises(ValueError, match="registered already"):
        register_game(other)
    assert game_spec("goofspiel") is GOOFSPIEL
    with pytest.raises(ValueError, match="unknown game 'chess'.*goofspiel"):
        game_spec("chess")
    with pytest.raises(TypeError, match="GameSpec"):
        register_game("goofspiel")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [1, 7, 2.0, True, "3"])
def test_spec_checks_the_player_count(bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="num_players"):
        GOOFSPIEL.make(bad)  # type: ignore[arg-type]


def test_goofspiel_is_a_forward_model_and_its_sizes_match_the_spec() -> None:
    for n in range(2, 7):
        g = GOOFSPIEL.make(n, seed=n)
        assert isinstance(g, ForwardModel)
        assert g.num_actions == GOOFSPIEL.num_actions and g.obs_size == GOOFSPIEL.obs_size(n)
        assert g.observe(0).shape == (g.obs_size,) and g.observe(0).dtype == np.float32
        assert g.legal_mask().dtype == np.int8


def test_pick_is_one_seat_and_bidding_is_every_seat_at_once() -> None:
    g = Goofspiel(4, seed=3)
    assert g.pending_players() == (0,) and g.current_player == 0
    _to_bidding(g)
    assert g.pending_players() == (0, 1, 2, 3)
    assert all(g.legal_mask(p)[:3].tolist() == [1, 1, 1] for p in range(4))
    g.step(2)  # seat 0 bids face down through step: the others still choose
    assert g.pending_players() == (1, 2, 3) and g.current_player == 1
    assert not g.legal_mask(0).any()  # a seat that is not pending has nothing legal


def test_reveal_gives_the_prize_to_the_unique_highest_bid_and_discards_it_on_a_tie() -> None:
    g = Goofspiel(3, seed=5)
    g.step(3)  # leader picks row place 0
    prize = g.row[0]
    g.step_joint({0: 2, 1: 1, 2: 0})  # bids 3, 2, 1: seat 0 wins
    assert g.scores() == [prize, 0, 0]
    assert g.hands.tolist() == [[1, 1, 0], [1, 0, 1], [0, 1, 1]]
    g.step(g.num_cards + 1)  # seat 1 leads, picks row place 1
    g.step_joint({0: 1, 1: 0, 2: 1})  # bids 2, 1, 2: tied highest, nobody scores
    assert g.scores() == [prize, 0, 0]
    assert g.pending_players() == (2,)


def test_step_joint_checks_every_seat_before_applying_any() -> None:
    g = Goofspiel(3, seed=1)
    _to_bidding(g)
    before = _snapshot(g)
    cases = [
        ({0: 0, 1: 1}, ValueError, r"no action for players \[2\]"),
        ({0: 0, 1: 1, 2: 2, 5: 0}, ValueError, "player 5 is out of range"),
        ({0: 0, 1: 1, 2: "2"}, TypeError, r"action must be an int.*player 2"),
        ({0: 0, 1: 1, 2: 4}, IllegalActionError, "action 4 is illegal for player 2"),
        ({0: 0, 1: 9, 2: 2}, ValueError, "out of range"),
        ([0, 1, 2], TypeError, "mapping"),
    ]
    for actions, exc, words in cases:
        with pytest.raises(exc, match=words):
            g.step_joint(actions)  # type: ignore[arg-type]
        assert _snapshot(g) == before
    g.step(0)
    with pytest.raises(ValueError, match="player 0 has nothing to decide"):
        g.step_joint({0: 1, 1: 1, 2: 1})
    g.step_joint({1: 1, 2: 2})
    assert g.round == 1


def test_step_errors_leave_the_game_unchanged_and_step_after_the_end_is_refused() -> None:
    g = Goofspiel(2, seed=2)
    before = _snapshot(g)
    for bad, exc in [(0, IllegalActionError), (None, TypeError), (1.0, TypeError), (-1, ValueError), (5, ValueError)]:
        with pytest.raises(exc):
            g.step(bad)  # type: ignore[arg-type]
        assert _snapshot(g) == before
    rng = np.random.default_rng(0)
    while not g.done:
        g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    assert g.current_player == -1 and g.pending_players() == ()
    with pytest.raises(GameOverError, match="over"):
        g.step(0)
    with pytest.raises(GameOverError, match="over"):
        g.step_joint({})


def test_a_face_down_bid_is_hidden_from_every_other_seat() -> None:
    """Twins that differ only in seat 0's face-down bid look the same to every other seat."""
    for n in (2, 4, 6):
        a, b = Goofspiel(n, seed=11), Goofspiel(n, seed=11)
        _to_bidding(a), _to_bidding(b)
        a.step(0), b.step(2)
        for q in range(1, n):
            np.testing.assert_array_equal(a.observe(q), b.observe(q))
        assert not np.array_equal(a.observe(0), b.observe(0))  # the bidder sees its own bid


def test_the_deck_order_is_hidden_and_determinize_keeps_what_the_seat_saw() -> None:
    g = Goofspiel(3, seed=4, num_cards=5)
    _to_bidding(g)
    g.step(4)  # seat 0 bids 5 face down
    twin = g.clone()
    twin.deck = twin.deck[::-1]
    for q in range(3):
        np.testing.assert_array_equal(g.observe(q), twin.observe(q))
    decks, bids = set(), set()
    for s in range(40):
        w = g.determinize(1, seed=s)
        np.testing.assert_array_equal(w.observe(1), g.observe(1))
        assert w.pending_players() == g.pending_players() and sorted(w.deck) == sorted(g.deck)
        decks.add(tuple(w.deck))
        bids.add(int(w.bids[0]))
    assert len(decks) > 1 and len(bids) > 1  # both hidden things are re-drawn
    assert _snapshot(g.determinize(0, seed=3))[4] == _snapshot(g)[4]
    assert g.determinize(0, seed=3).bids[0] == 4  # a seat's own face-down bid is kept


def test_information_set_gives_worlds_and_the_seat_mask_only() -> None:
    g = Goofspiel(2, seed=9)
    info = InformationSet(g, 1)
    assert info.player == 1 and info.num_actions == g.num_actions
    np.testing.assert_array_equal(info.legal_mask(), g.legal_mask(1))
    assert isinstance(info.determinize(0), Goofspiel)
    with pytest.raises(TypeError, match="no array information state"):
        np.asarray(info)
    with pytest.raises(ValueError, match="out of range"):
        InformationSet(g, 2)


def test_clone_is_independent_and_a_record_replays_the_game() -> None:
    g = Goofspiel(3, seed=8, num_cards=4)
    c = g.clone()
    _to_bidding(c)
    assert g.phase == 0 and c.phase == 1
    rng = np.random.default_rng(1)
    while not g.done:
        g.step_joint({p: int(rng.choice(np.flatnonzero(g.legal_mask(p)))) for p in g.pending_players()})
    r = Goofspiel.replay(g.record())
    assert r.scores() == g.scores() and r.actions == g.actions and r.done
    np.testing.assert_array_equal(r.observe(2), g.observe(2))


def test_rewards_by_mode() -> None:
    g = Goofspiel(3, seed=0)
    assert not g.rewards().any()
    g.score[:] = [4, 4, 1]
    g.phase = 2  # the end, set by hand for the reward rule only
    assert g.rewards().tolist() == [1, 1, -1]
    assert g.rewards("score").tolist() == [4, 4, 1]
    assert g.rewards("margin").tolist() == [0, 0, -3]
    with pytest.raises(ValueError, match="reward mode"):
        g.rewards("best")
    g.score[:] = 2
    assert g.rewards().tolist() == [0, 0, 0]


def test_unseeded_games_differ_and_seeds_are_checked() -> None:
    assert len({tuple(Goofspiel(2, num_cards=8).deck) for _ in range(6)}) > 1
    with pytest.raises(ValueError, match="2\\*\\*64"):
        Goofspiel(2, seed=-1)
    with pytest.raises(ValueError, match="num_cards"):
        Goofspiel(2, num_cards=1)


def test_a_game_not_imported_yet_is_found_through_its_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    monkeypatch.delitem(fg._GAMES, "goofspiel")
    monkeypatch.delitem(fg._DECLARED, "goofspiel")  # the package root declares it: only the entry point is left
    eps = [
        metadata.EntryPoint("goofspiel", "ohmygoods_env.goofspiel.game_spec:GOOFSPIEL", fg.ENTRY_POINT_GROUP),
        metadata.EntryPoint("wrong", "ohmygoods_env.goofspiel.game_spec:GOOFSPIEL", fg.ENTRY_POINT_GROUP),
    ]
    monkeypatch.setattr(fg.metadata, "entry_points", lambda group: eps if group == fg.ENTRY_POINT_GROUP else [])
    assert game_spec("goofspiel") is GOOFSPIEL and "goofspiel" in game_names()
    with pytest.raises(ValueError, match="GameSpec called 'wrong'"):
        game_spec("wrong")
