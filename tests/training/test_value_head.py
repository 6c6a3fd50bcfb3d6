"""The win-probability value (``ohmygoods_training.value_head``) and its use in the Gumbel search.

* the collector records each seat's own observation with that seat's result, games split whole;
* fitting learns a result that a feature of the observation decides (a tiny synthetic set), in both
  modes, and beats the constant;
* a fitted value round-trips through the one checkpoint format and loads only through the safe reader
  (a plain policy checkpoint is refused as a value);
* the search with a win value gives the same target for two states that differ only in what the seat
  cannot see (the twins of tests/hidden_twins.py), and reads the value network's output.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hidden_twins import hidden_twins

from ohmygoods_env import Game
from ohmygoods_env import layout as L
from ohmygoods_env.policy import info_state_of, make_agent

torch = pytest.importorskip("torch")

from ohmygoods_agents.slotnet import SlotNet  # noqa: E402
from ohmygoods_training import value_head as vh  # noqa: E402


def test_collect_records_each_seats_own_observation_and_result() -> None:
    pos = vh.collect(12, seed=4321, keep=0.3, batch=6)
    assert len(pos) > 100 and pos.obs.dtype == np.float32 and pos.obs.shape[1] == L.OBS_DIM
    assert set(np.unique(pos.result)) <= {0.0, 0.5, 1.0} and set(np.unique(pos.game)) == set(range(12))
    assert pos.to_move.mean() == pytest.approx(0.5)  # both seats at every kept decision, one of them to move
    for g in range(12):  # one result per seat per game, the two seats' results sum to 1
        rows = pos.game == g
        res = {float(r) for r in pos.result[rows]}
        assert len(res) <= 2 and (len(res) == 1 and res <= {0.5} or sum(res) == 1.0)
    # the same seed, the same positions
    again = vh.collect(12, seed=4321, keep=0.3, batch=6)
    assert np.array_equal(again.obs, pos.obs) and np.array_equal(again.result, pos.result)
    fit, val, test = vh.split_of(pos)
    assert not set(pos.game[fit]) & set(pos.game[test]) and not set(pos.game[val]) & set(pos.game[test])


def test_the_recorder_keeps_each_seats_own_observation() -> None:
    from ohmygoods_agents.gumbel import potentials

    from ohmygoods_env.batch import BatchGames

    games = BatchGames(5, 2, seed=99)
    games.step(np.array([np.flatnonzero(m)[0] for m in games.masks()]))
    rec = vh._Recorder(make_agent("heuristic", seed=0), keep=1.0, seed=0)
    rows = np.arange(5, dtype=np.int64)
    rec(games, rows)
    assert [p[0] for p in rec.parts] == [0, 1]
    for seat, obs, picked, to_move, margin in rec.parts:
        assert np.array_equal(picked, rows)
        for j, i in enumerate(picked):
            g = games.game(int(i))
            assert np.array_equal(obs[j], g.observe(seat))  # that seat's view, not the true state
            assert to_move[j] == (g.current_player == seat)
            assert margin[j] == pytest.approx(potentials(g)[seat])  # the search's old potential


def _synthetic(n_games: int = 200, per_game: int = 6, seed: int = 0) -> vh.Positions:
    """Positions whose result is decided by one observation feature (a rest feature the trunk reads)."""
    rng = np.random.default_rng(seed)
    n = n_games * per_game
    obs = np.zeros((n, L.OBS_DIM), np.float32)
    obs[:, 30:40] = rng.random((n, 10)) < 0.5  # features that say nothing of the result
    k = 20  # in the block before the slots: a plain trunk input
    won = rng.random(n_games) < 0.5
    game = np.repeat(np.arange(n_games), per_game)
    obs[:, k] = won[game].astype(np.float32)
    return vh.Positions(
        obs, game, np.tile([True, False], n // 2), np.zeros(n, np.float32), won[game].astype(np.float32)
    )


@pytest.mark.parametrize("mode", ["head", "finetune"])
def test_fitting_learns_a_result_the_observation_decides(mode: str) -> None:
    torch.manual_seed(0)
    pos = _synthetic()
    init = SlotNet(hidden=16, embed=4).eval()
    with torch.no_grad():  # the deciding feature reaches the trunk's units (a random init all but hides it)
        init.trunk[0].weight[:, 20] = 1.0
    net, info = vh.fit(pos, init, mode, epochs=30, lr=1e-2, minibatch=128, seed=1)
    assert info["epoch_kept"] >= 1 and len(info["validation_curve"]) == 30
    rep = vh.report(pos, net, init)["all seats"]
    assert rep["new"]["cross_entropy"] < 0.5 * rep["constant"]["cross_entropy"]
    assert rep["new"]["brier"] < 0.5 * rep["constant"]["brier"]
    if mode == "head":  # the trunk is frozen: only v moved
        for k, v in init.state_dict().items():
            assert torch.equal(v, net.state_dict()[k]) == (not k.startswith("v."))


def test_fit_refuses_what_it_cannot_use() -> None:
    pos = _synthetic(n_games=5)
    with pytest.raises(ValueError, match="mode must be"):
        vh.fit(pos, SlotNet(hidden=8, embed=4), "all")
    with pytest.raises(ValueError, match="at least 10 games"):
        vh.fit(pos.take(np.flatnonzero(pos.game < 5)), SlotNet(hidden=8, embed=4), "head")


def test_metrics_are_cross_entropy_and_brier() -> None:
    m = vh.metrics(np.array([0.5, 0.5]), np.array([1.0, 0.0]))
    assert m["cross_entropy"] == pytest.approx(np.log(2), abs=1e-4) and m["brier"] == 0.25
    assert vh.metrics(np.array([0.9]), np.array([1.0]))["brier"] == pytest.approx(0.01)


def _fitted_checkpoint(tmp_path):
    from ohmygoods_training.fast_ppo import save_agent

    net = SlotNet(hidden=16, embed=4, prior="heuristic").eval()
    with torch.no_grad():
        net.v.bias.fill_(0.7)
    path = save_agent(net, tmp_path / "win", {"value": vh.VALUE_KIND}, players=2)
    return net, path


def test_a_win_value_round_trips_through_the_safe_reader(tmp_path) -> None:
    from ohmygoods_agents.checkpoint import CheckpointError
    from ohmygoods_agents.gumbel import load_win_value

    net, path = _fitted_checkpoint(tmp_path)
    back = load_win_value(str(path))
    obs = torch.from_numpy(np.stack([Game(2, seed=s).observe(0) for s in range(3)]))
    with torch.no_grad():
        assert torch.equal(back.v(back.features(obs)), net.v(net.features(obs)))
    # a policy checkpoint whose value is not a win logit is refused (the shipped ppo: a shaped return)
    from ohmygoods_agents.checkpoint import shipped_checkpoints

    with pytest.raises(CheckpointError, match="not a win-value checkpoint"):
        load_win_value(str(shipped_checkpoints()["ppo"]))
    desc = json.loads(path.read_text())
    desc["card"]["value"] = "margin"
    path.write_text(json.dumps(desc))
    with pytest.raises(CheckpointError, match="not a win-value checkpoint"):
        load_win_value(str(path))
    with pytest.raises(FileNotFoundError):
        load_win_value(str(tmp_path / "none.json"))


def test_the_search_reads_the_win_value(tmp_path) -> None:
    from ohmygoods_agents.gumbel import GumbelAgent, NetworkEvaluator

    net, path = _fitted_checkpoint(tmp_path)
    ppo = make_agent("ppo")
    g = Game(2, seed=8)
    ev = NetworkEvaluator(ppo, value=net)
    assert not ev.shared_trunk
    _, values = ev(_model(g))
    with torch.no_grad():
        want = torch.sigmoid(net.v(net.features(torch.from_numpy(np.stack([g.observe(0), g.observe(1)]))))).squeeze(1)
    assert np.allclose(values, want.double().numpy())
    # a value that is ppo with another head shares ppo's trunk pass
    import copy

    head = copy.deepcopy(ppo.net)
    with torch.no_grad():
        head.v.weight.zero_()
        head.v.bias.fill_(-1.0)
    shared = NetworkEvaluator(ppo, value=head)
    assert shared.shared_trunk and np.allclose(shared(_model(g))[1], 1 / (1 + np.exp(1.0)))
    agent = GumbelAgent(ppo, 4, seed=2, value=str(path))
    p = g.current_player
    a = agent.act(g.observe(p), g.legal_mask(), info_state_of(g.state, p))
    assert g.legal_mask()[a] and 0.0 <= agent.last_search.value <= 1.0
    with pytest.raises(TypeError, match="win logit"):
        NetworkEvaluator(ppo, value=make_agent("heuristic"))


def _model(g):
    from ohmygoods_env.game_spec import OhMyGoodsModel

    return OhMyGoodsModel(g.clone())


def test_the_target_with_a_win_value_ignores_hidden_information(tmp_path) -> None:
    """Twins (same information state, other hidden cards and RNG word): the same improved policy, value and
    action with a win value of its own trunk, as with ppo's head."""
    from ohmygoods_agents.gumbel import GumbelAgent

    torch.manual_seed(3)
    value = SlotNet(hidden=16, embed=4).eval()
    with torch.no_grad():
        value.v.weight.normal_(0, 1.0)
    ppo = make_agent("ppo")
    twins = list(hidden_twins(3, 3, players=(2,), rules=("omg2",), game_seed=700, max_moves=120, tries=40))
    assert len(twins) >= 2
    for g, h, me in twins:
        found = []
        for game in (g, h):
            agent = GumbelAgent(ppo, 8, seed=21, value=value)
            a = agent.act(game.observe(me), game.legal_mask(), info_state_of(game.state, me))
            found.append((a, agent.last_search))
        (a, s), (b, t) = found
        assert a == b and s.value == t.value
        assert np.array_equal(s.policy, t.policy) and np.array_equal(s.q, t.q)


def test_the_match_command_reads_a_win_value_and_refuses_a_bad_one(tmp_path, capsys) -> None:
    from ohmygoods_training import gumbel as gcli

    _, path = _fitted_checkpoint(tmp_path)
    out = tmp_path / "r.json"
    args = ["match", "--agent", "gumbel:2", "--opponent", "random", "--games", "2", "--seed", "3"]
    assert gcli.main([*args, "--value", str(path), "--gumbel-scale", "0", "--out", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["games"] == 2 and r["value"] == str(path) and r["gumbel_scale"] == 0.0
    with pytest.raises(SystemExit) as exc:
        gcli.main([*args, "--value", str(tmp_path / "missing.json"), "--out", str(tmp_path / "no.json")])
    assert exc.value.code == 2 and "--value" in capsys.readouterr().err and not (tmp_path / "no.json").exists()


def test_fit_command_refuses_a_missing_data_file(tmp_path, capsys) -> None:
    assert vh.main(["fit", "--data", str(tmp_path / "none.npz"), "--out", str(tmp_path / "w")]) == 2
    assert "no such positions file" in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_the_gumbel_loop_searches_with_a_win_value_and_refuses_a_bad_one(tmp_path, capsys) -> None:
    """``gumbel train --value``: the self-play search reads the frozen win value (the samples' search values are
    its win shares), and a missing file exits 2 with one line before any game."""
    from ohmygoods_training import gumbel as gcli

    net, path = _fitted_checkpoint(tmp_path)
    samples, _ = gcli.play_selfplay(net, games=1, sims=2, seed=4, value=str(path))
    plain, _ = gcli.play_selfplay(net, games=1, sims=2, seed=4)
    assert len(samples) > 0 and ((samples.value >= 0) & (samples.value <= 1)).all()
    n = min(len(samples), len(plain))
    assert not np.allclose(samples.value[:n], plain.value[:n])  # the values came from the win value
    out = tmp_path / "run"
    argv = ["train", "--sims", "2", "--games", "1", "--iterations", "1", "--eval-every", "1", "--eval-games", "2"]
    assert gcli.main([*argv, "--value", str(path), "--out", str(out), "--seed", "1"]) == 0
    assert (out / "it1.json").is_file()
    capsys.readouterr()
    missing = tmp_path / "none"
    assert gcli.main([*argv, "--value", str(tmp_path / "missing.json"), "--out", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"--value {tmp_path / 'missing.json'}:") and not missing.exists()
