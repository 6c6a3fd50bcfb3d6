"""Solo play (R10.3): one player, base rules, 2 assistants on display, a score attack over a
fixed number of rounds (R10.4) that an 8th building ends early (R8.1)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import MILL, SAWMILL, passive_action, play_passively, step_all

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.engine import Game, GameRecord
from ohmygoods_env.rules import DEFAULT_SOLO_ROUNDS, RuleSet
from ohmygoods_env.scenario import Scenario


@pytest.mark.parametrize("rules", ["omg2", "royal"])
def test_r10_3_solo_setup_two_assistants_one_charburner(rules):
    for seed in range(5):
        g = Game(1, rules, seed=seed)
        s = g.state
        owners = s[L.F_A_OWNER : L.F_A_OWNER + L.N_ASSIST]
        assert (owners == -1).sum() == 2 and (owners == -2).sum() == L.N_ASSIST - 2  # R10.3
        assert g.num_players == 1 and g.buildings(0)[0] >= L.N_CARDS  # a Charburner (R2.1)
        assert s[L.F_NB + 1] == 0 and s[L.F_FIRST] == 0
        assert g.check_invariants() == 0
        obs = g.observe(0)
        assert obs[L.O_NP] == 1 and obs[L.O_NP + 1 : L.O_NP + L.MAX_PLAYERS].sum() == 0


@pytest.mark.parametrize("rules", ["omg2", "royal"])
def test_r10_3_r8_1_solo_games_end_and_reward_the_score(rules):
    """Random solo games end (by R8.1 or the solo round count); every reward mode gives the score."""
    rng = np.random.default_rng(1)
    for seed in range(12):
        g = Game(1, rules, seed=seed)
        while not g.done:
            g.step(int(rng.choice(g.legal_actions())))
            assert g.current_player in (0, -1)
        score, _ = g.scores()[0]
        for mode in ("win", "score", "margin"):
            assert g.rewards(mode).tolist() == [float(score)]
        assert g.winners() == [0]
        # R8.1 (8 buildings, then one more round: at most 9) or the solo round count (R10.4)
        assert len(g.buildings(0)) >= 8 or g.round == g.rules.solo_rounds == DEFAULT_SOLO_ROUNDS


def test_r10_3_solo_batch_matches_game_and_penalty_has_no_opponent():
    b = BatchGames(4, num_players=1, seed=2, reward_mode="win")
    rng = make_rng(4, 3)
    games = [b.game(i) for i in range(4)]
    total = np.zeros(4, np.float32)
    while not b.done.all():
        acts = random_actions(b.masks(), rng)
        for i, g in enumerate(games):
            if not g.done:
                g.step(int(acts[i]))
        r, _, _ = b.step(acts)
        total += r[:, 0]
    for i, g in enumerate(games):
        assert g.state.tobytes() == b.state[i].tobytes()
        assert total[i] == g.scores()[0][0]  # the score, whatever the reward mode
    p = BatchGames(1, num_players=1, seed=0, illegal="penalty", penalty=-2.0)
    r, t, _ = p.step(np.array([L.A_WAIT]))
    assert t[0] and r[0, 0] == -2.0


def _rounds_left(g: Game, seat: int = 0) -> int:
    return int(round(float(g.observe(seat)[L.O_ROUNDS_LEFT]) * L.SC_ROUNDS_LEFT))


def _play_recording_rounds_left(g: Game) -> dict[int, int]:
    """Play do-nothing moves to the end; the rounds left seen at the start of each round."""
    seen: dict[int, int] = {}
    while not g.done:
        seen.setdefault(g.round, _rounds_left(g))
        g.step(passive_action(g))
    return seen


def test_r10_4_solo_lasts_solo_rounds_and_the_player_sees_the_rounds_left():
    """R10.4: a solo game that never reaches 8 buildings ends after ``solo_rounds`` rounds (default
    12, not the 60-round cap), scored by R8.3; the observation counts the rounds down."""
    assert RuleSet(1).solo_rounds == DEFAULT_SOLO_ROUNDS == 12 and RuleSet(1).round_limit == 12
    g = Game(1, seed=4, auto_forced=False)
    seen = _play_recording_rounds_left(g)
    assert g.done and g.round == 12 and int(g.state[L.F_TRIGGER]) == 0
    assert seen == {r: 12 - r for r in range(12)}  # 12 in the first round, 1 in the last
    assert _rounds_left(g) == 0
    assert g.rewards("score").tolist() == [float(g.scores()[0][0])]


@pytest.mark.parametrize(("solo_rounds", "max_rounds", "played"), [(5, 60, 5), (20, 60, 20), (30, 7, 7)])
def test_r10_4_solo_round_count_is_a_rule_and_max_rounds_still_caps_it(solo_rounds, max_rounds, played):
    g = Game(1, seed=2, auto_forced=False, solo_rounds=solo_rounds, max_rounds=max_rounds)
    assert g.rules.round_limit == played
    seen = _play_recording_rounds_left(g)
    assert g.round == played and seen[0] == played and seen[played - 1] == 1


def test_r10_4_r8_1_eighth_building_still_ends_solo_early():
    """R8.1 in solo: the 8th building (round 5 of 12) finishes the round, one more is played,
    and the game ends after 7 rounds; the rounds left drop from 7 to 1."""
    g = (
        Scenario(1, auto_forced=False)
        .buildings(0, [SAWMILL, SAWMILL + 1, 2, 3, 4, MILL])
        .goods(0, {6: 5})
        .set_aside(0, MILL + 1)  # cost 3
        .round(5)
        .build("build", player=0)
    )
    assert g.rules.round_limit == 12 and _rounds_left(g) == 7
    step_all(g, L.A_BUILD, L.A_PAY + 6, L.A_PAY + 6)  # two flour (2 each) for cost 3
    assert len(g.buildings(0)) == 8 and int(g.state[L.F_TRIGGER]) == 1 and not g.done
    assert g.round == 6 and int(g.state[L.F_FINAL]) == 1 and _rounds_left(g) == 1  # one more round (R8.1)
    play_passively(g)
    assert g.done and g.round == 7 and _rounds_left(g) == 0


def test_r10_4_solo_rounds_is_ignored_with_opponents_and_the_cap_counts_down():
    """With 2-4 players the game ends by R8.1 or the R8.4 cap, whatever ``solo_rounds`` says; the
    rounds left count down to that cap."""
    g = Game(2, seed=3, auto_forced=False, max_rounds=4, solo_rounds=2)
    assert g.rules.round_limit == 4
    seen = _play_recording_rounds_left(g)
    assert g.round == 4 and seen == {0: 4, 1: 3, 2: 2, 3: 1}
    for n in (2, 3, 4):
        fresh = Game(n, seed=n)
        assert {_rounds_left(fresh, p) for p in range(n)} == {60}  # the default cap, every seat
    g = (  # R8.1 triggered by player 0 in round 5: this round and one more, for every seat
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL, SAWMILL + 1, 2, 3, 4, MILL])
        .goods(0, {6: 5})
        .set_aside(0, MILL + 1)
        .round(5)
        .build("build", player=0)
    )
    assert _rounds_left(g, 0) == _rounds_left(g, 1) == 55
    step_all(g, L.A_BUILD, L.A_PAY + 6, L.A_PAY + 6)
    assert g.round == 5 and g.current_player == 1 and _rounds_left(g, 0) == _rounds_left(g, 1) == 2
    play_passively(g, until=lambda x: x.round == 6)
    assert _rounds_left(g, 0) == _rounds_left(g, 1) == 1


@pytest.mark.parametrize(
    "bad, error", [(0, ValueError), (-3, ValueError), (2**31, ValueError), (2.5, TypeError), ("12", TypeError),
                   (True, TypeError), (None, TypeError)]
)  # fmt: skip
def test_r10_4_bad_solo_rounds_are_refused(bad, error):
    """A value of the wrong type is a TypeError, an int out of 1..2**31-1 a ValueError (as max_rounds)."""
    with pytest.raises(error, match="solo_rounds must be a positive int"):
        RuleSet(1, solo_rounds=bad)


def test_r10_4_solo_rounds_travel_with_the_game_record():
    g = Game(1, seed=6, solo_rounds=3)
    rng = np.random.default_rng(0)
    while not g.done:
        g.step(int(rng.choice(g.legal_actions())))
    d = g.record().to_dict()
    assert d["solo_rounds"] == 3
    again = Game.replay(GameRecord.from_dict(d))
    assert again.done and again.round == g.round <= 3 and again.state.tobytes() == g.state.tobytes()
    old = {k: v for k, v in d.items() if k != "solo_rounds"}  # a record without it: the default
    assert GameRecord.from_dict(old).rules.solo_rounds == DEFAULT_SOLO_ROUNDS
