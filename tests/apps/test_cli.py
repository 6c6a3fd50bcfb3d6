"""The ``ohmygoods`` command: help with defaults and text for every option, --version, quiet closed
pipes, usage errors before any work, and the first-use compile notice."""

from __future__ import annotations

import argparse
import io
import os
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


def _train_parser():
    train_ppo = pytest.importorskip("ohmygoods_training.train_ppo")
    return train_ppo.build_parser()


@pytest.mark.parametrize("name", [*PARSERS, "train"])
def test_every_option_has_help_text_and_help_shows_defaults(name) -> None:
    ap = _train_parser() if name == "train" else PARSERS[name]()
    assert issubclass(ap.formatter_class, argparse.ArgumentDefaultsHelpFormatter)
    for action in ap._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"ohmygoods {name}: {action.option_strings or action.dest} has no help text"
    text = ap.format_help()
    shown = [a for a in ap._actions if a.default not in (None, False, argparse.SUPPRESS) and a.option_strings]
    assert shown and text.count("(default:") >= len(shown)


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
        (["replay", "nofile.jsonl", "--game", "-1"], "--game: expected an integer >= 0"),
    ],
)
def test_usage_errors_exit_2_with_a_message_before_any_work(argv, message, capsys, monkeypatch) -> None:
    monkeypatch.setattr(common, "_touch_engine", lambda: pytest.fail("compiled before checking the arguments"))
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_train_usage_errors_and_the_plan(capsys) -> None:
    pytest.importorskip("ohmygoods_training.train_ppo")
    with pytest.raises(SystemExit) as exc:
        cli.main(["train", "--net-arch", "abc"])
    assert exc.value.code == 2 and "--net-arch: expected layer sizes" in capsys.readouterr().err
    assert cli.main(["train"]) == 0  # no arguments: the plan of the default run, nothing started
    err = capsys.readouterr().err
    for text in ("1,000,000 learner steps", "32 games side by side", "output folder runs/ppo/", "expected time"):
        assert text in err
    assert "nothing started" in err
    assert cli.main(["train", "--total-steps", "5000", "--out", "x", "--plan"]) == 0
    err = capsys.readouterr().err
    assert "5,000 learner steps" in err and "output folder x/" in err


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


def test_the_compile_notice_appears_only_with_a_cold_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # an empty cache folder: cold
    assert common.engine_cache_cold()
    monkeypatch.setattr(common, "_touch_engine", lambda: None)
    out = io.StringIO()
    common.warm_engine(out)
    assert common.COMPILE_NOTICE in out.getvalue() and "done in" in out.getvalue()
    for kernel in common.ENTRY_KERNELS:  # a full cache: index and machine code of each entry kernel
        folder = tmp_path / "ohmygoods_env_x"
        folder.mkdir(exist_ok=True)
        (folder / f"core.{kernel}-1.py311.1.nbc").write_bytes(b"code")
        (folder / f"core.{kernel}-1.py311.nbi").write_bytes(b"index")
    assert not common.engine_cache_cold()
    out = io.StringIO()
    common.warm_engine(out)
    assert out.getvalue() == ""
    nbi = folder / f"core.{common.ENTRY_KERNELS[0]}-1.py311.nbi"
    later = nbi.stat().st_mtime + 60
    os.utime(nbi, (later, later))  # the index was emptied after the code was written: stale
    assert common.engine_cache_cold()
