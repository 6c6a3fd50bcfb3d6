"""The evaluation protocol for every game: Artificium's protocol file, reports naming their game, player
counts from the game's spec (A1.1: 2 to 6 players, no solo), determinism, agents from entry points, and the
recorded leaderboards rendered again unchanged."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest
from ohmygoods_agents import evaluation as E

import ohmygoods_env.framework.agents as fa

ROOT = Path(__file__).resolve().parents[2]
ART = "artificium"


def art_protocol(**tiers: dict) -> E.Protocol:
    """Artificium's shipped protocol with an extra tier ``tiny``."""
    data = json.loads(E.protocol_file(ART).read_text())
    data["tiers"]["tiny"] = tiers or {"2": {"random": 1, "heuristic": 1}, "4": {"greedy": 1}}
    return E.Protocol.from_dict(data)


def test_each_game_ships_its_own_versioned_protocol() -> None:
    files = E.protocol_files()
    assert files["ohmygoods"] == E.PROTOCOL_FILE and files[ART].name == "eval_protocol_artificium_v1.json"
    p = E.load_protocol(game=ART)
    assert (p.game, p.version, p.deal_set, p.rules, p.default_tier) == (ART, 1, "art-2026a", None, "standard")
    assert p.player_counts == (2, 3, 4, 5, 6)  # A1.1, from the game's spec: no solo
    assert list(p.ladder) == ["random", "greedy", "heuristic"]
    assert p.anchors == {"random": 0.0, "heuristic": 1000.0}
    assert {"smoke", "standard", "full"} <= set(p.tiers)
    for tier in ("smoke", "standard", "full"):
        assert sorted(p.tiers[tier]) == [2, 3, 4, 5, 6]
        assert all(list(dict(p.plan(tier, n))) == list(p.ladder) for n in p.player_counts)
    for n, seeds in p.deals.items():
        assert len(set(seeds)) == len(seeds) == max(d for _, d in p.plan("full", n))
        small, mid = dict(p.plan("smoke", n)), dict(p.plan("standard", n))
        assert all(small[k] < mid[k] for k in small)
    assert set(p.deals[2]).isdisjoint(p.deals[3])  # every player count its own deals
    omg = E.load_protocol()
    assert (omg.game, omg.rules, omg.default_tier, omg.player_counts) == ("ohmygoods", "omg2", "full", (1, 2, 3, 4))


def test_player_counts_come_from_the_games_spec() -> None:
    with pytest.raises(
        ValueError, match=r"player count 1 is not one of \(2, 3, 4, 5, 6\) \(Artificium is played by 2 to 6"
    ):
        art_protocol(**{"1": {"solo": 1}})
    with pytest.raises(ValueError, match="player count 7 is not one of"):
        art_protocol(**{"7": {"random": 1}})
    with pytest.raises(ValueError, match=r"players must be some of \(2, 3, 4, 5, 6\) \(Artificium is played by 2 to 6"):
        E.evaluate("greedy", "smoke", (1,), game=ART, progress=False)
    with pytest.raises(ValueError, match="no games for 3 players"):
        E.evaluate("greedy", "tiny", (3,), protocol=art_protocol(), progress=False)
    assert E.agent_player_counts("heuristic", ART) == (2, 3, 4, 5, 6)
    assert E.agent_player_counts("heuristic") == (1, 2, 3, 4)


def test_a_game_without_a_protocol_or_an_unknown_game_is_named(tmp_path, monkeypatch) -> None:
    import dataclasses

    import ohmygoods_env.framework.game as fg
    from ohmygoods_env.goofspiel.game_spec import GOOFSPIEL

    with pytest.raises(ValueError, match=r"unknown game 'chess': registered games are \[.*'artificium'"):
        E.load_protocol(game="chess")
    bare = dataclasses.replace(GOOFSPIEL, name="bare", title="Bare", protocol=None)  # a game without a protocol
    monkeypatch.setitem(fg._GAMES, "bare", bare)
    with pytest.raises(
        ValueError,
        match=r"no evaluation protocol for Bare .*protocols ship for \['artificium', 'goofspiel', 'ohmygoods'\]",
    ):
        E.load_protocol(game="bare")
    with pytest.raises(ValueError, match="is for the game 'artificium', not 'ohmygoods'"):
        E.load_protocol(E.protocol_file(ART), game="ohmygoods")
    with pytest.raises(ValueError, match="the protocol is for the game 'artificium', not 'ohmygoods'"):
        E.evaluate("random", protocol=art_protocol(), game="ohmygoods", progress=False)


def test_a_game_folder_ships_its_protocol_through_its_spec() -> None:
    """Goofspiel's protocol lives in its folder (GameSpec.protocol), and the evaluation finds it."""
    from ohmygoods_env.goofspiel.game_spec import GOOFSPIEL

    path = E.protocol_files()["goofspiel"]
    assert path.parent.name == "goofspiel" and GOOFSPIEL.protocol == "ohmygoods_env.goofspiel:eval_protocol.json"
    p = E.load_protocol(game="goofspiel")
    assert p.game == "goofspiel" and {"smoke", "standard", "full"} <= set(p.tiers)


def test_another_registered_game_needs_only_a_protocol_file(tmp_path) -> None:
    """Goofspiel (the framework's example game): a protocol file of its own, and the machinery plays it."""
    from ohmygoods_env.goofspiel.game_spec import GOOFSPIEL

    data = {
        "game": GOOFSPIEL.name,
        "version": 1,
        "deal_set": "goof-test",
        "default_tier": "tiny",
        "rating": {"anchors": {"random": 0}},
        "ladder": {"random": {"spec": "random"}},
        "tiers": {"tiny": {"2": {"random": 3}, "3": {"random": 1}}},
        "deals": {"2": [11, 12, 13], "3": [21]},
    }
    path = tmp_path / "goof.json"
    path.write_text(json.dumps(data))
    p = E.load_protocol(path)
    report = E.evaluate("random", protocol=p, progress=False)
    assert report["game"] == "goofspiel" and report["tier"] == "tiny" and report["rules"] is None
    assert sorted(report["players"]) == ["2", "3"] and report["env_version"] == "goofspiel-v0"
    row = report["players"]["2"]["opponents"][0]
    assert row["games"] == 6 and row["wins"] + row["ties"] + row["losses"] == 6
    assert report["players"]["2"]["rating"]["anchors"] == {"random": 0.0}


def test_artificium_report_names_its_game_and_is_the_same_with_any_worker_count(tmp_path) -> None:
    p = art_protocol()
    one = E.evaluate("greedy", "tiny", (2, 4), workers=1, protocol=p, progress=False)
    two = E.evaluate("greedy", "tiny", (2, 4), workers=2, protocol=p, progress=False, out=tmp_path)
    assert json.dumps(E.without_timing(one)) == json.dumps(E.without_timing(two))
    report = E.check_report(json.loads(json.dumps(one)))
    assert E.report_game(report) == ART and list(report)[:3] == ["schema", "schema_version", "game"]
    assert report["env_version"] == "artificium-v0" and report["rules"] is None and report["deal_set"] == "art-2026a"
    sec = report["players"]["2"]
    assert [r["opponent"] for r in sec["opponents"]] == ["random", "heuristic"]
    assert [r["games"] for r in sec["opponents"]] == [2, 2]
    assert report["players"]["4"]["opponents"][0]["games"] == 4
    assert sec["rating"]["anchors"] == {"random": 0.0, "heuristic": 1000.0}
    games = [json.loads(x) for x in (tmp_path / "games_4p.jsonl").read_text().splitlines()]
    assert {g["seed"] for g in games} == {p.deals[4][0]}  # the protocol's deal, from every seat
    assert sorted(g["agent_index"].index(0) for g in games) == [0, 1, 2, 3]
    assert all(g["record"]["game"] == ART and g["record"]["seed"] == g["seed"] for g in games)  # replayable
    text = E.format_markdown(report)
    assert "Game *Artificium*" in text and "rules `" not in text and "(random 0, heuristic 1000)" in text


def test_an_agent_from_an_entry_point_is_evaluated(monkeypatch) -> None:
    """A name only an entry point ``artificium.NAME`` offers (as a trained agent's package would)."""
    ep = metadata.EntryPoint("artificium.copycat", "ohmygoods_agents.artificium:greedy", fa.ENTRY_POINT_GROUP)
    monkeypatch.setattr(fa.metadata, "entry_points", lambda group: [ep] if group == fa.ENTRY_POINT_GROUP else [])
    monkeypatch.setitem(fa._REGISTRY, ART, dict(fa._REGISTRY.get(ART, {})))
    fa._REGISTRY[ART].pop("copycat", None)
    p = art_protocol(**{"3": {"heuristic": 1}})
    copy = E.evaluate("copycat", "tiny", (3,), protocol=p, progress=False)
    greedy = E.evaluate("greedy", "tiny", (3,), protocol=p, progress=False)
    assert copy["agent"] == "copycat"
    assert copy["players"] == greedy["players"]  # the same agent under another name: the same games


def test_reports_of_two_games_are_never_mixed() -> None:
    omg = E.read_report(ROOT / "docs" / "leaderboard" / "greedy.json")
    assert "game" not in omg and E.report_game(omg) == "ohmygoods"  # cards written before the field
    art = {**json.loads(json.dumps(omg)), "game": ART}
    with pytest.raises(ValueError, match="different games"):
        E.compare_reports(omg, art)
    with pytest.raises(ValueError, match="cannot merge a report of 'artificium' into a card of 'ohmygoods'"):
        E.merge_reports(omg, art)
    with pytest.raises(ValueError, match="cannot show reports of other games"):
        E.render_leaderboard([omg], E.load_protocol(game=ART))
    with pytest.raises(ValueError, match="not a name"):
        E.check_report({**omg, "game": 3})


@pytest.mark.parametrize(
    ("game", "cards", "page"),
    [
        ("ohmygoods", "docs/leaderboard", "docs/leaderboard.md"),
        (ART, "docs/artificium/leaderboard", "docs/artificium/leaderboard.md"),
    ],
)
def test_the_recorded_leaderboards_render_from_their_cards(game: str, cards: str, page: str) -> None:
    """Each page is exactly what ``--leaderboard --render-only`` writes from its cards (Oh my Goods!'s unchanged)."""
    reports = [E.read_report(p) for p in sorted((ROOT / cards).glob("*.json"))]
    assert reports and {E.report_game(r) for r in reports} == {game}
    assert E.render_leaderboard(reports, E.load_protocol(game=game)) == (ROOT / page).read_text()


def test_a_retrained_network_of_the_same_name_plays_its_games_again(tmp_path: Path) -> None:
    """A rerun keeps the stored games only for the same weights: the games file records each agent's
    fingerprint (the SHA-256 of its weights), so new weights under the old name play everything again."""
    import shutil

    from ohmygoods_agents.checkpoint import read_checkpoint, save_checkpoint, weights_fingerprint

    src = ROOT / "agents" / "checkpoints" / "artificium"
    for f in ("ppo.json", "ppo.safetensors"):
        shutil.copy(src / f, tmp_path / f)
    ckpt, out = tmp_path / "ppo.json", tmp_path / "eval"
    protocol = art_protocol(**{"2": {"random": 2}})
    spec = f"ppo:{ckpt}"

    def run() -> list[dict]:
        E.evaluate(spec, "tiny", (2,), protocol=protocol, out=out, progress=False, game=ART)
        return [json.loads(x) for x in (out / "games_2p.jsonl").read_text().splitlines()]

    first = run()
    assert len(first) == 4 and {tuple(g["agent_fingerprints"]) for g in first} == {(weights_fingerprint(ckpt), None)}
    assert run() == first  # the same weights: nothing played again
    tensors, desc = read_checkpoint(ckpt)
    name = sorted(tensors)[0]
    tensors[name] = tensors[name] + 0.01
    save_checkpoint(ckpt, tensors, desc["network"]["activation"], layout=desc["layout"])
    again = run()
    assert weights_fingerprint(ckpt) != first[0]["agent_fingerprints"][0]
    assert len(again) == 8 and again[:4] == first  # all four games played again, appended
    assert all(g["agent_fingerprints"][0] == weights_fingerprint(ckpt) for g in again[4:])
