"""The lean self-play PPO: per-seat GAE, masking, final rewards to every seat, checkpoints, a smoke run."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from ohmygoods_agents import make_agent
from ohmygoods_agents.checkpoint import CheckpointError
from ohmygoods_agents.slotnet import NEG, SlotNet
from ohmygoods_training.fast_ppo import (
    League,
    SelfPlayRollout,
    gae_per_seat,
    legal_index,
    legal_logits,
    load_net,
    main,
    masked_entropy,
    sample_masked,
    save_agent,
    search_sims,
)

from ohmygoods_env import layout as L


def _gae_reference(traj_values, final_reward, gamma, lam, boot=None):
    """Plain GAE over one seat's trajectory (reward only at the end, or a bootstrap value)."""
    n = len(traj_values)
    adv = np.zeros(n)
    nxt_adv = 0.0
    for t in range(n - 1, -1, -1):
        if t == n - 1:
            delta = (final_reward - traj_values[t]) if boot is None else gamma * boot - traj_values[t]
            nxt_adv = delta
        else:
            delta = gamma * traj_values[t + 1] - traj_values[t]
            nxt_adv = delta + gamma * lam * nxt_adv
        adv[t] = nxt_adv
    return adv


def test_gae_per_seat_interleaved_trajectories_match_separate_ones():
    # samples of two seats of one game interleaved (seat A: 0, 2, 3; seat B: 1, 4), plus a cut one (5, 6)
    values = np.array([0.1, -0.2, 0.3, 0.5, -0.4, 0.2, 0.25], np.float32)
    rewards = np.array([0, 0, 0, 1.0, -1.0, 0, 0], np.float32)
    done = np.array([0, 0, 0, 1, 1, 0, 0], np.bool_)
    nxt = np.array([2, 4, 3, -1, -1, 6, -1], np.int64)
    boot = np.zeros(7, np.float32)
    boot[6] = 0.7
    gamma, lam = 0.9, 0.8
    adv = np.zeros(7, np.float32)
    gae_per_seat(values, rewards, nxt, done, boot, gamma, lam, adv)
    a = _gae_reference(values[[0, 2, 3]], 1.0, gamma, lam)
    b = _gae_reference(values[[1, 4]], -1.0, gamma, lam)
    c = _gae_reference(values[[5, 6]], 0.0, gamma, lam, boot=0.7)
    np.testing.assert_allclose(adv[[0, 2, 3]], a, rtol=1e-5)
    np.testing.assert_allclose(adv[[1, 4]], b, rtol=1e-5)
    np.testing.assert_allclose(adv[[5, 6]], c, rtol=1e-5)


def test_masked_logits_sampling_and_entropy():
    torch.manual_seed(0)
    net = SlotNet(hidden=32, embed=8)
    obs = torch.rand(4, L.OBS_DIM)
    mask = torch.zeros(4, L.N_ACTIONS, dtype=torch.bool)
    mask[0, [3, 7]] = True
    mask[1, 100] = True
    mask[2, :] = True
    mask[3, [0, L.N_ACTIONS - 1]] = True
    with torch.no_grad():
        logits, value = net(obs, mask)
    assert value.shape == (4,)
    assert torch.all(logits[~mask] == NEG)
    gen = torch.Generator().manual_seed(1)
    for _ in range(200):
        a = sample_masked(logits, gen)
        assert bool(mask[torch.arange(4), a].all())
    ent = masked_entropy(logits, mask)
    assert torch.isfinite(ent).all()
    assert ent[1].item() == pytest.approx(0.0, abs=1e-6)  # one legal action: no choice
    p = torch.softmax(logits[0, [3, 7]], 0)
    assert ent[0].item() == pytest.approx(float(-(p * p.log()).sum()), rel=1e-5)


def test_legal_columns_give_the_masked_distribution():
    """The update's compact [n, K] legal columns: same log-probabilities and entropy as the full masked softmax."""
    torch.manual_seed(2)
    logits = torch.randn(5, L.N_ACTIONS)
    mask = torch.rand(5, L.N_ACTIONS) < 0.05
    mask[:, 0] = True
    mask[3] = False
    mask[3, L.N_ACTIONS - 1] = True  # one legal action, the last id
    ids, valid = legal_index(mask)
    assert ids.shape[1] == int(mask.sum(1).max())
    assert bool(mask.gather(1, ids)[valid].all()) and int(valid.sum()) == int(mask.sum())
    full = torch.log_softmax(logits.masked_fill(~mask, NEG), 1)
    small = torch.log_softmax(legal_logits(logits, ids, valid), 1)
    torch.testing.assert_close(small[valid], full.gather(1, ids)[valid])
    ent_small = -(small.exp() * small).masked_fill(~valid, 0).sum(1)
    torch.testing.assert_close(ent_small, masked_entropy(logits.masked_fill(~mask, NEG), mask))


def _trajectories(batch):
    where = batch["where"].numpy()
    keys = {}
    for i, (g, s, e) in enumerate(where):
        keys.setdefault((g, e, s), []).append(i)
    return keys


def test_rollout_final_reward_reaches_every_seat_of_self_play_games():
    """R8.3 win rewards: both seats' last decisions get +1/-1 (or 0/0), nothing else gets a reward."""
    net = SlotNet(hidden=16, embed=4)
    ro = SelfPlayRollout(net, 6, 2, league=League.parse("self:1"), reward="win", reward_scale=1.0, seed=3)
    batch = ro.collect(900)  # long enough for every slot to finish a game
    assert ro.games_done >= 6
    acts, masks = batch["action"], batch["mask"]
    assert bool(masks[torch.arange(acts.shape[0]), acts].all())  # only legal actions were sampled
    rewards, done, nxt = batch["reward"].numpy(), batch["done"].numpy(), batch["next"].numpy()
    assert np.all(rewards[~done] == 0)
    per_game: dict[tuple[int, int], list[float]] = {}
    for (g, e, _seat), idx in _trajectories(batch).items():
        assert list(nxt[idx[:-1]]) == idx[1:]  # a seat's samples are linked in order
        assert not done[idx[:-1]].any()  # only the last decision of a trajectory can end it
        if done[idx[-1]]:
            per_game.setdefault((g, e), []).append(float(rewards[idx[-1]]))
    assert len(per_game) >= 6
    for r in per_game.values():
        assert len(r) == 2  # both seats of a finished self-play game got the final reward
        assert sorted(r) in ([-1.0, 1.0], [0.0, 0.0])


def test_rollout_keeps_no_samples_of_opponent_seats():
    net = SlotNet(hidden=16, embed=4)
    ro = SelfPlayRollout(net, 4, 3, league=League.parse("self:0,random:1"), reward="margin", seed=5)
    batch = ro.collect(400)
    seats: dict[tuple[int, int], set[int]] = {}
    for g, s, e in batch["where"].numpy():
        seats.setdefault((int(g), int(e)), set()).add(int(s))
    assert all(len(v) == 1 for v in seats.values())  # one learner seat per game, the random seats left none
    assert ro.games_done >= 1


def test_league_parse_rejects_unknown_entries():
    with pytest.raises(ValueError, match="unknown league entry 'alphazero'"):
        League.parse("self:1,alphazero:1")
    for bad in ("mcts", "mcts0", "mctsx", "mcts-5"):  # the search needs its simulations in the name
        with pytest.raises(ValueError, match=f"league entry '{bad}'.*e.g. mcts200"):
            League.parse(f"self:1,{bad}:1")
    with pytest.raises(ValueError, match="negative weight"):
        League.parse("self:1,heuristic:-0.5")
    lg = League.parse("self:2,heuristic:1,snapshot:1")
    assert lg.self_share == pytest.approx(0.5)
    assert lg.weights == {"heuristic": 0.25, "snapshot": 0.25}
    lg = League.parse("self:3,mcts200:1")
    assert lg.weights == {"mcts200": 0.25}
    assert search_sims("mcts200") == 200 and search_sims("heuristic") is None


def test_a_snapshot_only_league_starts_as_self_play_until_the_first_snapshot():
    net = SlotNet(hidden=16, embed=4)
    ro = SelfPlayRollout(net, 6, 3, league=League.parse("self:0,snapshot:1"), reward="win", reward_scale=1.0, seed=3)
    assert (ro.owner == -1).all()  # no snapshot yet: every seat is the learner's, not a draw over zero weights
    ro.add_snapshot()
    ro._assign(np.arange(6))
    assert ((ro.owner == -1).sum(axis=1) == 1).all()  # then one learner seat per game, the rest the snapshot
    assert set(np.unique(ro.owner[ro.owner != -1])) == set(ro.snapshots)


def test_search_seats_in_the_league_play_as_mcts_and_leave_no_samples():
    from ohmygoods_agents.mcts import MCTSAgent

    net = SlotNet(hidden=16, embed=4)
    ro = SelfPlayRollout(net, 3, 2, league=League.parse("self:0,mcts16:1"), reward="win", reward_scale=1.0, seed=9)
    ((name, policy),) = ro.opponents
    assert name == "mcts16" and isinstance(policy.agent, MCTSAgent) and policy.agent.sims == 16
    assert policy.needs_info_state  # the search is handed redacted information states only
    assert ((ro.owner == -1).sum(axis=1) == 1).all() and ((ro.owner == 0).sum(axis=1) == 1).all()
    batch = ro.collect(300)
    seats: dict[tuple[int, int], set[int]] = {}
    for g, s, e in batch["where"].numpy():
        seats.setdefault((int(g), int(e)), set()).add(int(s))
    assert all(len(v) == 1 for v in seats.values())  # the search's seats left no samples
    assert ro.games_done >= 3
    assert len(ro.stats["mcts16"]) == ro.games_done  # training-time outcomes, keyed by the opponent


def test_checkpoint_round_trip_in_the_safe_format(tmp_path):
    torch.manual_seed(0)
    net = SlotNet(hidden=24, embed=8)
    path = save_agent(net, tmp_path / "agent", {"steps": 5})
    assert path.suffix == ".json" and (tmp_path / "agent.safetensors").is_file()
    desc = json.loads(path.read_text())
    assert desc["network"] == {"kind": "slotnet", "hidden": 24, "embed": 8, "output": "action logits, value"}
    assert desc["card"]["steps"] == 5 and desc["layout"]["obs_dim"] == L.OBS_DIM
    back = load_net(path)
    obs, mask = torch.rand(3, L.OBS_DIM), torch.ones(3, L.N_ACTIONS, dtype=torch.bool)
    with torch.no_grad():
        torch.testing.assert_close(back(obs, mask), net(obs, mask))
    # the agent registry plays it: same choices as the network's argmax
    agent = make_agent(f"ppo:{path}")
    m = np.zeros((3, L.N_ACTIONS), np.int8)
    m[:, [2, 40, 77]] = 1
    with torch.no_grad():
        want = net(obs, torch.as_tensor(m != 0))[0].argmax(1).numpy()
    np.testing.assert_array_equal(agent.act_batch(obs.numpy(), m), want)
    desc["network"]["hidden"] = 32  # tensors no longer match the description
    path.write_text(json.dumps(desc))
    with pytest.raises(CheckpointError, match="hidden=32"):
        load_net(path)


@pytest.mark.training
def test_fast_ppo_smoke(tmp_path):
    out = tmp_path / "run"
    argv = ["--players", "3", "--num-envs", "8", "--n-steps", "16", "--total-steps", "600", "--hidden", "32",
            "--eval-every", "300", "--eval-games", "3", "--eval-vs", "random", "--snapshot-every", "200",
            "--final-games", "4", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("steps,") and len(rows) >= 3
    run = json.loads((out / "run.json").read_text())
    assert run["steps"] >= 600
    agent = load_net(out / "best")
    assert agent.hidden == 32
    final = json.loads((out / "final.json").read_text())["card"]["final_evaluation"]
    assert [r["opponent"] for r in final] == ["random"] and final[0]["games"] == 4


@pytest.mark.parametrize(("short", "players"), [("ppo-solo", 1), ("ppo-3p", 3), ("ppo-4p", 4), ("ppo-long", 2)])
def test_shipped_self_play_agents_load_by_short_name_and_play_legal_moves(short, players):
    from ohmygoods_env.batch import BatchGames
    from ohmygoods_env.policy import BatchPolicy

    agent = make_agent(short, seed=0)
    assert agent.network["kind"] == "slotnet"
    policy = BatchPolicy(agent)  # passes the information states when the agent reads them (a prior)
    games = BatchGames(6, players, seed=11)
    for _ in range(40):  # the registry checks nothing here: the game raises on an illegal action
        live = np.flatnonzero(~games.done)
        masks = games.masks()[live]
        acts = policy(games, live)
        assert masks[np.arange(live.size), acts].all()
        games.step(acts, rows=live)


@pytest.mark.parametrize("remainder", [1, 2])
def test_update_stays_finite_when_the_batch_leaves_a_tiny_remainder(remainder):
    """A batch of ``minibatch + 1`` samples once gave a 1-sample minibatch whose advantage
    standard deviation is NaN, and NaN weights from then on."""
    from ohmygoods_training.fast_ppo import FastPPO, PPOConfig

    ppo = FastPPO(PPOConfig(players=3, num_envs=4, n_steps=8, hidden=16, embed=4, league="self:1"))
    batch = ppo.rollout.collect(8)
    n = int(batch["obs"].shape[0])
    ppo.cfg.minibatch = n - remainder
    before = [p.detach().clone() for p in ppo.net.parameters()]
    out = ppo.update(batch)
    assert all(np.isfinite(v) for v in out.values())
    assert all(torch.isfinite(p).all() for p in ppo.net.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, ppo.net.parameters(), strict=True))


def test_legal_index_is_the_same_on_the_host_and_in_tensor_operations():
    """``legal_index`` of a CPU mask (the compiled ``legal_index_host``) equals the tensor form a GPU's masks
    take (``legal_index_device``), rows without a legal action and a non-contiguous mask included."""
    from ohmygoods_training.fast_ppo import legal_index_device

    torch.manual_seed(4)
    mask = torch.rand(300, L.N_ACTIONS) < 0.02
    mask[7] = False
    mask[11] = True
    for m in (mask, mask[::2], mask.t().contiguous().t()):
        ids, valid = legal_index(m)
        want_ids, want_valid = legal_index_device(m)
        assert torch.equal(ids, want_ids) and torch.equal(valid, want_valid)
        assert ids.shape[1] == int(m.sum(1).max())
    assert legal_index(mask)[0].shape[1] == L.N_ACTIONS  # row 11: every action legal
    assert not legal_index(mask)[1][7].any()  # row 7: none
