"""Match statistics: win rates with Wilson 95% intervals, and matches of one agent against a baseline."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents import make_agent

from .league import POOL_AGENT_KWARGS, play_games


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional: ties count half)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class MatchResult:
    """Outcome of ``games`` games of one agent against a baseline (win rate: ties count half)."""

    opponent: str
    games: int
    wins: int
    ties: int
    losses: int
    win_rate: float
    ci_low: float
    ci_high: float
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return (
            f"vs {self.opponent:<10} {self.win_rate:6.1%} [{self.ci_low:.1%}, {self.ci_high:.1%}]  "
            f"(W{self.wins} T{self.ties} L{self.losses} of {self.games})"
        )


def match(
    agent: Any,
    opponent: str,
    games: int,
    num_players: int = 2,
    rules: str = "omg2",
    seed: int = 12345,
) -> MatchResult:
    """``agent`` (batched ``act_batch``) against ``num_players - 1`` copies of a baseline, seats rotating."""
    import time

    t0 = time.perf_counter()
    opp = make_agent(opponent, seed=seed, **POOL_AGENT_KWARGS.get(opponent, {}))
    agents = [agent] + [opp] * (num_players - 1)
    rewards, seat_of = play_games(agents, games, num_players, rules, seed)
    mine = rewards[np.arange(games), seat_of[:, 0]]
    wins, ties = int((mine > 0).sum()), int((mine == 0).sum())
    losses = games - wins - ties
    rate = (wins + 0.5 * ties) / games
    lo, hi = wilson(wins + 0.5 * ties, games)
    return MatchResult(opponent, games, wins, ties, losses, rate, lo, hi, time.perf_counter() - t0)


__all__ = ["MatchResult", "match", "wilson"]
