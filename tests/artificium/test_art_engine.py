"""The forward model: bad input leaves the state unchanged, seeds, determinism, clone, record / replay,
step_joint, rewards, text view."""

from __future__ import annotations

import numpy as np
import pytest
from art_helpers import TYPE, play

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import Game, GameOverError, GameRecord, IllegalActionError, describe
from ohmygoods_env.artificium.render import render_text
from ohmygoods_env.artificium.scenario import Scenario, ScenarioError


def _random_game(n: int, seed: int, rng_seed: int = 0) -> Game:
    g = Game(n, seed=seed)
    rng = np.random.default_rng(rng_seed)
    while not g.done:
        p = int(rng.choice(g.pending_players()))
        g.step_player(p, int(rng.choice(g.legal_actions(p))))
    return g


@pytest.mark.parametrize(
    ("action", "error", "words"),
    [
        ("1", TypeError, "action must be an int"),
        (1.0, TypeError, "action must be an int"),
        (True, TypeError, "action must be an int"),
        (-1, ValueError, "out of range"),
        (L.N_ACTIONS, ValueError, "out of range"),
        (L.A_APPLY, IllegalActionError, "not legal"),
        (L.A_WAIT, IllegalActionError, "not legal"),
    ],
)
def test_bad_actions_raise_clearly_and_change_nothing(action, error, words):
    g = Game(3, seed=1)
    before = g.state.copy()
    with pytest.raises(error, match=words):
        g.step(action)
    assert np.array_equal(g.state, before) and g.moves == []


def test_a_seat_not_asked_is_refused_and_the_state_is_unchanged():
    g = Game(3, seed=2)
    other = (g.current_player + 1) % 3
    before = g.state.copy()
    with pytest.raises(IllegalActionError, match="not asked now"):
        g.step_player(other, L.A_MARKET_PASS)
    with pytest.raises(ValueError, match="player 7 is out of range"):
        g.step_player(7, L.A_MARKET_PASS)
    assert np.array_equal(g.state, before)
    assert g.legal_mask(other).sum() == 0


def test_step_after_the_end_raises_game_over():
    g = _random_game(2, 3)
    before = g.state.copy()
    with pytest.raises(GameOverError):
        g.step(L.A_MARKET_PASS)
    with pytest.raises(GameOverError):
        g.step_joint({0: L.A_MARKET_PASS})
    assert np.array_equal(g.state, before)


def test_step_joint_checks_every_action_before_applying_any():
    g = Scenario(3).hand(0, [TYPE["Farm"]]).hand(1, [TYPE["Farm"]]).hand(2, [TYPE["Farm"]]).build()
    before = g.state.copy()
    with pytest.raises(IllegalActionError):
        g.step_joint({0: play("Farm"), 1: play("Farm"), 2: play("Castle")})
    with pytest.raises(ValueError, match="exactly the pending seats"):
        g.step_joint({0: play("Farm"), 1: play("Farm")})
    with pytest.raises(TypeError):
        g.step_joint([(0, play("Farm"))])
    assert np.array_equal(g.state, before)
    g.step_joint({2: play("Farm"), 0: play("Farm"), 1: play("Farm")})
    assert g.decision == L.D_RESOLVE


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "3", object()])
def test_bad_seeds_are_refused(seed):
    with pytest.raises((TypeError, ValueError), match="seed"):
        Game(2, seed=seed)


def test_bad_player_counts_are_refused():
    for n, err in ((1, ValueError), (7, ValueError), ("2", TypeError)):
        with pytest.raises(err, match="num_players"):
            Game(n, seed=0)


def test_64_bit_seeds_and_determinism():
    for seed in (0, 1, 2**63, 2**64 - 1):
        a, b = Game(4, seed=seed), Game(4, seed=seed)
        assert np.array_equal(a.state, b.state)
    assert not np.array_equal(Game(4, seed=2**64 - 1).state, Game(4, seed=2**64 - 2).state)
    assert np.array_equal(_random_game(5, 9, 1).state, _random_game(5, 9, 1).state)


def test_record_and_replay_reproduce_the_game():
    g = _random_game(4, 12, 3)
    r = GameRecord.from_dict(g.record().to_dict())
    h = Game.replay(r)
    assert np.array_equal(g.state, h.state) and h.scores() == g.scores()
    with pytest.raises(ValueError, match="not an Artificium game record"):
        GameRecord.from_dict({"game": "ohmygoods"})


def test_clone_is_independent():
    g = Game(3, seed=4)
    c = g.clone()
    c.step(L.A_MARKET_PASS)
    assert g.moves == [] and not np.array_equal(g.state, c.state)


def test_rewards_modes_and_errors():
    g = _random_game(3, 21)
    s = g.scores()
    assert list(g.rewards("score")) == s
    assert list(g.rewards("margin")) == [s[p] - max(s[q] for q in range(3) if q != p) for p in range(3)]
    with pytest.raises(ValueError, match="reward mode"):
        g.rewards("best")
    assert Game(2, seed=0).rewards().tolist() == [0.0, 0.0]


def test_observation_shape_and_text_view():
    g = Game(6, seed=8)
    for p in range(6):
        o = g.observe(p)
        assert o.shape == (L.OBS_DIM,) and o.dtype == np.float32 and np.isfinite(o).all()
    text = render_text(g, 0)
    assert "Seat 0 (you)" in text and "Seat 1: " in text and "5 cards" in text
    with pytest.raises(TypeError):
        render_text("not a game")
    assert describe(L.A_APPLY) == "apply" and "Castle" in describe(L.A_PLAY + TYPE["Castle"])


def test_scenario_errors_name_the_problem():
    with pytest.raises(ScenarioError, match="no Castle card left"):
        Scenario(2).hand(0, [TYPE["Castle"]] * 7).build()
    with pytest.raises(ScenarioError, match="tokens"):
        Scenario(2).coins(0, 99).coins(1, 9).build()
    with pytest.raises(ScenarioError, match="player"):
        Scenario(2).hand(2, [0])


def test_the_package_facts_for_the_game_registry():
    import ohmygoods_env.artificium as art

    g = art.new_game(4, seed=3)
    assert g.num_players == 4 and g.num_actions == art.NUM_ACTIONS and art.obs_size(4) == g.observe(0).size
    assert (art.MIN_PLAYERS, art.MAX_PLAYERS, art.NAME) == (2, 6, "artificium")
    with pytest.raises(TypeError, match="unknown option"):
        art.new_game(2, seed=1, rules="royal")


def test_observations_stay_within_the_bounds():
    from ohmygoods_env.artificium.engine import obs_bounds

    low, high = obs_bounds()
    assert low.shape == high.shape == (L.OBS_DIM,) and (high > 0).all()
    for seed in range(5):
        g = Game(2 + seed, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.done:
            for p in range(g.num_players):
                o = g.observe(p)
                assert (o >= low).all() and (o <= high).all()
            p = int(rng.choice(g.pending_players()))
            g.step_player(p, int(rng.choice(g.legal_actions(p))))


def test_from_state_continues_and_refuses_a_broken_row():
    g = Game(3, seed=5)
    h = Game.from_state(g.state, seed=5)
    assert np.array_equal(h.state, g.state) and h.num_players == 3
    bad = g.state.copy()
    bad[L.F_BANK] += 1
    with pytest.raises(ValueError, match="check_invariants"):
        Game.from_state(bad)
    with pytest.raises(ValueError, match="shape"):
        Game.from_state(g.state[:10])


def test_bad_seats_in_queries_and_pickling():
    import pickle

    g = Game(2, seed=6)
    for bad, err in (("0", TypeError), (2, ValueError), (-1, ValueError), (True, TypeError)):
        with pytest.raises(err, match="player"):
            g.observe(bad)
        with pytest.raises(err, match="player"):
            g.legal_mask(bad)
        with pytest.raises(err, match="player"):
            render_text(g, bad)
    h = pickle.loads(pickle.dumps(g))
    assert np.array_equal(h.state, g.state) and h.seed == g.seed
