"""Bad input: every wrong call raises a clear exception and leaves the game state byte-identical."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game, GameOverError, IllegalActionError
from ohmygoods_env.rules import RuleSet


@pytest.fixture
def game() -> Game:
    g = Game(3, seed=12)
    for _ in range(7):
        g.step(g.legal_actions()[-1])
    return g


def _unchanged(g: Game, call, exc, *patterns: str) -> None:
    before = g.state.tobytes()
    actions = list(g.actions)
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    for pat in patterns:
        assert pat in msg, f"{pat!r} not in {msg!r}"
    assert g.state.tobytes() == before and g.actions == actions


def test_illegal_action_is_refused_with_decision_and_legal_list(game):
    """An in-range action the mask forbids: IllegalActionError naming action, decision, legal ids."""
    illegal = int(np.flatnonzero(game.legal_mask() == 0)[0])
    _unchanged(
        game,
        lambda: game.step(illegal),
        IllegalActionError,
        f"action {illegal}",
        f"'{game.decision_name}'",
        "legal actions:",
        f"player {game.current_player}",
    )
    assert isinstance(IllegalActionError("x"), ValueError)


@pytest.mark.parametrize("action", [-1, L.N_ACTIONS, 10**9, np.int64(-5)])
def test_out_of_range_action(game, action):
    """Out-of-range ids: ValueError naming the id and the expected range."""
    _unchanged(game, lambda: game.step(action), ValueError, "out of range", f"[0, {L.N_ACTIONS - 1}]")


@pytest.mark.parametrize("action", [1.0, np.float32(2), "3", b"3", True, np.bool_(False), None, [1], (2,)])
def test_wrongly_typed_action(game, action):
    """Floats, strings, bools, None, lists: TypeError naming the type and what is expected."""
    _unchanged(game, lambda: game.step(action), TypeError, "action must be an int", type(action).__name__)


def test_numpy_integers_are_accepted(game):
    """np.int32/np.int64 and 0-d integer arrays are ordinary action ids."""
    a = game.legal_actions()[0]
    g1, g2, g3 = game.clone(), game.clone(), game.clone()
    g1.step(np.int32(a))
    g2.step(np.array(a, dtype=np.int64))
    g3.step(a)
    assert g1.state.tobytes() == g2.state.tobytes() == g3.state.tobytes()


def test_step_after_the_end():
    """After the end every step raises GameOverError; the state stays as it is."""
    g = Game(2, seed=3, max_rounds=1)
    while not g.done:
        g.step(g.legal_actions()[0])
    assert g.legal_actions() == [] and not g.legal_mask().any()
    _unchanged(g, lambda: g.step(0), GameOverError, "game is over")
    _unchanged(g, lambda: g.step(L.A_PRODUCTION_DONE), GameOverError, "game is over")


@pytest.mark.parametrize("n,exc", [(1, ValueError), (5, ValueError), (0, ValueError), (-2, ValueError)])
def test_bad_player_count(n, exc):
    """Player counts outside 2..4: ValueError naming the value and 2, 3 or 4."""
    with pytest.raises(exc, match=rf"num_players must be 2, 3 or 4 .*got {n}"):
        Game(n)


@pytest.mark.parametrize("n", ["2", 2.0, True, None])
def test_wrongly_typed_player_count(n):
    """A string, float, bool or None as player count: TypeError naming the value."""
    with pytest.raises(TypeError, match=r"num_players must be an int in 2\.\.4, got"):
        Game(n)


@pytest.mark.parametrize("rules", ["deluxe", "OMG2", "", "royal goods"])
def test_unknown_rule_set(rules):
    """Unknown rule-set names: ValueError naming the name and the known ones."""
    with pytest.raises(ValueError, match=r"rules must be one of \['omg2', 'royal'\], got"):
        Game(2, rules=rules)


@pytest.mark.parametrize("rules", [None, 3, ["omg2"]])
def test_wrongly_typed_rule_set(rules):
    with pytest.raises(TypeError, match="rules must be a name in"):
        Game(2, rules=rules)


@pytest.mark.parametrize(
    "kw,pattern",
    [
        ({"max_rounds": 0}, "max_rounds must be a positive int"),
        ({"max_rounds": 2.5}, "max_rounds must be a positive int"),
        ({"auto_forced": 1}, "auto_forced must be a bool"),
        ({"seed": 1.5}, "seed must be an int"),
        ({"seed": "7"}, "seed must be an int"),
    ],
)
def test_bad_options(kw, pattern):
    with pytest.raises((TypeError, ValueError), match=pattern):
        Game(2, **kw)


@pytest.mark.parametrize("player,exc", [(-1, ValueError), (3, ValueError), ("0", TypeError), (1.0, TypeError)])
def test_bad_player_index_in_queries(game, player, exc):
    """observe/hand/buildings/coins with a bad seat: clear error, state unchanged."""
    bad = 3 if player == 3 else player
    for call in (game.observe, game.hand, game.buildings, game.goods, game.coins):
        _unchanged(game, lambda call=call: call(bad), exc, "player")


def test_bad_reward_mode(game):
    _unchanged(game, lambda: game.rewards("points"), ValueError, "reward mode must be one of")


def test_ruleset_validation_messages():
    with pytest.raises(ValueError, match="got 7"):
        RuleSet(num_players=7)
    with pytest.raises(ValueError, match="'classic'"):
        RuleSet(edition="classic")


def test_numpy_ints_accepted_for_game_parameters():
    """#9.6: numpy integers are accepted wherever ints are."""
    g = Game(num_players=np.int64(3), seed=np.int64(5), max_rounds=np.int32(40))
    assert g.rules.num_players == 3 and type(g.rules.num_players) is int and g.rules.max_rounds == 40
    assert np.array_equal(g.state, Game(3, seed=5, max_rounds=40).state)
