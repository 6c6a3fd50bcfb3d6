"""The shared statistics: one Wilson interval, and multiplayer ratings with honest intervals."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from ohmygoods_env.framework.stats import multiplayer_ratings, wilson


def test_wilson_matches_the_textbook_values() -> None:
    lo, hi = wilson(8, 10)
    assert (round(lo, 3), round(hi, 3)) == (0.49, 0.943)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(50.5, 100)  # ties count half: fractional successes
    assert lo < 0.505 < hi and math.isclose(lo + hi, 2 * ((0.505 + 1.96**2 / 200) / (1 + 1.96**2 / 100)), rel_tol=1e-3)
    with pytest.raises(ValueError, match=r"successes must be in \[0, n\]"):
        wilson(11, 10)


def test_training_and_tournaments_use_the_same_function() -> None:
    from ohmygoods_agents import tournament
    from ohmygoods_training import stats

    assert tournament.wilson is wilson and stats.wilson is wilson


def _games(n: int, order=(0, 1, 2)) -> list[dict]:
    """3-player games where the agents finish in ``order`` (first is best), seats rotating."""
    games = []
    for k in range(n):
        seats = [order[(s + k) % 3] for s in range(3)]
        scores = [30 - 10 * order.index(a) for a in seats]
        games.append({"agent_index": seats, "scores": scores, "leftover": [0, 0, 0]})
    return games


def test_multiplayer_ratings_order_the_agents_with_intervals_that_are_never_zero_width() -> None:
    pytest.importorskip("openskill")
    names = ["heuristic", "random", "greedy"]
    few = multiplayer_ratings(names, _games(6, order=(0, 2, 1)))
    many = multiplayer_ratings(names, _games(90, order=(0, 2, 1)))
    assert many[1]["rating"] == 0.0  # random is the anchor
    assert many[0]["rating"] > many[2]["rating"] > many[1]["rating"]
    for r in few + many:
        assert r["lo"] < r["rating"] < r["hi"] and r["sigma"] > 0
    assert many[0]["hi"] - many[0]["lo"] < few[0]["hi"] - few[0]["lo"]  # more games, narrower


def test_an_agent_in_several_seats_of_one_game_and_ties() -> None:
    pytest.importorskip("openskill")
    games = [{"agent_index": [0, 0, 1], "scores": [20, 20, 10], "leftover": [1, 1, 0]} for _ in range(20)]
    r = multiplayer_ratings(["a", "b"], games)
    assert r[0]["rating"] > r[1]["rating"] and all(x["hi"] > x["lo"] for x in r)


def test_without_openskill_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "openskill.models", None)
    with pytest.raises(ImportError, match="pip install openskill"):
        multiplayer_ratings(["a", "b"], [])


def test_anchored_rating_pins_the_scale_to_the_anchors() -> None:
    from ohmygoods_env.framework.stats import anchored_rating

    x, lo, hi = anchored_rating([(0.0, 500.0, 1000.0), (1000.0, 500.0, 1000.0)])
    assert x == pytest.approx(500.0) and lo < 500 < hi  # halfway between: half of both
    x, lo, hi = anchored_rating([(1000.0, 76.0, 100.0)], prior=0.0)
    assert x == pytest.approx(1000 + 400 * math.log10(76 / 24), abs=1e-6)  # Elo's logistic
    few = anchored_rating([(1000.0, 7.6, 10.0)], prior=0.0)
    assert few[2] - few[1] > 3 * (hi - lo)  # ten times fewer games: a wider interval
    top = anchored_rating([(0.0, 50.0, 50.0), (1000.0, 50.0, 50.0)])
    assert math.isfinite(top[0]) and top[0] > 1000  # never lost: finite thanks to the prior
    with pytest.raises(ValueError, match="score must be in"):
        anchored_rating([(0.0, 11.0, 10.0)], prior=0.0)


def test_rate_and_value_differences_say_when_two_results_differ() -> None:
    from ohmygoods_env.framework.stats import rate_difference, value_difference

    d, lo, hi = rate_difference(300, 500, 250, 500)
    assert d == pytest.approx(0.1) and 0 < lo < 0.1 < hi  # significant
    d, lo, hi = rate_difference(30, 50, 25, 50)
    assert lo < 0 < hi  # the same rates on ten times fewer games: not significant
    d, lo, hi = value_difference((10.0, 9.0, 11.0), (10.5, 9.5, 11.5))
    assert d == pytest.approx(-0.5) and lo < 0 < hi
    with pytest.raises(ValueError, match="games on both sides"):
        rate_difference(1, 0, 1, 1)


# ------------------------------------------------------------------ one statistics module, for any game

ROOT = Path(__file__).resolve().parents[1]
STATS_IMPORTS = {"__future__", "itertools", "math", "collections.abc", "typing", "numpy", "openskill.models"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return out | {("." * n.level) + (n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


def test_the_statistics_module_knows_no_game_and_keeps_its_old_name() -> None:
    from ohmygoods_env import stats as old
    from ohmygoods_env.framework import stats as S

    assert _imports(ROOT / "ohmygoods_env" / "framework" / "stats.py") <= STATS_IMPORTS
    assert old.__all__ == S.__all__ and all(getattr(old, n) is getattr(S, n) for n in S.__all__)
    from ohmygoods_agents import evaluation, tournament

    for name in ("bradley_terry", "pairwise", "wilson_rating_bounds", "ahead"):
        assert getattr(tournament, name) is getattr(S, name)
    assert evaluation.ahead_share is S.ahead_share and evaluation.win_share is S.win_share


def test_counting_finished_games() -> None:
    from ohmygoods_env.framework.stats import ahead, ahead_share, pair_outcomes, pairwise, win_rate_interval, win_share

    g = {"scores": [10, 10, 7], "leftover": [3, 1, 9], "winners": [0], "agent_index": [0, 1, 1]}
    assert [ahead(g, 0, 1), ahead(g, 1, 0), ahead(g, 1, 2)] == [1.0, 0.0, 1.0]
    assert ahead({"scores": [4, 4]}, 0, 1) == 0.5  # no tie-break: equal scores tie
    assert ahead_share(g, 1) == 0.5 and win_share(g, 0) == 1.0 and win_share({"winners": [0, 2]}, 2) == 0.5
    h = {"scores": [5, 5, 5], "leftover": [0, 0, 0], "agent_index": [1, 0, 0]}
    assert pair_outcomes([g, h], 0, 1) == (2, 2, 0)
    wins, count = pairwise([g, h], 2)
    assert wins.tolist() == [[0.0, 3.0], [1.0, 0.0]] and count.tolist() == [[0.0, 4.0], [4.0, 0.0]]
    rate, lo, hi = win_rate_interval(6, 2, 10)
    assert rate == 0.7 and (lo, hi) == wilson(7, 10)
    with pytest.raises(ValueError, match="at least one game"):
        win_rate_interval(0, 0, 0)


def _private_names_of_other_modules(path: Path) -> list[str]:
    """``module._name`` uses in ``path`` where ``module`` is an imported module (not a class or value)."""
    tree = ast.parse(path.read_text())
    modules = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            modules |= {a.asname or a.name for a in n.names if a.name[:1].islower() and a.name[:1] != "_"}
    return [
        f"{n.value.id}.{n.attr}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in modules
        and n.attr.startswith("_") and not n.attr.startswith("__")
    ]  # fmt: skip


@pytest.mark.parametrize(
    "path", ["agents/evaluation.py", "ohmygoods_env/apps/evaluate.py", "training/evaluate.py", "training/stats.py"]
)
def test_evaluation_uses_public_api_only(path: str) -> None:
    assert _private_names_of_other_modules(ROOT / path) == []
