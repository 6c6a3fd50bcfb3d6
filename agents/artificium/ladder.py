"""The ladder of *Artificium*'s agents: each agent against seats of another, win rates with 95% Wilson intervals.

``python -m ohmygoods_agents.artificium.ladder --players 2,4,6 --games 200`` prints one Markdown
table per player count (the tables of ``docs/artificium/agents.md``). Every row is one
:func:`ohmygoods_env.framework.matches.play_games` series: the agent in one seat, the
opponent agent in all the others, seats rotated game by game (the agent sits in every seat
equally often when the games are a multiple of the players), game ``i`` dealt from a seed
derived from ``--seed`` and ``i``. The win rate counts a ``k``-way shared win as ``1/k``
(A8.3); parity, the rate of an agent no better than its opponents, is ``1/players``.
"""

from __future__ import annotations

import argparse
import sys
import time

import ohmygoods_env  # noqa: F401  (registers the games)
from ohmygoods_env.framework.matches import GamesResult, play_games

from .. import ismcts as _ismcts  # noqa: F401  (registers ismcts)
from . import GAME

__all__ = ["ladder_rows", "main", "markdown"]


def ladder_rows(
    players: int, games: int, seed: int, ismcts: int, ismcts_games: int
) -> list[tuple[str, str, GamesResult]]:
    """The series of one table: ``(agent, opponent, result)`` per row."""
    pairs = [("greedy", "random", games), ("heuristic", "random", games), ("heuristic", "greedy", games)]
    if ismcts_games > 0:  # the search is slow: against random seats, and in 2-player games against the heuristic
        pairs.append((f"ismcts:{ismcts}", "random", ismcts_games))
        if players == 2:
            pairs.append(("heuristic", f"ismcts:{ismcts}", ismcts_games))
    rows = []
    for agent, opponent, n in pairs:
        names = [agent] + [f"{opponent}#{k}" for k in range(1, players)]
        res = play_games(GAME, [agent] + [opponent] * (players - 1), n, seed=seed, names=names)
        rows.append((agent, opponent, res))
    return rows


def markdown(players: int, rows: list[tuple[str, str, GamesResult]]) -> str:
    """One Markdown table: the agent's win rate against ``players - 1`` opponent seats."""
    lines = [
        f"| agent | {players - 1} opponent seat{'s' if players > 2 else ''} | games | win rate [95% Wilson] "
        f"| parity | mean score (agent / opponents) | ms per decision (agent / opponents) |",
        "|---|---|---|---|---|---|---|",
    ]
    for agent, opponent, res in rows:
        me, others = res.agents[0], res.agents[1:]
        opp_score = sum(a.score_mean for a in others) / len(others)
        opp_ms = 1000 * sum(a.seconds_per_decision for a in others) / len(others)
        lines.append(
            f"| {agent} | {opponent} | {me.games} | {me.win_rate:.3f} [{me.win_lo:.3f}, {me.win_hi:.3f}] "
            f"| {res.parity:.3f} | {me.score_mean:.1f} / {opp_score:.1f} "
            f"| {1000 * me.seconds_per_decision:.2f} / {opp_ms:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the ladder tables; returns the exit status."""
    ap = argparse.ArgumentParser(
        prog="python -m ohmygoods_agents.artificium.ladder", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--players", default="2,4,6", help="comma list of player counts (2-6)")
    ap.add_argument("--games", type=int, default=200, help="games per row (a multiple of the players rotates evenly)")
    ap.add_argument("--ismcts", type=int, default=50, help="IS-MCTS iterations per decision")
    ap.add_argument("--ismcts-games", type=int, default=0, help="games of the IS-MCTS rows (0: no such rows)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    args = ap.parse_args(argv)
    try:
        counts = [int(p) for p in args.players.split(",")]
    except ValueError:
        ap.error(f"--players must be a comma list of ints in 2..6, got {args.players!r}")
    if any(not 2 <= p <= 6 for p in counts) or args.games < 1 or args.ismcts < 1 or args.ismcts_games < 0:
        ap.error("--players in 2..6, --games >= 1, --ismcts >= 1 and --ismcts-games >= 0")
    for p in counts:
        t0 = time.perf_counter()
        rows = ladder_rows(p, args.games, args.seed, args.ismcts, args.ismcts_games)
        print(f"\n{p} players ({time.perf_counter() - t0:.0f} s)\n")
        print(markdown(p, rows))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
