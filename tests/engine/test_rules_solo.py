"""Solo play (R10.3): one player, base rules, 2 assistants on display, a score attack."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.engine import Game


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
    """Random solo games end (by R8.1 or the round cap); every reward mode gives the score."""
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
        # R8.1 (8 buildings, then one more round: at most 9) or the round cap (R8.4)
        assert len(g.buildings(0)) >= 8 or g.round >= g.rules.max_rounds


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
