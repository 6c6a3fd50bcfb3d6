"""Training's match results: one agent against a baseline (:func:`match`) or alone (:func:`solo_score`).

The games are played in one batch by the framework's batched series player
(:func:`ohmygoods_env.framework.matches.play_batch` on *Oh my Goods!*'s batch engine, the stream
every recorded training statistic was played from: the same seeds and games as before). A series
against a baseline is the framework's one result type, :class:`~ohmygoods_env.framework.matches.AgentResult`
(the agent's share of the win, a ``k``-way shared win counting ``1/k``, with its Wilson 95% interval;
with two players a tie counts half). ``BaselineResult`` and ``MatchResult``, its names here before,
still work with a deprecation warning. Nothing here imports stable-baselines3.

With three or more players the statistic changed when the two result types became one: before,
a shared win counted as a win and a game every seat tied as half a win (``wins`` counted every
positive reward, ``ties`` the all-tied games). Figures recorded before (the ``eval`` and
``final_evaluation`` of the 3- and 4-player checkpoint cards) keep that meaning
(``docs/evaluation.md``).
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import asdict, dataclass
from typing import Any

from ohmygoods_env.framework.matches import AgentResult, play_batch
from ohmygoods_env.framework.stats import mean_interval, wilson
from ohmygoods_env.policy import GAME

from .league_spec import opponent_agent


def match(
    agent: Any,
    opponent: str,
    games: int,
    num_players: int = 2,
    rules: str = "omg2",
    seed: int = 12345,
) -> AgentResult:
    """``agent`` (batched ``act_batch``) against ``num_players - 1`` copies of a baseline, seats rotating:
    its :class:`~ohmygoods_env.framework.matches.AgentResult` with ``opponent`` set."""
    import time

    t0 = time.perf_counter()
    opp = opponent_agent(opponent, seed)
    agents = [agent] + [opp] * (num_players - 1)
    labels = [str(getattr(agent, "name", "agent"))] + [opponent] * (num_players - 1)
    res = play_batch(GAME, agents, games, seed, names=labels, options={"rules": rules})
    return dataclasses.replace(res.agents[0], opponent=opponent, seconds=time.perf_counter() - t0)


_OLD_NAMES = {"BaselineResult", "MatchResult"}


def __getattr__(name: str) -> Any:
    if name in _OLD_NAMES:  # the result type of this module before there was one result type
        warnings.warn(
            f"ohmygoods_training.stats.{name} is ohmygoods_env.framework.matches.AgentResult (the one result "
            "type of every series); import that name",
            DeprecationWarning,
            stacklevel=2,
        )
        return AgentResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    rewards = play_batch(GAME, [agent], games, seed, options={"rules": rules}).rewards  # solo: the score
    mean, lo, hi = mean_interval(rewards[:, 0])
    return SoloResult(games, float(mean), float(lo), float(hi), time.perf_counter() - t0)


__all__ = ["AgentResult", "SoloResult", "match", "solo_score", "wilson"]
