"""Smoke test of ``ohmygoods_training.train_ppo`` (``ohmygoods train --algo maskable-ppo``): a tiny run
writes checkpoints, eval rows and ``final.json`` in the safe format, and resumes."""

from __future__ import annotations

import contextlib
import csv
import json

import pytest

pytest.importorskip("sb3_contrib")

from ohmygoods_training import train_ppo  # noqa: E402

pytestmark = pytest.mark.training

TINY = [
    "--num-envs", "8", "--n-steps", "64", "--batch-size", "128", "--n-epochs", "1",
    "--net-arch", "32", "--eval-every", "512", "--eval-games", "4", "--opponents", "random,greedy,snapshot",
    "--eval-opponents", "random,greedy", "--best-vs", "greedy", "--seed", "3", "--final-games", "4", "--no-progress",
]  # fmt: skip


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_train_resume_and_evaluate(tmp_path):
    out = tmp_path / "run"
    assert train_ppo.main([*TINY, "--total-steps", "1024", "--out", str(out)]) == 0
    for name in ("last.zip", "best.zip", "eval.csv", "run.json", "checkpoints/step_512.zip", "final.json"):
        assert (out / name).exists(), name
    rows = _rows(out / "eval.csv")
    assert {r["opponent"] for r in rows} == {"random", "greedy"}
    assert {int(r["timesteps"]) for r in rows} == {512, 1024}
    for r in rows:
        assert 0.0 <= float(r["ci_low"]) <= float(r["win_rate"]) <= float(r["ci_high"]) <= 1.0
    run = json.loads((out / "run.json").read_text())
    assert run["timesteps"] == 1024
    assert [r["opponent"] for r in run["final"]["evaluation"]] == ["random", "greedy"]
    assert list((out / "tb").rglob("events.out.tfevents.*"))

    # resume: the step counter goes on, the CSV grows
    args = [*TINY, "--total-steps", "1536", "--out", str(out), "--resume", str(out / "last.zip"), "--trust-pickle"]
    assert train_ppo.main(args) == 0
    assert json.loads((out / "run.json").read_text())["timesteps"] == 1536
    assert max(int(r["timesteps"]) for r in _rows(out / "eval.csv")) == 1536

    # the checkpoint, exported to the safe format, plays as an agent of the registry and through
    # the evaluation script
    from ohmygoods_agents import make_agent
    from ohmygoods_training import evaluate
    from ohmygoods_training.export import main as export_main

    assert export_main(["sb3", str(out / "last.zip"), str(tmp_path / "small.json")]) == 0
    small = tmp_path / "small.json"
    agent = make_agent(f"ppo:{small}")
    from ohmygoods_env import Game

    g = Game(2, seed=1)
    a = agent.act(g.observe(g.current_player), g.legal_mask())
    assert g.legal_mask()[a]
    res_dir = tmp_path / "eval"
    assert (
        evaluate.main([str(small), "--games", "4", "--engine", "batch", "--out", str(res_dir), "--run-dir", str(out)])
        == 0
    )
    # the run's own final.json is what the docs evaluate: no opt-in needed, unlike the zip
    assert evaluate.main([str(out / "final.json"), "--games", "4", "--engine", "batch", "--out", str(res_dir)]) == 0
    assert evaluate.main([str(out / "best.zip"), "--games", "4", "--out", str(res_dir)]) == 2
    assert (res_dir / "results.json").exists() and (res_dir / "learning_curve.png").exists()


@pytest.mark.parametrize("spec", ["random,snapshot", "random,self"])
def test_a_league_with_snapshots_starts_with_one(tmp_path, monkeypatch, spec):
    """The SB3 loop freezes its first snapshot before learning when the league has snapshots
    (``snapshot``, or its old spelling ``self``), so snapshot games never wait for the first evaluation."""
    from ohmygoods_training.league import OpponentPool

    added = []
    real = OpponentPool.add_snapshot
    monkeypatch.setattr(OpponentPool, "add_snapshot", lambda pool, policy: added.append(1) or real(pool, policy))
    args = [*TINY, "--opponents", spec, "--n-steps", "8", "--batch-size", "64", "--eval-every", "100000"]
    with pytest.warns(DeprecationWarning) if "self" in spec else contextlib.nullcontext():
        assert train_ppo.main([*args, "--total-steps", "64", "--final-games", "0", "--out", str(tmp_path / "r")]) == 0
    assert added == [1]
