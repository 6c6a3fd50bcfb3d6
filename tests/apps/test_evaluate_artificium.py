"""``ohmygoods evaluate --game artificium``: the smoke tier end to end, its leaderboard, and arguments refused with
what was expected (A1.1: 2 to 6 players)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ohmygoods_agents import evaluation as E

from ohmygoods_env.apps import cli

ROOT = Path(__file__).resolve().parents[2]


def _run(argv: list[str]) -> int:
    return cli.main(["evaluate", *argv])


def _refused(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        _run(argv)
    assert exc.value.code == 2
    return capsys.readouterr().err


def test_smoke_tier_end_to_end(tmp_path, capsys) -> None:
    out = tmp_path / "card"
    args = ["heuristic", "--game", "artificium", "--tier", "smoke", "--players", "2,3", "--workers", "1"]
    assert _run([*args, "--no-progress", "--no-plot", "--out", str(out)]) == 0
    report = E.read_report(out / "report.json")
    assert report["game"] == "artificium" and report["tier"] == "smoke" and sorted(report["players"]) == ["2", "3"]
    protocol = E.load_protocol(game="artificium")
    for n in (2, 3):
        rows = report["players"][str(n)]["opponents"]
        assert [r["opponent"] for r in rows] == list(protocol.ladder)
        assert all(r["games"] == n and r["wins"] + r["ties"] + r["losses"] == n for r in rows)
        assert report["players"][str(n)]["rating"] is not None
        games = [json.loads(x) for x in (out / f"games_{n}p.jsonl").read_text().splitlines()]
        assert {g["seed"] for g in games} == {protocol.deals[n][0]} and len(games) == 3 * n
    assert (out / "report.md").read_text() in capsys.readouterr().out
    err = _refused([*args, "--out", str(out)], capsys)  # the games are never overwritten
    assert "already holds games" in err


def test_bad_game_player_count_tier_and_agent_name_what_is_expected(capsys) -> None:
    err = _refused(["greedy", "--game", "chess"], capsys)
    assert "unknown game 'chess'" in err and "registered games are" in err and "'artificium'" in err
    for n in ("1", "7"):
        err = _refused(["greedy", "--game", "artificium", "--players", n], capsys)
        assert f"--players: {n} is not allowed for artificium: expected some of 2,3,4,5,6" in err
        assert "Artificium is played by 2 to 6 players" in err
    err = _refused(["greedy", "--game", "artificium", "--quick"], capsys)
    assert "unknown tier 'quick'" in err and "'smoke', 'standard'" in err
    err = _refused(["mcts-100", "--game", "artificium", "--tier", "smoke"], capsys)
    assert "unknown agent 'mcts-100' for Artificium" in err and "heuristic" in err
    err = _refused(["greedy", "--players", "5"], capsys)  # Oh my Goods!: 1 to 4
    assert "expected some of 1,2,3,4" in err


def test_leaderboard_of_artificium_keeps_to_its_own_game(tmp_path, capsys) -> None:
    cards, page = tmp_path / "cards", tmp_path / "lb.md"
    common = ["--game", "artificium", "--leaderboard", "--tier", "smoke", "--workers", "1", "--no-progress"]
    common += ["--reports", str(cards), "--markdown", str(page), "--games-dir", str(tmp_path / "games")]
    assert _run([*common, "--agents", "random,greedy", "--players", "2"]) == 0
    text = page.read_text()
    assert text.startswith("# Artificium leaderboard") and "(../evaluation.md)" in text
    assert "`ohmygoods evaluate --game artificium --leaderboard`" in text
    assert "## 2 players" in text and "## 3 players" not in text and "## 1 player" not in text
    assert "`random`" in text and "`greedy`" in text and "| vs random | vs greedy | vs heuristic |" in text
    assert "Not at the standard tier" in text and "artificium-v0" in text
    assert (tmp_path / "games" / "artificium-v0" / "greedy" / "games_2p.jsonl").exists()
    (cards / "heuristic.json").write_text((ROOT / "docs" / "leaderboard" / "heuristic.json").read_text())
    err = _refused([*common, "--agents", "heuristic", "--players", "2"], capsys)  # before any game is played
    assert "is a card of 'ohmygoods', not 'artificium'" in err
    assert not (tmp_path / "games" / "artificium-v0" / "heuristic").exists()
    err = _refused([*common, "--render-only"], capsys)
    assert "cannot show reports of other games" in err and "(ohmygoods)" in err


def test_an_agent_only_an_entry_point_offers_is_evaluated_by_name(tmp_path, monkeypatch, capsys) -> None:
    """``artificium.NAME`` of ohmygoods.game_agents (a trained agent's package): checked and played by name."""
    from importlib import metadata

    import ohmygoods_env.framework.agents as fa

    ep = metadata.EntryPoint("artificium.copycat", "ohmygoods_agents.artificium:heuristic", fa.ENTRY_POINT_GROUP)
    monkeypatch.setattr(fa.metadata, "entry_points", lambda group: [ep] if group == fa.ENTRY_POINT_GROUP else [])
    monkeypatch.setitem(fa._REGISTRY, "artificium", dict(fa._REGISTRY.get("artificium", {})))
    fa._REGISTRY["artificium"].pop("copycat", None)
    argv = ["copycat", "--game", "artificium", "--tier", "smoke", "--players", "2", "--workers", "1", "--no-plot"]
    assert _run([*argv, "--no-progress", "--out", str(tmp_path / "c")]) == 0
    report = E.read_report(tmp_path / "c" / "report.json")
    assert report["agent"] == "copycat" and report["players"]["2"]["opponents"][2]["opponent"] == "heuristic"
    assert "`copycat`" in capsys.readouterr().out
