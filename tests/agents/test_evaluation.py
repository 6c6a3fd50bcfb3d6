"""The evaluation protocol: fixed deals and seats, report statistics, reproducibility, comparing, merging."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from ohmygoods_agents import evaluation as E


def tiny_protocol(**tiers: dict) -> E.Protocol:
    """The shipped protocol with an extra test tier ``tiny`` (a few deals per opponent)."""
    data = json.loads(E.PROTOCOL_FILE.read_text())
    data["tiers"]["tiny"] = tiers or {"1": {"solo": 3}, "2": {"random": 2, "heuristic": 2}, "3": {"heuristic": 1}}
    return E.Protocol.from_dict(data)


def test_shipped_protocol_is_versioned_and_its_tiers_fit_the_deal_sets() -> None:
    p = E.load_protocol()
    assert p.version == 1 and p.deal_set and p.rules == "omg2"
    assert set(p.tiers) == {"smoke", "standard", "full"} and p.default_tier == "full"
    assert p.anchors == {"random": 0.0, "heuristic": 1000.0}
    for tier in ("standard", "full"):
        assert sorted(p.tiers[tier]) == [1, 2, 3, 4]
        for n in (2, 3, 4):
            labels = [label for label, _ in p.plan(tier, n)]
            assert {"random", "greedy", "heuristic", "mcts-100"} <= set(labels)
        assert "mcts-1000" in dict(p.plan(tier, 2))  # MCTS-1000 in 2-player games only
        assert all("mcts-1000" not in dict(p.plan(tier, n)) for n in (3, 4))
    for n, seeds in p.deals.items():
        assert len(set(seeds)) == len(seeds)  # distinct deals
        assert max(d for _, d in p.plan("full", n)) <= len(seeds)
    quick, full = dict(p.plan("standard", 2)), dict(p.plan("full", 2))
    assert quick.keys() == full.keys() and all(quick[k] < full[k] for k in quick)


def test_every_game_has_the_same_tier_names_and_quick_is_the_older_name_of_standard() -> None:
    """One set of tier names for every game with a protocol; Oh my Goods!'s ``quick`` (its name before) is its
    ``standard`` tier, whose games are unchanged: the deals per opponent of the quick tier of protocol 1."""
    for game in E.protocol_files():
        p = E.load_protocol(game=game)
        assert {"smoke", "standard", "full"} <= set(p.tiers), game
        assert p.default_tier in p.tiers
    p = E.load_protocol(game="ohmygoods")
    assert p.tier_aliases == {"quick": "standard"} and p.tier_name("quick") == "standard"
    assert p.plan("quick", 2) == p.plan("standard", 2) == [
        ("random", 50), ("greedy", 50), ("heuristic", 50), ("mcts-100", 20), ("mcts-1000", 8), ("ppo", 50)
    ]  # fmt: skip
    assert dict(p.plan("standard", 4)) == {"random": 15, "greedy": 15, "heuristic": 15, "mcts-100": 6, "ppo-4p": 15}
    assert dict(p.plan("smoke", 1)) == {"solo": 1} and all(d == 1 for _, d in p.plan("smoke", 3))
    art = E.load_protocol(game="artificium")
    with pytest.raises(ValueError, match=r"unknown tier 'quick': the protocol of artificium has"):
        art.tier_name("quick")
    data = json.loads(E.PROTOCOL_FILE.read_text())
    data["tier_aliases"] = {"quick": "huge"}
    with pytest.raises(ValueError, match=r"tier_aliases\['quick'\] must name one of its tiers"):
        E.Protocol.from_dict(data, "p.json")


def test_schedule_plays_every_deal_from_every_seat_against_one_ladder_agent() -> None:
    p = tiny_protocol(**{"3": {"random": 2, "heuristic": 2}})
    labels, specs = E.schedule(p, "tiny", 3)
    assert sorted(labels) == ["heuristic", "random"]
    assert len(specs) == 2 * 2 * 3
    for lineup in range(2):
        mine = [s for s in specs if s.lineup == lineup]
        assert [s.seed for s in mine] == [p.deals[3][0]] * 3 + [p.deals[3][1]] * 3  # the protocol's deals
        for s in mine:
            assert Counter(s.seats) == Counter({lineup + 1: 2, 0: 1})  # the others all one ladder agent
        assert [s.seats.index(0) for s in mine] == [0, 1, 2, 0, 1, 2]  # the agent in every seat of every deal
    assert [s.index for s in specs] == list(range(len(specs)))
    assert specs == E.schedule(p, "tiny", 3)[1]


def test_schedule_of_solo_is_every_deal_once() -> None:
    p = tiny_protocol(**{"1": {"solo": 4}})
    labels, specs = E.schedule(p, "tiny", 1)
    assert labels == [] and [s.seed for s in specs] == p.deals[1][:4] and all(s.seats == (0,) for s in specs)


def _game(lineup: int, seats: list[int], scores: list[int], winners: list[int]) -> dict:
    n = len(seats)
    return {
        "lineup": lineup,
        "agent_index": seats,
        "scores": scores,
        "leftover": [0] * n,
        "winners": winners,
        "rounds": 9,
        "thinking_s": [0.1] * n,
        "seat_decisions": [10] * n,
    }


def test_opponent_row_splits_ties_and_measures_the_margin_to_the_best_other_seat() -> None:
    games = [
        _game(0, [0, 1, 1], [30, 20, 25], [0]),  # won by 5
        _game(0, [1, 0, 1], [20, 20, 10], [0, 1]),  # a shared win: half
        _game(0, [1, 1, 0], [40, 10, 20], [0]),  # lost by 20
    ]
    row = E.opponent_row("heuristic", "heuristic", games, 3)
    assert (row["wins"], row["ties"], row["losses"], row["games"], row["deals"]) == (1, 1, 1, 3, 1)
    assert row["win_rate"] == pytest.approx(0.5)
    assert row["margin_mean"] == pytest.approx((5 + 0 - 20) / 3)
    assert row["score_mean"] == pytest.approx(70 / 3)
    assert row["ahead_share"] == pytest.approx((1 + 0.75 + 0.5) / 3)
    assert row["win_lo"] < 0.5 < row["win_hi"]


def test_rating_is_pinned_to_the_anchors() -> None:
    p = E.load_protocol()
    even = [{"opponent": "heuristic", "ahead_share": 0.5, "games": 400}]
    r = E.rating_of(even, p.anchors)
    assert r["value"] == pytest.approx(1000.0) and r["lo"] < 1000 < r["hi"]
    strong = E.rating_of([{"opponent": "heuristic", "ahead_share": 0.9, "games": 400}], p.anchors)
    assert strong["value"] > r["hi"]
    assert E.rating_of([{"opponent": "greedy", "ahead_share": 0.5, "games": 9}], p.anchors) is None


def test_same_report_with_one_and_two_workers(tmp_path) -> None:
    p = tiny_protocol()
    one = E.evaluate("greedy", "tiny", (1, 2, 3), workers=1, protocol=p, progress=False)
    two = E.evaluate("greedy", "tiny", (1, 2, 3), workers=2, protocol=p, progress=False, out=tmp_path)
    assert one["timing"]["workers"] == 1 and two["timing"]["workers"] == 2
    assert json.dumps(E.without_timing(one)) == json.dumps(E.without_timing(two))
    assert E.check_report(json.loads(json.dumps(one))) is not None
    sec = one["players"]["2"]
    assert [r["opponent"] for r in sec["opponents"]] == ["random", "heuristic"]
    assert [r["games"] for r in sec["opponents"]] == [4, 4]
    assert one["players"]["1"]["solo"]["games"] == 3
    assert (tmp_path / "games_2p.jsonl").read_text().count("\n") == 8
    assert {"tier", "protocol_version", "deal_set", "env_version", "package_version"} <= set(one)
    text = E.format_markdown(one)
    assert "| random | 4 |" in text and "Solo mean score" in text


def test_evaluate_refuses_a_player_count_the_tier_does_not_have() -> None:
    with pytest.raises(ValueError, match="no games for 4 players"):
        E.evaluate("random", "tiny", (4,), protocol=tiny_protocol(), progress=False)
    with pytest.raises(ValueError, match="unknown tier"):
        E.evaluate("random", "huge", (2,), protocol=tiny_protocol(), progress=False)


def test_protocol_rejects_unknown_ladder_agents_and_missing_deals() -> None:
    data = json.loads(E.PROTOCOL_FILE.read_text())
    data["tiers"]["bad"] = {"2": {"alphazero": 3}}
    with pytest.raises(ValueError, match="'alphazero' is not a ladder agent"):
        E.Protocol.from_dict(data)
    data["tiers"]["bad"] = {"2": {"random": 10**6}}
    with pytest.raises(ValueError, match="deals, the deal set has"):
        E.Protocol.from_dict(data)
    with pytest.raises(ValueError, match="not an evaluation protocol"):
        E.Protocol.from_dict({"version": 1})


def _report(rate: float, games: int, rating: float, solo: float, tier: str = "full") -> dict:
    row = {"opponent": "heuristic", "games": games, "win_rate": rate}
    return {
        "schema": E.SCHEMA,
        "schema_version": E.SCHEMA_VERSION,
        "label": f"agent{rate}",
        "tier": tier,
        "protocol_version": 1,
        "deal_set": "d",
        "rules": "omg2",
        "players": {
            "1": {"tier": tier, "solo": {"score_mean": solo, "score_lo": solo - 1, "score_hi": solo + 1}},
            "2": {"tier": tier, "opponents": [row], "rating": {"value": rating, "lo": rating - 50, "hi": rating + 50}},
        },
        "timing": {"by_players": {"1": {"decision_s_mean": 0.1}, "2": {"decision_s_mean": 0.2}}},
    }


def test_compare_reports_says_which_differences_are_significant() -> None:
    a, b = _report(0.7, 400, 1200, 30.0), _report(0.5, 400, 1180, 29.5)
    rows = {(r["players"], r["measure"]): r for r in E.compare_reports(a, b)}
    assert rows[("2", "win rate vs heuristic")]["significant"]
    assert rows[("2", "win rate vs heuristic")]["diff"] == pytest.approx(0.2)
    assert not rows[("2", "rating")]["significant"]  # 20 points, intervals of +-50
    assert not rows[("1", "solo mean score")]["significant"]
    assert not E.compare_reports(a, _report(0.7, 400, 1200, 30.0))[0]["significant"]
    assert "**yes**" in E.format_comparison(a, b, E.compare_reports(a, b))
    other = {**b, "deal_set": "e"}
    with pytest.raises(ValueError, match="deal_set"):
        E.compare_reports(a, other)


def test_merge_reports_replaces_only_the_player_counts_played() -> None:
    old = _report(0.5, 100, 1000, 20.0)
    new = _report(0.6, 200, 1100, 40.0, tier="quick")
    del new["players"]["2"], new["timing"]["by_players"]["2"]
    merged = E.merge_reports(old, new)
    assert merged["players"]["1"]["solo"]["score_mean"] == 40.0  # replaced
    assert merged["players"]["2"] == old["players"]["2"]  # kept
    assert merged["timing"]["by_players"]["2"] == old["timing"]["by_players"]["2"]
    assert merged["tier"] == "mixed"
    with pytest.raises(ValueError, match="not an evaluation report"):
        E.check_report({"players": {}})


def test_player_counts_of_shipped_networks() -> None:
    assert E.agent_player_counts("ppo-3p") == (3,)
    assert E.agent_player_counts("ppo-solo") == (1,)
    assert E.agent_player_counts("ppo") == (2,)
    assert E.agent_player_counts("heuristic") == (1, 2, 3, 4)
