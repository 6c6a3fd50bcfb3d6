"""Graded strength, checked on small samples with margin (the headline figures are in docs/agents.md)."""

from __future__ import annotations

from ohmygoods_agents import make_agent
from ohmygoods_agents.tournament import play_game


def _win_share(a: str, b: str, n_games: int, rules: str = "omg2", **kw) -> float:
    won = 0.0
    for i in range(n_games):
        seats = [a, b] if i % 2 == 0 else [b, a]
        agents = [make_agent(n, seed=100 * i + s, **kw.get(n, {})) for s, n in enumerate(seats)]
        g, _, _ = play_game(agents, 2, rules, seed=7000 + i // 2)
        r = g.rewards()
        won += (r[seats.index(a)] + 1) / 2
    return won / n_games


def test_heuristic_beats_random() -> None:
    assert _win_share("heuristic", "random", 40) >= 0.8


def test_heuristic_beats_random_in_royal_goods() -> None:
    assert _win_share("heuristic", "random", 20, "royal") >= 0.8


def test_greedy_beats_random() -> None:
    assert _win_share("greedy", "random", 20) >= 0.8
