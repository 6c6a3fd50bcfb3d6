"""The tournament runner: schedule, determinism, statistics and output files."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter

import numpy as np
import pytest
from ohmygoods_agents import tournament as T

from ohmygoods_env.apps import tournament as A


def test_schedule_two_players_rotates_seats_over_shared_deals() -> None:
    specs = T.schedule(3, 2, 4, seed=5)
    assert len(specs) == 3 * 4
    assert {s.lineup for s in specs} == {0, 1, 2}
    for lineup in range(3):
        games = [s for s in specs if s.lineup == lineup]
        # each deal is played from both seatings
        assert games[0].seed == games[1].seed and games[0].seats == games[1].seats[::-1]
        assert games[2].seed != games[0].seed
        assert Counter(s.seats[0] for s in games) == Counter(s.seats[1] for s in games)
    assert specs == T.schedule(3, 2, 4, seed=5)
    assert [s.seed for s in specs] != [s.seed for s in T.schedule(3, 2, 4, seed=6)]


@pytest.mark.parametrize(("players", "expected"), [(3, 7), (4, 12)])
def test_schedule_multiplayer_lineups_with_repetition(players: int, expected: int) -> None:
    ups = T.lineups(3, players)
    assert len(ups) == expected  # multisets of 3 agents over the seats, minus the 3 pure ones
    assert all(len(set(u)) > 1 and len(u) == players for u in ups)
    specs = T.schedule(3, players, players, seed=0)
    for lineup in range(expected):
        rotations = {s.seats for s in specs if s.lineup == lineup}
        assert len({s.seed for s in specs if s.lineup == lineup}) == 1  # one deal, every rotation
        assert len(rotations) == len({tuple(np.roll(ups[lineup], k)) for k in range(players)})


def test_schedule_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        T.schedule(1, 2, 10, 0)
    with pytest.raises(ValueError):
        T.schedule(2, 2, 0, 0)


def test_wilson_interval() -> None:
    lo, hi = T.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    lo, hi = T.wilson(40, 40)
    assert hi == 1.0 and lo == pytest.approx(0.9124, abs=1e-3)


def test_bradley_terry_orders_agents_and_stays_finite() -> None:
    wins = np.array([[0, 10, 20], [10, 0, 20], [0, 0, 0]], float)
    count = np.array([[0, 20, 20], [20, 0, 20], [20, 20, 0]], float)
    r = T.bradley_terry(wins, count)
    assert r[0] == pytest.approx(r[1], abs=1e-6)
    assert r[0] > r[2] + 200 and np.all(np.isfinite(r))


def _run(tmp_path, name: str, *extra: str) -> dict:
    out = tmp_path / name
    argv = ["--agents", "random,greedy", "--games", "4", "--seed", "3", "--out", str(out)]
    argv += ["--no-progress", "--no-plots", "--bootstrap", "20", *extra]
    assert A.main(argv) == 0
    return json.loads((out / "summary.json").read_text())


def _strip(summary: dict) -> dict:
    s = json.loads(json.dumps(summary))
    s.pop("config")
    for a in s["agents"]:
        for k in list(a):
            if k.startswith("thinking"):
                a.pop(k)
    return s


def test_tournament_is_reproducible_and_independent_of_workers(tmp_path, capsys) -> None:
    a = _run(tmp_path, "a", "--workers", "1")
    b = _run(tmp_path, "b", "--workers", "1")
    c = _run(tmp_path, "c", "--workers", "2")
    assert _strip(a) == _strip(b) == _strip(c)
    games = [json.loads(line) for line in (tmp_path / "c" / "games.jsonl").read_text().splitlines()]
    assert [g["index"] for g in games] == list(range(4))
    assert all(set(g["seats"]) == {"random", "greedy"} for g in games)
    printed = capsys.readouterr().out
    assert "win rate of row vs column" in printed and "rating" in printed
    for f in ("summary.json", "winrates.csv", "agents.csv", "games.jsonl"):
        assert (tmp_path / "a" / f).exists()


def test_tournament_three_players_and_plots(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "p3"
    argv = ["--agents", "random,greedy", "--players", "3", "--games", "3", "--out", str(out)]
    assert A.main(argv + ["--no-progress", "--workers", "1", "--bootstrap", "10"]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["config"]["games"] == 2 * 3  # lineups (r,r,g) and (r,g,g), 3 rotations each
    assert (out / "winrate_heatmap.png").stat().st_size > 1000
    assert (out / "score_distributions.png").stat().st_size > 1000
    rates = {a["agent"]: a for a in s["agents"]}
    assert rates["random"]["seats"] + rates["greedy"]["seats"] == 18
    ups = {(r["lineup"], r["agent"]): r for r in s["lineups"]}
    assert set(ups) == {(u, a) for u in ("random+random+greedy", "random+greedy+greedy") for a in ("random", "greedy")}
    for u in ("random+random+greedy", "random+greedy+greedy"):
        assert ups[(u, "random")]["game_win_rate"] + ups[(u, "greedy")]["game_win_rate"] == pytest.approx(1.0)
    assert (out / "lineups.csv").exists()
    if importlib.util.find_spec("openskill") is not None:  # multiplayer ratings with real intervals
        assert s["rating_model"].startswith("Plackett-Luce")
        for a in s["agents"]:
            assert a["rating_lo"] < a["rating"] < a["rating_hi"]
    # --summarize recomputes the same tables from games.jsonl without playing
    (out / "agents.csv").unlink()
    assert A.main(["--summarize", str(out), "--no-plots", "--bootstrap", "10"]) == 0
    assert json.loads((out / "summary.json").read_text()) == s
    assert (out / "agents.csv").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random,nosuchagent"], "unknown agent"),
        (["--agents", "random"], "at least 2"),
        (["--agents", "random,random"], "twice"),
        (["--games", "0"], "--games: expected an integer >= 1, got 0"),
        (["--bootstrap", "-1"], "--bootstrap: expected an integer >= 0, got -1"),
        (["--workers", "0"], "--workers"),
        (["--mcts-seconds", "-2"], "--mcts-seconds"),
    ],
)
def test_tournament_rejects_bad_arguments_before_playing(argv, message, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(T, "run_games", lambda *a, **k: pytest.fail("played games despite a bad argument"))
    with pytest.raises(SystemExit) as exc:
        A.main([*argv, "--out", str(tmp_path / "t"), "--no-progress"])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("name", ["games.jsonl", "games.partial.jsonl"])
def test_a_second_run_never_deletes_earlier_games(name, tmp_path, capsys) -> None:
    out = tmp_path / "t"
    out.mkdir()
    earlier = '{"index": 0, "earlier": true}\n'
    (out / name).write_text(earlier)
    with pytest.raises(SystemExit) as exc:
        A.main(["--agents", "random,greedy", "--games", "2", "--out", str(out), "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "nothing was deleted" in err
    assert (out / name).read_text() == earlier


def test_games_jsonl_holds_a_record_that_replays_the_game(tmp_path) -> None:
    from ohmygoods_env.engine import Game, GameRecord

    _run(tmp_path, "rec", "--workers", "1")
    for line in (tmp_path / "rec" / "games.jsonl").read_text().splitlines():
        g = json.loads(line)
        game = Game.replay(GameRecord.from_dict(g["record"]))
        assert game.done
        assert [s for s, _ in game.scores()] == g["scores"]
        assert game.winners() == g["winners"]


def test_resume_keeps_finished_games_of_an_interrupted_run(tmp_path, monkeypatch) -> None:
    full = _run(tmp_path, "full", "--workers", "1")
    lines = (tmp_path / "full" / "games.jsonl").read_text().splitlines()
    out = tmp_path / "resumed"
    out.mkdir()
    (out / "games.partial.jsonl").write_text("\n".join(lines[:2]) + '\n{"index": 3, "cut sh')
    played = []
    real = T._run_spec
    monkeypatch.setattr(T, "_run_spec", lambda spec: played.append(spec.index) or real(spec))
    resumed = _run(tmp_path, "resumed", "--workers", "1", "--resume")
    assert sorted(played) == [2, 3]
    assert _strip(resumed) == _strip(full)
    assert not (out / "games.partial.jsonl").exists()


def test_a_finished_run_can_be_extended_with_more_games(tmp_path, monkeypatch) -> None:
    _run(tmp_path, "ext", "--workers", "1")  # 4 games per lineup
    out = tmp_path / "ext"
    played = []
    real = T._run_spec
    monkeypatch.setattr(T, "_run_spec", lambda spec: played.append(spec.number) or real(spec))
    argv = ["--agents", "random,greedy", "--games", "6", "--seed", "3", "--out", str(out)]
    assert A.main(argv + ["--no-progress", "--no-plots", "--bootstrap", "5", "--workers", "1", "--resume"]) == 0
    assert sorted(played) == [4, 5]
    assert len((out / "games.jsonl").read_text().splitlines()) == 6


def test_solo_tournament_plays_every_agent_on_the_same_deals_and_reports_mean_scores() -> None:
    """Solo (R10.3) is a score attack: each agent alone, all on the same deals, mean score with a 95% interval."""
    from ohmygoods_agents import tournament as T

    names = ["random", "greedy"]
    specs = T.schedule(len(names), 1, 4, seed=3)
    assert [s.seats for s in specs] == [(0,)] * 4 + [(1,)] * 4
    assert [s.seed for s in specs[:4]] == [s.seed for s in specs[4:]]  # the same deals for every agent
    games = T.run_games(names, specs, 1, "omg2", workers=1, progress=False)
    summary = T.summarize(names, games)
    assert summary["solo"]
    for i, a in enumerate(summary["agents"]):
        scores = [g["scores"][0] for g in games if g["agent_index"] == [i]]
        assert a["games"] == 4
        assert a["score_mean"] == pytest.approx(sum(scores) / 4)
        assert a["score_lo"] < a["score_mean"] < a["score_hi"] or len(set(scores)) == 1
    assert "mean score [95% CI]" in T.format_tables(summary)


# ------------------------------------------------------------------ SB3 zips need --trust-pickle


@pytest.fixture(scope="module")
def tampered_zip(sb3_zip, make_tampered_zip, tmp_path_factory):
    """A tiny MaskablePPO zip whose ``data`` carries an extra pickled entry that creates a marker file."""
    folder = tmp_path_factory.mktemp("tampered")
    marker = folder / "marker"
    return make_tampered_zip(sb3_zip, folder / "bad.zip", marker), marker


def test_loads_pickle_names_the_zip_specs_only(tmp_path) -> None:
    (tmp_path / "only_zip.zip").write_bytes(b"")
    (tmp_path / "both.zip").write_bytes(b"")
    (tmp_path / "both.json").write_text("{}")
    assert A.loads_pickle("sb3:whatever") and A.loads_pickle(f"sb3:{tmp_path / 'x.zip'}")
    assert A.loads_pickle(f"ppo:{tmp_path / 'x.zip'}")
    assert A.loads_pickle(f"ppo:{tmp_path / 'only_zip'}")  # load_policy would open the zip
    assert not A.loads_pickle(f"ppo:{tmp_path / 'both'}")  # the JSON checkpoint wins
    for spec in ("random", "heuristic", "mcts", "ppo", f"ppo:{tmp_path / 'x.json'}"):
        assert not A.loads_pickle(spec), spec


@pytest.mark.parametrize("as_ppo", [False, True])
def test_sb3_zip_agent_is_refused_without_trust_pickle_and_plays_with_it(tampered_zip, as_ppo, tmp_path, capsys):
    bad, marker = tampered_zip
    marker.unlink(missing_ok=True)
    spec = f"ppo:{bad}" if as_ppo else f"sb3:{bad}"
    argv = ["--agents", f"{spec},random", "--games", "1", "--workers", "1", "--no-progress", "--no-plots"]
    with pytest.raises(SystemExit) as exc:
        A.main([*argv, "--out", str(tmp_path / "refused")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--trust-pickle" in err and "can run any code" in err
    assert not marker.exists() and not (tmp_path / "refused").exists()
    # with the opt-in the zip loads (its payload runs: the refusal above was what kept it out) and plays
    out = tmp_path / "trusted"
    assert A.main([*argv, "--trust-pickle", "--out", str(out), "--bootstrap", "0"]) == 0
    assert marker.exists()
    s = json.loads((out / "summary.json").read_text())
    assert s["config"]["trust_pickle"] is True and s["config"]["games"] == 1
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert all(set(g["seats"]) == {spec, "random"} for g in games)


def test_network_guided_mcts_takes_the_search_budget(tmp_path, monkeypatch) -> None:
    """``mcts:ppo`` in a tournament: the search budget of ``--mcts-sims`` reaches it as it reaches ``mcts``."""
    pytest.importorskip("torch")
    from ohmygoods_agents.mcts import MCTSAgent

    made: list[tuple[str, int | None]] = []
    init = MCTSAgent.__init__

    def spy(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append((self.name, self.sims))

    monkeypatch.setattr(MCTSAgent, "__init__", spy)
    out = tmp_path / "t"
    argv = ["--agents", "mcts:ppo,random", "--games", "2", "--mcts-sims", "7", "--workers", "1"]
    A.main([*argv, "--no-progress", "--no-plots", "--out", str(out)])
    assert made and set(made) == {("mcts:ppo", 7)}
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 2


def _two_player_game(winner_agent: int, seat_of_0: int) -> dict:
    idx = [0, 1] if seat_of_0 == 0 else [1, 0]
    win_seat = idx.index(winner_agent)
    scores = [30 if s == win_seat else 20 for s in range(2)]
    return {
        "agent_index": idx,
        "scores": scores,
        "leftover": [0, 0],
        "winners": [win_seat],
        "seat_decisions": [100, 100],
        "thinking_s": [0.1, 0.1],
    }


@pytest.mark.parametrize("names", [["heuristic", "random"], ["heuristic", "greedy"]])
def test_a_perfect_two_player_record_has_no_zero_width_rating_interval(names: list[str]) -> None:
    from ohmygoods_agents.tournament import format_tables, summarize

    games = [_two_player_game(0, k % 2) for k in range(200)]  # agent 0 wins every game
    s = summarize(names, games, bootstrap=50, seed=0)
    top = s["agents"][0]
    assert top["rating_lo"] < top["rating_hi"] and top["rating_lo"] <= top["rating"] <= top["rating_hi"]
    table = format_tables(s)
    rating = f"{top['rating']:.0f}"
    assert f"{rating} [{rating:>6},{rating:>6}]" not in table
    if "random" in names:  # the anchor is 0 by definition and says so
        assert s["agents"][1]["rating_anchor"] and "(anchor)" in table
    else:
        assert s["agents"][1]["rating_lo"] < s["agents"][1]["rating_hi"]
