"""``ohmygoods evaluate``: the report files, refusing to overwrite games, --compare, --leaderboard, exec agents."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from ohmygoods_agents import evaluation as E

from ohmygoods_env.apps import cli

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "external_agent.py"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    data = json.loads(E.PROTOCOL_FILE.read_text())
    data["tiers"]["tiny"] = {"1": {"solo": 2}, "2": {"random": 2, "heuristic": 1}}
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(data))
    return path


def _run(argv: list[str]) -> int:
    return cli.main(["evaluate", *argv])


def test_evaluate_writes_the_report_card_and_never_overwrites_games(tiny, tmp_path, capsys) -> None:
    out = tmp_path / "card"
    args = ["greedy", "--protocol", str(tiny), "--tier", "tiny", "--players", "1,2", "--workers", "1", "--no-progress"]
    assert _run([*args, "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["schema"] == E.SCHEMA and report["tier"] == "tiny" and sorted(report["players"]) == ["1", "2"]
    assert (out / "report.md").read_text() in capsys.readouterr().out
    assert (out / "games_2p.jsonl").exists() and (out / "report.png").exists()
    with pytest.raises(SystemExit) as exc:
        _run([*args, "--out", str(out)])
    assert exc.value.code == 2 and "already holds games" in capsys.readouterr().err
    assert _run([*args, "--out", str(out), "--resume", "--no-plot"]) == 0  # every game kept: nothing replayed
    again = json.loads((out / "report.json").read_text())
    assert E.without_timing(again) == E.without_timing(report)
    assert _run(["--compare", str(out / "report.json"), str(out / "report.json")]) == 0
    text = capsys.readouterr().out
    assert "| 2 | win rate vs random |" in text and "**yes**" not in text


def test_leaderboard_merges_player_counts_and_renders_every_card(tiny, tmp_path, capsys) -> None:
    common = ["--leaderboard", "--protocol", str(tiny), "--tier", "tiny", "--workers", "1", "--no-progress"]
    common += ["--reports", str(tmp_path / "cards"), "--markdown", str(tmp_path / "lb.md")]
    common += ["--games-dir", str(tmp_path / "games")]
    assert _run([*common, "--agents", "greedy,mcts-20", "--players", "2"]) == 0
    page = (tmp_path / "lb.md").read_text()
    assert "`greedy`" in page and "`mcts-20`" in page and "## 2 players" in page and "## 1 player" not in page
    card = json.loads((tmp_path / "cards" / "mcts-20.json").read_text())
    assert card["agent"] == "mcts" and card["agent_kwargs"] == {"sims": 20, "seconds": None}
    assert _run([*common, "--agents", "greedy", "--players", "1"]) == 0  # replaces only 1 player
    merged = json.loads((tmp_path / "cards" / "greedy.json").read_text())
    assert sorted(merged["players"]) == ["1", "2"]
    page = (tmp_path / "lb.md").read_text()
    assert "## 1 player" in page and "`mcts-20`" in page
    assert _run([*common, "--render-only"]) == 0


def test_a_failing_external_agent_exits_1_and_keeps_the_games(tiny, tmp_path, capsys) -> None:
    counter = tmp_path / "n"
    counter.write_text("0")
    script = tmp_path / "flaky.py"
    script.write_text(
        "import json, sys\n"
        f"n = int(open({str(counter)!r}).read()) + 1; open({str(counter)!r}, 'w').write(str(n))\n"
        "for line in sys.stdin:\n    m = json.loads(line)\n"
        "    if m['type'] == 'act':\n        print(m['legal'][0] if n < 2 else 9999, flush=True)\n"
    )
    out = tmp_path / "ext"
    argv = [f"exec:{sys.executable} {script}", "--protocol", str(tiny), "--tier", "tiny", "--players", "2"]
    assert _run([*argv, "--workers", "1", "--no-progress", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "illegal action 9999" in err and "--resume" in err
    assert len((out / "games_2p.jsonl").read_text().splitlines()) == 1


def test_the_example_external_agent_plays_a_tournament(tmp_path, capsys) -> None:
    out = tmp_path / "t"
    argv = ["tournament", "--agents", f"exec:{sys.executable} {EXAMPLE},random", "--games", "2", "--workers", "1"]
    assert cli.main([*argv, "--no-progress", "--no-plots", "--bootstrap", "0", "--out", str(out)]) == 0
    games = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert len(games) == 2 and all(g["decisions"] > 10 for g in games)
