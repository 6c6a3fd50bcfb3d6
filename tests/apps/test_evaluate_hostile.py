"""Hostile inputs of ``ohmygoods evaluate`` and ``ohmygoods tournament``: no file they read can start a
program or unpickle one, a bad protocol file, report card or games file is a usage error (exit 2,
one line naming the file and what was expected, nothing written or lost), and resources stay bounded
(``--workers``, an external agent that closes its output, an output that is an input)."""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from ohmygoods_agents import evaluation as E
from ohmygoods_agents import tournament as T
from ohmygoods_agents.external import ExternalAgent, ExternalAgentError

from ohmygoods_env import layout as L
from ohmygoods_env.apps import cli
from ohmygoods_env.framework.agents import TRUST_KWARGS, check_file_agent

ARGS = ["--tier", "tiny", "--players", "2", "--workers", "1", "--no-progress", "--no-plot"]


def _protocol(tmp_path: Path, name: str = "tiny.json", **changes) -> Path:
    """The shipped protocol with a tier ``tiny`` (one deal against random at 2 players), then ``changes``
    (``ladder_extra``: more ladder entries, played by ``tiny`` too)."""
    data = json.loads(E.PROTOCOL_FILE.read_text())
    data["tiers"]["tiny"] = {"2": {"random": 1}}
    for label, entry in changes.pop("ladder_extra", {}).items():
        data["ladder"][label] = entry
        data["tiers"]["tiny"]["2"][label] = 1
    data.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _marker_script(tmp_path: Path) -> tuple[str, Path]:
    """An exec command whose program creates a marker file when it starts (then plays its first legal action)."""
    marker = tmp_path / "program-ran"
    script = tmp_path / "agent.py"
    script.write_text(
        f"import json, sys\nopen({str(marker)!r}, 'w').close()\n"
        "for line in sys.stdin:\n    m = json.loads(line)\n"
        "    if m['type'] == 'act':\n        print(m['legal'][0], flush=True)\n"
    )
    return f"{sys.executable} {script}", marker


def _usage_error(argv: list[str], capsys, command: str = "evaluate") -> str:
    """Run ``ohmygoods COMMAND argv``: it must exit 2 without a traceback; returns its error line."""
    with pytest.raises(SystemExit) as exc:
        cli.main([command, *argv])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "Traceback" not in err, err
    line = err.strip().splitlines()[-1]
    assert line.startswith(f"ohmygoods {command}: error: "), err
    return line


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A finished tiny evaluation of ``random`` (2 games at 2 players): its folder with games and report card."""
    folder = tmp_path_factory.mktemp("played")
    proto = _protocol(folder)
    assert cli.main(["evaluate", "random", "--protocol", str(proto), *ARGS, "--out", str(folder / "out")]) == 0
    return folder


# ============================================================================ trust: no file enables code


def test_the_shared_rule_refuses_every_trust_keyword_from_a_file() -> None:
    assert set(TRUST_KWARGS) == {"allow_exec", "trust_pickle"}
    assert check_file_agent("mcts", {"sims": 5}, "f.json") == ("mcts", {"sims": 5})
    for key in TRUST_KWARGS:
        for value in (True, False, "yes"):
            with pytest.raises(ValueError, match=f"f.json: {key!r} .*only the command line"):
                check_file_agent("random", {key: value}, "f.json")
    for spec in ("exec:touch x", "sb3:a.zip", "ppo:model.zip", "mcts:sb3:a.zip", "mcts:exec:ls"):
        with pytest.raises(ValueError, match="only the command line"):
            check_file_agent(spec, {}, "f.json")
    with pytest.raises(ValueError, match="expected an agent spec, a string"):
        check_file_agent(5, {}, "f.json")
    with pytest.raises(ValueError, match="expected an object of keyword arguments"):
        check_file_agent("random", ["sims"], "f.json")


def test_a_protocol_ladder_entry_with_allow_exec_never_starts_its_program(tmp_path, capsys) -> None:
    command, marker = _marker_script(tmp_path)
    entry = {"spec": f"exec:{command}", "kwargs": {"allow_exec": True}}
    proto = _protocol(tmp_path, ladder_extra={"ext": entry})
    line = _usage_error(["greedy", "--protocol", str(proto), *ARGS, "--out", str(tmp_path / "o")], capsys)
    assert str(proto) in line and "allow_exec" in line and "only the command line" in line
    assert not marker.exists() and not (tmp_path / "o").exists()


def test_a_protocol_ladder_exec_spec_without_the_keyword_is_refused_at_once(tmp_path, capsys) -> None:
    command, marker = _marker_script(tmp_path)
    proto = _protocol(tmp_path, ladder_extra={"ext": {"spec": f"exec:{command}", "kwargs": {}}})
    line = _usage_error(["greedy", "--protocol", str(proto), *ARGS, "--out", str(tmp_path / "o")], capsys)
    assert str(proto) in line and "ladder 'ext'" in line and "exec:" in line
    assert not marker.exists()


def test_a_protocol_ladder_entry_with_trust_pickle_never_unpickles(sb3_zip, make_tampered_zip, tmp_path, capsys):
    marker = tmp_path / "unpickled"
    bad = make_tampered_zip(sb3_zip, tmp_path / "bad.zip", marker)
    for spec in (f"sb3:{bad}", f"ppo:{bad}"):
        proto = _protocol(tmp_path, ladder_extra={"zip": {"spec": spec, "kwargs": {"trust_pickle": True}}})
        # even with --trust-pickle on the command line: that opt-in is for the AGENT named there only
        argv = ["greedy", "--protocol", str(proto), *ARGS, "--trust-pickle", "--out", str(tmp_path / "o")]
        line = _usage_error(argv, capsys)
        assert str(proto) in line and "trust_pickle" in line
        assert not marker.exists() and not (tmp_path / "o").exists()


def test_a_protocols_ladder_names_get_no_trust_on_the_leaderboard(tmp_path, capsys) -> None:
    """Another game's leaderboard evaluates its protocol's ladder by name: a name from the file is no
    command-line opt-in, so ``exec:...`` there starts nothing."""
    command, marker = _marker_script(tmp_path)
    data = json.loads(E.protocol_file("artificium").read_text())
    data["ladder"][f"exec:{command}"] = {"spec": "random", "kwargs": {}}
    proto = tmp_path / "art.json"
    proto.write_text(json.dumps(data))
    argv = ["--leaderboard", "--protocol", str(proto), "--tier", "smoke", "--players", "2", "--no-progress"]
    argv += ["--reports", str(tmp_path / "cards"), "--markdown", str(tmp_path / "lb.md")]
    line = _usage_error([*argv, "--games-dir", str(tmp_path / "games")], capsys)
    assert str(proto) in line and "only the command line" in line
    assert not marker.exists() and not (tmp_path / "lb.md").exists()


def test_a_report_card_naming_an_exec_agent_with_allow_exec_starts_nothing(played, tmp_path, capsys) -> None:
    command, marker = _marker_script(tmp_path)
    card = json.loads((played / "out" / "report.json").read_text())
    card.update(agent=f"exec:{command}", label="hostile", agent_kwargs={"allow_exec": True, "trust_pickle": True})
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "hostile.json").write_text(json.dumps(card))
    proto = _protocol(tmp_path)
    argv = ["--leaderboard", "--protocol", str(proto), "--tier", "tiny", "--reports", str(cards)]
    argv += ["--markdown", str(tmp_path / "lb.md"), "--games-dir", str(tmp_path / "g"), "--no-progress"]
    assert cli.main(["evaluate", *argv, "--render-only"]) == 0
    assert cli.main(["evaluate", *argv, "--agents", "random", "--players", "2"]) == 0
    assert cli.main(["evaluate", "--compare", str(cards / "hostile.json"), str(cards / "hostile.json")]) == 0
    assert not marker.exists()


def test_a_report_card_of_an_exec_agent_keeps_no_permission(tmp_path, capsys) -> None:
    command, _ = _marker_script(tmp_path)
    proto = _protocol(tmp_path)
    assert cli.main(["evaluate", f"exec:{command}", "--protocol", str(proto), *ARGS, "--out", str(tmp_path / "o")]) == 0
    card = json.loads((tmp_path / "o" / "report.json").read_text())
    assert card["agent"].startswith("exec:") and not set(TRUST_KWARGS) & set(card["agent_kwargs"])


def test_resumed_games_files_name_agents_but_build_none(played, tmp_path, capsys) -> None:
    """The rows of a games file (``--resume``) and a finished tournament (``--summarize``) name the agents
    that played; a name there is never built, so an ``exec:`` name starts nothing."""
    command, marker = _marker_script(tmp_path)
    out = tmp_path / "o"
    out.mkdir()
    rows = [json.loads(x) for x in (played / "out" / "games_2p.jsonl").read_text().splitlines()]
    for r in rows:
        r["seats"] = [f"exec:{command}" if s == "random" else s for s in r["seats"]]
        r["agent_kwargs"] = {"allow_exec": True}
    (out / "games_2p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    proto = _protocol(tmp_path)
    assert cli.main(["evaluate", "random", "--protocol", str(proto), *ARGS, "--out", str(out), "--resume"]) == 0
    t = tmp_path / "t"
    argv = ["--agents", "random,greedy", "--games", "2", "--workers", "1", "--no-progress", "--no-plots"]
    assert cli.main(["tournament", *argv, "--bootstrap", "0", "--out", str(t)]) == 0
    summary = json.loads((t / "summary.json").read_text())
    summary["config"]["agents"] = [f"exec:{command}", "sb3:x.zip"]
    (t / "summary.json").write_text(json.dumps(summary))
    assert cli.main(["tournament", "--summarize", str(t), "--no-plots", "--bootstrap", "0"]) == 0
    assert not marker.exists()


# ============================================================================ resources


class _NoPool:
    def Pool(self, processes, *args, **kwargs):  # noqa: N802 - the multiprocessing name
        raise AssertionError(f"a pool of {processes} processes was asked for")


@pytest.mark.parametrize("command", ["evaluate", "tournament"])
def test_workers_above_the_documented_maximum_is_a_usage_error(command, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(T.mp, "get_context", lambda *a: _NoPool())
    if command == "evaluate":
        argv = ["random", "--protocol", str(_protocol(tmp_path)), *ARGS[:4], "--no-progress", "--no-plot"]
    else:
        argv = ["--agents", "random,greedy", "--games", "2", "--no-progress", "--no-plots"]
    line = _usage_error([*argv, "--workers", "100000", "--out", str(tmp_path / "o")], capsys, command)
    assert "--workers" in line and f"at most {T.max_workers()}" in line
    assert not (tmp_path / "o").exists()


def test_the_pool_never_has_more_processes_than_games(monkeypatch) -> None:
    asked: list[int] = []
    spawn = multiprocessing.get_context("spawn")

    class Spy:
        def Pool(self, processes, *args, **kwargs):  # noqa: N802 - the multiprocessing name
            asked.append(processes)
            return spawn.Pool(processes, *args, **kwargs)

    monkeypatch.setattr(T.mp, "get_context", lambda *a: Spy())
    specs = T.schedule(2, 2, 2, seed=0)
    games = T.run_games(["random", "random"], specs, 2, "omg2", workers=50, progress=False)
    assert asked == [2] and len(games) == 2


@pytest.mark.parametrize("closes", ["os.close(1)", "os.close(0); os.close(1)"], ids=["stdout", "stdin-and-stdout"])
def test_an_agent_that_closes_its_output_but_keeps_running_is_stopped(tmp_path: Path, closes: str) -> None:
    script = tmp_path / "hang.py"
    script.write_text(f"import os, sys, time\nsys.stdin.readline()\n{closes}\ntime.sleep(60)\n")
    agent = ExternalAgent(f"{sys.executable} {script}", seed=0, timeout=1.0)
    mask = np.zeros(L.N_ACTIONS, bool)
    mask[L.A_BUILD] = True
    t0 = time.monotonic()
    with pytest.raises(ExternalAgentError, match="closed its (input|output) but kept running"):
        agent.act(np.zeros(L.OBS_DIM, "float32"), mask)
    assert time.monotonic() - t0 < 10
    assert agent._proc.poll() is not None  # stopped, not left behind


def test_leaderboard_markdown_onto_a_report_card_is_refused(played, tmp_path, capsys) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    card = cards / "random.json"
    card.write_bytes((played / "out" / "report.json").read_bytes())
    before = card.read_bytes()
    proto = _protocol(tmp_path)
    for target in (card, proto):
        argv = ["--leaderboard", "--protocol", str(proto), "--tier", "tiny", "--reports", str(cards)]
        line = _usage_error([*argv, "--markdown", str(target), "--render-only"], capsys)
        assert "--markdown" in line and str(target) in line and "would be overwritten" in line
    assert card.read_bytes() == before


def test_markdown_onto_a_folder_is_refused_before_any_game(played, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(E, "evaluate", lambda *a, **k: pytest.fail("a game was played"))
    folder = tmp_path / "page"
    folder.mkdir()
    argv = ["--leaderboard", "--protocol", str(_protocol(tmp_path)), "--tier", "tiny", "--agents", "random"]
    argv += ["--reports", str(tmp_path / "cards"), "--games-dir", str(tmp_path / "g")]
    line = _usage_error([*argv, "--markdown", str(folder)], capsys)
    assert "--markdown" in line and "is a folder" in line
    assert not (tmp_path / "cards").exists() and list(folder.iterdir()) == []


def test_out_onto_an_existing_file_is_refused(tmp_path, capsys) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    line = _usage_error(["random", "--protocol", str(_protocol(tmp_path)), *ARGS, "--out", str(target)], capsys)
    assert "--out" in line and str(target) in line and "folder" in line
    assert target.read_text() == "mine"


# ============================================================================ clear errors: external replies


@pytest.mark.parametrize(
    "reply",
    ["'[' * 100000 + ']' * 100000", "'1' * 5000", "'{\"action\": ' + '9' * 5000 + '}'"],
    ids=["nested", "5000-digits", "5000-digit-action"],
)
def test_a_hostile_reply_is_a_protocol_error_not_a_crash(tmp_path: Path, reply: str) -> None:
    script = tmp_path / "hostile.py"
    script.write_text(
        "import json, sys\nfor line in sys.stdin:\n"
        f"    if json.loads(line)['type'] == 'act':\n        print({reply}, flush=True)\n"
    )
    agent = ExternalAgent(f"{sys.executable} {script}", seed=0, timeout=5.0)
    mask = np.zeros(L.N_ACTIONS, bool)
    mask[L.A_BUILD] = True
    with pytest.raises(ExternalAgentError, match="malformed reply") as err:
        agent.act(np.zeros(L.OBS_DIM, "float32"), mask)
    assert len(str(err.value)) < 2000


# ============================================================================ clear errors: protocol files


def _nested(depth: int) -> object:
    return json.loads("[" * depth + "]" * depth)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"about": "NESTED"}, "nested deeper than"),
        ({"version": "HUGE"}, "a number of 5000 characters"),
        ({"tiers": {"full": {"2": {"random": 1}}, "tiny": {"2": {"random": 1.5}}}}, "an int"),
        ({"tiers": {"full": {"2": {"random": 1}}, "tiny": {"2": {"random": True}}}}, "an int"),
        ({"deals": {"2": [-5]}}, "0 <= s < 2**64"),
        ({"deals": {"2": [2**64]}}, "0 <= s < 2**64"),
        ({"deals": {"2": ["7"]}}, "0 <= s < 2**64"),
        ({"ladder": {"random": {"spec": 5, "kwargs": {}}}}, "expected an agent spec, a string"),
        ({"ladder": {"random": {"spec": "random", "kwargs": []}}}, "expected an object of keyword arguments"),
        ({"ladder": {"random": "random"}}, 'expected {"spec": '),
        ({"version": "1"}, "version"),
        ({"rating": {"anchors": {"random": "zero"}}}, "anchors"),
        ({"tiers": {"full": {"two": {"random": 1}}}}, "player count"),
        ({"game": 7}, "game"),
        ("[]", "expected a JSON object"),
    ],
    ids=[
        "nested", "5000-digits", "1.5-deals", "bool-deals", "seed-5", "seed-2**64", "seed-text", "spec-int",
        "kwargs-list", "entry-text", "version-text", "anchor-text", "count-text", "game-int", "not-object",
    ],
)  # fmt: skip
def test_a_bad_protocol_file_is_a_usage_error_naming_it(change, expected, tmp_path, capsys) -> None:
    if isinstance(change, str):
        proto = tmp_path / "p.json"
        proto.write_text(change)
    else:
        proto = _protocol(tmp_path, **change)
        text = proto.read_text().replace('"NESTED"', "[" * 100000 + "]" * 100000)
        proto.write_text(text.replace('"HUGE"', "9" * 5000))
    out = tmp_path / "o"
    line = _usage_error(["random", "--protocol", str(proto), *ARGS, "--out", str(out)], capsys)
    assert str(proto) in line and expected in line, line
    assert not out.exists()


def test_the_shipped_protocols_pass_their_validator() -> None:
    for game, path in E.protocol_files().items():
        assert E.load_protocol(path).game == game


# ============================================================================ clear errors: report cards


def _edits() -> dict[str, tuple]:
    def section(card: dict) -> dict:
        return card["players"]["2"]

    return {
        "opponents-text": (lambda c: section(c).update(opponents="many"), "opponents"),
        "win-rate-text": (lambda c: section(c)["opponents"][0].update(win_rate="0.5"), "win_rate"),
        "games-10**30": (lambda c: section(c)["opponents"][0].update(games=10**30), "games"),
        "no-label": (lambda c: c.pop("label"), "label"),
        "rating-text": (lambda c: section(c).update(rating={"value": "high"}), "rating"),
        "players-key": (lambda c: c["players"].update({"two": c["players"].pop("2")}), "player count"),
        "timing-text": (lambda c: c["timing"]["by_players"]["2"].update(decision_s_mean="fast"), "decision_s_mean"),
        "section-gone": (lambda c: c["players"].update({"2": None}), "players"),
        "tier-int": (lambda c: section(c).update(tier=3), "tier"),
        "nested": (None, "nested deeper than"),
        "huge-number": ("9" * 5000, "a number of 5000 characters"),
    }


@pytest.mark.parametrize("case", list(_edits()))
@pytest.mark.parametrize("use", ["compare", "leaderboard"])
def test_an_edited_report_card_is_a_usage_error_naming_it(played, case, use, tmp_path, capsys) -> None:
    edit, expected = _edits()[case]
    good = played / "out" / "report.json"
    cards = tmp_path / "cards"
    cards.mkdir()
    card = cards / "edited.json"
    if edit is None:
        card.write_text('{"schema": ' + "[" * 100000 + "]" * 100000 + "}")
    elif isinstance(edit, str):
        card.write_text(good.read_text().replace('"protocol_version": 1', f'"protocol_version": {edit}', 1))
    else:
        data = json.loads(good.read_text())
        edit(data)
        card.write_text(json.dumps(data))
    before = card.read_bytes()
    if use == "compare":
        argv = ["--compare", str(good), str(card)]
    else:
        argv = ["--leaderboard", "--protocol", str(_protocol(tmp_path)), "--tier", "tiny", "--reports", str(cards)]
        argv += ["--markdown", str(tmp_path / "lb.md"), "--render-only"]
    line = _usage_error(argv, capsys)
    assert str(card) in line and expected in line, line
    assert card.read_bytes() == before and not (tmp_path / "lb.md").exists()


# ============================================================================ clear errors: games files (--resume)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda r: r.update(scores=[str(s) for s in r["scores"]]), "scores"),
        (lambda r: r.update(scores=[1e308, 1e308]), "scores"),
        (lambda r: r.update(winners=[7]), "winners"),
        (lambda r: r.update(thinking_s="slow"), "thinking_s"),
        (lambda r: r.update(seat_decisions=[1]), "seat_decisions"),
        (lambda r: r.update(agent_index=[0, 9]), "agent_index"),
    ],
    ids=["score-text", "score-1e308", "winner-range", "thinking-text", "decisions-short", "index-range"],
)
def test_a_bad_kept_row_is_a_usage_error_and_the_file_stays(played, edit, expected, tmp_path, capsys) -> None:
    out = tmp_path / "o"
    out.mkdir()
    rows = [json.loads(x) for x in (played / "out" / "games_2p.jsonl").read_text().splitlines()]
    edit(rows[1])
    games = out / "games_2p.jsonl"
    games.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = games.read_bytes()
    proto = _protocol(tmp_path)
    line = _usage_error(["random", "--protocol", str(proto), *ARGS, "--out", str(out), "--resume"], capsys)
    assert str(games) in line and "line 2" in line and expected in line, line
    assert games.read_bytes() == before and not (out / "report.json").exists()


def test_a_bad_row_of_a_tournament_is_a_usage_error_for_resume_and_summarize(tmp_path, capsys) -> None:
    t = tmp_path / "t"
    argv = ["--agents", "random,greedy", "--games", "2", "--workers", "1", "--no-progress", "--no-plots"]
    assert cli.main(["tournament", *argv, "--bootstrap", "0", "--out", str(t)]) == 0
    games = t / "games.jsonl"
    rows = [json.loads(x) for x in games.read_text().splitlines()]
    rows[0]["scores"] = ["ten", 3]
    games.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = games.read_bytes()
    line = _usage_error([*argv, "--bootstrap", "0", "--out", str(t), "--resume"], capsys, "tournament")
    assert "games" in line and "line 1" in line and "scores" in line, line
    line = _usage_error(["--summarize", str(t), "--no-plots"], capsys, "tournament")
    assert str(games) in line and "line 1" in line and "scores" in line, line
    assert games.read_bytes() == before and not (t / "games.partial.jsonl").exists()
