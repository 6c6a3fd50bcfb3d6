"""A network from ``ohmygoods train --players 2`` is evaluated at 2 players only: the run writes its
player count at the top of every checkpoint's JSON, where ``ohmygoods evaluate`` reads it."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from ohmygoods_agents import evaluation as E  # noqa: E402

from ohmygoods_env.apps import cli  # noqa: E402

TINY = ["--prior", "none", "--total-steps", "20", "--num-envs", "4", "--n-steps", "4", "--eval-games", "2",
        "--eval-vs", "random", "--final-games", "0", "--no-progress"]  # fmt: skip


def _planned_counts(spec: str, monkeypatch) -> list[int]:
    """The player counts ``ohmygoods evaluate SPEC --quick`` plays, its games replaced by nothing."""
    played: list[int] = []

    def play(agent, protocol, tier, n, *args, **kwargs):
        played.append(n)
        return [], []

    monkeypatch.setattr(E, "play", play)
    monkeypatch.setattr(E, "report_section", lambda *a, **k: {})
    timing = {"decisions": 0, "wall_s": 0.0, "cpu_s": 0.0, "decision_s_mean": 0.0}
    monkeypatch.setattr(E, "timing_of", lambda *a, **k: dict(timing))
    report = E.evaluate(spec, "quick", progress=False)
    assert list(report["players"]) == [str(n) for n in played]
    return played


def test_a_2_player_training_run_is_evaluated_at_2_players_only(tmp_path, monkeypatch):
    out = tmp_path / "quick"
    assert cli.main(["train", "--players", "2", *TINY, "--out", str(out)]) == 0
    for name in ("final", "best", "last"):
        assert json.loads((out / f"{name}.json").read_text())["players"] == 2, name
    assert E.agent_player_counts(f"ppo:{out / 'final.json'}") == (2,)
    assert _planned_counts(f"ppo:{out / 'final.json'}", monkeypatch) == [2]


def test_a_solo_run_with_a_warm_start_records_1_player_in_each_checkpoint(tmp_path, monkeypatch):
    out = tmp_path / "solo"
    argv = ["train", "--players", "1", *TINY, "--bc-games", "1", "--bc-epochs", "1", "--out", str(out)]
    assert cli.main(argv) == 0
    for name in ("final", "best", "bc"):
        assert json.loads((out / f"{name}.json").read_text())["players"] == 1, name
    assert _planned_counts(f"ppo:{out / 'bc.json'}", monkeypatch) == [1]
