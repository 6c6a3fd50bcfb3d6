"""``ohmygoods demo``: the narrated game between bots, through the command and the dispatcher."""

from __future__ import annotations

import re

import pytest

from ohmygoods_env.apps import cli, demo
from ohmygoods_env.engine import Game
from ohmygoods_env.render import final_scores_text


def test_demo_quiet_prints_only_final_scores(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--quiet", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "Final scores (R8.3):" in out
    assert "player 0:" in out and "player 1:" in out and "VP" in out
    assert re.search(r"winner: player [01]|shared win|all players tie", out)
    assert "Round 1" not in out
    g = Game(2, "omg2", seed=5, auto_forced=False)
    bots, _ = demo.make_bots(g, 5)
    demo.play(g, bots, quiet=True)
    assert final_scores_text(g) in out  # the printed scores are those of the game played


def test_demo_tells_the_game_round_by_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--players", "3", "--rules", "royal", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "3 players, rules royal, seed 7" in out
    rounds = re.findall(r"^Round (\d+) \(active player \d\)$", out, flags=re.M)
    assert rounds and [int(r) for r in rounds] == list(range(1, len(rounds) + 1))
    assert out.count("  market   row 1:") >= len(rounds) - 1
    assert "worker to" in out and "standing" in out and "Buildings:" in out
    assert "I       player" not in out  # royal: no discard-all decision in phase I (§9)
    assert "Final scores (R8.3):" in out
    assert max(len(line) for line in out.splitlines()) <= 120
    assert demo.main(["--players", "3", "--rules", "royal", "--seed", "7"]) == 0
    assert capsys.readouterr().out == out  # same seed, same game, same account


def test_demo_via_cli_and_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--players", "4", "--quiet"]) == 0
    assert "player 3:" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        demo.main(["--players", "5"])
    assert exc.value.code == 2


def test_random_bot_plays_legal_actions() -> None:
    g = Game(2, seed=3)
    bot = demo.random_bot(1)
    for _ in range(50):
        a = bot(g)
        assert g.legal_mask()[a] == 1
        g.step(a)


def test_demo_bots_come_from_the_agent_registry(capsys: pytest.CaptureFixture[str]) -> None:
    g = Game(2, seed=1, auto_forced=False)
    bots, names = demo.make_bots(g, 1, ["random", "heuristic"])
    assert names == "random, heuristic"
    demo.play(g, bots, quiet=True)
    assert g.done
    with pytest.raises(ValueError, match="give one agent or 2 agents"):
        demo.make_bots(g, 1, ["random", "random", "random"])
    with pytest.raises(SystemExit) as exc:
        demo.main(["--bots", "nobody"])
    assert exc.value.code == 2 and "unknown agent" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("players", "rules", "variants"),
    [(1, "omg2", ["--two-for-one"]), (2, "omg2", ["--keep-one", "--two-for-one"]), (3, "royal", ["--two-for-one"])],
)
def test_demo_plays_solo_and_the_variants(players, rules, variants, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--players", str(players), "--rules", rules, "--seed", "2", "--quiet", *variants]
    assert demo.main(argv) == 0
    out = capsys.readouterr().out
    switched = [v.removeprefix("--").replace("-", "_") for v in variants]
    seats = "solo" if players == 1 else f"{players} players"
    assert f"{seats}, rules {rules}, variants {', '.join(switched)}, seed 2" in out
    g = Game(players, rules, seed=2, auto_forced=False, **dict.fromkeys(switched, True))
    bots, _ = demo.make_bots(g, 2)
    demo.play(g, bots, quiet=True)
    assert final_scores_text(g) in out and f"player {players - 1}:" in out and f"player {players}:" not in out


def test_demo_refuses_keep_one_with_royal(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        demo.main(["--rules", "royal", "--keep-one"])
    assert exc.value.code == 2 and "--keep-one: keep_one (R10.1) needs omg2" in capsys.readouterr().err
