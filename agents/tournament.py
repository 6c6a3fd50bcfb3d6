"""Round-robin tournaments between agents of any registered game, with confidence intervals and ratings.

The library of ``ohmygoods tournament --agents random,heuristic,mcts --players 2 --games 1000``
(the command line is :mod:`ohmygoods_env.apps.tournament`). The game is *Oh my Goods!* unless
``game`` names another registered game (``--game artificium``, 2-6 players): its agents come from
the framework's registry (:func:`ohmygoods_env.framework.agents.make_agent`) and each game is
played by :func:`ohmygoods_env.framework.matches.play_match`, the loop *Oh my Goods!*'s
:func:`~ohmygoods_env.matches.play_game` runs too; the statistics and files are the same.

Schedule (fixed by the arguments, so the same command gives the same results):

* **Lineups.** 2 players: every pair of different agents. 3-4 players: every multiset of
  agents over the seats (repetition allowed) with at least two different agents. 1 player
  (solo, R10.3): every agent alone, all on the same deals; the table is the mean score with a
  95% interval (:func:`solo_summary`).
* **Deals and seats.** ``--games`` games per lineup. Games are grouped in deals: every deal
  (one game seed) is played once per seat rotation of the lineup, so each agent meets the
  same cards from every seat. Game seeds and agent seeds are derived from ``--seed``, the
  lineup and the game number (``numpy.random.SeedSequence``) — independent of the worker
  that plays the game and of the order games finish in.
* Games run in parallel over ``--workers`` processes (``multiprocessing`` spawn context).
  An MCTS with a ``--mcts-seconds`` budget depends on machine speed and load; with
  ``--mcts-sims`` (the default) everything is reproducible.

Harness: at every decision the acting agent gets ``Game.observe(p)``, the legal mask and
the redacted information state (:func:`ohmygoods_agents.base.info_state_of`) — copies, never the true
state. In another game an agent gets what :func:`ohmygoods_env.framework.agents.choose` passes:
the seat's observation, its mask and, for a search, its information set.

Statistics:

* Win-rate matrix: for agents A and B, the share of (seat of A, seat of B) comparisons in
  games where both played that A's seat finished ahead (R8.3: score, then leftover coins;
  equal counts half). In 2-player games this is the plain win rate. 95% Wilson intervals.
* Per agent: win rate (a seat wins when it is among the winners; a k-way shared win counts
  1/k) with 95% Wilson interval, mean and standard deviation of the score, mean rank.
* Rating, 2 players: Bradley-Terry strengths fitted (MM algorithm) on the same pairwise
  comparisons, with one virtual game split half-half per pair of agents as a prior (keeps
  ratings finite when an agent never loses), on the Elo scale (400 log10; ``random`` = 0
  when it plays, else mean 0). 95% intervals from a bootstrap over games (``--bootstrap``
  resamples); for a perfect record, where every resample is alike, from the Wilson bounds of
  the pairwise win rates (:func:`~ohmygoods_env.framework.stats.wilson_rating_bounds`). The anchor prints "0 (anchor)".
* Rating, 3-4 players: the multiplayer Plackett-Luce model of openskill on each game's
  ranking (`ohmygoods_env.framework.stats.multiplayer_ratings`), 95% intervals from the
  posterior (never zero-width). Pairwise Bradley-Terry on multiplayer games counts one game
  as several dependent comparisons, and its bootstrap gave zero-width intervals. Without
  openskill the 3-4 player ratings are left out (NaN) with a message saying what to install.
* Intervals of proportions: the one Wilson function, `ohmygoods_env.framework.stats.wilson`.

Output (``--out``, default ``results/<agents>_<players>p_<rules>_seed<seed>``):
``games.jsonl`` (one line per game, with its ``record``: rules, players, seed and actions, so
``ohmygoods replay`` can show any game), ``summary.json``, ``winrates.csv``, ``agents.csv``
and, when matplotlib is installed, ``winrate_heatmap.png`` and ``score_distributions.png``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import json
import multiprocessing as mp
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ohmygoods_env.framework.agents import make_agent as make_game_agent
from ohmygoods_env.framework.checks import max_workers
from ohmygoods_env.framework.files import write_atomic
from ohmygoods_env.framework.game import DEFAULT_GAME, game_tools, resolve_game
from ohmygoods_env.framework.matches import derive_seed, game_record, play_match
from ohmygoods_env.framework.progress import progress_bar
from ohmygoods_env.framework.stats import (
    Z95,
    ahead,
    bradley_terry,
    mean_interval,
    multiplayer_ratings,
    pairwise,
    wilson,
    wilson_rating_bounds,
)
from ohmygoods_env.matches import play_game  # noqa: F401  (its older place: tests and users import it here)

# ===================================================================== schedule


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: which agent (index into the agent list) sits in each seat."""

    index: int
    lineup: int
    number: int  # game number inside the lineup
    seed: int  # game (deal) seed
    seats: tuple[int, ...]
    agent_seeds: tuple[int, ...]


def lineups(n_agents: int, players: int) -> list[tuple[int, ...]]:
    """Agent multisets over the seats: every pair for 2 players, with repetition for 3-4."""
    if players == 1:  # solo (R10.3): every agent alone on the same deals, a score attack
        return [(i,) for i in range(n_agents)]
    if n_agents < 2:
        raise ValueError("a tournament needs at least 2 different agents")
    if players == 2:
        return list(itertools.combinations(range(n_agents), 2))
    return [c for c in itertools.combinations_with_replacement(range(n_agents), players) if len(set(c)) > 1]


def schedule(n_agents: int, players: int, games: int, seed: int) -> list[GameSpec]:
    """All games of a tournament, in a fixed order (see module docstring)."""
    if games < 1:
        raise ValueError(f"--games must be >= 1, got {games}")
    specs = []
    for li, lineup in enumerate(lineups(n_agents, players)):
        for k in range(games):
            rot = k % players
            deal = k // players
            seats = lineup[rot:] + lineup[:rot]
            agent_seeds = tuple(derive_seed(seed, li, k, s, 7) for s in range(players))
            deal_lineup = 0 if players == 1 else li  # solo: every agent plays the same deals
            specs.append(GameSpec(len(specs), li, k, derive_seed(seed, deal_lineup, deal, 1), seats, agent_seeds))
    return specs


# ===================================================================== playing


_WORKER: dict = {}


def _init_worker(names: list[str], agent_kwargs: dict, players: int, rules: str, game: str = DEFAULT_GAME) -> None:
    _WORKER.update(names=names, agent_kwargs=agent_kwargs, players=players, rules=rules, game=game)


def build_agent(game: str, spec: str, seed: int | None = None, **kwargs: object) -> object:
    """The agent ``spec`` of ``game``, from the one agent registry
    (:func:`ohmygoods_env.framework.agents.make_agent`)."""
    return make_game_agent(game, spec, seed=seed, **kwargs)


def _kwargs_of(agent_kwargs: dict | list, names: list[str], a: int) -> dict:
    """Keyword arguments of agent ``a``: ``agent_kwargs`` is keyed by name, or a list by agent index."""
    if isinstance(agent_kwargs, list):
        return agent_kwargs[a]
    return agent_kwargs.get(names[a], {})


def _run_spec(spec: GameSpec) -> dict:
    names, kw, game = _WORKER["names"], _WORKER["agent_kwargs"], _WORKER.get("game", DEFAULT_GAME)
    agents = [
        build_agent(game, names[a], seed=spec.agent_seeds[s], **_kwargs_of(kw, names, a))
        for s, a in enumerate(spec.seats)
    ]
    t0, c0 = time.perf_counter(), time.process_time()
    own_loop = game_tools(game).play_game  # a game's own loop (Oh my Goods!'s engine), else the framework's
    if own_loop is not None:
        results, rounds, decisions, record = own_loop(agents, _WORKER["players"], _WORKER["rules"], spec.seed)
        rec = {"seed": spec.seed, "seats": [names[a] for a in spec.seats], "agent_index": list(spec.seats), **results}
    else:
        match = play_match(resolve_game(game).make(_WORKER["players"], seed=spec.seed), agents)
        rec = game_record(match, spec.seats, names, spec.seed)
        rounds, decisions, record = getattr(match.model, "round", 0), rec.pop("decisions"), match.model.record()
    return {
        "index": spec.index,
        "lineup": spec.lineup,
        "number": spec.number,
        **rec,
        "rounds": int(rounds),
        "decisions": int(decisions),
        "wall_s": round(time.perf_counter() - t0, 4),
        "cpu_s": round(time.process_time() - c0, 4),  # CPU time of the process playing the game
        "record": _record_dict(record),
    }


def _record_dict(record: object) -> object:
    """A game's record as JSON data: its ``to_dict()``, a dataclass's fields, or the record itself."""
    if callable(getattr(record, "to_dict", None)):
        return record.to_dict()
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        return dataclasses.asdict(record)
    return record


def agent_fingerprints(names: list[str], agent_kwargs: dict | list, game: str = DEFAULT_GAME) -> list[str | None]:
    """Per agent, the fingerprint of the checkpoint the agent it builds was loaded from
    (:func:`ohmygoods_agents.checkpoint.weights_fingerprint` of its ``checkpoint_path``), ``None``
    for an agent without one or one that does not build here (playing it raises the real error)."""
    from .checkpoint import weights_fingerprint

    prints: list[str | None] = []
    for a, name in enumerate(names):
        try:
            agent = build_agent(game, name, seed=0, **_kwargs_of(agent_kwargs, names, a))
        except (ValueError, OSError, ImportError, TypeError):
            agent = None
        path = getattr(agent, "checkpoint_path", None)
        prints.append(None if path is None else weights_fingerprint(path))
    return prints


class GamesFileError(ValueError):
    """A games file (``games.jsonl``, a partial file kept for ``--resume``) with a row that is not a game of
    this program: the message names the file, the line and the field."""


#: a score, a tie-break or a time in a games file is a number of at most this size
_ROW_NUMBER = 1e9


def check_game_row(row: object, players: int, n_agents: int, where: str = "row") -> dict:
    """A finished game's row of a games file, checked: the one validator of the rows that ``--resume`` keeps
    and ``--summarize`` reads. ``ValueError`` naming ``where`` and the field otherwise.

    Fields (see :func:`_run_spec`): ``index``, ``lineup``, ``number``, ``rounds``, ``decisions``: ints
    >= 0; ``seed``: an int in ``0 <= s < 2**64``; per seat (``players`` items each): ``seats``
    (names), ``agent_index`` (ints below ``n_agents``), ``scores`` and ``thinking_s`` (numbers,
    at most 1e9 in size), ``seat_decisions`` (ints); ``winners``: distinct seats, at least one;
    ``leftover``, ``wall_s``, ``cpu_s`` checked when present.
    """
    from ohmygoods_env.framework import files as F

    F.field_object(row, where)
    for key in ("index", "lineup", "number", "rounds", "decisions"):
        F.field_int(row.get(key), f"{where}: {key}")
    if isinstance(row.get("seed"), bool) or not isinstance(row.get("seed"), int) or not 0 <= row["seed"] < 1 << 64:
        raise ValueError(f"{where}: seed must be an int in 0 <= s < 2**64, got {row.get('seed')!r:.40}")
    for key in ("seats", "agent_index", "scores", "thinking_s", "seat_decisions", "leftover"):
        if key == "leftover" and key not in row:
            continue
        for s, v in enumerate(F.field_list(row.get(key), f"{where}: {key} (one per seat)", players)):
            at = f"{where}: {key}[{s}]"
            if key == "seats":
                F.field_str(v, at)
            elif key == "agent_index":
                F.field_int(v, at, 0, n_agents - 1)
            elif key == "seat_decisions":
                F.field_int(v, at)
            else:
                F.field_number(v, at, 0.0 if key == "thinking_s" else -_ROW_NUMBER, _ROW_NUMBER)
    winners = F.field_list(row.get("winners"), f"{where}: winners")
    if not winners or len(set(map(repr, winners))) != len(winners):
        raise ValueError(f"{where}: winners must be distinct seats, at least one, got {winners!r:.60}")
    for k, w in enumerate(winners):
        F.field_int(w, f"{where}: winners[{k}]", 0, players - 1)
    for key in ("wall_s", "cpu_s"):
        if key in row:
            F.field_number(row[key], f"{where}: {key}", 0.0, _ROW_NUMBER)
    return row


def read_games_file(
    path: Path, players: int | None, n_agents: int, tolerate_cut: bool = True
) -> list[tuple[int, dict]]:
    """The rows of a games file as ``(line number, row)``, each checked by :func:`check_game_row`;
    :class:`GamesFileError` naming the file and the line for the first bad one. A missing file has none.

    ``tolerate_cut``: a line that is not JSON (cut short by an interruption) is skipped, not an error.
    ``players``: seats per game (``None``: taken from the first row, then the same for every row).
    """
    from ohmygoods_env.framework.files import BadJSON, loads_bounded

    rows: list[tuple[int, dict]] = []
    if not path.exists():
        return rows
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise GamesFileError(f"{path}: cannot read the games ({exc.strerror or exc})") from None
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = loads_bounded(line)
        except BadJSON as exc:
            if tolerate_cut:
                continue  # a line cut short by the interruption
            raise GamesFileError(f"{path}: line {k}: {exc}; expected one game (a JSON object) per line") from None
        try:
            if players is None and isinstance(row, dict) and isinstance(row.get("seats"), list):
                players = max(1, len(row["seats"]))
            check_game_row(row, players or 1, n_agents, f"line {k}")
        except ValueError as exc:
            raise GamesFileError(
                f"{path}: {exc}; expected a game row of this program (move the file away to play its games again)"
            ) from None
        rows.append((k, row))
    return rows


def _load_partial(
    path: Path, specs: list[GameSpec], names: list[str], prints: list[str | None] | None = None
) -> dict[int, dict]:
    """Finished games of an interrupted (or shorter) run of the same schedule.

    Every row is checked (:func:`read_games_file`: a bad row raises :class:`GamesFileError`). A
    stored game is kept when its lineup, game number, seed and seats match a scheduled game,
    and the fingerprints of its agents (``prints``, a checkpoint's weights) are the ones of now:
    a retrained network of the same name plays its games again. It is re-indexed to that game
    (so a run can also be extended with a larger ``--games``).
    """
    done: dict[int, dict] = {}
    players = len(specs[0].seats) if specs else None
    by_key = {(s.lineup, s.number): s for s in specs}
    for k, g in read_games_file(path, players, len(names)):
        spec = by_key.get((g["lineup"], g["number"]))
        if spec is None or g["seed"] != spec.seed or g["seats"] != [names[a] for a in spec.seats]:
            continue
        if g["agent_index"] != list(spec.seats):
            raise GamesFileError(
                f"{path}: line {k}: agent_index {g['agent_index']} does not match its seats {g['seats']}: expected "
                f"{list(spec.seats)}"
            )
        stored = g.get("agent_fingerprints")
        if not isinstance(stored, list) or len(stored) != len(names):  # a file from before fingerprints
            stored = [None] * len(names)
        if prints is None or all(prints[a] is None or stored[a] == prints[a] for a in set(spec.seats)):
            done[spec.index] = {**g, "index": spec.index}
    return done


def run_games(
    names: list[str],
    specs: list[GameSpec],
    players: int,
    rules: str,
    workers: int = 1,
    agent_kwargs: dict | list | None = None,
    progress: bool = True,
    partial: Path | None = None,
    desc: str | None = None,
    game: str = DEFAULT_GAME,
) -> list[dict]:
    """Play every scheduled game (in parallel when ``workers > 1``); results in schedule order.

    ``agent_kwargs`` holds keyword arguments for :func:`make_agent`, by agent name or (a list)
    by agent index, for two agents of one name with other settings. With ``partial``, every
    finished game is appended to that file at once (with ``agent_fingerprints``), and games
    already there (from an interrupted run of the same schedule and the same networks,
    :func:`_load_partial`) are not played again. ``game`` names the registered
    game (``rules`` is *Oh my Goods!*'s rule set and is not read for another game). The pool has
    at most ``min(workers, games to play, max_workers())`` processes.
    """
    agent_kwargs = agent_kwargs or {}
    init = (names, agent_kwargs, players, rules, game)
    prints = agent_fingerprints(names, agent_kwargs, game) if partial is not None else None
    finished = _load_partial(partial, specs, names, prints) if partial is not None else {}
    todo = [s for s in specs if s.index not in finished]
    results: list[dict] = list(finished.values())
    bar = progress_bar(len(specs), enabled=progress, initial=len(finished), unit="game", dynamic_ncols=True, desc=desc)
    sink = open(partial, "a") if partial is not None else None  # closed in the finally below

    def collect(res: dict) -> None:
        if prints is not None:
            res = {**res, "agent_fingerprints": prints}
        results.append(res)
        if sink is not None:
            sink.write(json.dumps(res) + "\n")
            sink.flush()
        if bar is not None:
            bar.update(1)

    try:
        if workers <= 1 or len(todo) <= 1:
            _init_worker(*init)
            for spec in todo:
                collect(_run_spec(spec))
        else:  # never more processes than games to play, nor than max_workers()
            ctx = mp.get_context("spawn")
            processes = min(workers, len(todo), max_workers())
            with ctx.Pool(processes, initializer=_init_worker, initargs=init) as pool:
                for res in pool.imap_unordered(_run_spec, todo, chunksize=1):
                    collect(res)
    finally:
        if sink is not None:
            sink.close()
        if bar is not None:
            bar.close()
    return sorted(results, key=lambda r: r["index"])


# ===================================================================== statistics


def solo_summary(names: list[str], games: list[dict]) -> dict:
    """Solo games (R10.3, a score attack): each agent's mean score with a 95% interval.

    The interval is the normal (t-free, n is large) interval of the mean,
    ``mean ± 1.96 · sd / sqrt(n)`` (`ohmygoods_env.framework.stats.mean_interval`).
    """
    agents = []
    for i, name in enumerate(names):
        own = [g for g in games if g["agent_index"][0] == i]
        scores = np.array([g["scores"][0] for g in own], float)
        mean, lo, hi = mean_interval(scores)
        n_dec = sum(g["seat_decisions"][0] for g in own)
        agents.append(
            {
                "agent": name,
                "games": len(own),
                "score_mean": mean,
                "score_lo": lo,
                "score_hi": hi,
                "score_std": float(scores.std(ddof=1)) if len(own) > 1 else 0.0,
                "rounds_mean": float(np.mean([g["rounds"] for g in own])) if own else 0.0,
                "thinking_s_per_decision": float(sum(g["thinking_s"][0] for g in own) / max(1, n_dec)),
            }
        )
    return {"solo": True, "agents": agents, "names": names}


def format_solo(summary: dict) -> str:
    """The solo score table of :func:`solo_summary`."""
    w = max(10, *(len(n) for n in summary["names"]))
    head = f"{'agent':<{w}}  {'games':>6}  {'mean score [95% CI]':>24}  {'std':>5}  {'rounds':>6}  {'s/decision':>10}"
    lines = [head]
    for a in summary["agents"]:
        lines.append(
            f"{a['agent']:<{w}}  {a['games']:>6}  {a['score_mean']:>8.2f} [{a['score_lo']:>6.2f},{a['score_hi']:>6.2f}]"
            f"  {a['score_std']:>5.2f}  {a['rounds_mean']:>6.1f}  {a['thinking_s_per_decision']:>10.4f}"
        )
    return "\n".join(lines)


def _winrate_matrix(wins: np.ndarray, count: np.ndarray) -> list[list[dict | None]]:
    """Pairwise win rates with 95% Wilson intervals; None on the diagonal and for pairs that never met."""
    k = len(wins)
    matrix = []
    for i in range(k):
        row = []
        for j in range(k):
            if i == j or count[i, j] == 0:
                row.append(None)
                continue
            lo, hi = wilson(wins[i, j], count[i, j])
            row.append({"rate": wins[i, j] / count[i, j], "lo": lo, "hi": hi, "n": int(count[i, j])})
        matrix.append(row)
    return matrix


def _ratings(names: list[str], games: list[dict], players: int, bootstrap: int, seed: int) -> tuple:
    """``(model, ratings, lo, hi)``: 2 players Bradley–Terry (random = 0 where present) with a bootstrap
    interval, more players Plackett–Luce with its posterior interval (NaN without openskill)."""
    k = len(names)
    nan = float("nan")
    if players != 2:
        try:
            pl = multiplayer_ratings(names, games, Z95)
        except ImportError as exc:
            return f"none: {exc}", np.full(k, nan), [nan] * k, [nan] * k
        model = "Plackett-Luce (openskill; random = 0), 95% posterior interval"
        return model, np.array([r["rating"] for r in pl]), [r["lo"] for r in pl], [r["hi"] for r in pl]
    anchor = names.index("random") if "random" in names else None

    def rate(w: np.ndarray, c: np.ndarray) -> np.ndarray:
        r = bradley_terry(w, c)
        return r - (r[anchor] if anchor is not None else r.mean())

    wins, count = pairwise(games, k)
    ratings = rate(wins, count)
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(bootstrap):
        sample = [games[i] for i in rng.integers(0, len(games), len(games))]
        boot.append(rate(*pairwise(sample, k)))
    boot_arr = np.array(boot) if boot else np.zeros((0, k))
    r_lo = [float(np.percentile(boot_arr[:, i], 2.5)) if bootstrap else nan for i in range(k)]
    r_hi = [float(np.percentile(boot_arr[:, i], 97.5)) if bootstrap else nan for i in range(k)]
    for i in range(k):
        if i != anchor and bootstrap and r_hi[i] - r_lo[i] < 1e-9:  # every resample alike: a perfect record
            r_lo[i], r_hi[i] = wilson_rating_bounds(wins, count, i, rate)
    return "Bradley-Terry (Elo scale), 95% bootstrap interval", ratings, r_lo, r_hi


def _agent_entry(i: int, name: str, games: list[dict]) -> dict:
    """Agent ``i``'s seats over ``games``: win rate (ties split) with its interval, scores, rank, thinking time."""
    seats = [(g, s) for g in games for s, a in enumerate(g["agent_index"]) if a == i]
    scores = np.array([g["scores"][s] for g, s in seats], float)
    won = sum(1.0 / len(g["winners"]) for g, s in seats if s in g["winners"])
    ranks = [1 + sum(ahead(g, t, s) for t in range(len(g["scores"])) if t != s) for g, s in seats]
    lo, hi = wilson(won, len(seats))
    n_dec = sum(g["seat_decisions"][s] for g, s in seats)
    return {
        "agent": name,
        "seats": len(seats),
        "win_rate": won / len(seats) if seats else 0.0,
        "win_lo": lo,
        "win_hi": hi,
        "score_mean": float(scores.mean()) if seats else 0.0,
        "score_std": float(scores.std(ddof=1)) if len(seats) > 1 else 0.0,
        "mean_rank": float(np.mean(ranks)) if seats else 0.0,
        "thinking_s_per_game": float(np.mean([g["thinking_s"][s] for g, s in seats])) if seats else 0.0,
        "thinking_s_per_decision": float(sum(g["thinking_s"][s] for g, s in seats) / max(1, n_dec)),
    }


def summarize(names: list[str], games: list[dict], bootstrap: int = 200, seed: int = 0) -> dict:
    """Win-rate matrix, per-agent statistics and ratings (see module docstring); solo games go to
    :func:`solo_summary`."""
    if games and len(games[0]["agent_index"]) == 1:
        return solo_summary(names, games)
    wins, count = pairwise(games, len(names))
    players = len(games[0]["agent_index"]) if games else 2
    model, ratings, r_lo, r_hi = _ratings(names, games, players, bootstrap, seed)
    anchor = names.index("random") if "random" in names else None
    agents = []
    for i, name in enumerate(names):
        entry = _agent_entry(i, name, games)
        keys = list(entry)
        entry.update(rating=float(ratings[i]), rating_lo=float(r_lo[i]), rating_hi=float(r_hi[i]),
                     rating_anchor=players == 2 and i == anchor)  # fmt: skip
        at = keys.index("mean_rank") + 1  # the keys in the order of summary.json
        agents.append(
            {k: entry[k] for k in keys[:at] + ["rating", "rating_lo", "rating_hi", "rating_anchor"] + keys[at:]}
        )
    return {
        "agents": agents,
        "winrate_matrix": _winrate_matrix(wins, count),
        "lineups": lineup_table(names, games),
        "names": names,
        "rating_model": model,
    }


def lineup_table(names: list[str], games: list[dict]) -> list[dict]:
    """Per lineup (multiset of agents): the share of games each agent won (shared wins split)."""
    groups: dict[tuple[int, ...], list[dict]] = {}
    for g in games:
        groups.setdefault(tuple(sorted(g["agent_index"])), []).append(g)
    rows = []
    for key in sorted(groups):
        gs = groups[key]
        for i in sorted(set(key)):
            won = sum(sum(1.0 / len(g["winners"]) for s in g["winners"] if g["agent_index"][s] == i) for g in gs)
            lo, hi = wilson(won, len(gs))
            rows.append(
                {
                    "lineup": "+".join(names[a] for a in key),
                    "agent": names[i],
                    "seats": key.count(i),
                    "games": len(gs),
                    "game_win_rate": won / len(gs),
                    "lo": lo,
                    "hi": hi,
                }
            )
    return rows


# ===================================================================== output


def format_tables(summary: dict) -> str:
    if summary.get("solo"):
        return format_solo(summary)
    names = summary["names"]
    w = max(10, *(len(n) for n in names))
    lines = ["win rate of row vs column (95% Wilson interval, comparisons)"]
    lines.append(" " * w + "".join(f"  {n:>24}" for n in names))
    for i, name in enumerate(names):
        cells = []
        for j in range(len(names)):
            c = summary["winrate_matrix"][i][j]
            cells.append(
                f"  {'-':>24}" if c is None else f"  {c['rate']:.3f} [{c['lo']:.3f},{c['hi']:.3f}] n={c['n']:<4}"
            )
        lines.append(f"{name:<{w}}" + "".join(cells))
    lines.append("")
    digits = 0 if "Bradley" in summary.get("rating_model", "Bradley") else 1
    head = f"{'agent':<{w}}  {'seats':>6}  {'win rate [95% CI]':>22}  {'score mean':>10}  {'std':>5}  {'rank':>5}"
    head += f"  {'rating [95% interval]':>24}  {'s/game':>7}"
    lines.append(head)
    for a in summary["agents"]:
        rating = f"{a['rating']:>7.{digits}f}"
        if a.get("rating_anchor"):  # the anchor is 0 by definition: no interval
            rating += f" {'(anchor)':<15}"
        else:
            rating += f" [{a['rating_lo']:>6.{digits}f},{a['rating_hi']:>6.{digits}f}]"
        lines.append(
            f"{a['agent']:<{w}}  {a['seats']:>6}  {a['win_rate']:>6.3f} [{a['win_lo']:.3f},{a['win_hi']:.3f}]"
            f"  {a['score_mean']:>10.2f}  {a['score_std']:>5.2f}  {a['mean_rank']:>5.2f}"
            f"  {rating}  {a['thinking_s_per_game']:>7.2f}"
        )
    lines.append(f"rating: {summary.get('rating_model', 'Bradley-Terry')}")
    if any(r["seats"] > 1 for r in summary.get("lineups", [])) or len(summary.get("lineups", [])) > 2:
        lines.append("")
        lines.append("share of games won, per lineup (95% Wilson interval)")
        for r in summary["lineups"]:
            lines.append(
                f"  {r['lineup']:<40} {r['agent']:<{w}} x{r['seats']}  {r['game_win_rate']:.3f} "
                f"[{r['lo']:.3f},{r['hi']:.3f}]  ({r['games']} games)"
            )
    return "\n".join(lines)


def _csv(rows: list[list]) -> str:
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    return buf.getvalue()


def _fmt(v: object) -> object:
    return f"{v:.4f}" if isinstance(v, float) else v


def write_outputs(out: Path, config: dict, summary: dict, games: list[dict], plots: bool = True) -> list[Path]:
    """Write the tournament's files into ``out``, each atomically (:func:`~ohmygoods_env.files.write_atomic`)."""
    out.mkdir(parents=True, exist_ok=True)
    written = [
        write_atomic(out / "games.jsonl", "".join(json.dumps(g) + "\n" for g in games)),
        write_atomic(out / "summary.json", json.dumps({"config": config, **summary}, indent=2)),
    ]
    names = summary["names"]
    if summary.get("solo"):  # no win rates: only agents.csv below, no plots
        plots = False
    else:
        _write_winrates(out, summary, names, written)
    cols = list(summary["agents"][0].keys())
    rows = [cols] + [[_fmt(a[c]) for c in cols] for a in summary["agents"]]
    written.append(write_atomic(out / "agents.csv", _csv(rows)))
    if plots:
        written += _plots(out, summary, games)
    return written


def _write_winrates(out: Path, summary: dict, names: list[str], written: list[Path]) -> None:
    rows: list[list] = [["agent", "opponent", "comparisons", "win_rate", "ci_low", "ci_high"]]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            c = summary["winrate_matrix"][i][j]
            if c is not None:
                rows.append([a, b, c["n"], f"{c['rate']:.4f}", f"{c['lo']:.4f}", f"{c['hi']:.4f}"])
    written.append(write_atomic(out / "winrates.csv", _csv(rows)))
    if summary.get("lineups"):
        cols = list(summary["lineups"][0].keys())
        rows = [cols] + [[_fmt(r[c]) for c in cols] for r in summary["lineups"]]
        written.append(write_atomic(out / "lineups.csv", _csv(rows)))


def _save_figure(fig, path: Path) -> Path:
    buf = io.BytesIO()
    fig.savefig(buf, dpi=110, format="png")
    return write_atomic(path, buf.getvalue())


def _plots(out: Path, summary: dict, games: list[dict]) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plots skipped", file=sys.stderr)
        return []
    names = summary["names"]
    k = len(names)
    mat = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            c = summary["winrate_matrix"][i][j]
            if c is not None:
                mat[i, j] = c["rate"]
    fig, ax = plt.subplots(figsize=(1.6 * k + 2, 1.3 * k + 1.5))
    im = ax.imshow(mat, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    for i in range(k):
        for j in range(k):
            c = summary["winrate_matrix"][i][j]
            if c is not None:
                ax.text(j, i, f"{c['rate']:.2f}\n[{c['lo']:.2f},{c['hi']:.2f}]", ha="center", va="center", fontsize=8)
    ax.set_title("win rate of row vs column (95% Wilson)")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    p1 = _save_figure(fig, out / "winrate_heatmap.png")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4))
    data = [[g["scores"][s] for g in games for s, a in enumerate(g["agent_index"]) if a == i] for i in range(k)]
    ax.boxplot(data)
    ax.set_xticks(range(1, k + 1), names)
    ax.set_ylabel("final score (R8.3)")
    ax.set_title(f"score distributions ({len(games)} games)")
    fig.tight_layout()
    p2 = _save_figure(fig, out / "score_distributions.png")
    plt.close(fig)
    return [p1, p2]
