"""Hostile games files and outputs: ``ohmygoods replay`` never overwrites its input, refuses every
malformed record with a usage error naming the line and the field, and builds pages that no
field text can break out of; the commands write their files atomically."""

from __future__ import annotations

import json
import os
import re
from html import escape

import numpy as np
import pytest

from ohmygoods_env.apps import replay as R
from ohmygoods_env.engine import Game
from ohmygoods_env.framework import files as F


def _record(seed: int = 4) -> dict:
    game = Game(2, "omg2", seed=seed)
    rng = np.random.default_rng(seed)
    while not game.done:
        game.step(int(rng.choice(game.legal_actions())))
    return game.record().to_dict()


@pytest.fixture(scope="module")
def record() -> dict:
    return _record()


def _write_rows(path, rows: list) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def games(tmp_path, record):
    path = tmp_path / "games.jsonl"
    _write_rows(path, [{"index": k, "seats": ["random", "greedy"], "record": record} for k in range(2)])
    return path


def _usage_error(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        R.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err, err
    return err


# ---------------------------------------------------------------------------- the input is never the output


def test_the_output_may_not_be_the_input_under_any_name(games, tmp_path, capsys, monkeypatch) -> None:
    before = games.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(games)
    hard = tmp_path / "hard.jsonl"
    os.link(games, hard)
    monkeypatch.chdir(tmp_path)
    for out in (str(games), "./games.jsonl", "games.jsonl", f"{tmp_path}/./sub/../games.jsonl", str(link), str(hard)):
        (tmp_path / "sub").mkdir(exist_ok=True)
        err = _usage_error(["games.jsonl", "--index", "0", "-o", out], capsys)
        assert "is the input" in err, out
        assert games.read_bytes() == before
    err = _usage_error([str(link), "--index", "0", "-o", "games.jsonl"], capsys)  # a link as the input, too
    assert "is the input" in err and games.read_bytes() == before


def test_an_output_in_a_missing_folder_or_that_is_a_folder_is_a_usage_error(games, tmp_path, capsys) -> None:
    err = _usage_error([str(games), "--index", "0", "-o", str(tmp_path / "no" / "such" / "game.html")], capsys)
    assert "does not exist" in err
    err = _usage_error([str(games), "--index", "0", "-o", str(tmp_path)], capsys)
    assert "is a folder" in err


def test_the_page_is_written_atomically(games, tmp_path, monkeypatch) -> None:
    out = tmp_path / "game.html"
    out.write_text("the old page")

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(F.os, "fsync", fail)
    with pytest.raises(SystemExit):
        R.main([str(games), "--index", "1", "-o", str(out)])
    assert out.read_text() == "the old page"  # the old file stays whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html", "games.jsonl"]  # no temporary left
    monkeypatch.undo()
    assert R.main([str(games), "--index", "1", "-o", str(out)]) == 0
    assert out.read_text().startswith("<!doctype html>")


def test_write_atomic_keeps_the_old_files_permissions(tmp_path) -> None:
    p = tmp_path / "a.txt"
    F.write_atomic(p, "one")
    assert p.stat().st_mode & 0o777 == 0o644
    p.chmod(0o600)
    F.write_atomic(p, b"two")
    assert p.read_bytes() == b"two" and p.stat().st_mode & 0o777 == 0o600


# ---------------------------------------------------------------------------- malformed records


def _bad_rows(record: dict) -> dict[str, tuple[object, str]]:
    def with_record(**changes):
        return {"index": 0, "seats": ["a", "b"], "record": {**record, **changes}}

    n = len(record["actions"])
    return {
        "bad JSON": ('{"index": 0, "record": ', "line 2: not JSON"),
        "a list, not a row": ("[1, 2, 3]", "no 'record'"),
        "record not an object": ({"index": 0, "record": [1]}, "field 'record' must be an object"),
        "seed as text": (with_record(seed="7"), "field 'record.seed' must be int"),
        "players as text": (with_record(num_players="2"), "field 'record.num_players' must be int"),
        "players out of range": (with_record(num_players=9), "field 'record': num_players must be"),
        "unknown rules": (with_record(rules="deluxe"), "field 'record': rules must be one of"),
        "auto_forced as 1": (with_record(auto_forced=1), "field 'record.auto_forced' must be bool"),
        "missing actions": ({"index": 0, "record": {k: v for k, v in record.items() if k != "actions"}},
                            "field 'record.actions' must be list"),
        "a float action": (with_record(actions=[*record["actions"][:3], 1.5]), "field 'record.actions[3]'"),
        "a negative action": (with_record(actions=[-1]), "field 'record.actions[0]' must be an action id"),
        "a bool action": (with_record(actions=[True]), "field 'record.actions[0]'"),
        "actions after the end": (with_record(actions=[*record["actions"], record["actions"][-1]]),
                                  f"field 'record.actions[{n}]': action {record['actions'][-1]} comes after the end"),
        "an illegal action": (with_record(actions=[record["actions"][0], 0, 0, 0]), "is not legal at that step"),
        "seats not names": ({**with_record(), "seats": [1, 2]}, "field 'seats' must list 2 agent names"),
        "seats of another count": ({**with_record(), "seats": ["a", "b", "c"]}, "field 'seats' must list 2"),
        "deeply nested": ('{"index": 0, "record": ' + "[" * 3000 + "]" * 3000 + "}", "line 2: nested deeper"),
        "4,300-digit seed": ('{"index": 0, "record": {"seed": ' + "9" * 4300 + "}}", "line 2: a number of 4300"),
        "NaN seed": ('{"index": 0, "record": {"seed": NaN}}', "line 2: NaN is not a JSON number"),
    }  # fmt: skip


@pytest.mark.parametrize("case", list(_bad_rows(_record())))
def test_a_malformed_record_is_a_usage_error_naming_line_and_field(tmp_path, record, case, capsys) -> None:
    bad, message = _bad_rows(record)[case]
    path = tmp_path / "games.jsonl"
    _write_rows(path, [{"index": 5, "seats": ["a", "b"], "record": record}, bad])  # the bad row: line 2, game 1
    err = _usage_error([str(path), "--index", "1", "-o", str(tmp_path / "x.html")], capsys)
    assert message in err, (case, err)
    assert "line 2" in err, (case, err)
    assert not (tmp_path / "x.html").exists()


def test_invalid_utf8_and_an_overlong_line_are_usage_errors(tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "games.jsonl"
    path.write_bytes(b'{"index": 0}\n{"index": 1, "seats": ["\xff"]}\n')
    err = _usage_error([str(path), "--index", "1", "-o", str(tmp_path / "x.html")], capsys)
    assert "line 2: not UTF-8" in err
    monkeypatch.setattr(R, "MAX_LINE", 100)
    path.write_text('{"index": 0}\n{"index": 1, "pad": "' + "x" * 200 + '"}\n')
    err = _usage_error([str(path), "--index", "0", "-o", str(tmp_path / "x.html")], capsys)
    assert "line 2: longer than 100 bytes" in err


def test_a_seat_out_of_range_is_a_usage_error(games, tmp_path, capsys) -> None:
    err = _usage_error([str(games), "--index", "0", "--seat", "2", "-o", str(tmp_path / "x.html")], capsys)
    assert "--seat 2 is out of range" in err


# ---------------------------------------------------------------------------- no field text reaches markup or script


HOSTILE_NAMES = ["{{DATA}}", '</script><script>alert("x")</script>', "<!--<script>", "{{TITLE}} & {{PLAYERS}}"]


def test_no_field_text_reaches_a_placeholder_or_the_script(tmp_path, record) -> None:
    for name in HOSTILE_NAMES:
        path = tmp_path / "games.jsonl"
        _write_rows(path, [{"index": 0, "seats": [name, "b"], "record": record}])
        out = tmp_path / "x.html"
        assert R.main([str(path), "--index", "0", "-o", str(out)]) == 0
        html = out.read_text()
        players = re.search(r'<div id="players">(.*?)</div>', html, re.S).group(1)
        assert players == f"player 0: {escape(name)}, player 1: b" and "<" not in players
        assert html.count("<script") == 2 and html.count("</script>") == 2  # the data block and the code only
        block = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S).group(1)
        assert "<" not in block and ">" not in block
        data = json.loads(block)
        assert set(data) == {"frames", "order", "log", "notes"} and len(data["order"]) == len(record["actions"]) + 1
        assert len(html) < 2 * len(block) + 20_000  # the data went in once
        # every placeholder was filled; only the name stays, as text and as JSON data (the summaries name seats)
        assert html.count("{{") == players.count("{{") + block.count("{{")


def test_fill_template_is_one_pass() -> None:
    template = "<h1>{{A}}</h1><script type='application/json'>{{B}}</script>{{C}}"
    page = R.fill_template(template, {"A": "{{B}}", "C": "x"}, {"B": '{"t": "</script>&"}'})
    assert page == '<h1>{{B}}</h1><script type=\'application/json\'>{"t": "\\u003c/script\\u003e\\u0026"}</script>x'
    assert json.loads(page.split(">", 3)[3].split("</script>")[0]) == {"t": "</script>&"}


# ---------------------------------------------------------------------------- tournament and play outputs


def test_tournament_outputs_are_written_atomically(tmp_path, monkeypatch, capsys) -> None:
    from ohmygoods_env.apps import tournament as A

    out = tmp_path / "run"
    argv = ["--agents", "random,greedy", "--games", "1", "--out", str(out), "--no-progress", "--no-plots"]
    assert A.main([*argv, "--workers", "1", "--bootstrap", "5"]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert {"games.jsonl", "summary.json", "agents.csv", "winrates.csv"} <= set(before)

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(F.os, "fsync", fail)
    with pytest.raises(OSError):
        A.main(["--summarize", str(out), "--no-plots", "--bootstrap", "5"])
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # every file whole, no temporary left
    capsys.readouterr()


def test_a_tournament_out_that_is_a_file_is_a_usage_error(tmp_path, capsys) -> None:
    from ohmygoods_env.apps import tournament as A

    out = tmp_path / "results.txt"
    out.write_text("keep me")
    with pytest.raises(SystemExit) as exc:
        A.main(["--agents", "random,greedy", "--games", "1", "--out", str(out), "--no-progress", "--workers", "1"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "is a file" in err and "Traceback" not in err
    assert out.read_text() == "keep me"


def test_play_saves_by_an_atomic_rewrite_and_refuses_a_folder(tmp_path, capsys, monkeypatch) -> None:
    from ohmygoods_env.apps import play as P

    game = Game(2, "omg2", seed=1)
    rng = np.random.default_rng(1)
    while not game.done:
        game.step(int(rng.choice(game.legal_actions())))
    path = tmp_path / "games.jsonl"
    path.write_text('{"index": 0}')  # an earlier game, without its final newline
    assert P.save_game(path, game, 0, ["you", "random"]) == 1
    lines = path.read_text().splitlines()
    assert lines[0] == '{"index": 0}' and json.loads(lines[1])["record"] == game.record().to_dict()
    monkeypatch.setattr(F.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(OSError):
        P.save_game(path, game, 0, ["you", "random"])
    assert path.read_text().splitlines() == lines
    monkeypatch.undo()
    with pytest.raises(SystemExit) as exc:
        P.main(["--save", str(tmp_path), "--opponents", "random"])
    assert exc.value.code == 2 and "is a folder" in capsys.readouterr().err


def test_fuzz_dump_in_a_missing_folder_is_a_usage_error_before_any_work(tmp_path, capsys) -> None:
    from ohmygoods_env.apps import fuzz

    with pytest.raises(SystemExit) as exc:
        fuzz.main(["--dump", str(tmp_path / "no" / "failures.json")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--dump: the output's folder" in err and "compiling" not in err
