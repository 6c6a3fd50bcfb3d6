"""A network with a rule-based prior (``network.prior = "heuristic"``, agents/slotnet.py): it adds
a learned bonus to the heuristic's choice, starts out playing like the heuristic, saves and loads
in the safe format, reads the information state only, and trains in the fast loop."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from ohmygoods_agents import make_agent
from ohmygoods_agents.checkpoint import CheckpointError
from ohmygoods_agents.heuristic import HeuristicAgent
from ohmygoods_agents.slotnet import SlotNet
from ohmygoods_training.fast_ppo import FastPPO, NetAgent, PPOConfig, SelfPlayRollout, load_net, save_agent

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames
from ohmygoods_env.engine import Game
from ohmygoods_env.infostate import determinize
from ohmygoods_env.policy import BatchPolicy, info_state_of


def _states(players: int, n: int, seed: int):
    """``n`` (observation, mask, info state) of the acting seats of heuristic games (several decisions each)."""
    h = HeuristicAgent(seed=3)
    rows = []
    for k in range(n):
        g = Game(num_players=players, seed=seed + k)
        for _ in range(17 + 9 * k):
            if g.done:
                break
            p = g.current_player
            info = info_state_of(g.state, p)
            rows.append((g.observe(p), g.legal_mask(), info, g.clone()))
            g.step(h.act(None, g.legal_mask(), info))
    return rows


def test_the_prior_adds_its_gain_to_the_chosen_actions_logit_only():
    torch.manual_seed(0)
    net = SlotNet(16, 4, prior="heuristic", prior_gain=2.5)
    plain = SlotNet(16, 4)
    plain.load_state_dict({k: v for k, v in net.state_dict().items() if k != "prior_gain"})
    obs = torch.rand(3, L.OBS_DIM)
    prior = torch.tensor([5, 77, 623])
    h = net.features(obs)
    diff = net.policy_logits(h, prior) - plain.policy_logits(h)
    want = torch.zeros_like(diff)
    want[torch.arange(3), prior] = 2.5
    torch.testing.assert_close(diff, want)
    with pytest.raises(ValueError, match="pass prior_action"):
        net.policy_logits(h)
    with pytest.raises(ValueError, match="unknown network prior 'oracle'"):
        SlotNet(16, 4, prior="oracle")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_new_prior_network_plays_exactly_like_the_heuristic(players):
    torch.manual_seed(1)
    agent = NetAgent(SlotNet(32, 8, prior="heuristic", prior_gain=3.0), deterministic=True)
    teacher = HeuristicAgent(seed=0)
    rows = _states(players, 3, seed=100 * players)
    obs, masks, infos = (np.stack(x) for x in list(zip(*rows, strict=True))[:3])
    want = teacher.act_batch(obs, masks, infos)
    np.testing.assert_array_equal(agent.act_batch(obs, masks, infos), want)
    with pytest.raises(ValueError, match="needs info_states"):
        agent.act_batch(obs, masks)


def test_prior_checkpoint_round_trip_and_the_loaded_agent_needs_the_information_state(tmp_path):
    torch.manual_seed(2)
    net = SlotNet(24, 8, prior="heuristic", prior_gain=1.5)
    with torch.no_grad():  # logits of the network's own that matter as much as the prior
        net.pi.bias.copy_(3.0 * torch.randn(L.N_ACTIONS))
    path = save_agent(net, tmp_path / "res", {"steps": 1})
    desc = json.loads(path.read_text())
    assert desc["network"]["prior"] == "heuristic"
    back = load_net(path)
    assert back.prior == "heuristic" and float(back.prior_gain.detach()) == pytest.approx(1.5)
    agent = make_agent(f"ppo:{path}")
    assert agent.needs_info_state is True
    rows = _states(3, 3, seed=7)
    obs, masks, infos = (np.stack(x) for x in list(zip(*rows, strict=True))[:3])
    want = NetAgent(net).act_batch(obs, masks, infos)
    np.testing.assert_array_equal(agent.act_batch(obs, masks, infos), want)
    assert (want != HeuristicAgent(seed=0).act_batch(obs, masks, infos)).any()  # not the heuristic alone
    assert agent.act(obs[0], masks[0], infos[0]) == want[0]
    with pytest.raises(ValueError, match="pass info_states"):
        agent.act_batch(obs, masks)
    # a description whose prior is unknown, or whose tensors lack the gain, is refused on load
    for network, match in (
        ({**desc["network"], "prior": "oracle"}, "prior 'oracle'"),
        ({k: v for k, v in desc["network"].items() if k != "prior"}, "prior_gain"),
    ):
        path.write_text(json.dumps({**desc, "network": network}))
        with pytest.raises(CheckpointError, match=match):
            make_agent(f"ppo:{path}")


def test_a_prior_agent_acts_on_the_information_state_only():
    """Two worlds that the acting seat cannot tell apart (hidden cards dealt differently) get the same action."""
    torch.manual_seed(3)
    net = SlotNet(24, 8, prior="heuristic", prior_gain=1.0)
    with torch.no_grad():
        net.pi.bias.copy_(3.0 * torch.randn(L.N_ACTIONS))
    agent = NetAgent(net)
    rng = np.random.default_rng(0)
    checked = differ = 0
    for obs, mask, info, g in _states(3, 4, seed=31):
        p = g.current_player
        d = np.zeros_like(g.state)  # a true state with the same information state, hidden cards dealt anew
        determinize(info, g.cards.buildings, p, int(rng.integers(1, 1 << 31)), d)
        w = g.clone()
        w.state[:] = d
        other_info = info_state_of(w.state, p)
        np.testing.assert_array_equal(other_info, info)
        differ += not np.array_equal(w.state, g.state)
        a = agent.act_batch(obs[None], mask[None], info[None])[0]
        b = agent.act_batch(w.observe(p)[None], w.legal_mask()[None], other_info[None])[0]
        assert a == b
        checked += 1
    assert checked > 20 and differ > checked // 2


def test_rollouts_record_the_priors_choice_and_the_update_trains_the_gain():
    torch.manual_seed(4)
    cfg = PPOConfig(
        players=3, num_envs=6, n_steps=12, epochs=2, minibatch=32, hidden=16, embed=4, prior="heuristic",
        prior_gain=3.0, league="self:0.5,heuristic:0.5", seed=4, shaping=1,
    )  # fmt: skip
    ppo = FastPPO(cfg)
    assert isinstance(ppo.rollout, SelfPlayRollout) and ppo.rollout.prior is not None
    before = float(ppo.net.prior_gain.detach())
    batch = ppo.rollout.collect(cfg.n_steps)
    pr = batch["prior"].numpy()
    assert pr.shape[0] == batch["obs"].shape[0] > 0
    assert batch["mask"].numpy()[np.arange(pr.size), pr].all()  # the prior's choice is legal
    ppo.update(batch)
    assert float(ppo.net.prior_gain.detach()) != before
    assert all(torch.isfinite(p).all() for p in ppo.net.parameters())


def test_snapshots_of_a_prior_network_play_through_batch_policy():
    torch.manual_seed(5)
    net = SlotNet(16, 4, prior="heuristic")
    pol = BatchPolicy(NetAgent(net, deterministic=False, seed=1))
    assert pol.needs_info_state
    games = BatchGames(4, 2, seed=9)
    for _ in range(30):
        live = np.flatnonzero(~games.done)
        acts = pol(games, live)
        assert games.masks()[live][np.arange(live.size), acts].all()
        games.step(acts, rows=live)


@pytest.mark.training
def test_a_run_from_a_prior_checkpoint_keeps_the_prior_and_its_card_says_so(tmp_path, capsys):
    from ohmygoods_training.fast_ppo import main

    torch.manual_seed(6)
    init = save_agent(SlotNet(16, 4, prior="heuristic", prior_gain=2.0), tmp_path / "init")
    out = tmp_path / "run"
    argv = ["--players", "2", "--num-envs", "4", "--n-steps", "8", "--total-steps", "40", "--eval-every", "40",
            "--eval-games", "2", "--eval-vs", "random", "--final-games", "2",
            "--init", str(init), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    card = json.loads((out / "last.json").read_text())["card"]
    assert json.loads((out / "last.json").read_text())["network"]["prior"] == "heuristic"
    assert card["config"]["prior"] == "heuristic" and card["config"]["hidden"] == 16
    plain = save_agent(SlotNet(16, 4), tmp_path / "plain")
    assert main([*argv[:-4], "--init", str(plain), "--prior", "heuristic", "--out", str(tmp_path / "run2")]) == 2
    assert "--init network has prior None" in capsys.readouterr().err
    assert not (tmp_path / "run2").exists()
