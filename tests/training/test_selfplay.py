"""The one self-play loop on the framework games (ohmygoods_training.fast_ppo with a game's training kit, and
the older names of ohmygoods_training.selfplay over it) and Artificium's shipped policy.

Rules cited: A4.1 (face-down choice), A8.3 (winners, ties share), A9.2 (no hidden information
in an observation).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ohmygoods_agents.artificium import policy as art_agents
from ohmygoods_agents.checkpoint import CheckpointError, shipped_checkpoints
from ohmygoods_agents.slotnet import SlotNet
from ohmygoods_training.fast_ppo import FastPPO, PPOConfig
from ohmygoods_training.league_spec import parse_entries
from ohmygoods_training.selfplay import (
    ActorCritic,
    Config,
    ModelBatch,
    SelfPlay,
    behaviour_clone,
    collect_teacher,
    evaluate_vs,
    load_net,
    make_batch,
    save_net,
)

import ohmygoods_env.goofspiel.game_spec  # noqa: F401  (registers goofspiel)
from ohmygoods_env.artificium import Game
from ohmygoods_env.artificium import layout as AL
from ohmygoods_env.batch import BatchGames
from ohmygoods_env.framework.agents import agent_names, choose, make_agent


def _tiny(game: str = "artificium", players=(2, 3), **kw) -> Config:
    base = dict(game=game, players=players, num_envs=4, n_steps=12, minibatch=64, epochs=2, hidden=(16,))
    base.update(league="self:0.6,snapshot:0.2,random:0.2", snapshot_every=50)
    base.update(kw)
    return Config(**base)


def test_loop_runs_a_few_iterations_with_finite_losses_and_league_seats():
    sp = SelfPlay(_tiny(players=(2, 4, 6)))
    for _ in range(3):
        info = sp.iterate()
        assert info["samples"] > 0
        for k in ("pg_loss", "v_loss", "entropy"):
            assert np.isfinite(info[k]), (k, info)
    assert sp.snapshots, "a snapshot joins the league once snapshot_every decisions were trained on"
    assert all(torch.isfinite(p).all() for p in sp.net.parameters())


def test_a_count_named_twice_gets_a_second_batch_with_its_own_deals():
    """``--players 2,3,3``: two 3-player batches, dealt from different seeds (more games at that count)."""
    sp = SelfPlay(_tiny(players=(2, 3, 3)))
    assert [b.num_players for b in sp.batches] == [2, 3, 3]
    a, b = sp.batches[1], sp.batches[2]
    assert not np.array_equal(a.observe(a.current_player), b.observe(b.current_player))


def test_final_reward_reaches_each_learner_seat_once_per_finished_game():
    sp = SelfPlay(_tiny(players=(2,), n_steps=200, league="self:1"))
    batch = sp.collect(200)  # two-player games end within 200 steps of 4 tables
    ret = batch["ret"].numpy()
    assert np.isfinite(ret).all()
    finished = sum(len(v) for v in sp.results.values())
    assert finished > 0, "some games finished in 200 steps"
    # every seat of a self-play game is the learner's: 2 results per game, +1 / -1 / 0 wins (A8.3)
    wins = np.concatenate([np.asarray(v) for v in sp.results.values()])
    assert set(np.unique(wins)) <= {0.0, 0.5, 1.0}  # a tie (every seat the same score) counts half


def test_the_loop_is_game_agnostic_goofspiel_through_forward_models():
    b = make_batch("goofspiel", 3, 3, seed=0)
    assert isinstance(b, ModelBatch)
    sp = SelfPlay(_tiny(game="goofspiel", players=(3,), n_steps=10))
    info = sp.iterate()
    assert np.isfinite(info["pg_loss"]) and info["samples"] > 0
    with pytest.raises(ValueError, match="one observation size"):  # goofspiel's grows with the seats
        SelfPlay(_tiny(game="goofspiel", players=(2, 3)))


def test_fast_and_model_batches_agree_on_observations_and_masks():
    """Both deal row ``i`` from the one seed recipe: the compiled engine and the forward models see the same
    games (the same acting seats, observations and masks)."""
    fast = make_batch("artificium", 2, 3, seed=5)
    slow = make_batch("artificium", 2, 3, seed=5, fast=False)
    assert isinstance(slow, ModelBatch) and not isinstance(fast, ModelBatch)
    seen = []
    for b in (fast, slow):
        cur = b.current_player
        assert (cur >= 0).all()
        obs, m = b.observe(cur), b.legal_mask()
        assert obs.shape == (2, AL.OBS_DIM) and m.shape == (2, AL.N_ACTIONS) and m.dtype == np.bool_
        assert m.any(axis=1).all()
        seen.append((cur, obs, m))
    for x, y in zip(*seen, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize(("game", "network"), [("ohmygoods", SlotNet), ("artificium", ActorCritic),
                                               ("goofspiel", ActorCritic)])  # fmt: skip
def test_every_game_trains_on_the_one_loop_with_its_kits_network(game, network):
    """One loop (fast_ppo) for every registered game: the engine through the protocol, the network from the
    game's training kit (Oh my Goods!'s slot network, an MLP for the others); no table of games in the loop."""
    import ohmygoods_training.fast_ppo as loop

    assert not hasattr(loop, "FAST_BATCHES") and not hasattr(loop, "BatchGames")
    cfg = PPOConfig(game=game, players=2 if game != "goofspiel" else 3, num_envs=4, n_steps=8, hidden=16, embed=4,
                    league="self:0.8,random:0.2", minibatch=64)  # fmt: skip
    ppo = FastPPO(cfg)
    assert isinstance(ppo.net, network)
    if game == "ohmygoods":
        assert isinstance(ppo.rollout.games, BatchGames)
    info = ppo.iterate()
    assert np.isfinite(info["pg_loss"]) and info["samples"] > 0


def test_warm_start_clones_the_teacher_and_every_sample_has_its_seats_final_reward():
    data = collect_teacher("artificium", "heuristic", (2, 3), decisions=50, num_envs=2, seed=4)
    n = data["obs"].shape[0]
    assert n >= 50 and data["mask"][np.arange(n), data["action"]].all()  # the teacher's moves are legal
    assert set(np.unique(data["ret"])) <= {-1.0, 0.0, 1.0}  # the games were played to their end (A8.3)
    net = ActorCritic(AL.OBS_DIM, AL.N_ACTIONS, (32,))
    first = behaviour_clone(net, data, epochs=1, minibatch=128)
    last = behaviour_clone(net, data, epochs=15, lr=3e-3, minibatch=128)
    assert last["loss_pi"] < first["loss_pi"] and last["accuracy"] > first["accuracy"]


def test_league_parse_names_what_is_wrong():
    """One league spec for every loop: here the seats are the game's agents by name."""
    names = agent_names("artificium")
    assert parse_entries("self:0.5,random:0.5", agents=names) == {"self": 0.5, "random": 0.5}
    with pytest.raises(ValueError, match="is not a number"):
        parse_entries("self:x", agents=names)
    with pytest.raises(ValueError, match="no positive weight"):
        parse_entries("self:0", agents=names)
    with pytest.raises(ValueError, match="unknown league entry 'mcts50'"):
        parse_entries("self:1,mcts50:1", agents=names)  # Oh my Goods!'s search is not an agent of this game


def _decisions(n: int = 40, players: int = 4, seed: int = 3):
    """Observations and masks of real decisions (random play)."""
    g = Game(players, seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while not g.done and len(obs) < n:
        p = g.current_player
        obs.append(g.observe(p))
        masks.append(g.legal_mask(p))
        legal = np.flatnonzero(masks[-1])
        g.step(int(legal[rng.integers(legal.size)]))
    return np.stack(obs), np.stack(masks)


def test_checkpoint_round_trip_gives_the_same_actions(tmp_path):
    sp = SelfPlay(_tiny(players=(3,)))
    sp.iterate()
    path = save_net(sp.net, tmp_path / "pol.json", sp.layout, card={"command": "test"})
    obs, masks = _decisions()
    before = sp.agent().act_batch(obs, masks)
    again = art_agents.load_policy(path).act_batch(obs, masks)
    assert (before == again).all()
    assert (masks[np.arange(len(masks)), again] == 1).all()
    net = load_net(path)  # the value head comes back too, for resuming
    with torch.no_grad():
        v0 = sp.net(torch.from_numpy(obs))[1]
        v1 = net(torch.from_numpy(obs))[1]
    assert torch.allclose(v0, v1)
    via_registry = make_agent("artificium", f"ppo:{path}")
    assert (via_registry.act_batch(obs, masks) == before).all()


def test_a_checkpoint_of_another_layout_is_refused(tmp_path):
    omg = shipped_checkpoints()["ppo"]  # an Oh my Goods! policy
    with pytest.raises(CheckpointError, match="layout"):
        art_agents.load_policy(omg)
    net = ActorCritic(10, AL.N_ACTIONS, (8,))
    path = save_net(net, tmp_path / "small.json", {**art_agents.checkpoint_layout(), "obs_dim": 10,
                                                  "obs_blocks": [["x", 0, 10]]})  # fmt: skip
    with pytest.raises(CheckpointError, match="388 features"):
        art_agents.load_policy(path)


def test_shipped_policy_is_small_and_registered():
    path = art_agents.shipped_path()
    assert path.is_file()
    assert path.with_suffix(".safetensors").stat().st_size < 1_000_000
    agent = make_agent("artificium", "ppo")
    assert agent.needs_info_state is False


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_shipped_policy_plays_legal_moves_and_is_deterministic(players):
    agent = make_agent("artificium", "ppo", seed=0)
    other = make_agent("artificium", "ppo", seed=99)
    g = Game(players, 40 + players)
    n = 0
    while not g.done:
        p = g.current_player
        obs, mask = g.observe(p), g.legal_mask(p)
        a = choose(agent, g, p)
        assert mask[a] == 1
        assert a == agent.act(obs, mask) == other.act(obs, mask)  # greedy: no randomness, no state
        g.step(a)
        n += 1
    assert n > 10 and g.winners()


def test_hidden_information_twins_get_the_same_action():
    """A9.2: the agent reads the seat's observation and mask only; a twin world that re-deals every
    card the seat cannot see (others' hands, face-down cards, the deck) gives it the same input."""
    agent = make_agent("artificium", "ppo")
    g = Game(4, 11)
    rng = np.random.default_rng(0)
    checked = differ = 0
    while not g.done and checked < 60:
        p = g.current_player
        twin = g.determinize(p, int(rng.integers(1 << 30)))
        hidden = slice(AL.F_LOC, AL.F_DECK + AL.N_CARDS)  # where every card is, and the deck order
        differ += int(not np.array_equal(g.state[hidden], twin.state[hidden]))
        assert np.array_equal(g.observe(p), twin.observe(p))
        assert choose(agent, g, p) == choose(agent, twin, p)
        g.step(choose(agent, g, p))
        checked += 1
    assert differ > checked // 2, "the twins really differ in hidden information"


def test_evaluate_vs_gives_a_rate_inside_its_interval():
    rate, lo, hi = evaluate_vs("artificium", make_agent("artificium", "ppo"), "random", 3, 6, seed=1)
    assert 0 <= lo <= rate <= hi <= 1


def test_the_former_command_trains_on_the_one_loop_and_says_so(tmp_path):
    """``python -m ohmygoods_training.selfplay`` (deprecated for training): the one loop with the game
    defaulting to artificium and ``--hidden W,W`` read as ``--hidden W``; its run writes ``final.json``."""
    from ohmygoods_training.selfplay import main

    out = tmp_path / "old"
    argv = ["--players", "2", "--hidden", "16,16", "--num-envs", "4", "--n-steps", "8", "--total-steps", "40",
            "--eval-games", "2", "--final-games", "2", "--no-progress", "--out", str(out)]  # fmt: skip
    with pytest.warns(DeprecationWarning, match="ohmygoods train --game NAME"):
        assert main(argv) == 0
    net = load_net(out / "final.json")
    assert isinstance(net, ActorCritic) and net.hidden == (16, 16)
