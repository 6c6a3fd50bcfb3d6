"""``--game`` in every command, and no game named in the shared modules (issue 37, item 3).

The shared modules (the apps, the framework, the bench, the agents package's top level and
the training loops) ask a game's spec and tools (``GameSpec.tools`` -> ``GameTools``) what
differs, never compare a game's name; ``demo``, ``play``, ``fuzz`` and ``train`` run the
game's own implementation or refuse with one line; the tiers have one set of names.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from ohmygoods_env.apps import cli
from ohmygoods_env.framework import game as G

ROOT = Path(__file__).resolve().parents[2]
SHARED = [
    *sorted((ROOT / "ohmygoods_env" / "apps").rglob("*.py")),
    *sorted((ROOT / "ohmygoods_env" / "framework").rglob("*.py")),
    *sorted((ROOT / "ohmygoods_env" / "bench").rglob("*.py")),
    *sorted((ROOT / "agents").glob("*.py")),
    *sorted((ROOT / "training").glob("*.py")),
]
#: comparisons that stay, each with its reason (file, the text of the comparison)
ALLOWED = {
    # the bench table's rows of Oh my Goods!'s batch engine and envs are named "ohmygoods ..." by bench/engine.py
    # and bench/marl.py; their games/s come from that engine's decisions per game (every other row counts its own)
    ("ohmygoods_env/bench/suite.py", 'startswith("ohmygoods")'),
    # is_default_game(): whether a command needs no --game and a page no game's name (words a user types or
    # reads: the leaderboard's title and command, a report's heading), never what a game does
    ("ohmygoods_env/framework/game.py", "== default_game()"),
}


def _patterns() -> list[re.Pattern]:
    names = "|".join(re.escape(n) for n in G.game_names())
    quoted = rf"""["'](?:{names})["']"""
    return [
        re.compile(rf"(?:==|!=)\s*{quoted}"),
        re.compile(rf"{quoted}\s*(?:==|!=)"),
        re.compile(rf"\bin\s*[\(\[\{{][^)\]\}}]*{quoted}"),
        re.compile(rf"startswith\(\s*{quoted}\)"),
        re.compile(r"(?:==|!=)\s*(?:DEFAULT_GAME|default_game\(\))"),
        re.compile(r"(?:DEFAULT_GAME|default_game\(\))\s*(?:==|!=)"),
    ]


def _comparisons(text: str) -> list[str]:
    return [m.group(0) for p in _patterns() for m in p.finditer(text)]


def test_the_scan_finds_the_branches_the_shared_modules_had() -> None:
    """The scan flags each form the shared modules used before (so the next test can fail)."""
    for line in (
        'if game == "artificium":',
        "    if spec.name == DEFAULT_GAME:",
        "elif (getattr(args, 'game', None) or DEFAULT_GAME) != DEFAULT_GAME:",
        'if args.game == "ohmygoods":',
        'if name in ("ohmygoods", "goofspiel"):',
        'if r.name.startswith("ohmygoods"):',
    ):
        assert _comparisons(line), line
    assert not _comparisons('return dist_version("ohmygoods")') and not _comparisons("if game == self.kind.name:")


def test_no_shared_module_compares_a_game_name() -> None:
    found = []
    for path in SHARED:
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            for _hit in _comparisons(code):
                if not any(rel == f and text in code for f, text in ALLOWED):
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "a shared module branches on a game's name; ask its spec or game_tools():\n" + "\n".join(found)


def test_each_shipped_game_names_its_tools_and_reading_them_is_cheap() -> None:
    for name in ("ohmygoods", "artificium"):
        spec = G.game_spec(name)
        assert spec.tools is not None and isinstance(G.game_tools(name), G.GameTools)
    omg, art = G.game_tools("ohmygoods"), G.game_tools("artificium")
    assert omg.rules == ("omg2", "royal") and omg.search_agents == ("mcts",)
    assert omg.training_kit == "ohmygoods_training.ohmygoods_kit:OhMyGoodsKit"  # the one loop's OMG parts
    assert art.rules == () and art.search_agents == () and art.training_kit is None  # the kit of any game
    assert set(G.games_with("demo")) >= {"ohmygoods", "artificium"} and "artificium" not in G.games_with("play")
    assert callable(omg.load("warm")) and omg.load("checkpoints")()["ppo-3p"].name.endswith(".json")
    assert callable(art.load("checkpoint_layout")) and art.load("warm") is None


def test_one_line_of_a_spec_gives_a_game_the_frameworks_demo(capsys) -> None:
    """Goofspiel's spec names the shared demo and train in its tools object (``GameSpec.tools`` may be the object)."""
    tools = G.game_spec("goofspiel").tools
    assert isinstance(tools, G.GameTools)
    assert tools.commands == {
        "demo": "ohmygoods_env.apps.game_demo:main",
        "train": "ohmygoods_env.apps.game_train:main",
    }
    assert cli.main(["demo", "--game", "goofspiel", "--players", "3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Goofspiel demo: 3 players, seed 2, agents: random, random, random")
    assert "seat 2 (random)" in out


@pytest.fixture
def bare_game(monkeypatch) -> str:
    """A registered game with no tools (the framework's defaults): Artificium's rules under another name."""
    spec = dataclasses.replace(G.game_spec("artificium"), name="bare", title="Bare", tools=None, web=None)
    monkeypatch.setitem(G._GAMES, "bare", spec)
    monkeypatch.setitem(G._TOOLS, "bare", G.GameTools())
    return "bare"


@pytest.mark.parametrize("command", ["demo", "play", "fuzz", "train"])
def test_a_game_without_the_command_is_refused_in_one_line(command, bare_game, capsys) -> None:
    assert cli.main([command, "--game", bare_game, "--steps", "5"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert lines == [
        f"ohmygoods {command}: Bare (bare) has no {command}: games with one: {', '.join(G.games_with(command))}"
    ]
    assert captured.out == ""


def test_play_refuses_artificium_and_an_unknown_game_is_named(capsys) -> None:
    assert cli.main(["play", "--game", "artificium"]) == 2
    assert "Artificium (artificium) has no play: games with one: " in capsys.readouterr().err
    assert cli.main(["demo", "--game=chess"]) == 2
    assert "ohmygoods demo: --game chess: unknown game 'chess'" in capsys.readouterr().err


def test_demo_of_artificium_tells_a_game_between_its_agents(capsys) -> None:
    argv = ["demo", "--game", "artificium", "--players", "3", "--seed", "4", "--bots", "heuristic,greedy,random"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Artificium demo: 3 players, seed 4, agents: heuristic, greedy, random")
    assert "seat 0 (heuristic): " in out and "seat 1 (greedy): " in out and "seat 2 (random): " in out
    assert "round 1 of 4" in out and "round 4 of 4" in out and "final scores: " in out and "winners: " in out
    assert cli.main(argv) == 0 and capsys.readouterr().out == out  # the seed fixes the deal and the agents
    assert cli.main([*argv, "--quiet"]) == 0
    quiet = capsys.readouterr().out
    assert "seat 0 (heuristic)" not in quiet and quiet.strip().endswith(out.strip().splitlines()[-1])
    with pytest.raises(SystemExit) as exc:
        cli.main(["demo", "--game", "artificium", "--players", "7"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        cli.main(["demo", "--game", "artificium", "--bots", "exec:true"])
    assert exc.value.code == 2 and "--bots" in capsys.readouterr().err


def test_fuzz_of_artificium_plays_the_steps_asked(capsys) -> None:
    assert cli.main(["fuzz", "--game", "artificium", "--steps", "2000", "--players", "2,6"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"artificium fuzz: (\d+) games, (\d+) steps, players 2,6", out)
    assert m and int(m.group(2)) >= 2000 and "no invariant broken" in out
    with pytest.raises(SystemExit) as exc:
        cli.main(["fuzz", "--game", "artificium", "--players", "1"])
    assert exc.value.code == 2


def test_train_of_artificium_is_the_self_play_loop(capsys) -> None:
    pytest.importorskip("torch")
    with pytest.raises(SystemExit) as exc:
        cli.main(["train", "--game", "artificium", "--help"])
    assert exc.value.code == 0
    assert "usage: ohmygoods train --game artificium" in capsys.readouterr().out


def test_tier_names_are_every_games_and_quick_plays_the_standard_tier(tmp_path, monkeypatch, capsys) -> None:
    out = tmp_path / "smoke"
    argv = ["evaluate", "random", "--tier", "smoke", "--players", "2", "--workers", "1", "--no-plot", "--no-progress"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["game"] == "ohmygoods" and report["tier"] == "smoke" and report["players"]["2"]["tier"] == "smoke"
    assert [(r["opponent"], r["games"]) for r in report["players"]["2"]["opponents"]] == [
        ("random", 2), ("greedy", 2), ("heuristic", 2)
    ]  # fmt: skip
    from ohmygoods_agents import evaluation as E

    asked = []
    monkeypatch.setattr(E, "evaluate", lambda spec, tier, *a, **k: asked.append(tier))  # plays nothing: status 1
    for flag in (["--quick"], ["--tier", "quick"], ["--tier", "standard"]):
        assert cli.main(["evaluate", "random", *flag, "--players", "2", "--out", str(tmp_path / "q")]) == 1
    assert asked == ["standard"] * 3
    with pytest.raises(SystemExit) as exc:
        cli.main(["evaluate", "random", "--game", "artificium", "--quick"])
    assert exc.value.code == 2 and "unknown tier 'quick': the protocol of artificium has" in capsys.readouterr().err


def test_tournament_rules_are_the_games_own(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["tournament", "--game", "artificium", "--rules", "royal", "--out", str(tmp_path / "t")])
    assert exc.value.code == 2
    assert "--rules royal: Artificium (artificium) has none: it has one rule set" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli.main(["tournament", "--rules", "omg3", "--out", str(tmp_path / "t")])
    assert exc.value.code == 2 and "has one of omg2, royal" in capsys.readouterr().err
    assert not (tmp_path / "t").exists()
