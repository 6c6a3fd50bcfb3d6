"""``ohmygoods tournament --game artificium``: the round-robin runner on Artificium, by function and by shell."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ohmygoods_env.apps import tournament as A
from ohmygoods_env.artificium.engine import Game, GameRecord

ROOT = Path(__file__).resolve().parents[2]


def _run(out: Path, *argv: str) -> dict:
    base = ["--game", "artificium", "--out", str(out), "--no-progress", "--no-plots", "--workers", "1"]
    assert A.main([*base, "--bootstrap", "10", *argv]) == 0
    return json.loads((out / "summary.json").read_text())


def test_a_two_player_tournament_rotates_seats_and_records_replayable_games(tmp_path, capsys) -> None:
    s = _run(tmp_path / "t2", "--agents", "random,heuristic", "--games", "4", "--seed", "2")
    assert s["config"]["game"] == "artificium" and s["config"]["games"] == 4
    printed = capsys.readouterr().out
    assert "win rate of row vs column" in printed
    games = [json.loads(line) for line in (tmp_path / "t2" / "games.jsonl").read_text().splitlines()]
    assert sorted(g["seats"][0] for g in games) == ["heuristic", "heuristic", "random", "random"]
    for g in games:
        replayed = Game.replay(GameRecord.from_dict(g["record"]))
        assert replayed.done and replayed.scores() == g["scores"] and replayed.winners() == g["winners"]
    rates = {a["agent"]: a for a in s["agents"]}
    assert rates["heuristic"]["win_lo"] <= rates["heuristic"]["win_rate"] <= rates["heuristic"]["win_hi"]
    assert s["winrate_matrix"][1][0]["n"] == 4


def test_a_six_player_tournament(tmp_path) -> None:
    s = _run(tmp_path / "t6", "--agents", "random,greedy", "--players", "6", "--games", "1")
    assert s["config"]["players"] == 6 and s["config"]["games"] == 5  # lineups with both agents over 6 seats
    games = [json.loads(line) for line in (tmp_path / "t6" / "games.jsonl").read_text().splitlines()]
    assert all(len(g["scores"]) == 6 for g in games)
    assert sum(a["seats"] for a in s["agents"]) == 30


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "1"], "num_players must be in 2..6 for Artificium"),
        (["--players", "7"], "num_players must be in 2..6 for Artificium"),
        (["--agents", "random,mcts"], "unknown agent 'mcts' for Artificium"),
        (["--game", "nosuchgame"], "unknown game 'nosuchgame'"),
    ],
)
def test_bad_arguments_are_refused_before_playing(argv, message, tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        A.main(["--game", "artificium", *argv, "--out", str(tmp_path / "t"), "--no-progress"])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "t").exists()


def test_the_default_game_stays_oh_my_goods(tmp_path) -> None:
    out = tmp_path / "omg"
    argv = ["--agents", "random,greedy", "--games", "2", "--out", str(out), "--no-progress", "--no-plots"]
    assert A.main([*argv, "--workers", "1", "--bootstrap", "5"]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["config"]["game"] == "ohmygoods" and s["config"]["rules"] == "omg2"


def test_the_shell_command_plays_an_artificium_tournament(tmp_path) -> None:
    exe = shutil.which("ohmygoods")
    if exe is None:
        pytest.skip("the ohmygoods command is not installed (pip install -e .)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    out = tmp_path / "shell"
    cmd = [exe, "tournament", "--game", "artificium", "--agents", "random,greedy,heuristic", "--players", "3"]
    cmd += ["--games", "1", "--workers", "1", "--out", str(out), "--no-plots", "--no-progress"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "win rate of row vs column" in proc.stdout and "Artificium" in proc.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["config"]["game"] == "artificium" and len(s["agents"]) == 3
