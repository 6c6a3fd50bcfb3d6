"""Matches between agents over the game interface: the one loop that plays finished games of any game.

* :func:`play_match` — one :class:`~.game.ForwardModel` to its end. Every seat the game waits
  for is asked through :func:`~.agents.choose` (its observation, its mask and, for agents that
  read one, its :class:`~.game.InformationSet`: never the true state). During a simultaneous
  choice every pending seat chooses from the same position before any choice is applied
  (``step_joint``). Returns the finished model with each seat's thinking time and decisions.
* :func:`rotating_seats` — agent ``k`` sits in seat ``(k + i) % P`` of game ``i``.
* :func:`derive_seed` — the seeds of scheduled games and agents, from a seed and indices
  (``numpy.random.SeedSequence``): independent of the order games are played in.
* :func:`play_games` — ``G`` games of a registered game between ``P`` agents with rotating
  seats; game ``i`` is dealt from ``derive_seed(seed, i)``, and an agent given by name is built
  afresh for each game with its own derived seed. Returns a :class:`GamesResult`: the game
  records (the :mod:`.stats` format: ``scores``, ``winners``, ``agent_index``, thinking time)
  and per agent the share of games won with a 95% Wilson interval (:func:`.stats.wilson`;
  a ``k``-way shared win counts ``1/k``).

*Oh my Goods!*'s harness (:mod:`ohmygoods_env.matches`) plays its single games with
:func:`play_match` (its agents get the redacted state row as their information state) and
rotates seats with :func:`rotating_seats`; the tournament runner (:mod:`ohmygoods_agents.tournament`)
plays any registered game through :func:`play_match` and seeds its schedule with :func:`derive_seed`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .agents import choose, resolve_agent
from .checks import check_int, check_seed
from .game import ForwardModel, GameSpec, resolve_game
from .stats import mean_interval, wilson

__all__ = [
    "AgentResult",
    "GamesResult",
    "MatchResult",
    "derive_seed",
    "game_record",
    "play_games",
    "play_match",
    "rotating_seats",
]


@dataclass
class MatchResult:
    """A finished game: the model, and per seat the thinking time (s) and the number of decisions."""

    model: ForwardModel
    thinking: list[float]
    decisions: list[int]


def play_match(
    model: ForwardModel, agents: Sequence[Any], decide: Callable[[Any, ForwardModel, int], int] = choose
) -> MatchResult:
    """Play ``model`` to its end with ``agents[p]`` in seat ``p`` (see the module docstring).

    ``decide(agent, model, player) -> action`` asks one seat (default :func:`~.agents.choose`); a
    game's own harness may pass what its agents read in its own form, never more than the seat's
    information. The thinking time of a seat is the time spent in ``decide``.
    """
    n = model.num_players
    if len(agents) != n:
        raise ValueError(f"need one agent per seat: {n} seats, got {len(agents)} agents")
    thinking = [0.0] * n
    decisions = [0] * n
    while not model.done:
        pending = model.pending_players()
        chosen: dict[int, int] = {}
        for p in pending:  # every pending seat chooses before any choice is applied
            t0 = time.perf_counter()
            chosen[p] = int(decide(agents[p], model, p))
            thinking[p] += time.perf_counter() - t0
            decisions[p] += 1
        if len(pending) == 1 and pending[0] == model.current_player:
            model.step(chosen[pending[0]])
        else:
            model.step_joint(chosen)
    return MatchResult(model, thinking, decisions)


def rotating_seats(num_games: int, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """``(seat_of, owner)``, both ``int64[G, P]``: agent ``k`` sits in seat ``(k + i) % P`` of game ``i``
    (``seat_of[i, k]``), and ``owner[i, p]`` is the agent of seat ``p``."""
    g = np.arange(num_games)[:, None]
    seat_of = (np.arange(num_players)[None, :] + g) % num_players
    owner = np.zeros((num_games, num_players), np.int64)
    owner[g, seat_of] = np.arange(num_players)[None, :]
    return seat_of, owner


def derive_seed(*words: int) -> int:
    """A 32-bit seed derived from ``words`` (numpy's ``SeedSequence``): the seeds of scheduled games and agents."""
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint32)[0])


def _score(x: Any) -> float:
    """A seat's score from ``model.scores()``: a number, or the first entry of a (score, tie-break) record."""
    return float(x[0]) if isinstance(x, (tuple, list)) else float(x)


def game_record(match: MatchResult, agent_index: Sequence[int], names: Sequence[str], seed: int) -> dict:
    """A finished match as the game record of :mod:`.stats` (and of the tournament's ``games.jsonl``)."""
    m = match.model
    raw = m.scores()
    rec = {
        "seed": int(seed),
        "seats": [names[a] for a in agent_index],
        "agent_index": [int(a) for a in agent_index],
        "scores": [_score(s) for s in raw],
        "winners": [int(w) for w in m.winners()],
        "decisions": int(sum(match.decisions)),
        "thinking_s": [round(t, 4) for t in match.thinking],
        "seat_decisions": list(match.decisions),
    }
    if raw and isinstance(raw[0], (tuple, list)):  # the game's tie-break (Oh my Goods!: leftover coins, R8.3)
        rec["leftover"] = [float(s[1]) for s in raw]
    return rec


@dataclass
class AgentResult:
    """One agent's results over a series of games (its seats rotate)."""

    name: str
    games: int
    wins: float  # shared wins count 1/k
    win_rate: float
    win_lo: float
    win_hi: float
    score_mean: float
    score_lo: float
    score_hi: float
    seconds_per_decision: float


@dataclass
class GamesResult:
    """Records of the games played (:func:`game_record`) and each agent's :class:`AgentResult`."""

    game: str
    num_players: int
    names: list[str]
    agents: list[AgentResult]
    games: list[dict] = field(repr=False)

    @property
    def parity(self) -> float:
        """The win rate of an agent no better than the others: ``1 / num_players``."""
        return 1.0 / self.num_players

    def table(self) -> str:
        """The per-agent table: games, win rate with its 95% Wilson interval, mean score, time per decision."""
        w = max(8, *(len(a.name) for a in self.agents))
        lines = [
            f"{'agent':<{w}}  {'games':>5}  {'win rate [95% Wilson]':>22}  {'mean score':>10}  {'ms/decision':>11}"
        ]
        for a in self.agents:
            lines.append(
                f"{a.name:<{w}}  {a.games:>5}  {a.win_rate:>6.3f} [{a.win_lo:.3f},{a.win_hi:.3f}]  "
                f"{a.score_mean:>10.2f}  {1000 * a.seconds_per_decision:>11.3f}"
            )
        return "\n".join(lines)


def _agent_name(agent: Any) -> str:
    return agent if isinstance(agent, str) else str(getattr(agent, "name", type(agent).__name__))


def play_games(
    game: str | GameSpec,
    agents: Sequence[Any],
    num_games: int,
    seed: int = 0,
    names: Sequence[str] | None = None,
    options: dict | None = None,
    progress: Callable[[int], None] | None = None,
) -> GamesResult:
    """Play ``num_games`` games of ``game`` between ``agents`` (one per seat), rotating the seats.

    An agent is a name of the game's agent registry (``"heuristic"``, ``"ismcts:50"``; built
    afresh each game, seeded from ``seed``, the game and the seat), an agent object (kept for
    every game) or a callable ``f(observation, mask)``. ``names`` label the agents (default:
    the names, or the objects' ``name``). ``options`` go to the game's ``new_game``;
    ``progress(i)`` is called after game ``i``. Same arguments, same games.
    """
    spec = resolve_game(game)
    num_players = spec.check_num_players(len(agents))
    num_games = check_int(num_games, "num_games", 1, 10**9)
    seed = check_seed(seed)
    labels = [str(n) for n in names] if names is not None else [_agent_name(a) for a in agents]
    if len(labels) != num_players:
        raise ValueError(f"names must label each of the {num_players} agents, got {len(labels)}")
    fixed = [None if isinstance(a, str) else resolve_agent(spec, a) for a in agents]
    for a in agents:  # an unknown name fails before any game is played
        if isinstance(a, str):
            resolve_agent(spec, a, seed=0)
    seat_of, owner = rotating_seats(num_games, num_players)
    records = []
    for i in range(num_games):
        order = [int(k) for k in owner[i]]
        seated = [
            fixed[k] if fixed[k] is not None else resolve_agent(spec, agents[k], seed=derive_seed(seed, i, k, 7))
            for k in order
        ]
        game_seed = derive_seed(seed, i)
        match = play_match(spec.make(num_players, seed=game_seed, **(options or {})), seated)
        records.append(game_record(match, order, labels, game_seed))
        if progress is not None:
            progress(i)
    results = []
    for k, name in enumerate(labels):
        seats = [(g, int(seat_of[i, k])) for i, g in enumerate(records)]
        won = sum(1.0 / len(g["winners"]) for g, s in seats if s in g["winners"])
        lo, hi = wilson(won, len(seats))
        mean, s_lo, s_hi = mean_interval([g["scores"][s] for g, s in seats])
        n_dec = sum(g["seat_decisions"][s] for g, s in seats)
        think = sum(g["thinking_s"][s] for g, s in seats)
        results.append(
            AgentResult(name, len(seats), won, won / len(seats), lo, hi, mean, s_lo, s_hi, think / max(1, n_dec))
        )
    return GamesResult(spec.name, num_players, labels, results, records)
