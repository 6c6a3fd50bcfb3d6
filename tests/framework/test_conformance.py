"""Conformance: every registered game gets the same checks, with no test to edit when a game is added.

The cases are parametrized over :func:`ohmygoods_env.framework.game.game_names` (the games the
package root declares, and any other registered before collection): a game from one folder
(*Goofspiel*, ``ohmygoods_env/goofspiel``) is checked exactly like *Oh my Goods!* and *Artificium*.
Sizes are small (each case seconds); the games' own suites hold the heavy checks.

* the framework's PettingZoo AEC and parallel envs pass ``api_test`` / ``parallel_api_test``;
* seed determinism over whole games of masked random actions, AEC and parallel: one seed, the same
  steps; another seed, another game;
* a seeded game is deterministic, and its record replays it (every seat's observation agrees);
* hidden-information twins: ``determinize(p, s)`` gives a world that differs from the true one in
  hidden information only, so seat ``p`` observes the same and has the same mask, while the worlds
  do differ (some other seat's view, or the deck, changes for some seed);
* a tiny tournament (``ohmygoods tournament --game NAME``, one game) and its ``games.jsonl``;
* an evaluation run of the ``smoke`` tier (skipped, with the refusal, for a game with no protocol);
* serve: a watched table and a person's table built by the web shell (``web_kind``), stepped to
  the end, undo, the replay page; ``ohmygoods replay`` of the finished game's record;
* the generic bench row of the game's forward model.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

import ohmygoods_env  # noqa: F401  (declares the shipped games)
from ohmygoods_env.framework.envs import aec_env, parallel_env
from ohmygoods_env.framework.game import game_names, game_spec

GAMES = game_names()


def players_of(game: str) -> int:
    """The player count the cases use: 2, or the game's range's nearest count."""
    spec = game_spec(game)
    return min(max(2, spec.min_players), spec.max_players)


def test_every_shipped_game_is_checked() -> None:
    assert {"ohmygoods", "artificium", "goofspiel"} <= set(GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_tests(game: str) -> None:
    n = players_of(game)
    api_test(aec_env(game, num_players=n), num_cycles=40)
    parallel_api_test(parallel_env(game, num_players=n), num_cycles=40)


def _aec_game(game: str, seed: int) -> list:
    env = aec_env(game, num_players=players_of(game))
    env.reset(seed=seed)
    rng = np.random.default_rng(7)
    trace = []
    for agent in env.agent_iter(max_iter=5000):
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), float(reward)))
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return trace


def _parallel_game(game: str, seed: int) -> list:
    env = parallel_env(game, num_players=players_of(game))
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(7)
    trace = []
    while env.agents:
        trace.append(sorted((a, o["observation"].tobytes(), o["action_mask"].tobytes()) for a, o in obs.items()))
        acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in sorted(obs.items())}
        obs, rewards, _, _, _ = env.step(acts)
        trace.append(sorted(rewards.items()))
    return trace


@pytest.mark.parametrize("game", GAMES)
def test_one_seed_plays_the_same_whole_game_another_seed_another(game: str) -> None:
    for play in (_aec_game, _parallel_game):
        one, two, other = play(game, 11), play(game, 11), play(game, 12)
        assert len(one) > 4 and one == two, play.__name__
        assert one != other, play.__name__


def _random_game(game: str, seed: int, steps: int | None = None):
    """A seeded game after ``steps`` masked random actions (None: played to the end)."""
    g = game_spec(game).make(players_of(game), seed=seed)
    rng = np.random.default_rng(seed)
    done = 0
    while not g.done and (steps is None or done < steps):
        g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
        done += 1
    return g


@pytest.mark.parametrize("game", GAMES)
def test_a_seeded_game_is_deterministic_and_its_record_replays_it(game: str) -> None:
    a, b = _random_game(game, 5), _random_game(game, 5)
    assert a.done and b.done and a.scores() == b.scores() and a.winners() == b.winners()
    for p in range(a.num_players):
        assert np.array_equal(a.observe(p), b.observe(p))
    replayed = type(a).replay(a.record())
    assert replayed.done and replayed.scores() == a.scores()
    for p in range(a.num_players):
        assert np.array_equal(replayed.observe(p), a.observe(p))


@pytest.mark.parametrize("game", GAMES)
def test_hidden_information_twins_look_the_same_to_the_seat(game: str) -> None:
    """``determinize(p, s)`` changes only what seat ``p`` cannot see: its observation and mask stay, and
    across seeds the worlds do differ somewhere (else nothing was hidden and the check proves nothing)."""
    differs = 0
    for steps in range(12):  # every position of a game's start: pick and bid, a face-down choice made, ...
        g = _random_game(game, 21, steps)
        if g.done:
            break
        for p in range(g.num_players):
            for s in range(3):
                twin = g.determinize(p, s)
                assert np.array_equal(twin.observe(p), g.observe(p)), (steps, p, s)
                assert np.array_equal(twin.legal_mask(p), g.legal_mask(p)), (steps, p, s)
                others = [q for q in range(g.num_players) if q != p]
                differs += any(not np.array_equal(twin.observe(q), g.observe(q)) for q in others)
                twin_end, g_end = twin.clone(), g.clone()
                differs += _diverges(twin_end, g_end)
    assert differs > 0, "no determinization changed anything: the game hides nothing, or determinize copies"


def _diverges(a, b) -> bool:
    """Whether the same masked random play from two worlds leads to different observations (hidden cards drawn)."""
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(40):
        if a.done or b.done:
            return a.done != b.done or a.scores() != b.scores()
        ma, mb = a.legal_mask(), b.legal_mask()
        if not np.array_equal(ma, mb) or a.current_player != b.current_player:
            return True
        a.step(int(rng_a.choice(np.flatnonzero(ma))))
        b.step(int(rng_b.choice(np.flatnonzero(mb))))
        if any(not np.array_equal(a.observe(q), b.observe(q)) for q in range(a.num_players)):
            return True
    return False


@pytest.mark.parametrize("game", GAMES)
def test_a_tiny_tournament(game: str, tmp_path: Path, capsys) -> None:
    from ohmygoods_env.apps import tournament

    out = tmp_path / "t"
    argv = ["--game", game, "--agents", "random,ismcts:2", "--players", str(players_of(game)), "--games", "1"]
    argv += ["--out", str(out), "--workers", "1", "--no-plots", "--no-progress"]
    assert tournament.main(argv) == 0
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert rows and all(len(r["seats"]) == players_of(game) and r["winners"] for r in rows)
    assert json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("game", GAMES)
def test_an_evaluation_smoke_run(game: str) -> None:
    from ohmygoods_agents import evaluation as E

    try:
        protocol = E.load_protocol(game=game)
    except ValueError as exc:
        pytest.skip(f"{game}: {exc}")
    if "smoke" not in protocol.tiers:
        pytest.skip(f"{game}: its protocol has no smoke tier ({sorted(protocol.tiers)})")
    n = players_of(game)
    report = E.evaluate("random", "smoke", (n,), protocol=protocol, progress=False)
    assert report["game"] == game and report["tier"] == "smoke"
    rows = report["players"][str(n)]["opponents"]
    assert rows and all(r["games"] == r["wins"] + r["ties"] + r["losses"] > 0 for r in rows)


@pytest.mark.parametrize("game", GAMES)
def test_serve_builds_and_steps_a_table_and_replays_its_game(game: str, tmp_path: Path, capsys) -> None:
    from ohmygoods_env.apps import replay, web_shell

    kind = web_shell.web_kind(game)
    offer = kind.offered()
    assert "random" in offer["agents"] and players_of(game) in offer["players"]
    n = players_of(game)
    watched = kind.new_game({"game": game, "players": n, "watch": True, "opponents": ["random"], "seed": 3})
    for _ in range(200):
        if watched.game.done:
            break
        watched.step(50)
    view = watched.view("w")
    assert view["done"]
    assert view["record"], "replays need record().to_dict() as a step record (apps/web_generic.py STEP_RECORD_KEYS)"
    assert "<html" in watched.replay_page()

    person = kind.new_game({"game": game, "players": n, "seat": 0, "opponents": ["random"], "seed": 4})
    first = person.view("p")
    assert first["choices"] and not first["done"]
    person.move(first["choices"][0]["action"])
    person.undo()
    assert [c["action"] for c in person.view("p")["choices"]] == [c["action"] for c in first["choices"]]
    with pytest.raises(web_shell.BadRequest):
        person.move(10**6)

    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps({"index": 0, "record": view["record"]}) + "\n")
    page = tmp_path / "game.html"
    assert replay.main([str(games), "--index", "0", "--seat", "0", "-o", str(page)]) == 0
    assert page.stat().st_size > 1000


@pytest.mark.parametrize("game", GAMES)
def test_the_generic_bench_row(game: str) -> None:
    from ohmygoods_env.bench.forward import forward_row

    row = forward_row(game, seconds=0.05)
    assert row.name.startswith(f"interface: {game},") and row.games > 0 and row.decisions >= row.games
