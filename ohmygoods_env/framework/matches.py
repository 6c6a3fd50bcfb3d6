"""Matches between agents over the game interface: the series players and the one result type of every game.

* :func:`play_match` — one :class:`~.game.ForwardModel` to its end. Every seat the game waits
  for is asked through :func:`~.agents.choose` (its observation, its mask and, for agents that
  read one, its :class:`~.game.InformationSet`: never the true state). During a simultaneous
  choice every pending seat chooses from the same position before any choice is applied
  (``step_joint``). Returns the finished model with each seat's thinking time and decisions.
* :func:`rotating_seats` — agent ``k`` sits in seat ``(k + i) % P`` of game ``i``.
* :func:`derive_seed` — the seeds of scheduled games and agents, from a seed and indices
  (``numpy.random.SeedSequence``): independent of the order games are played in.
* :func:`play_games` — ``G`` games of a registered game between ``P`` agents with rotating
  seats, one forward model after another; game ``i`` is dealt from ``derive_seed(seed, i)``, and
  an agent given by name is built afresh for each game with its own derived seed (tournaments,
  evaluation, ladders: any agent, searches included).
* :func:`play_batch` — the same series with every game at once in the game's batch engine
  (:mod:`.batch`: the compiled one its tools name, else :class:`~.batch.ModelBatch`); game ``i``
  is dealt from :func:`~.seeds.episode_seed` ``(seed, i, 0)`` (the batch engines' one recipe), the
  agents answer batched, one call per agent per step (:class:`BatchAgent`, or the policy the
  game's tools name, ``GameTools.batch_policy``). Training statistics and quick matches.
* :class:`AgentResult` — the **one result** of an agent's series, of both players and of the
  training statistics (:func:`ohmygoods_training.stats.match`): its games won alone (``wins``),
  won together with others (``ties``) and lost (``losses``), and its **win rate**: the share of the
  win, a ``k``-way shared win counting ``1/k`` (a game every seat ties is a ``P``-way shared win),
  with its 95% Wilson interval (:func:`.stats.wilson`). With two players this is the win rate with
  ties counting half. :func:`agent_result` computes it from the shares.

Both players return a :class:`GamesResult`: the game records (the :mod:`.stats` format:
``scores``, ``winners``, ``agent_index``, thinking time), each agent's :class:`AgentResult`, and
the ``win`` rewards by seat with the seat of each agent per game. Same arguments, same games.

*Oh my Goods!*'s harness (:mod:`ohmygoods_env.matches`) plays its single games with
:func:`play_match` (its agents get the redacted state row as their information state) and its
batched series with :func:`play_batch`; the tournament runner (:mod:`ohmygoods_agents.tournament`)
plays any registered game through :func:`play_match` and seeds its schedule with :func:`derive_seed`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .agents import choose, resolve_agent
from .batch import BatchEngine, ModelBatch, has_batch_engine, make_engine
from .checks import check_int, check_seed
from .game import ForwardModel, GameSpec, game_tools, resolve_game
from .stats import mean_interval, wilson

__all__ = [
    "AgentResult",
    "BatchAgent",
    "GamesResult",
    "MatchResult",
    "agent_result",
    "derive_seed",
    "game_record",
    "play_batch",
    "play_games",
    "play_match",
    "rotating_seats",
    "win_shares",
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


#: the keys of :meth:`AgentResult.as_dict` for a series against a baseline (the ``eval`` records of the
#: training loops and their checkpoint cards)
BASELINE_KEYS = ("opponent", "games", "wins", "ties", "losses", "win_rate", "ci_low", "ci_high", "seconds")


@dataclass
class AgentResult:
    """One agent's results over a series of games (its seats rotate): the one result type of every series.

    ``wins`` counts the games it won alone, ``ties`` those it won together with others (a ``k``-way
    shared win; a game every seat ties is one), ``losses`` the rest. ``won`` is its share of the wins,
    a ``k``-way shared win counting ``1/k``; ``win_rate = won / games`` with its 95% Wilson interval
    ``[win_lo, win_hi]`` (also read as ``ci_low``, ``ci_high``). With two players a tie counts half.
    Scores and time per decision are NaN where the series did not record them. ``opponent`` names
    the baseline of a series against one (training statistics); ``seconds`` is its wall time.
    """

    name: str
    games: int
    wins: int
    ties: int
    losses: int
    won: float
    win_rate: float
    win_lo: float
    win_hi: float
    score_mean: float = math.nan
    score_lo: float = math.nan
    score_hi: float = math.nan
    seconds_per_decision: float = math.nan
    opponent: str | None = None
    seconds: float = 0.0

    @property
    def ci_low(self) -> float:
        """The lower end of the win rate's 95% Wilson interval (``win_lo``)."""
        return self.win_lo

    @property
    def ci_high(self) -> float:
        """The upper end of the win rate's 95% Wilson interval (``win_hi``)."""
        return self.win_hi

    def as_dict(self) -> dict[str, Any]:
        """The result as JSON-ready fields: for a series against a baseline (``opponent`` set) the keys
        :data:`BASELINE_KEYS` (those of the training loops' ``eval`` records and checkpoint cards), else
        every field."""
        if self.opponent is not None:
            return {k: getattr(self, k) for k in BASELINE_KEYS}
        return asdict(self)

    def __str__(self) -> str:
        who = f"vs {self.opponent:<10}" if self.opponent is not None else f"{self.name}:"
        return (
            f"{who} {self.win_rate:6.1%} [{self.ci_low:.1%}, {self.ci_high:.1%}]  "
            f"(W{self.wins} T{self.ties} L{self.losses} of {self.games})"
        )


def agent_result(
    name: str,
    shares: Sequence[float],
    scores: Sequence[float] | None = None,
    seconds_per_decision: float = math.nan,
    opponent: str | None = None,
    seconds: float = 0.0,
) -> AgentResult:
    """The :class:`AgentResult` of an agent whose share of the win in each game was ``shares`` (``1/k``
    as one of ``k`` winners, else 0) and, when given, whose score was ``scores``."""
    if len(shares) == 0:
        raise ValueError(f"{name}: a series result needs at least one game")
    if any(not 0.0 <= x <= 1.0 for x in shares):
        raise ValueError(f"{name}: a share of the win is in [0, 1], got {[x for x in shares if not 0 <= x <= 1]}")
    won = sum(1.0 * x for x in shares)
    lo, hi = wilson(won, len(shares))
    mean, s_lo, s_hi = mean_interval([float(x) for x in scores]) if scores is not None else (math.nan,) * 3
    return AgentResult(
        name,
        len(shares),
        wins=sum(1 for x in shares if x == 1.0),
        ties=sum(1 for x in shares if 0.0 < x < 1.0),
        losses=sum(1 for x in shares if x == 0.0),
        won=won,
        win_rate=won / len(shares),
        win_lo=lo,
        win_hi=hi,
        score_mean=mean,
        score_lo=s_lo,
        score_hi=s_hi,
        seconds_per_decision=seconds_per_decision,
        opponent=opponent,
        seconds=seconds,
    )


def win_shares(rewards: np.ndarray) -> np.ndarray:
    """float64[G, P]: each seat's share of the win from the games' ``win`` rewards ``[G, P]`` (+1 winners,
    -1 others, 0 in every seat when all tie): ``1/k`` for each of ``k`` winners, every seat a winner when
    none has a positive reward."""
    won = np.asarray(rewards) > 0
    won[~won.any(axis=1)] = True
    return won / won.sum(axis=1, keepdims=True)


@dataclass
class GamesResult:
    """Records of the games played (:func:`game_record`), each agent's :class:`AgentResult`, and the games'
    ``win`` rewards by seat (``rewards`` float32[G, P]; in solo games the score) with the seat of each
    agent per game (``seat_of`` int64[G, P], :func:`rotating_seats`)."""

    game: str
    num_players: int
    names: list[str]
    agents: list[AgentResult]
    games: list[dict] = field(repr=False)
    rewards: np.ndarray | None = field(default=None, repr=False)
    seat_of: np.ndarray | None = field(default=None, repr=False)

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


def _agent_results(labels: Sequence[str], records: Sequence[dict], seat_of: np.ndarray) -> list[AgentResult]:
    """Each agent's :class:`AgentResult` from the game records (its seat of game ``i``: ``seat_of[i, k]``)."""
    results = []
    for k, name in enumerate(labels):
        seats = [(g, int(seat_of[i, k])) for i, g in enumerate(records)]
        shares = [1.0 / len(g["winners"]) if s in g["winners"] else 0.0 for g, s in seats]
        n_dec = sum(g["seat_decisions"][s] for g, s in seats)
        think = sum(g["thinking_s"][s] for g, s in seats)
        scores = [g["scores"][s] for g, s in seats]
        results.append(agent_result(name, shares, scores, think / max(1, n_dec)))
    return results


def _agent_name(agent: Any) -> str:
    return agent if isinstance(agent, str) else str(getattr(agent, "name", type(agent).__name__))


def _series(
    game: str | GameSpec, agents: Sequence[Any], num_games: int, seed: int, names: Sequence[str] | None
) -> tuple[GameSpec, int, int, int, list[str]]:
    """The checked arguments of a series: the spec, player count, game count, seed and the agents' labels."""
    spec = resolve_game(game)
    num_players = spec.check_num_players(len(agents))
    num_games = check_int(num_games, "num_games", 1, 10**9)
    seed = check_seed(seed)
    labels = [str(n) for n in names] if names is not None else [_agent_name(a) for a in agents]
    if len(labels) != num_players:
        raise ValueError(f"names must label each of the {num_players} agents, got {len(labels)}")
    return spec, num_players, num_games, seed, labels


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
    spec, num_players, num_games, seed, labels = _series(game, agents, num_games, seed, names)
    fixed = [None if isinstance(a, str) else resolve_agent(spec, a) for a in agents]
    for a in agents:  # an unknown name fails before any game is played
        if isinstance(a, str):
            resolve_agent(spec, a, seed=0)
    seat_of, owner = rotating_seats(num_games, num_players)
    records = []
    rewards = np.zeros((num_games, num_players), np.float32)
    for i in range(num_games):
        order = [int(k) for k in owner[i]]
        seated = [
            fixed[k] if fixed[k] is not None else resolve_agent(spec, agents[k], seed=derive_seed(seed, i, k, 7))
            for k in order
        ]
        game_seed = derive_seed(seed, i)
        match = play_match(spec.make(num_players, seed=game_seed, **(options or {})), seated)
        records.append(game_record(match, order, labels, game_seed))
        rewards[i] = match.model.rewards("win")
        if progress is not None:
            progress(i)
    return GamesResult(
        spec.name, num_players, labels, _agent_results(labels, records, seat_of), records, rewards, seat_of
    )


# ===================================================================== batched series


class BatchAgent:
    """Any agent as a policy over rows of a :class:`~.batch.BatchEngine`: ``policy(engine, rows)`` is one
    action (int64) per game of ``rows``, each for that game's acting seat.

    An agent with ``act_batch(observations, masks)`` answers all rows in one call; one that reads an
    information state (``needs_info_state``) chooses in each row's forward model (``engine.model(i)``,
    :func:`~.agents.choose`: its observation, mask and :class:`~.game.InformationSet`, never the true
    state); any other ``act(observation, mask)`` or callable is asked row by row. An agent with
    ``needs_observation = False`` (random play) gets zeros for the observations, as from
    :func:`~.agents.choose`. The default policy of :func:`play_batch` and the league seats of the
    training loop; a game whose agents read its engine's own rows names another in its tools
    (``GameTools.batch_policy``).
    """

    def __init__(self, agent: Any) -> None:
        if not (hasattr(agent, "act_batch") or callable(getattr(agent, "act", None)) or callable(agent)):
            raise TypeError(f"an agent needs act(observation, mask), act_batch(...) or to be callable: {agent!r}")
        self.agent = agent
        self.needs_info_state = bool(getattr(agent, "needs_info_state", False))
        self.needs_observation = bool(getattr(agent, "needs_observation", True))
        self.batched = hasattr(agent, "act_batch") and not self.needs_info_state

    def act_rows(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` and ``masks`` (an agent that reads no information state)."""
        if self.batched:
            return np.asarray(self.agent.act_batch(observations, masks), np.int64).reshape(-1)
        act = getattr(self.agent, "act", self.agent)
        return np.asarray([act(o, m) for o, m in zip(observations, masks, strict=True)], np.int64)

    def __call__(self, engine: BatchEngine, rows: np.ndarray) -> np.ndarray:
        if self.needs_info_state:
            out = []
            for i in rows:
                m = engine.model(int(i))
                out.append(choose(self.agent, m, int(m.current_player)))
            return np.asarray(out, np.int64)
        if self.needs_observation:
            obs = engine.observe(rows=rows)
        else:
            obs = np.zeros((len(rows), engine.obs_dim), np.float32)
        return self.act_rows(obs, engine.legal_mask(rows=rows))


def play_batch(
    game: str | GameSpec,
    agents: Sequence[Any],
    num_games: int,
    seed: int = 0,
    names: Sequence[str] | None = None,
    options: dict | None = None,
    fast: bool = True,
) -> GamesResult:
    """Play ``num_games`` games of ``game`` between ``agents`` (one per seat) at once, rotating the seats.

    The games are the rows of the game's batch engine (``fast`` and its tools name one, else
    :class:`~.batch.ModelBatch` over its forward models) seeded ``seed``: game ``i`` is dealt from
    ``episode_seed(seed, i, 0)`` and plays as ``spec.make(P, seed=episode_seed(seed, i, 0))`` would.
    Agent ``k`` sits in seat ``(k + i) % P`` of game ``i`` (:func:`rotating_seats`). Each step, every
    agent is asked once for all the games waiting for it (agents in ascending order, rows ascending)
    through its policy: the one the game's tools name for its engine (``GameTools.batch_policy``,
    ``factory(agent) -> policy(engine, rows)``), else :class:`BatchAgent`. An agent given by name is
    built once, seeded ``derive_seed(seed, k, 7)``. ``names`` label the agents; ``options`` go to the
    engine (*Oh my Goods!*: ``rules``). The thinking time of a call is shared evenly by its rows.

    Returns a :class:`GamesResult` like :func:`play_games` (game records without the tie-break
    ``leftover``: the engines report the score only). Same arguments, same games.
    """
    spec, num_players, num_games, seed, labels = _series(game, agents, num_games, seed, names)
    objects = [
        resolve_agent(spec, a, seed=derive_seed(seed, k, 7)) if isinstance(a, str) else a for k, a in enumerate(agents)
    ]
    own = fast and has_batch_engine(spec)
    engine = (make_engine if own else ModelBatch)(spec, num_games, num_players, seed=seed, **(options or {}))
    factory = (game_tools(spec).load("batch_policy") if own else None) or BatchAgent
    policies = [factory(a) for a in objects]
    seat_of, owner = rotating_seats(num_games, num_players)
    rewards = np.zeros((num_games, num_players), np.float32)
    thinking = np.zeros((num_games, num_players))
    decisions = np.zeros((num_games, num_players), np.int64)
    actions = np.zeros(num_games, np.int64)
    while True:
        done = np.asarray(engine.done, np.bool_)
        live = np.flatnonzero(~done)
        if live.size == 0:
            break
        seats = np.asarray(engine.current_player, np.int64)[live]
        who = owner[live, seats]
        for k in np.unique(who):  # every game waiting for agent k, in one call
            pick = who == k
            rows = live[pick]
            t0 = time.perf_counter()
            actions[rows] = policies[int(k)](engine, rows)
            thinking[rows, seats[pick]] += (time.perf_counter() - t0) / rows.size
            decisions[rows, seats[pick]] += 1
        engine.step(actions)
        ended = np.asarray(engine.done, np.bool_) & ~done
        rewards[ended] = np.asarray(engine.rewards, np.float32)[ended]
    scores = np.asarray(engine.scores(), np.float64)
    shares = win_shares(rewards)
    records = []
    for i in range(num_games):
        order = [int(k) for k in owner[i]]
        records.append(
            {
                "seed": int(engine.episode_seed(i, 0)),
                "seats": [labels[a] for a in order],
                "agent_index": order,
                "scores": [float(x) for x in scores[i]],
                "winners": [int(p) for p in np.flatnonzero(shares[i] > 0)],
                "decisions": int(decisions[i].sum()),
                "thinking_s": [round(float(t), 4) for t in thinking[i]],
                "seat_decisions": [int(d) for d in decisions[i]],
            }
        )
    return GamesResult(
        spec.name, num_players, labels, _agent_results(labels, records, seat_of), records, rewards, seat_of
    )
