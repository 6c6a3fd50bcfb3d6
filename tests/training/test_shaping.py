"""Potential-based reward shaping (R8.3 score as the potential), the solo evaluation (R10.3) and
the behaviour-cloning warm start of the fast loop."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from ohmygoods_agents.slotnet import SlotNet
from ohmygoods_training.fast_ppo import League, NetAgent, SelfPlayRollout, behaviour_clone, main
from ohmygoods_training.imitation import collect
from ohmygoods_training.shaping import potentials
from ohmygoods_training.stats import solo_score

from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.core import score_player


def _scores(g: BatchGames, row: int) -> list[tuple[int, int]]:
    C, AS = g.cards.buildings, g.cards.assistants
    return [score_player(g.state[row], C, AS, p) for p in range(g.num_players)]


def test_potential_is_the_r8_3_score_with_exact_coins_and_the_margin_to_the_best_other():
    g = BatchGames(4, 3, "omg2", seed=11)
    rng = make_rng(4, 5)
    for _ in range(150):  # part-way through the games: buildings and goods on them
        g.step(random_actions(g.masks(), rng))
    rows = np.repeat(np.arange(4), 3)
    seats = np.tile(np.arange(3), 4)
    own = potentials(g, rows, seats, "score")
    rel = potentials(g, rows, seats, "margin")
    for j, (r, p) in enumerate(zip(rows, seats, strict=True)):
        sc = _scores(g, int(r))
        exact = [s + left / 5 for s, left in sc]
        assert own[j] == pytest.approx(exact[p])
        assert rel[j] == pytest.approx(exact[p] - max(x for q, x in enumerate(exact) if q != p))
    assert (own > 0).any()  # the games got somewhere
    with pytest.raises(ValueError, match="reward mode margin or score, got 'win'"):
        potentials(g, rows, seats, "win")


@pytest.mark.parametrize(("players", "reward"), [(1, "score"), (2, "margin")])
def test_shaped_rewards_add_up_to_the_final_reward_minus_the_first_potential(players, reward):
    """Same net, same seeds: the shaped and the plain rollout play the same moves; per finished
    trajectory the shaped rewards sum to (final reward - potential at the first decision) x scale."""
    scale = 0.1
    torch.manual_seed(0)
    net = SlotNet(hidden=16, embed=4)
    batches = {}
    for shaped in (False, True):
        ro = SelfPlayRollout(net, 4, players, league=League.parse("self:1"), reward=reward, reward_scale=scale,
                             seed=7, shaping=shaped)  # fmt: skip
        batches[shaped] = ro.collect(700)
    plain, shaped = batches[False], batches[True]
    torch.testing.assert_close(plain["action"], shaped["action"])
    phi = shaped["phi"].numpy()
    assert not plain["phi"].any()
    trajs: dict[tuple[int, int, int], list[int]] = {}
    for i, (g, s, e) in enumerate(shaped["where"].numpy()):
        trajs.setdefault((int(g), int(e), int(s)), []).append(i)
    finished = 0
    for idx in trajs.values():
        if not shaped["done"][idx[-1]]:
            continue
        finished += 1
        final = float(plain["reward"][idx[-1]])  # the plain rollout: the final reward x scale, at the end only
        assert float(plain["reward"][idx].sum()) == pytest.approx(final)
        total = float(shaped["reward"][idx].sum())
        assert total == pytest.approx(final - scale * phi[idx[0]], abs=1e-4)
        if len(idx) > 1:
            assert np.any(shaped["reward"][idx[:-1]].numpy() != 0)  # the signal comes before the end
    assert finished >= 4


def test_shaping_refuses_the_win_reward():
    with pytest.raises(ValueError, match="shaping needs --reward margin or score"):
        SelfPlayRollout(SlotNet(16, 4), 2, 2, reward="win", shaping=True)


def test_solo_score_is_the_mean_r10_3_score_with_an_interval():
    from ohmygoods_agents import make_agent

    res = solo_score(make_agent("greedy"), 30, seed=4)
    # the same deals played again by hand: the mean of the final scores
    g = BatchGames(30, 1, "omg2", 4, reward_mode="win")
    agent = make_agent("greedy")
    from ohmygoods_env.policy import BatchPolicy

    pol = BatchPolicy(agent)
    rows = np.arange(30, dtype=np.int64)
    total = np.zeros(30)
    while not g.done.all():
        live = rows[~g.done]
        r, _, _ = g.step(pol(g, live), rows=live)
        total += r[:, 0]
    assert res.games == 30 and res.mean == pytest.approx(total.mean())
    assert res.ci_low < res.mean < res.ci_high
    assert "solo mean score" in str(res)


def test_behaviour_clone_learns_the_teachers_moves():
    data = collect(12, 2, "omg2", "heuristic", "margin", 0.1, 0.995, eps=0.0, seed=3, shaped=True)
    assert len(data["actions"]) == len(data["returns"]) > 500
    torch.manual_seed(0)
    net = SlotNet(hidden=32, embed=8)
    first = behaviour_clone(net, data, epochs=1, minibatch=256, seed=0)
    last = behaviour_clone(net, data, epochs=6, minibatch=256, seed=0)
    assert last["loss_pi"] < first["loss_pi"] and last["accuracy"] > first["accuracy"]
    assert last["accuracy"] > 0.5
    # the clone plays legal moves only
    masks = data["masks"][:64]
    acts = NetAgent(net).act_batch(data["obs"][:64].astype(np.float32), masks.astype(np.int8))
    assert masks[np.arange(64), acts].all()


@pytest.mark.training
def test_solo_run_with_shaping_and_a_warm_start(tmp_path):
    out = tmp_path / "solo"
    argv = ["--players", "1", "--reward", "score", "--shaping", "1", "--num-envs", "8", "--n-steps", "16",
            "--total-steps", "300", "--hidden", "32", "--eval-every", "200", "--eval-games", "4",
            "--bc-games", "2", "--bc-teacher", "greedy", "--bc-epochs", "1", "--final-games", "2",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0] == "steps,wall_s,opponent,games,mean_score,lo,hi" and len(rows) >= 3
    log = [json.loads(x) for x in (out / "train.log").read_text().splitlines()]
    assert "bc" in log[0] and log[0]["bc_games"] == 2
    card = json.loads((out / "best.json").read_text())["card"]
    assert card["eval"]["opponent"] == "solo" and card["config"]["shaping"] == 1


def test_solo_rollout_logs_scores_and_rounds_and_honours_its_round_cap():
    """R8.4 with a training cap of 4 rounds: every solo game ends by round 4; the logged scores
    are the final R8.3 scores (R10.3)."""
    ro = SelfPlayRollout(SlotNet(16, 4), 6, 1, reward="score", seed=2, shaping=True, max_rounds=4)
    assert ro.games.rules.max_rounds == 4
    ro.collect(200)
    assert ro.games_done >= 6
    assert len(ro.stats["score"]) == len(ro.stats["rounds"]) == ro.games_done
    assert max(ro.stats["rounds"]) <= 4
    assert min(ro.stats["score"]) >= 0
