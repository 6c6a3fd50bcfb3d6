"""The Gumbel self-play loop (``python -m ohmygoods_training.gumbel``): its samples, its update, its files."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from ohmygoods_training import gumbel as G  # noqa: E402
from ohmygoods_training.fast_ppo import init_path, load_net  # noqa: E402

from ohmygoods_env.policy import make_agent  # noqa: E402


def _ppo():
    return load_net(init_path("ppo"))


def test_selfplay_samples_hold_the_search_targets() -> None:
    samples, info = G.play_selfplay(_ppo(), games=1, sims=2, seed=3)
    n = len(samples)
    assert n == info["decisions"] > 30 and info["steps"] >= n
    assert np.allclose(samples.policy.sum(1), 1.0, atol=1e-5)
    assert not (samples.policy[~samples.mask] > 0).any()  # no mass on an illegal action
    assert (samples.mask.sum(1) > 1).all()  # forced decisions give no sample
    assert set(np.unique(samples.result)) <= {0.0, 0.5, 1.0} and ((samples.value >= 0) & (samples.value <= 1)).all()
    assert (samples.prior >= 0).all() and samples.mask[np.arange(n), samples.prior].all()  # the heuristic's choice
    # both seats' decisions are recorded, with opposite results unless tied
    assert len(np.unique(samples.result)) in (1, 2)


def test_an_update_moves_the_policy_toward_the_target_and_the_value_toward_the_result() -> None:
    net = _ppo()
    data, _ = G.play_selfplay(net, games=1, sims=2, seed=4)
    rng = np.random.default_rng(0)
    target = np.zeros_like(data.policy)  # a target far from the network: a random legal action each
    for i, m in enumerate(data.mask):
        target[i, rng.choice(np.flatnonzero(m))] = 1.0
    data.policy = target
    data.result = np.ones_like(data.result)
    data.value = np.ones_like(data.value)
    cfg = G.GumbelConfig(lr=1e-3)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    idx = np.arange(len(data))
    first = G.train_step(net, opt, data, idx, cfg)
    for _ in range(15):
        last = G.train_step(net, opt, data, idx, cfg)
    assert last["policy_loss"] < first["policy_loss"] - 0.2
    assert last["value_loss"] < first["value_loss"]


def test_the_loop_writes_checkpoints_and_a_curve(tmp_path) -> None:
    out = tmp_path / "run"
    argv = ["train", "--sims", "2", "--games", "1", "--iterations", "2", "--eval-every", "1", "--eval-games", "4"]
    assert G.main([*argv, "--out", str(out), "--seed", "2"]) == 0
    rows = list(csv.DictReader(open(out / "eval.csv")))
    assert [int(r["iteration"]) for r in rows] == [0, 1, 2]
    assert int(rows[-1]["decisions"]) > int(rows[1]["decisions"]) > 0 and float(rows[-1]["cpu_s"]) > 0
    agent = make_agent(f"ppo:{out / 'last.json'}", seed=0)  # the one checkpoint format, loaded by name
    shipped = make_agent("ppo")
    trained = agent.tensors()
    assert any(not np.array_equal(trained[k], v) for k, v in shipped.tensors().items())
    assert (out / "it0.json").is_file() and (out / "it2.json").is_file()


def test_bad_options_exit_2_and_write_nothing(tmp_path, capsys) -> None:
    out = tmp_path / "none"
    assert G.main(["train", "--outcome-weight", "1.5", "--out", str(out)]) == 2
    assert "--outcome-weight 1.5" in capsys.readouterr().err and not out.exists()
    with pytest.raises(SystemExit) as e:
        G.main(["cost", "--sims", "8,x"])
    assert e.value.code == 2


def test_calibrate_fits_the_win_share_map(capsys) -> None:
    """The fit behind VALUE_SLOPE and VALUE_BIAS: with the potential added the value tells the winner (a
    cross-entropy below coin flips' 0.693 and below the raw value's)."""
    assert G.main(["calibrate", "--games", "3", "--seed", "900000"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["samples"] > 300 and out["slope"] > 0
    assert out["cross_entropy"] < out["raw_value_cross_entropy"] and out["cross_entropy"] < 0.69
