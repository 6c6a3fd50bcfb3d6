"""External agents over JSON lines (``exec:COMMAND``): the example agent, and every way a program can fail."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from ohmygoods_agents import evaluation as E
from ohmygoods_agents import make_agent
from ohmygoods_agents.external import ExternalAgent, ExternalAgentError, hello_message

from ohmygoods_env import Game
from ohmygoods_env import layout as L
from ohmygoods_env.policy import info_state_of

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "external_agent.py"
PY = sys.executable
ALLOW = {"allow_exec": True}


def _script(tmp_path: Path, body: str, name: str = "agent.py") -> str:
    path = tmp_path / name
    path.write_text("import json, sys, time\n" + body)
    return f"{PY} {path}"


def _mask(*ids: int) -> np.ndarray:
    m = np.zeros(L.N_ACTIONS, np.int8)
    m[list(ids)] = 1
    return m


def _act(agent: ExternalAgent, mask: np.ndarray) -> int:
    return agent.act(np.zeros(L.OBS_DIM, np.float32), mask, np.zeros(L.STATE_LEN, np.int32))


def test_the_example_agent_prefers_building_and_keeping_its_hand() -> None:
    agent = make_agent(f"exec:{PY} {EXAMPLE}", seed=3, allow_exec=True)
    assert _act(agent, _mask(L.A_NO_BUILD, L.A_BUILD)) == L.A_BUILD
    assert _act(agent, _mask(L.A_KEEP, L.A_DISCARD_HAND)) == L.A_KEEP
    assert _act(agent, _mask(L.A_PRODUCTION_DONE, L.A_PRODUCE + 4)) == L.A_PRODUCE + 4
    assert agent.decisions == 3


def test_the_example_agent_plays_whole_games_with_the_real_observation() -> None:
    agent = ExternalAgent(f"{PY} {EXAMPLE}", seed=1)
    g = Game(2, "omg2", seed=5)
    while not g.done:
        p = g.current_player
        a = _act(agent, g.legal_mask()) if p == 0 else int(np.flatnonzero(g.legal_mask())[0])
        if p == 0:
            assert g.legal_mask()[a]
        g.step(a)
    assert agent.decisions > 10


def test_hello_names_the_layout_and_the_action_table() -> None:
    h = hello_message(7)
    assert h["env"] == f"oh_my_goods-v{L.LAYOUT_VERSION}" and h["num_actions"] == L.N_ACTIONS
    assert h["action_ranges"]["build"] == [L.A_BUILD, L.A_BUILD + 1]
    assert json.loads(json.dumps(h)) == h


def _replying(reply: str) -> str:
    return f"for line in sys.stdin:\n    if json.loads(line)['type'] == 'act':\n        print({reply}, flush=True)\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (_replying("99999"), "illegal action 99999: the legal actions are"),
        (_replying(f"json.dumps({{'action': {L.A_NO_BUILD}}})"), f"illegal action {L.A_NO_BUILD}"),
        (_replying("'build!'"), "malformed reply 'build!'"),
        (_replying("'{\"action\": 1.5}'"), "malformed reply"),
        (_replying("'true'"), "malformed reply"),
        ("sys.stdin.readline()\nsys.exit(3)\n", "exited \\(status 3\\)"),
        ("for line in sys.stdin:\n    time.sleep(30)\n", "no reply within the timeout of 0.5 s"),
    ],
    ids=["out-of-range", "illegal", "not-json", "not-integer", "boolean", "crash", "silence"],
)
def test_a_bad_reply_raises_an_error_naming_the_problem(tmp_path: Path, body: str, message: str) -> None:
    agent = ExternalAgent(_script(tmp_path, body), seed=0, timeout=0.5)
    with pytest.raises(ExternalAgentError, match=message) as err:
        _act(agent, _mask(L.A_BUILD))
    assert "decision 1 of its game" in str(err.value) and str(tmp_path) in str(err.value)


def test_a_crash_report_carries_the_programs_stderr(tmp_path: Path) -> None:
    agent = ExternalAgent(_script(tmp_path, "sys.stdin.readline()\nsys.stderr.write('out of memory')\nsys.exit(3)\n"))
    with pytest.raises(ExternalAgentError, match="out of memory"):
        _act(agent, _mask(L.A_BUILD))


def test_an_exec_agent_from_a_name_alone_never_starts_a_program(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    spec = "exec:" + _script(tmp_path, f"open({str(marker)!r}, 'w').write('ran')\n")
    with pytest.raises(ValueError, match="allow_exec=True"):
        make_agent(spec)
    from ohmygoods_env.apps import serve

    with pytest.raises(serve.BadRequest, match="allow_exec=True"):  # a request to the browser server
        serve.WebGame("omg2", 2, 0, [spec], seed=0)
    assert not marker.exists()


def test_unknown_programs_and_empty_commands_are_refused_at_once() -> None:
    with pytest.raises(ValueError, match="no program 'no-such-agent-program'"):
        make_agent("exec:no-such-agent-program --fast", allow_exec=True)
    with pytest.raises(ValueError, match="empty argument"):
        make_agent("exec:")
    with pytest.raises(ValueError, match="timeout must be > 0"):
        ExternalAgent(f"{PY} {EXAMPLE}", timeout=0)


def test_the_agent_receives_the_information_state_and_never_the_true_state(tmp_path: Path) -> None:
    log = tmp_path / "seen.jsonl"
    body = (
        f"out = open({str(log)!r}, 'w')\n"
        "for line in sys.stdin:\n    m = json.loads(line)\n    out.write(line); out.flush()\n"
        "    if m['type'] == 'act':\n        print(m['legal'][0], flush=True)\n"
    )
    agent = ExternalAgent(_script(tmp_path, body))
    g = Game(2, "omg2", seed=11)
    p = g.current_player
    agent.act(g.observe(p), g.legal_mask(), info_state_of(g.state, p))
    hello, act = (json.loads(x) for x in log.read_text().splitlines())
    assert hello["type"] == "hello" and act["type"] == "act"
    assert act["info_state"] == info_state_of(g.state, p).tolist() != g.state.tolist()
    assert act["legal"] == np.flatnonzero(g.legal_mask()).tolist()
    assert np.allclose(act["observation"], g.observe(p))


def test_an_evaluation_keeps_the_games_played_before_an_agent_fails_and_resumes(tmp_path: Path) -> None:
    counter = tmp_path / "games_started"
    counter.write_text("0")
    body = (
        f"c = open({str(counter)!r}).read(); n = int(c) + 1; open({str(counter)!r}, 'w').write(str(n))\n"
        "for line in sys.stdin:\n    m = json.loads(line)\n"
        "    if m['type'] == 'act':\n        print(m['legal'][0] if n != 3 else 'oops', flush=True)\n"
    )
    spec = "exec:" + _script(tmp_path, body)
    data = json.loads(E.PROTOCOL_FILE.read_text())
    data["tiers"]["tiny"] = {"2": {"random": 3}}
    p = E.Protocol.from_dict(data)
    out = tmp_path / "eval"
    with pytest.raises(ExternalAgentError, match="malformed reply 'oops'"):
        E.evaluate(spec, "tiny", (2,), workers=1, protocol=p, out=out, progress=False, agent_kwargs=ALLOW)
    kept = (out / "games_2p.jsonl").read_text().splitlines()
    assert len(kept) == 2  # the two games finished before the third failed
    report = E.evaluate(spec, "tiny", (2,), workers=1, protocol=p, out=out, progress=False, agent_kwargs=ALLOW)
    assert int(counter.read_text()) == 3 + 4  # the resumed run started only the 4 missing games
    assert report["players"]["2"]["opponents"][0]["games"] == 6
    assert (out / "games_2p.jsonl").read_text().splitlines()[:2] == kept


# ------------------------------------------------------------------ another game: Artificium

ART_EXAMPLE = EXAMPLE.with_name("artificium_agent.py")


def test_an_artificium_program_hears_its_seat_and_the_action_table(tmp_path: Path) -> None:
    """The hello of another game names it, the seat and the player count; the act line carries the
    seat's observation and mask, and no information state (Artificium has no array one, A9.2)."""
    from ohmygoods_env.artificium import layout as AL
    from ohmygoods_env.framework.agents import choose
    from ohmygoods_env.framework.agents import make_agent as make_game_agent
    from ohmygoods_env.framework.game import resolve_game

    log = tmp_path / "seen.jsonl"
    body = (
        f"out = open({str(log)!r}, 'w')\n"
        "for line in sys.stdin:\n    m = json.loads(line)\n    out.write(line); out.flush()\n"
        "    if m['type'] == 'act':\n        print(m['legal'][-1], flush=True)\n"
    )
    agent = make_game_agent("artificium", "exec:" + _script(tmp_path, body), seed=4, allow_exec=True)
    g = resolve_game("artificium").make(3, seed=2)
    p = g.pending_players()[0]
    action = choose(agent, g, p)
    hello, act = (json.loads(x) for x in log.read_text().splitlines())
    assert (hello["game"], hello["env"], hello["seed"]) == ("artificium", "artificium-v0", 4)
    assert (hello["num_players"], hello["seat"], hello["num_actions"]) == (3, p, AL.N_ACTIONS)
    assert hello["obs_dim"] == len(g.observe(p)) and hello["state_len"] is None
    assert hello["action_ranges"]["apply"] == [AL.A_APPLY, AL.A_APPLY + 1]
    assert hello["action_ranges"]["choose card"] == [AL.A_PLAY, AL.A_PLAY + AL.N_TYPES]
    assert act["info_state"] is None and act["legal"] == g.legal_actions(p) and action == g.legal_actions(p)[-1]
    assert np.allclose(act["observation"], g.observe(p))
    assert hello_message(4, "ohmygoods")["game"] == "ohmygoods"
    with pytest.raises(ValueError, match="give info and obs_dim"):
        hello_message(4, "artificium")


def test_the_artificium_example_plays_an_evaluation_through_the_command_line(tmp_path: Path, capsys) -> None:
    """``ohmygoods evaluate --game artificium "exec:python3 artificium_agent.py"``: whole games, a report."""
    from ohmygoods_env.apps import evaluate as EV

    data = json.loads(E.protocol_file("artificium").read_text())
    data["tiers"]["tiny"] = {"3": {"random": 2, "heuristic": 1}}
    proto = tmp_path / "proto.json"
    proto.write_text(json.dumps(data))
    out = tmp_path / "eval"
    argv = ["--game", "artificium", f"exec:{PY} {ART_EXAMPLE}", "--protocol", str(proto), "--tier", "tiny"]
    assert EV.main([*argv, "--players", "3", "--out", str(out), "--workers", "1"]) == 0
    report = json.loads((out / "report.json").read_text())
    vs_random, vs_heuristic = report["players"]["3"]["opponents"]
    assert report["game"] == "artificium" and (vs_random["games"], vs_heuristic["games"]) == (6, 3)  # seats rotated
    assert len((out / "games_3p.jsonl").read_text().splitlines()) == 9
    assert vs_random["opponent"] == "random" and vs_random["score_mean"] > 0  # it applies cards: real points


def test_an_artificium_exec_agent_from_a_request_never_starts_a_program(tmp_path: Path) -> None:
    """A page's request naming ``exec:...`` for Artificium is refused (400) and runs nothing; the page
    never offers ``exec``."""
    from ohmygoods_env.apps import serve
    from ohmygoods_env.apps import web_artificium as W
    from ohmygoods_env.framework.agents import make_agent as make_game_agent

    marker = tmp_path / "ran"
    spec = "exec:" + _script(tmp_path, f"open({str(marker)!r}, 'w').write('ran')\n")
    with pytest.raises(ValueError, match="allow_exec=True"):
        make_game_agent("artificium", spec)
    with pytest.raises(serve.BadRequest, match="allow_exec=True"):
        W.ArtificiumWeb().new_game({"players": 2, "seat": 0, "opponents": [spec]})
    with pytest.raises(serve.BadRequest, match="allow_exec=True"):
        W.ArtificiumWeb().new_game({"players": 2, "watch": True, "opponents": [spec, "random"]})
    assert not marker.exists() and "exec" not in W.offered_agents()
