"""Training's match results: one agent against a baseline (:func:`match`) or alone (:func:`solo_score`).

The games are played in one batch by :func:`ohmygoods_env.matches.play_batch` (*Oh my Goods!*'s
batched series player, whose seeds every recorded training statistic was played from); the win
rate and its Wilson 95% interval come from :mod:`ohmygoods_env.framework.stats` (ties count half).
:class:`BaselineResult` (called ``MatchResult`` before; the old name still works) is one agent's
series against a baseline; ``framework.matches.MatchResult`` is one finished game. Nothing here
imports stable-baselines3.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ohmygoods_env.framework.stats import mean_interval, wilson, win_rate_interval
from ohmygoods_env.matches import play_batch

from .league_spec import opponent_agent


@dataclass
class BaselineResult:
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
) -> BaselineResult:
    """``agent`` (batched ``act_batch``) against ``num_players - 1`` copies of a baseline, seats rotating."""
    import time

    t0 = time.perf_counter()
    opp = opponent_agent(opponent, seed)
    agents = [agent] + [opp] * (num_players - 1)
    rewards, seat_of = play_batch(agents, games, num_players, rules, seed)
    mine = rewards[np.arange(games), seat_of[:, 0]]
    wins, ties = int((mine > 0).sum()), int((mine == 0).sum())
    losses = games - wins - ties
    rate, lo, hi = win_rate_interval(wins, ties, games)
    return BaselineResult(opponent, games, wins, ties, losses, rate, lo, hi, time.perf_counter() - t0)


MatchResult = BaselineResult  # its earlier name


@dataclass
class SoloResult:
    """Mean solo score (R10.3) of ``games`` games with its 95% interval."""

    games: int
    mean: float
    ci_low: float
    ci_high: float
    seconds: float = 0.0
    opponent: str = "solo"

    @property
    def win_rate(self) -> float:  # what a loop that keeps the best checkpoint compares
        return self.mean

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return f"solo mean score {self.mean:.2f} [{self.ci_low:.2f}, {self.ci_high:.2f}] ({self.games} games)"


def solo_score(agent: Any, games: int, rules: str = "omg2", seed: int = 12345) -> SoloResult:
    """``agent`` alone (``num_players=1``, R10.3) on ``games`` deals: its mean score with a 95% interval."""
    import time

    t0 = time.perf_counter()
    rewards, _ = play_batch([agent], games, 1, rules, seed)  # solo: the reward is the score in every mode
    mean, lo, hi = mean_interval(rewards[:, 0])
    return SoloResult(games, float(mean), float(lo), float(hi), time.perf_counter() - t0)


__all__ = ["BaselineResult", "MatchResult", "SoloResult", "match", "solo_score", "wilson"]
