"""The ``ohmygoods`` command: help with defaults and text for every option, --version, quiet closed
pipes, usage errors before any work, and the first-use compile notice."""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ohmygoods_env.apps import bench, cli, common, demo, evaluate, fuzz, play, replay, serve, tournament

ROOT = Path(__file__).resolve().parents[2]
PARSERS = {
    "demo": demo._parser,
    "play": play._parser,
    "serve": serve._parser,
    "replay": replay._parser,
    "tournament": tournament._parser,
    "evaluate": evaluate._parser,
    "bench": bench._parser,
    "fuzz": fuzz._parser,
}


def _train_parser(name: str):
    pytest.importorskip("ohmygoods_training.train_ppo")
    from ohmygoods_training import train_ppo

    from ohmygoods_env.apps import train

    return train.build_parser() if name == "train" else train_ppo.build_parser("ohmygoods train --algo maskable-ppo")


@pytest.mark.parametrize("name", [*PARSERS, "train", "train-maskable-ppo"])
def test_every_option_has_help_text_and_help_shows_defaults(name) -> None:
    ap = _train_parser(name) if name.startswith("train") else PARSERS[name]()
    assert issubclass(ap.formatter_class, argparse.ArgumentDefaultsHelpFormatter)
    for action in ap._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"ohmygoods {name}: {action.option_strings or action.dest} has no help text"
    text = ap.format_help()
    shown = [a for a in ap._actions if a.default not in (None, False, argparse.SUPPRESS) and a.option_strings]
    assert shown and text.count("(default:") >= len(shown)


@pytest.mark.parametrize("name", PARSERS)
def test_help_states_each_default_once(name) -> None:
    ap = PARSERS[name]()
    formatter = ap._get_formatter()
    for action in ap._actions:
        if action.help and action.option_strings:
            text = formatter._expand_help(action)
            assert text.lower().count("default") <= 1, f"ohmygoods {name} {action.option_strings[0]}: {text!r}"


def test_the_defaults_formatter_adds_no_second_default() -> None:
    ap = common.parser("x", "x")
    ap.add_argument("--a", default=3, help="a number")
    ap.add_argument("--b", default=4, help="a number (default 4, or 5 with --a)")
    help_of = {a.dest: ap._get_formatter()._expand_help(a) for a in ap._actions if a.dest in "ab"}
    assert help_of == {"a": "a number (default: 3)", "b": "a number (default 4, or 5 with --a)"}


def test_the_dispatcher_lists_commands_and_prints_the_version(capsys) -> None:
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert f"  {name} " in out
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"ohmygoods {cli.version()}"
    assert cli.version().count(".") >= 1
    assert cli.main(["nosuch"]) == 2
    assert "unknown command 'nosuch'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fuzz", "--players", ","], "--players: expected a comma list"),
        (["fuzz", "--rules", ","], "--rules: expected a comma list"),
        (["fuzz", "--players", "2,5"], "5 is not allowed"),
        (["fuzz", "--rules", "omg2,deluxe"], "unknown 'deluxe'"),
        (["fuzz", "--steps", "-5"], "--steps: expected an integer >= 1, got -5"),
        (["fuzz", "--batch", "0"], "--batch: expected an integer >= 1, got 0"),
        (["fuzz", "--max-rounds", "0"], "--max-rounds: expected an integer >= 1, got 0"),
        (["fuzz", "--threads", "0"], "--threads"),
        (["tournament", "--games", "0"], "--games: expected an integer >= 1, got 0"),
        (["tournament", "--bootstrap", "-1"], "--bootstrap: expected an integer >= 0, got -1"),
        (["demo", "--players", "5"], "--players"),
        (["evaluate", "nobody"], "unknown agent 'nobody'"),
        (["evaluate", "random", "--players", "5"], "5 is not allowed"),
        (["evaluate", "random", "--tier", "huge"], "unknown tier 'huge'"),
        (["evaluate"], "name an AGENT"),
        (["evaluate", "exec:no-such-program-x"], "no program 'no-such-program-x'"),
        (["demo", "--bots", "nobody"], "unknown agent"),
        (["bench", "--seconds", "0"], "--seconds"),
        (["bench", "--sizes", "4,x"], "--sizes"),
        (["serve", "--port", "70000"], "--port must be at most 65535"),
        (["replay", "nofile.jsonl", "--index", "-1"], "--index: expected an integer >= 0"),
    ],
)
def test_usage_errors_exit_2_with_a_message_before_any_work(argv, message, capsys, monkeypatch) -> None:
    monkeypatch.setattr(common, "_touch_engine", lambda: pytest.fail("compiled before checking the arguments"))
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train", "--players", "5"], "--players"),
        (["train", "--lr", "fast"], "--lr"),
        (["train", "--recipe", "nosuch"], "unknown recipe 'nosuch': expected one of artificium-ppo, ppo, ppo-3p"),
        (["train", "--recipe", "ppo", "--lr", "1e-3"], "--recipe ppo fixes the run's options; --lr cannot go with it"),
        (["train", "--algo", "maskable-ppo", "--net-arch", "abc"], "--net-arch: expected layer sizes"),
        (["train", "--algo", "nosuch"], "--algo"),
    ],
)
def test_train_usage_errors(argv, message, capsys) -> None:
    pytest.importorskip("ohmygoods_training.train_ppo")
    try:  # argparse's own errors raise SystemExit(2); the run's input checks return 2
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_train_plans_the_fast_loop_with_its_speed(capsys) -> None:
    pytest.importorskip("ohmygoods_training.train_ppo")
    from ohmygoods_env.apps.train import RATES

    assert cli.main(["train"]) == 0  # no arguments: the plan of the default run, nothing started
    err = capsys.readouterr().err
    for text in ("fast masked PPO", "heuristic prior", "league: self:0.3,snapshot:0.2,heuristic:0.5",
                 "1,000,000 learner decisions", f"~{RATES[(True, 2)]:,.0f} decisions/s", "nothing started",
                 "ppo:runs/train/final.json"):  # fmt: skip
        assert text in err, text
    # the defaults follow the shipped agent's run for --players; --minutes bounds the expected decisions
    assert cli.main(["train", "--players", "3", "--minutes", "2", "--out", "x", "--plan"]) == 0
    err = capsys.readouterr().err
    expected = int(RATES[(True, 3)] * 120)
    assert expected < 1_000_000  # below the default cap of decisions: the minutes bound it
    assert "league: self:0.2,snapshot:0.1,heuristic:0.7" in err and f"about {expected:,} decisions in 2 minutes" in err
    assert cli.main(["train", "--players", "1", "--plan"]) == 0
    assert "warm start: clone 2,000 games of heuristic" in capsys.readouterr().err
    assert cli.main(["train", "--algo", "maskable-ppo", "--total-steps", "5000", "--out", "x", "--plan"]) == 0
    err = capsys.readouterr().err
    assert "MaskablePPO" in err and "5,000 learner steps" in err and "final.json" in err


def test_train_recipe_plan_chains_the_stages_and_caps_the_minutes(capsys) -> None:
    pytest.importorskip("ohmygoods_training.train_ppo")
    from ohmygoods_training import recipe as R

    assert cli.main(["train", "--recipe", "ppo-3p", "--minutes", "5", "--out", "x", "--plan"]) == 0
    err = capsys.readouterr().err
    stages = [line.strip().split() for line in err.splitlines() if "ohmygoods_training.fast_ppo" in line]
    assert len(stages) == 2
    assert R.option(stages[0], "--out") == "x/prior" and R.option(stages[1], "--init") == "x/prior/best.json"
    assert sum(float(R.option(s, "--max-minutes")) for s in stages) == pytest.approx(5, abs=0.01)


def test_a_recipe_takes_league_workers_into_every_stage(capsys) -> None:
    """--league-workers plays the same moves in other processes: a recipe takes it (its stages run with it)."""
    pytest.importorskip("ohmygoods_training.train_ppo")
    from ohmygoods_training import recipe as R

    assert cli.main(["train", "--recipe", "ppo-3p", "--league-workers", "3", "--out", "x", "--plan"]) == 0
    stages = [line.split() for line in capsys.readouterr().err.splitlines() if "ohmygoods_training.fast_ppo" in line]
    assert len(stages) == 2 and all(R.option(s, "--league-workers") == "3" for s in stages)


def test_bench_train_dispatches_to_the_training_benchmark(capsys, monkeypatch) -> None:
    import ohmygoods_training
    from ohmygoods_training import bench_train

    calls = []
    monkeypatch.setattr(bench_train, "main", lambda argv: calls.append(argv) or 0)
    assert cli.main(["bench", "--train", "--iters", "1"]) == 0
    assert calls == [["--iters", "1"]]
    monkeypatch.delattr(ohmygoods_training, "bench_train")  # the train extra missing: a clear message
    monkeypatch.setitem(sys.modules, "ohmygoods_training.bench_train", None)
    assert cli.main(["bench", "--train"]) == 2
    assert "needs the 'train' extra" in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        f"{sys.executable} -m ohmygoods_env demo --players 4 --seed 2 | head -n 3",
        shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0
    assert len(proc.stdout.splitlines()) == 3
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_the_compile_notice_appears_only_with_a_cold_cache(monkeypatch) -> None:
    """The commands ask the library's own check (framework.jit.cache_cold over the engine's entry kernels)."""
    from ohmygoods_env import engine
    from ohmygoods_env.framework import jit

    asked = []
    monkeypatch.setattr(jit, "cache_cold", lambda kernels: asked.append(tuple(kernels)) or True)
    monkeypatch.setattr(jit, "_TOLD", set())
    monkeypatch.setattr(jit, "_SEEN", set())
    monkeypatch.setattr(common, "_touch_engine", lambda: None)
    assert common.engine_cache_cold()
    out = io.StringIO()
    common.warm_engine(out)
    assert common.COMPILE_NOTICE in out.getvalue() and "done in" in out.getvalue()
    assert asked == [engine.ENTRY_KERNELS] * 2
    monkeypatch.setattr(jit, "cache_cold", lambda kernels: False)
    monkeypatch.setattr(jit, "_TOLD", set())
    monkeypatch.setattr(jit, "_SEEN", set())
    assert not common.engine_cache_cold()
    out = io.StringIO()
    common.warm_engine(out)
    assert out.getvalue() == ""


EXTRA = "pip install 'ohmygoods[play]'"


@pytest.mark.parametrize("missing", ["torch", "safetensors"])
def test_a_core_install_is_told_which_extra_plays_the_networks(missing, monkeypatch, capsys) -> None:
    """Without torch or safetensors, every way to a policy agent names the extra, in the form for a wheel."""
    from ohmygoods_env.envs.gym_env import OhMyGoodsEnv
    from ohmygoods_env.framework.agents import make_agent as make_game_agent
    from ohmygoods_env.policy import make_agent

    monkeypatch.setitem(sys.modules, missing, None)  # what a core install has
    for build in (
        lambda: make_agent("ppo"),
        lambda: make_agent("ppo-3p"),
        lambda: make_agent(f"ppo:{ROOT / 'agents' / 'checkpoints' / 'ppo_2p.json'}"),
        lambda: make_game_agent("artificium", "ppo"),
        lambda: OhMyGoodsEnv(opponents="ppo"),
    ):
        with pytest.raises(ImportError, match=re.escape(EXTRA)) as err:
            build()
        assert f"'{missing}' is not installed" in str(err.value)
    for argv in (["demo", "--bots", "ppo"], ["evaluate", "ppo", "--quick"]):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert EXTRA in err and "Traceback" not in err, argv


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bars_are_drawn_on_a_terminal_only() -> None:
    from ohmygoods_env.framework.progress import on_terminal, progress_bar

    for stream, enabled, drawn in (
        (_Terminal(), True, True),
        (_Terminal(), False, False),
        (io.StringIO(), True, False),
    ):
        bar = progress_bar(3, enabled=enabled, file=stream, unit="game")
        bar.update(3)
        bar.close()
        assert ("3/3" in stream.getvalue()) is drawn, (type(stream).__name__, enabled)
    closed = io.StringIO()
    closed.close()
    assert not on_terminal(closed)


@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "--agents", "random,greedy", "--games", "2", "--workers", "1", "--no-plots", "--out", "t"],
        ["evaluate", "random", "--game", "artificium", "--tier", "smoke", "--workers", "1", "--no-plot", "--out", "e"],
    ],
)
def test_no_progress_bar_lands_in_a_redirected_stderr(argv, tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(tmp_path / "stderr.txt", "w") as err:
        subprocess.run(
            [sys.executable, "-m", "ohmygoods_env", *argv], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
            stderr=err, check=True, timeout=300,
        )  # fmt: skip
    text = (tmp_path / "stderr.txt").read_text()
    assert "\r" not in text and "game/s" not in text and "%|" not in text, text[:300]


@pytest.mark.parametrize("name", [*PARSERS, "train", "train-maskable-ppo"])
def test_help_reads_as_plain_text(name) -> None:
    """No reST markup, no Python values, no default that contradicts the text before it."""
    ap = _train_parser(name) if name.startswith("train") else PARSERS[name]()
    text = ap.format_help()
    assert "`" not in text, name
    assert not re.search(r"\(default: (None|False|\(|\[)", text), name
    assert not re.search(r"\bnone \(default: (?!none)", text, flags=re.I), name


def test_the_training_benchmark_help_reads_as_plain_text(capsys) -> None:
    """``ohmygoods bench --train --help``: the same rules as every command's help."""
    pytest.importorskip("torch")
    from ohmygoods_training import bench_train

    with pytest.raises(SystemExit) as exc:
        bench_train.main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: ohmygoods bench --train") and "`" not in text
    assert not re.search(r"\(default: (None|False|\(|\[)", text)


def test_the_demo_is_told_round_by_round_as_the_readme_says(capsys) -> None:
    readme = (ROOT / "README.md").read_text()
    told = set(re.findall(r"demo game between bots, told (\w+ by \w+)|a game between bots, told (\w+ by \w+)", readme))
    assert {t for pair in told for t in pair if t} == {"round by round"}
    assert "round by round" in demo._parser().description
    assert demo.main(["--seed", "0"]) == 0  # seed 0: player 1 ends with 1 coin left over
    out = capsys.readouterr().out
    assert re.search(r"^Round 2 ", out, flags=re.M)
    assert "1 coin left over" in out
    assert not re.search(r"\b1 (coins|buildings|cards)\b", out)
