"""Expert iteration (training/expert.py): the recorded samples are the search's own decisions from
the acting seat's information state, and distillation moves a slot network toward the search."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch
from ohmygoods_agents import make_agent
from ohmygoods_agents.mcts import MCTSAgent
from ohmygoods_agents.slotnet import SlotNet, make_prior, prior_actions
from ohmygoods_training.expert import RecordingPolicy, distill, load_samples, play_recorded, visit_targets
from ohmygoods_training.fast_ppo import load_net, save_agent

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames
from ohmygoods_env.policy import info_state_of

SIMS = 8


def test_recording_keeps_the_searched_decisions_from_the_information_state_only():
    games = BatchGames(3, 2, "omg2", seed=11, illegal="raise", reward_mode="win")
    policy = RecordingPolicy(MCTSAgent(seed=0, sims=SIMS))
    searched = 0
    for _ in range(60):
        rows = np.flatnonzero(~games.done).astype(np.int64)
        if rows.size == 0:
            break
        before = len(policy.samples)
        masks = games.masks(copy=True)[rows]
        expect = [
            int(games.state[i, L.F_CUR])
            for j, i in enumerate(rows)
            if masks[j].sum() > 1 and games.state[i, L.F_DEC] != L.D_PAY
        ]
        truth = {int(i): (games.state[i].copy(), games.observe(rows=np.array([i]))[0]) for i in rows}
        actions = policy(games, rows)
        new = policy.samples[before:]
        assert [s[1] for s in new] == expect  # one sample per searched decision, none for forced ones / payments
        for i, seat, obs, mask, info, visits in new:
            state, o = truth[i]
            np.testing.assert_array_equal(info, info_state_of(state, seat))  # the redacted state, never the true one
            np.testing.assert_array_equal(obs, o)
            assert sum(visits.values()) == SIMS
            assert all(mask[a] for a in visits)
            played = int(actions[list(rows).index(i)])
            assert visits[played] == max(visits.values())  # the search plays its most visited root action
        searched += len(new)
        games.step(actions, rows=rows)
    assert searched > 20


def test_play_recorded_labels_each_sample_with_its_game_and_the_seats_final_reward():
    a = MCTSAgent(seed=1, sims=SIMS)
    s = play_recorded([a, a], 2, seed=5)
    assert set(np.unique(s["game"])) == {5000, 5001}
    for g in (5000, 5001):
        rewards = {
            int(seat): set(s["reward"][(s["game"] == g) & (s["info"][:, L.F_CUR] == seat)].tolist()) for seat in (0, 1)
        }
        assert all(len(r) == 1 for r in rewards.values())  # one final reward per seat
        assert rewards[0].pop() == -rewards[1].pop()  # 2 players, win rewards: +1 / -1 (or 0 / 0 on a tie)
    assert s["visits"].sum(1).tolist() == [SIMS] * s["obs"].shape[0]
    assert (s["visits"][~s["mask"]] == 0).all()
    with pytest.raises(ValueError, match="need 2 agents"):
        play_recorded([a], 1, seed=0)


def test_visit_targets_sharpen_with_temperature():
    v = np.array([[0.0, 2.0, 6.0]])
    np.testing.assert_allclose(visit_targets(v), [[0.0, 0.25, 0.75]])
    np.testing.assert_allclose(visit_targets(v, 0.5), [[0.0, 0.1, 0.9]], rtol=1e-6)
    with pytest.raises(ValueError, match="temperature"):
        visit_targets(v, 0.0)


def test_load_samples_names_what_is_wrong(tmp_path):
    with pytest.raises(FileNotFoundError, match="no expert shards"):
        load_samples([tmp_path])
    np.savez(tmp_path / "shard_bad.npz", obs=np.zeros((1, 3)))
    with pytest.raises(ValueError, match="missing arrays"):
        load_samples([tmp_path])


def test_distill_moves_the_network_toward_the_search_and_writes_a_safe_checkpoint(tmp_path):
    a = MCTSAgent(seed=2, sims=32)
    data = tmp_path / "data"
    data.mkdir()
    for k in range(2):
        np.savez_compressed(data / f"shard_000_{k:04d}.npz", **play_recorded([a, a], 2, seed=20 + k))
    init = save_agent(SlotNet(hidden=32, embed=4, prior="heuristic"), tmp_path / "init")
    card = distill(str(init), [data], tmp_path / "out", epochs=4, lr=3e-3, batch=64, val_share=0.25)
    with open(tmp_path / "out" / "distill.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["epoch"]) for r in rows] == [0, 1, 2, 3, 4]
    train = [float(r["train_ce"]) for r in rows[1:]]
    assert train[-1] < train[0]  # it learns the search's distribution
    assert card["best_epoch"] >= 1 and card["val_games"] == 1
    assert 0 < card["train_samples"] < card["samples"]  # one of the 4 games held out, whole
    meta = json.loads((tmp_path / "out" / "last.json").read_text())
    assert meta["network"]["kind"] == "slotnet" and meta["network"]["prior"] == "heuristic"
    agent = make_agent(f"ppo:{tmp_path / 'out' / 'last.json'}")
    s = load_samples([data])
    acts = agent.act_batch(s["obs"][:16], s["mask"][:16], s["info"][:16])
    assert all(s["mask"][j, int(x)] for j, x in enumerate(acts))


def _policy(path, s):
    net = load_net(path).eval()
    prior = make_prior(net.prior)
    pa = prior_actions(prior, "test", s["obs"], s["mask"], s["info"])
    with torch.no_grad():
        return torch.log_softmax(net(torch.as_tensor(s["obs"]), torch.as_tensor(s["mask"]), pa)[0], 1)


def test_distill_anchor_keeps_the_network_near_its_starting_policy(tmp_path):
    a = MCTSAgent(seed=3, sims=32)
    data = tmp_path / "data"
    data.mkdir()
    np.savez_compressed(data / "shard_000_0000.npz", **play_recorded([a, a], 4, seed=30))
    init = save_agent(SlotNet(hidden=32, embed=4, prior="heuristic"), tmp_path / "init")
    s = load_samples([data])
    p0 = _policy(init, s)
    drift = {}
    for anchor in (0.0, 50.0):
        out = tmp_path / f"out{anchor}"
        card = distill(str(init), [data], out, epochs=4, lr=3e-3, batch=64, val_share=0.25, anchor=anchor)
        assert card["anchor"] == anchor
        p = _policy(out / "last.json", s)
        legal = torch.as_tensor(s["mask"])
        drift[anchor] = float((p0.exp() * (p0 - p)).masked_fill(~legal, 0.0).sum(1).mean())
    assert drift[50.0] < 0.5 * drift[0.0]  # KL(start || result): the anchor holds it back
    with pytest.raises(ValueError, match="anchor must be >= 0"):
        distill(str(init), [data], tmp_path / "bad", epochs=1, anchor=-1.0)


def test_distill_min_share_learns_only_the_decisive_choices(tmp_path):
    a = MCTSAgent(seed=4, sims=32)
    data = tmp_path / "data"
    data.mkdir()
    np.savez_compressed(data / "shard_000_0000.npz", **play_recorded([a, a], 3, seed=40))
    init = save_agent(SlotNet(hidden=32, embed=4, prior="heuristic"), tmp_path / "init")
    s = load_samples([data])
    assert (s["visits"].max(1) < s["visits"].sum(1)).all()  # every root action is simulated: no share of 1
    p0 = _policy(init, s)
    moved = {}
    for share in (0.0, 1.0):  # 1.0: no sample is decisive enough, so the policy gets no gradient
        out = tmp_path / f"out{share}"
        card = distill(str(init), [data], out, epochs=2, lr=3e-3, batch=64, value_coef=0.0, min_share=share)
        assert card["min_share"] == share
        moved[share] = float((_policy(out / "last.json", s) - p0).abs().max())
        with open(out / "distill.csv") as f:
            val_ce = [float(r["val_ce"]) for r in csv.DictReader(f)]
        if share == 1.0:  # not just the best epoch: the policy held still at every epoch
            assert max(val_ce) - min(val_ce) < 1e-5
    assert moved[0.0] > 1e-3 and moved[1.0] < 1e-6
    with pytest.raises(ValueError, match=r"min_share must be in \[0, 1\]"):
        distill(str(init), [data], tmp_path / "bad", epochs=1, min_share=1.5)
