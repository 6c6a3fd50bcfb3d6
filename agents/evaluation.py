"""The evaluation protocol: one agent against a fixed ladder on fixed deals, a report card, a leaderboard.

The library of ``ohmygoods evaluate`` (the command line is :mod:`ohmygoods_env.apps.evaluate`;
the protocol, report schema and external agents are described in ``docs/evaluation.md``).
One machinery for every registered game: each game has its own protocol file, and its player
counts (and whether it has a solo game) come from its :class:`~ohmygoods_env.framework.game.GameSpec`.

* :class:`Protocol` — a versioned protocol file in ``data/`` of this package, one per game
  (:func:`protocol_files`: *Oh my Goods!*'s ``eval_protocol_v1.json``, *Artificium*'s
  ``eval_protocol_artificium_v1.json``): the game, the ladder (agent specs and settings), the
  tiers (deals per opponent and player count) and the default one, the deal sets (explicit
  game seeds per player count, id ``deal_set``) and the rating anchors. Changing any of it
  bumps ``version``.
* :func:`schedule` — the games of one player count: every deal is played once per seat of
  the evaluated agent (seats rotated), the other seats all one ladder agent; solo: every deal
  once. Agent seeds derive from the deal seed and the seat, so the games do not depend on the
  worker count or order.
* :func:`evaluate` — plays them with the tournament harness
  (:func:`ohmygoods_agents.tournament.run_games`: progress bar, workers, every finished game
  appended to a games file at once) and builds the report (:func:`report_section`): win rate
  (ties split) with 95% Wilson interval, mean score margin, solo mean score, an anchored
  Bradley–Terry rating (:func:`ohmygoods_env.framework.stats.anchored_rating`), the agent's mean
  decision time and the machine. The report names its ``game``.
* :func:`format_markdown`, :func:`plot_report`, :func:`compare_reports` /
  :func:`format_comparison` — the report as a table, one figure, and two reports compared.
* :func:`merge_reports`, :func:`render_leaderboard` — per-agent report cards merged per
  player count and the leaderboard page of a game (``docs/leaderboard.md``,
  ``docs/artificium/leaderboard.md``).

Everything except the ``timing`` block of a report is a function of the agent, its settings,
the protocol, the tier and the code: the same deterministic agent gives the same report on
any machine and with any number of workers.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ohmygoods_env.framework import files as F
from ohmygoods_env.framework.agents import TRUST_KWARGS
from ohmygoods_env.framework.game import DEFAULT_GAME, game_tools, is_default_game, resolve_game
from ohmygoods_env.framework.matches import agent_result
from ohmygoods_env.framework.stats import (
    ahead_share,
    anchored_rating,
    mean_interval,
    rate_difference,
    value_difference,
    win_share,
)

from . import tournament as T

PROTOCOL_DIR = Path(__file__).parent / "data"
#: *Oh my Goods!*'s protocol (every game's: :func:`protocol_files`)
PROTOCOL_FILE = PROTOCOL_DIR / "eval_protocol_v1.json"
SCHEMA = "ohmygoods-evaluate-report"
SCHEMA_VERSION = 1
#: *Oh my Goods!*'s player counts (any game's: :func:`player_counts`)
PLAYER_COUNTS = (1, 2, 3, 4)
#: the largest protocol or report card file read (bytes)
MAX_FILE_BYTES = 16 << 20
RATING_MODEL = "Bradley-Terry, Elo scale, anchors pinned; 95% Fisher interval; 3-4 players: share of opponents beaten"

# ===================================================================== the protocol


def player_counts(game: str = DEFAULT_GAME) -> tuple[int, ...]:
    """The player counts of a registered game, from its spec (``1`` only where it has a solo game)."""
    spec = resolve_game(game)
    return tuple(range(spec.min_players, spec.max_players + 1))


def player_counts_text(game: str = DEFAULT_GAME) -> str:
    """``Artificium is played by 2 to 6 players``: the player counts of a game in words."""
    spec = resolve_game(game)
    return f"{spec.title} is played by {spec.min_players} to {spec.max_players} players"


def env_version(game: str = DEFAULT_GAME) -> str:
    """The env version of a game's observation and action layout (its PettingZoo id's name): ``oh_my_goods-v2``."""
    spec = resolve_game(game)
    return f"{game_tools(spec).env_name or spec.name}-v{spec.version}"


@dataclass(frozen=True)
class Protocol:
    """The fixed evaluation protocol (see the module docstring); load it with :func:`load_protocol`."""

    version: int
    deal_set: str
    rules: str | None  # the rule set (Oh my Goods!: "omg2"); None for a game with one
    anchors: dict[str, float]
    ladder: dict[str, dict[str, Any]]
    tiers: dict[str, dict[int, dict[str, int]]]
    deals: dict[int, list[int]]
    game: str = DEFAULT_GAME
    default_tier: str = "full"  # the tier played when none is named, and the leaderboard's reference
    tier_aliases: dict[str, str] = dataclasses.field(default_factory=dict)  # older tier names: {"quick": "standard"}

    @classmethod
    def from_dict(cls, d: Any, source: str = "the protocol") -> Protocol:
        """A protocol from its JSON form: the one validator of a protocol file (``source`` names it).

        Every field is checked for its type and range (versions and deal counts ints, seeds ints in
        ``0 <= s < 2**64``, anchors numbers, the ladder's agents strings with an object of keyword
        arguments), a ladder agent that would run code is refused
        (:func:`~ohmygoods_env.framework.agents.check_file_agent`: only the command line may allow
        ``exec:`` or an SB3 zip), then the tiers are checked against the ladder and the deal sets
        (:meth:`check`). Every problem is a ``ValueError`` naming ``source`` and the field.
        """
        from ohmygoods_env.framework.agents import check_file_agent

        if not isinstance(d, dict):
            raise ValueError(f"{source}: expected a JSON object with the fields of {PROTOCOL_FILE.name}, got {d!r:.60}")
        missing = [k for k in ("version", "deal_set", "rating", "ladder", "tiers", "deals") if k not in d]
        if missing:
            raise ValueError(
                f"{source} is not an evaluation protocol: it lacks {missing} "
                f"(expected the fields of {PROTOCOL_FILE.name})"
            )
        try:
            p = cls(
                version=F.field_int(d.get("version"), "version", 1, 10**6),
                deal_set=F.field_str(d.get("deal_set"), "deal_set"),
                rules=None if d.get("rules") is None else F.field_str(d["rules"], "rules"),
                anchors={
                    F.field_str(k, "rating.anchors key"): F.field_number(v, f"rating.anchors[{k!r}]", -1e6, 1e6)
                    for k, v in F.field_object(
                        F.field_object(d.get("rating"), "rating").get("anchors"), "rating.anchors"
                    ).items()
                },  # fmt: skip
                ladder=_ladder(F.field_object(d.get("ladder"), "ladder"), check_file_agent),
                tiers={
                    F.field_str(t, "tier name"): {
                        _count_key(n, f"tiers[{t!r}]"): {
                            F.field_str(opp, f"tiers[{t!r}][{n!r}] key"): F.field_int(
                                deals, f"tiers[{t!r}][{n!r}][{opp!r}] (deals)", 1, 10**6
                            )
                            for opp, deals in F.field_object(plan, f"tiers[{t!r}][{n!r}]").items()
                        }
                        for n, plan in F.field_object(by_n, f"tiers[{t!r}]").items()
                    }
                    for t, by_n in F.field_object(d.get("tiers"), "tiers").items()
                },
                deals={
                    _count_key(n, "deals"): [
                        _seed(s, f"deals[{n!r}][{i}]") for i, s in enumerate(F.field_list(seeds, f"deals[{n!r}]"))
                    ]
                    for n, seeds in F.field_object(d.get("deals"), "deals").items()
                },
                game=F.field_str(d.get("game", DEFAULT_GAME), "game"),
                default_tier=F.field_str(d.get("default_tier", "full"), "default_tier"),
                tier_aliases={
                    F.field_str(k, "tier_aliases key"): F.field_str(v, f"tier_aliases[{k!r}]")
                    for k, v in F.field_object(d.get("tier_aliases", {}), "tier_aliases").items()
                },
            )
            p.check()
        except ValueError as exc:
            message = str(exc)
            raise ValueError(message if message.startswith(source) else f"{source}: {message}") from None
        return p

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The player counts of the protocol's game (:func:`player_counts`)."""
        return player_counts(self.game)

    def check(self) -> None:
        counts = self.player_counts  # an unknown game: ValueError naming the registered ones
        for old, new in self.tier_aliases.items():
            if new not in self.tiers or old in self.tiers:
                raise ValueError(
                    f"protocol tier_aliases[{old!r}] must name one of its tiers {sorted(self.tiers)} for a name "
                    f"that is not one, got {new!r}"
                )
        if self.default_tier not in self.tiers:
            raise ValueError(
                f"protocol default_tier {self.default_tier!r} is not one of its tiers {sorted(self.tiers)}"
            )
        for tier, by_n in self.tiers.items():
            for n, plan in by_n.items():
                if n not in counts:
                    raise ValueError(
                        f"protocol tier {tier!r}: player count {n} is not one of {counts} "
                        f"({player_counts_text(self.game)})"
                    )
                for opp, deals in plan.items():
                    if n > 1 and opp not in self.ladder:
                        raise ValueError(f"protocol tier {tier!r}, {n} players: {opp!r} is not a ladder agent")
                    if not 1 <= deals <= len(self.deals.get(n, [])):
                        raise ValueError(
                            f"protocol tier {tier!r}, {n} players, {opp!r}: {deals} deals, the deal set has "
                            f"{len(self.deals.get(n, []))}"
                        )

    def tier_name(self, tier: str) -> str:
        """The tier ``tier`` names (an older name of :attr:`tier_aliases` gives its tier's name now);
        ``ValueError`` naming the tiers for an unknown one."""
        name = self.tier_aliases.get(tier, tier)
        if name not in self.tiers:
            also = f" (older names: {', '.join(sorted(self.tier_aliases))})" if self.tier_aliases else ""
            raise ValueError(f"unknown tier {tier!r}: the protocol of {self.game} has {sorted(self.tiers)}{also}")
        return name

    def plan(self, tier: str, players: int) -> list[tuple[str, int]]:
        """``(opponent, deals)`` of a tier (or an older name of one) and player count (``[("solo", deals)]``
        for 1 player)."""
        return list(self.tiers[self.tier_name(tier)].get(players, {}).items())


def _count_key(key: str, where: str) -> int:
    """A player count used as an object key (``"2"``)."""
    if not (isinstance(key, str) and key.isdigit() and len(key) <= 3 and int(key) >= 1):
        raise ValueError(f'{where}: the key {key!r:.40} must be a player count such as "2"')
    return int(key)


def _seed(value: object, where: str) -> int:
    """A deal seed: an int in ``0 <= s < 2**64``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
        raise ValueError(f"{where} must be a seed, an int in 0 <= s < 2**64, got {value!r:.40}")
    return value


def _ladder(ladder: dict[str, Any], check_file_agent: Any) -> dict[str, dict[str, Any]]:
    """The ladder of a protocol file: each label and agent checked (no agent that runs code, see
    :func:`~ohmygoods_env.framework.agents.check_file_agent`)."""
    out = {}
    for label, entry in ladder.items():
        where = f"ladder {label!r:.80}"
        check_file_agent(label, {}, f"{where} (a label is an agent name on another game's leaderboard)")
        if not isinstance(entry, dict) or "spec" not in entry:
            raise ValueError(f'{where}: expected {{"spec": "heuristic", "kwargs": {{...}}}}, got {entry!r:.60}')
        spec, kwargs = check_file_agent(entry["spec"], entry.get("kwargs", {}), where)
        for k, v in kwargs.items():
            if not (v is None or isinstance(v, (bool, int, float, str))):
                raise ValueError(f"{where}: kwargs[{k!r}] must be a number, string, bool or null, got {v!r:.60}")
        out[label] = {"spec": spec, "kwargs": kwargs}
    return out


def _spec_protocols() -> list[Path]:
    """The protocol files games ship in their own folders (``GameSpec.protocol``: ``"package:file.json"``)."""
    import importlib.util

    from ohmygoods_env.framework.game import game_names

    out = []
    for name in game_names():
        target = resolve_game(name).protocol
        if target is not None:
            package, _, file = target.partition(":")
            found = importlib.util.find_spec(package)
            if found is not None and found.origin is not None:
                out.append(Path(found.origin).parent / file)
    return out


def protocol_files() -> dict[str, Path]:
    """The shipped protocol of each game (``data/eval_protocol*.json`` and a game folder's ``GameSpec.protocol``,
    the highest version per game)."""
    best: dict[str, tuple[int, Path]] = {}
    for path in [*sorted(PROTOCOL_DIR.glob("eval_protocol*.json")), *_spec_protocols()]:
        try:
            data = json.loads(path.read_text())
            game, version = str(data.get("game", DEFAULT_GAME)), int(data["version"])
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            continue  # not a protocol: load_protocol(path) says why
        if game not in best or version > best[game][0]:
            best[game] = (version, path)
    return {game: path for game, (_, path) in sorted(best.items())}


def protocol_file(game: str = DEFAULT_GAME) -> Path:
    """The shipped protocol file of ``game``; ``ValueError`` naming the games that have one."""
    files = protocol_files()
    if game not in files:
        title = resolve_game(game).title  # an unregistered name: ValueError naming the registered games
        raise ValueError(f"no evaluation protocol for {title} ({game!r}): protocols ship for {sorted(files)}")
    return files[game]


def load_protocol(path: str | Path | None = None, game: str | None = None) -> Protocol:
    """The shipped protocol of ``game`` (default *Oh my Goods!*), or the one in ``path`` (a JSON file of the
    same form; with ``game`` too, it must be that game's)."""
    p = Path(path) if path is not None else protocol_file(game or DEFAULT_GAME)
    try:
        data = F.read_json_file(p, max_bytes=MAX_FILE_BYTES)
    except OSError as exc:
        raise ValueError(f"cannot read the evaluation protocol {p}: {exc.strerror or exc}") from None
    except F.BadJSON as exc:
        raise ValueError(f"{p}: {exc}; expected an evaluation protocol (JSON)") from None
    protocol = Protocol.from_dict(data, str(p))
    if game is not None and protocol.game != game:
        raise ValueError(f"the evaluation protocol {p} is for the game {protocol.game!r}, not {game!r}")
    return protocol


def leaderboard_dir(game: str = DEFAULT_GAME) -> str:
    """The folder of a game's leaderboard page (``leaderboard.md``) and cards (``leaderboard/``): its tools'
    ``docs_dir`` (*Oh my Goods!*: ``docs``), else ``docs/<game>``."""
    return game_tools(game).docs_dir or f"docs/{resolve_game(game).name}"


def agent_player_counts(spec: str, game: str = DEFAULT_GAME) -> tuple[int, ...]:
    """The player counts an agent is evaluated on by default: a policy checkpoint's own count
    (shipped ``ppo-3p`` of *Oh my Goods!*, or ``ppo:PATH``: the ``players`` of its JSON,
    :func:`~ohmygoods_agents.checkpoint.checkpoint_players`), else every player count of the game
    (:func:`player_counts`)."""
    counts = player_counts(game)
    name, _, arg = spec.partition(":")
    if arg:
        path = Path(arg) if name == "ppo" else None
    else:
        shipped = game_tools(game).load("checkpoints")
        path = shipped().get(spec) if shipped is not None else None
    if path is not None:
        from .checkpoint import CheckpointError, checkpoint_players

        try:
            players = checkpoint_players(path)
        except CheckpointError:  # building the agent names the problem
            players = None
        if players in counts:
            return (players,)
    return counts


# ===================================================================== schedule and play


def _cost(protocol: Protocol, label: str) -> int:
    """Play the dearest opponents first (better use of the workers): MCTS by simulations."""
    kw = protocol.ladder.get(label, {}).get("kwargs", {})
    return -int(kw.get("sims") or 0)


def schedule(protocol: Protocol, tier: str, players: int) -> tuple[list[str], list[T.GameSpec]]:
    """Opponent labels (agent ``k + 1`` of the games) and the games of one player count."""
    plan = sorted(protocol.plan(tier, players), key=lambda item: _cost(protocol, item[0]))
    seeds = protocol.deals[players]
    specs: list[T.GameSpec] = []
    labels = [] if players == 1 else [label for label, _ in plan]
    for lineup, (_, deals) in enumerate(plan):
        for d in range(deals):
            for rot in range(players):
                seats = (0,) if players == 1 else tuple(0 if s == rot else lineup + 1 for s in range(players))
                agent_seeds = tuple(T.derive_seed(protocol.version, players, seeds[d], rot, s) for s in range(players))
                number = d * players + rot
                specs.append(T.GameSpec(len(specs), lineup, number, seeds[d], seats, agent_seeds))
    return labels, specs


def play(
    agent: str,
    protocol: Protocol,
    tier: str,
    players: int,
    agent_kwargs: dict[str, Any] | None = None,
    workers: int = 1,
    games_file: Path | None = None,
    progress: bool = True,
) -> tuple[list[str], list[dict]]:
    """Play the games of one player count; returns the opponent labels and the games (schedule order).

    With ``games_file`` every finished game is appended at once, and the games already there
    (an interrupted run of the same protocol) are kept and not played again.
    """
    labels, specs = schedule(protocol, tier, players)
    names = [agent] + [protocol.ladder[x]["spec"] for x in labels]
    kwargs = [dict(agent_kwargs or {})] + [dict(protocol.ladder[x]["kwargs"]) for x in labels]
    games = T.run_games(
        names,
        specs,
        players,
        protocol.rules or "",
        workers,
        kwargs,
        progress,
        games_file,
        desc=f"{players} players",
        game=protocol.game,
    )
    return labels, games


# ===================================================================== the report


def _subject_seat(game: dict) -> int:
    return game["agent_index"].index(0)


def opponent_row(label: str, spec: str, games: list[dict], players: int) -> dict[str, Any]:
    """The agent's results against one ladder agent (see ``docs/evaluation.md`` for the fields)."""
    seats = [_subject_seat(g) for g in games]
    shares = [win_share(g, s) for g, s in zip(games, seats, strict=True)]
    margins = [
        g["scores"][s] - max(g["scores"][t] for t in range(players) if t != s)
        for g, s in zip(games, seats, strict=True)
    ]
    r = agent_result(label, shares)  # the one result of a series (docs/evaluation.md, One win rate)
    m, m_lo, m_hi = mean_interval([float(x) for x in margins])
    return {
        "opponent": label,
        "spec": spec,
        "games": len(games),
        "deals": len(games) // players,
        "wins": r.wins,
        "ties": r.ties,
        "losses": r.losses,
        "win_rate": r.win_rate,
        "win_lo": r.win_lo,
        "win_hi": r.win_hi,
        "margin_mean": m,
        "margin_lo": m_lo,
        "margin_hi": m_hi,
        "score_mean": float(np.mean([g["scores"][s] for g, s in zip(games, seats, strict=True)])),
        "opponent_score_mean": float(
            np.mean([g["scores"][t] for g, s in zip(games, seats, strict=True) for t in range(players) if t != s])
        ),
        "ahead_share": float(np.mean([ahead_share(g, s) for g, s in zip(games, seats, strict=True)])),
    }


def rating_of(rows: list[dict[str, Any]], anchors: dict[str, float]) -> dict[str, Any] | None:
    """The anchored rating from the rows against the anchor agents (each game one comparison,
    scored by the share of opponents beaten); ``None`` when no anchor was played."""
    results = [
        (anchors[r["opponent"]], r["ahead_share"] * r["games"], r["games"]) for r in rows if r["opponent"] in anchors
    ]
    if not results:
        return None
    value, lo, hi = anchored_rating(results)
    return {"value": value, "lo": lo, "hi": hi, "model": RATING_MODEL, "anchors": dict(anchors)}


def report_section(labels: list[str], games: list[dict], players: int, protocol: Protocol, tier: str) -> dict[str, Any]:
    """The report of one player count from its games (everything but the timing)."""
    section: dict[str, Any] = {
        "tier": tier,
        "protocol_version": protocol.version,
        "deal_set": protocol.deal_set,
        "env_version": env_version(protocol.game),
        "package_version": package_version(),
    }
    if players == 1:
        scores = [float(g["scores"][0]) for g in games]
        mean, lo, hi = mean_interval(scores)
        section["solo"] = {
            "games": len(games),
            "score_mean": mean,
            "score_lo": lo,
            "score_hi": hi,
            "rounds_mean": float(np.mean([g["rounds"] for g in games])),
        }
        return section
    rows = []
    for k, label in enumerate(labels):
        mine = [g for g in games if g["lineup"] == k]
        rows.append(opponent_row(label, protocol.ladder[label]["spec"], mine, players))
    order = [label for label, _ in protocol.plan(tier, players)]
    section["opponents"] = sorted(rows, key=lambda r: order.index(r["opponent"]))  # the protocol's order
    section["rating"] = rating_of(rows, protocol.anchors)
    return section


def timing_of(games: list[dict], wall_s: float) -> dict[str, Any]:
    """The agent's thinking time per decision over ``games`` (machine-dependent)."""
    seconds = sum(g["thinking_s"][_subject_seat(g)] for g in games)
    decisions = sum(g["seat_decisions"][_subject_seat(g)] for g in games)
    cpu = sum(g.get("cpu_s", 0.0) for g in games)
    return {
        "wall_s": round(wall_s, 2),
        "cpu_s": round(cpu, 2),
        "games": len(games),
        "decisions": decisions,
        "decision_s_mean": seconds / max(1, decisions),
    }


def machine() -> str:
    """The machine in words: CPU model, core count, OS and Python."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"
    )


def package_version() -> str:
    try:
        from importlib.metadata import version

        return version("ohmygoods")
    except Exception:  # noqa: BLE001 - not installed: the source tree's version
        from ohmygoods_env import __version__

        return __version__


def evaluate(
    agent: str,
    tier: str | None = None,
    players: tuple[int, ...] | list[int] | None = None,
    workers: int = 1,
    protocol: Protocol | None = None,
    agent_kwargs: dict[str, Any] | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    label: str | None = None,
    game: str | None = None,
) -> dict[str, Any]:
    """Evaluate the agent spec ``agent`` on ``tier`` of the protocol; returns the report (a dict).

    ``game``: the registered game (default: the protocol's; without a protocol, *Oh my Goods!*),
    played on its shipped protocol unless ``protocol`` is given. ``tier``: default the
    protocol's ``default_tier``. ``players``: the player counts (default: those of
    :func:`agent_player_counts` the tier plays). ``out``: a folder for the games
    (``games_<n>p.jsonl``, one line per finished game, kept and extended by a later call with
    the same arguments; a kept game that is not a valid row raises
    :class:`~ohmygoods_agents.tournament.GamesFileError` before any game is played).
    ``agent_kwargs`` go to the game's ``make_agent``; the report records them without the
    permissions ``allow_exec`` and ``trust_pickle`` (a card never builds an agent).
    """
    import time

    protocol = protocol or load_protocol(game=game)
    if game is not None and protocol.game != game:
        raise ValueError(f"the protocol is for the game {protocol.game!r}, not {game!r}")
    tier = protocol.tier_name(protocol.default_tier if tier is None else tier)
    own = agent_player_counts(agent, protocol.game)
    counts = tuple(players) if players else tuple(n for n in own if protocol.plan(tier, n)) or own
    for n in counts:
        if n not in protocol.player_counts:
            raise ValueError(
                f"players must be some of {protocol.player_counts} ({player_counts_text(protocol.game)}), got {n}"
            )
        if not protocol.plan(tier, n):
            raise ValueError(f"tier {tier!r} of the protocol has no games for {n} players")
    if out is not None:
        for n in counts:  # every kept game checked before any is played (T.GamesFileError naming file and line)
            T.read_games_file(Path(out) / f"games_{n}p.jsonl", n, 1 + len(schedule(protocol, tier, n)[0]))
        Path(out).mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "game": protocol.game,
        "agent": agent,
        "label": label or agent,
        "agent_kwargs": {k: v for k, v in (agent_kwargs or {}).items() if k not in TRUST_KWARGS},  # settings only
        "tier": tier,
        "protocol_version": protocol.version,
        "deal_set": protocol.deal_set,
        "rules": protocol.rules,
        "env_version": env_version(protocol.game),
        "package_version": package_version(),
        "players": {},
        "timing": {"machine": machine(), "workers": workers, "by_players": {}},
    }
    for n in counts:
        t0 = time.perf_counter()
        games_file = Path(out) / f"games_{n}p.jsonl" if out is not None else None
        labels, games = play(agent, protocol, tier, n, agent_kwargs, workers, games_file, progress)
        report["players"][str(n)] = report_section(labels, games, n, protocol, tier)
        report["timing"]["by_players"][str(n)] = timing_of(games, time.perf_counter() - t0)
    by = report["timing"]["by_players"].values()
    decisions = sum(t["decisions"] for t in by)
    report["timing"]["wall_s"] = round(sum(t["wall_s"] for t in by), 2)
    report["timing"]["cpu_s"] = round(sum(t["cpu_s"] for t in by), 2)
    report["timing"]["decision_s_mean"] = sum(t["decision_s_mean"] * t["decisions"] for t in by) / max(1, decisions)
    return report


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    """The report minus its machine-dependent ``timing`` block (what reproducibility compares)."""
    return {k: v for k, v in report.items() if k != "timing"}


_TEXT, _COUNT, _NUMBER, _SHARE = "text", "count", "number", "share"
#: what the readers of a report card use, by field: the one schema :func:`check_report` enforces
_CARD_FIELDS = {
    "agent": _TEXT, "label": _TEXT, "tier": _TEXT, "protocol_version": _COUNT, "deal_set": _TEXT,
    "env_version": _TEXT, "package_version": _TEXT,
}  # fmt: skip
_SECTION_FIELDS = {"tier": _TEXT, "protocol_version": _COUNT, "deal_set": _TEXT, "env_version": _TEXT,
                   "package_version": _TEXT}  # fmt: skip
_SOLO_FIELDS = {"games": _COUNT, "score_mean": _NUMBER, "score_lo": _NUMBER, "score_hi": _NUMBER,
                "rounds_mean": _NUMBER}  # fmt: skip
_ROW_FIELDS = {
    "opponent": _TEXT, "spec": _TEXT, "games": _COUNT, "deals": _COUNT, "wins": _COUNT, "ties": _COUNT,
    "losses": _COUNT, "win_rate": _SHARE, "win_lo": _SHARE, "win_hi": _SHARE, "margin_mean": _NUMBER,
    "margin_lo": _NUMBER, "margin_hi": _NUMBER, "score_mean": _NUMBER, "opponent_score_mean": _NUMBER,
    "ahead_share": _SHARE,
}  # fmt: skip
_RATING_FIELDS = {"value": _NUMBER, "lo": _NUMBER, "hi": _NUMBER}
_TIMING_FIELDS = {"decision_s_mean": _NUMBER, "wall_s": _NUMBER, "cpu_s": _NUMBER, "games": _COUNT,
                  "decisions": _COUNT, "workers": _COUNT, "machine": _TEXT}  # fmt: skip


def _fields(obj: Any, spec: dict[str, str], where: str, required: bool = True) -> dict[str, Any]:
    """``obj`` (an object) with each field of ``spec`` of its kind (``required``: each present; else only
    those present are checked)."""
    F.field_object(obj, where)
    for key, kind in spec.items():
        if key not in obj:
            if required:
                raise ValueError(f"{where or 'the card'} lacks {key!r}: expected a {kind}")
            continue
        at = f"{where}.{key}" if where else key
        if kind == _TEXT:
            F.field_str(obj[key], at)
        elif kind == _COUNT:
            F.field_int(obj[key], at, 0, 10**9)
        else:
            F.field_number(obj[key], at, *((0.0, 1.0) if kind == _SHARE else (-1e12, 1e12)))
    return obj


def _check_section(n: str, sec: Any) -> None:
    """One player count of a card: the solo block (1 player) or the rows against the ladder and the rating."""
    where = f"players[{n!r}]"
    _fields(sec, _SECTION_FIELDS, where)
    if n == "1":
        _fields(sec.get("solo"), _SOLO_FIELDS, f"{where}.solo")
        return
    if "solo" in sec:
        raise ValueError(f"{where} has a solo block: expected opponents (a solo game has 1 player)")
    for i, row in enumerate(F.field_list(sec.get("opponents"), f"{where}.opponents")):
        _fields(row, _ROW_FIELDS, f"{where}.opponents[{i}]")
        if row["games"] < 1:
            raise ValueError(f"{where}.opponents[{i}].games must be an int in [1, 1000000000], got 0")
    rating = sec.get("rating")
    if rating is not None:
        _fields(rating, _RATING_FIELDS, f"{where}.rating")
        for name, v in F.field_object(rating.get("anchors", {}), f"{where}.rating.anchors").items():
            F.field_number(v, f"{where}.rating.anchors[{name!r}]")


def check_report(report: Any, source: str = "report") -> dict[str, Any]:
    """``report`` if it is a report card of this schema, else ``ValueError`` naming ``source`` and the field.

    The one validator of a report card (:func:`read_report` calls it where a card is read): every
    field that :func:`compare_reports`, :func:`merge_reports`, :func:`render_leaderboard` and
    :func:`format_markdown` use is checked for its type and range. A card records an agent; no
    reader builds an agent from it.
    """
    if not isinstance(report, dict) or report.get("schema") != SCHEMA:
        raise ValueError(f'{source} is not an evaluation report (expected "schema": {SCHEMA!r})')
    if report.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{source} has schema_version {report.get('schema_version')!r:.40}, expected {SCHEMA_VERSION}")
    if not isinstance(report.get("players"), dict):
        raise ValueError(f'{source} has no "players" sections: expected an object by player count')
    if not isinstance(report.get("game", DEFAULT_GAME), str):
        raise ValueError(f'{source} has a "game" that is not a name: {report.get("game")!r:.40}')
    try:
        _fields(report, _CARD_FIELDS, "")
        if report.get("rules") is not None:
            F.field_str(report["rules"], "rules")
        F.field_object(report.get("agent_kwargs", {}), "agent_kwargs")
        for n, sec in report["players"].items():
            if not (n.isdigit() and len(n) <= 3 and int(n) >= 1):
                raise ValueError(f'players key {n!r:.40} is not a player count: expected "1", "2", ...')
            _check_section(n, sec)
        timing = report.get("timing", {})
        _fields(timing, _TIMING_FIELDS, "timing", required=False)
        for n, t in F.field_object(timing.get("by_players", {}), "timing.by_players").items():
            _fields(t, {"decision_s_mean": _NUMBER}, f"timing.by_players[{n!r:.40}]")
            _fields(t, _TIMING_FIELDS, f"timing.by_players[{n!r:.40}]", required=False)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}; expected a report card of ohmygoods evaluate") from None
    return report


def report_game(report: dict[str, Any]) -> str:
    """The game of a report (a report without ``game`` predates other games: *Oh my Goods!*)."""
    return str(report.get("game", DEFAULT_GAME))


def read_report(path: str | Path) -> dict[str, Any]:
    """A report JSON file, read within limits (:func:`~ohmygoods_env.framework.files.read_json_file`) and
    checked (:func:`check_report`); ``ValueError`` naming the file otherwise."""
    try:
        data = F.read_json_file(path, max_bytes=MAX_FILE_BYTES)
    except OSError as exc:
        raise ValueError(f"cannot read the report {path}: {exc.strerror or exc}") from None
    except F.BadJSON as exc:
        raise ValueError(f"{path}: {exc}; expected a report card of ohmygoods evaluate (JSON)") from None
    return check_report(data, str(path))


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` atomically (a temporary file in the same folder, then a rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def write_report(report: dict[str, Any], path: str | Path) -> Path:
    return write_text(path, json.dumps(report, indent=1) + "\n")


# ===================================================================== tables and plot


def _ci(v: float, lo: float, hi: float, digits: int = 3) -> str:
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _rating_text(rating: dict[str, Any] | None) -> str:
    return "–" if rating is None else _ci(rating["value"], rating["lo"], rating["hi"], 0)


def _anchors_text(anchors: dict[str, float]) -> str:
    """``random 0, heuristic 1000``."""
    return ", ".join(f"{name} {value:g}" for name, value in anchors.items())


def format_markdown(report: dict[str, Any]) -> str:
    """The report card as markdown: one table per player count."""
    t = report.get("timing", {})
    game = report_game(report)
    what = "" if is_default_game(game) else f"Game *{resolve_game(game).title}*. "
    rules = "" if report.get("rules") is None else f"rules `{report['rules']}`, "
    lines = [
        f"## `{report['label']}` — evaluation report",
        "",
        f"{what}Tier **{report['tier']}**, protocol {report['protocol_version']}, deal set `{report['deal_set']}`, "
        f"{rules}{report['env_version']}, ohmygoods {report['package_version']}; "
        f"agent spec `{report['agent']}`" + (f" {report['agent_kwargs']}" if report.get("agent_kwargs") else "") + ".",
    ]
    if t:
        lines.append(
            f"Mean decision time {t.get('decision_s_mean', 0.0) * 1000:.2f} ms on {t.get('machine', '?')}; "
            f"{t.get('wall_s', 0.0):.0f} s with {t.get('workers', '?')} workers."
        )
    for n, sec in sorted(report["players"].items()):
        lines += ["", f"### {n} player{'s' if n != '1' else ''}", ""]
        if "solo" in sec:
            s = sec["solo"]
            lines.append(
                f"Solo mean score {_ci(s['score_mean'], s['score_lo'], s['score_hi'], 2)} over {s['games']} deals "
                f"(mean {s['rounds_mean']:.1f} rounds)."
            )
            continue
        lines += [
            "| opponent | games | win rate [95% CI] | score margin [95% CI] | score (agent / opponents) |",
            "| --- | ---: | --- | --- | --- |",
        ]
        for r in sec["opponents"]:
            lines.append(
                f"| {r['opponent']} | {r['games']} | {_ci(r['win_rate'], r['win_lo'], r['win_hi'])} | "
                f"{_ci(r['margin_mean'], r['margin_lo'], r['margin_hi'], 2)} | "
                f"{r['score_mean']:.2f} / {r['opponent_score_mean']:.2f} |"
            )
        anchors = _anchors_text(sec["rating"]["anchors"]) if sec.get("rating") else "no anchor played"
        lines += ["", f"Rating {_rating_text(sec['rating'])} ({anchors})."]
    return "\n".join(lines) + "\n"


def plot_report(report: dict[str, Any], path: str | Path) -> Path | None:
    """One figure: win rate with its interval against each ladder agent, per player count (solo:
    the mean score). ``None`` when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    sections = sorted(report["players"].items())
    fig, axes = plt.subplots(1, len(sections), figsize=(3.6 * len(sections), 3.4), squeeze=False)
    for ax, (n, sec) in zip(axes[0], sections, strict=True):
        if "solo" in sec:
            s = sec["solo"]
            ax.errorbar(
                [0],
                [s["score_mean"]],
                yerr=[[s["score_mean"] - s["score_lo"]], [s["score_hi"] - s["score_mean"]]],
                fmt="o",
            )
            ax.set_xticks([0], ["solo"])
            ax.set_ylabel("mean score")
            ax.set_title("1 player")
            continue
        rows = sec["opponents"]
        y = [r["win_rate"] for r in rows]
        err = [[r["win_rate"] - r["win_lo"] for r in rows], [r["win_hi"] - r["win_rate"] for r in rows]]
        ax.errorbar(range(len(rows)), y, yerr=err, fmt="o")
        ax.axhline(1 / int(n), color="grey", lw=0.8, ls="--")
        ax.set_xticks(range(len(rows)), [r["opponent"] for r in rows], rotation=35, ha="right")
        ax.set_ylim(0, 1)
        ax.set_ylabel("win rate (95% CI)")
        ax.set_title(f"{n} players")
    fig.suptitle(f"{report['label']} — tier {report['tier']}, protocol {report['protocol_version']}", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ===================================================================== comparing reports


def compare_reports(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Differences ``a - b`` wherever both reports measured the same thing, each with its 95%
    interval and whether it is significant (the interval excludes 0). Both must be of the same
    game, protocol version and deal set (``ValueError`` otherwise); tiers may differ."""
    if report_game(a) != report_game(b):
        raise ValueError(f"the reports are of different games ({report_game(a)!r} vs {report_game(b)!r})")
    for key in ("protocol_version", "deal_set", "rules"):
        if a.get(key) != b.get(key):
            raise ValueError(f"the reports differ in {key} ({a.get(key)!r} vs {b.get(key)!r}): not comparable")
    rows: list[dict[str, Any]] = []

    def add(players: str, what: str, va: float, vb: float, diff: tuple[float, float, float]) -> None:
        d, lo, hi = diff
        rows.append(
            {
                "players": players,
                "measure": what,
                "a": va,
                "b": vb,
                "diff": d,
                "lo": lo,
                "hi": hi,
                "significant": bool(lo > 0 or hi < 0),
            }
        )

    for n in sorted(set(a["players"]) & set(b["players"])):
        sa, sb = a["players"][n], b["players"][n]
        if "solo" in sa and "solo" in sb:
            x, y = sa["solo"], sb["solo"]
            va, vb = (x["score_mean"], x["score_lo"], x["score_hi"]), (y["score_mean"], y["score_lo"], y["score_hi"])
            add(n, "solo mean score", va[0], vb[0], value_difference(va, vb))
            continue
        rb = {r["opponent"]: r for r in sb.get("opponents", [])}
        for r in sa.get("opponents", []):
            o = rb.get(r["opponent"])
            if o is not None:
                diff = rate_difference(r["win_rate"] * r["games"], r["games"], o["win_rate"] * o["games"], o["games"])
                add(n, f"win rate vs {r['opponent']}", r["win_rate"], o["win_rate"], diff)
        if sa.get("rating") and sb.get("rating"):
            x, y = sa["rating"], sb["rating"]
            add(
                n,
                "rating",
                x["value"],
                y["value"],
                value_difference((x["value"], x["lo"], x["hi"]), (y["value"], y["lo"], y["hi"])),
            )
    return rows


def format_comparison(a: dict[str, Any], b: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """The comparison as a markdown table."""
    lines = [
        f"a = `{a['label']}` (tier {a['tier']}), b = `{b['label']}` (tier {b['tier']}); "
        f"protocol {a['protocol_version']}, deal set `{a['deal_set']}`",
        "",
        "| players | measure | a | b | a − b [95% CI] | significant |",
        "| ---: | --- | ---: | ---: | --- | --- |",
    ]
    for r in rows:
        digits = 0 if r["measure"] == "rating" else (2 if "score" in r["measure"] else 3)
        lines.append(
            f"| {r['players']} | {r['measure']} | {r['a']:.{digits}f} | {r['b']:.{digits}f} | "
            f"{_ci(r['diff'], r['lo'], r['hi'], digits)} | {'**yes**' if r['significant'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"


# ===================================================================== leaderboard


def merge_reports(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """``new`` with the player counts of ``old`` that ``new`` did not play (each section keeps its
    own tier and versions; ``timing.by_players`` likewise). Both must be of the same game."""
    if old is None:
        return new
    if report_game(old) != report_game(new):
        raise ValueError(
            f"cannot merge a report of {report_game(new)!r} into a card of {report_game(old)!r} "
            f"({old.get('label')!r}): the leaderboards of two games are kept apart"
        )
    merged = json.loads(json.dumps(new))
    for n, sec in old.get("players", {}).items():
        if n not in merged["players"]:
            merged["players"][n] = sec
            old_t = old.get("timing", {}).get("by_players", {}).get(n)
            if old_t is not None:
                merged["timing"]["by_players"][n] = old_t
    merged["players"] = dict(sorted(merged["players"].items()))
    merged["timing"]["by_players"] = dict(sorted(merged["timing"]["by_players"].items()))
    tiers = {s["tier"] for s in merged["players"].values()}
    merged["tier"] = tiers.pop() if len(tiers) == 1 else "mixed"
    return merged


def report_file_name(label: str) -> str:
    """A file name for an agent label (``mcts-100`` -> ``mcts-100.json``; ``ppo:x/y`` -> ``ppo_x_y.json``)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label) + ".json"


def render_leaderboard(reports: list[dict[str, Any]], protocol: Protocol, evaluation_link: str | None = None) -> str:
    """The leaderboard page of the protocol's game (``docs/leaderboard.md``, ``docs/<game>/leaderboard.md``):
    per player count one table of every agent's report card. ``evaluation_link``: the link to
    ``docs/evaluation.md`` from the page (default: a page in ``docs/``, or in ``docs/<game>/`` for
    another game). A report of another game is refused (``ValueError``)."""
    game = protocol.game
    others = [f"{r.get('label')!r} ({report_game(r)})" for r in reports if report_game(r) != game]
    if others:
        raise ValueError(f"the leaderboard of {game!r} cannot show reports of other games: {', '.join(others)}")
    if is_default_game(game):  # the page of the game a command plays unnamed: no --game, no game's name
        title, command = "Leaderboard", "ohmygoods evaluate --leaderboard"
    else:
        title, command = f"{resolve_game(game).title} leaderboard", f"ohmygoods evaluate --game {game} --leaderboard"
    link = evaluation_link or os.path.relpath("docs/evaluation.md", leaderboard_dir(game))
    lines = [
        f"# {title}",
        "",
        f"Report cards of `ohmygoods evaluate` (protocol and schema: [evaluation.md]({link})); regenerate "
        f"with `{command}` (`--players N` replaces only those player counts). Win rate "
        "(ties split) with 95% Wilson interval against each ladder agent; rating on the fixed Bradley–Terry scale "
        f"({_anchors_text(protocol.anchors)}, Elo points) with its 95% interval. Each row names its tier and the games "
        "behind each cell; decision time is the agent's mean per decision on the machine named below the tables.",
    ]
    for n in protocol.player_counts:
        rows = [(r, r["players"][str(n)]) for r in reports if str(n) in r["players"]]
        if not rows:
            continue
        lines += ["", f"## {n} player{'s' if n > 1 else ''}", ""]
        lines += _solo_table(rows) if n == 1 else _versus_table(rows, protocol, n)
    lines += _reduced_tiers(reports, protocol)
    lines += _versions_and_machines(reports)
    return "\n".join(lines) + "\n"


def _solo_table(rows: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[str]:
    """The 1-player table: mean score and rounds over the deals, best first."""
    lines = [
        "| agent | tier | deals | mean score [95% CI] | mean rounds | ms / decision |",
        "| --- | --- | ---: | --- | ---: | ---: |",
    ]
    rows.sort(key=lambda x: -x[1]["solo"]["score_mean"])
    for r, sec in rows:
        s = sec["solo"]
        score = _ci(s["score_mean"], s["score_lo"], s["score_hi"], 2)
        rounds = f"{s['rounds_mean']:.1f}"
        lines.append(f"| `{r['label']}` | {sec['tier']} | {s['games']} | {score} | {rounds} | {_ms(r, 1)} |")
    return lines


def _versus_table(rows: list[tuple[dict[str, Any], dict[str, Any]]], protocol: Protocol, n: int) -> list[str]:
    """The ``n``-player table: rating and win rate against each ladder agent, best rating first."""
    lines = [f"Chance level: a win rate of 1/{n}. Cells: win rate [95% CI] (games).", ""]
    opps = [label for label, _ in protocol.plan(protocol.default_tier, n)] or sorted(
        {o["opponent"] for _, s in rows for o in s["opponents"]}
    )
    lines.append("| agent | tier | rating [95% CI] | " + " | ".join(f"vs {o}" for o in opps) + " | ms / decision |")
    lines.append("| --- | --- | --- | " + " | ".join("---" for _ in opps) + " | ---: |")
    rows.sort(key=lambda x: -(x[1]["rating"]["value"] if x[1].get("rating") else -1e9))
    for r, sec in rows:
        by = {o["opponent"]: o for o in sec["opponents"]}
        cells = [
            f"{by[o]['win_rate']:.2f} [{by[o]['win_lo']:.2f}, {by[o]['win_hi']:.2f}] ({by[o]['games']})"
            if o in by
            else "–"
            for o in opps
        ]
        lines.append(
            f"| `{r['label']}` | {sec['tier']} | {_rating_text(sec.get('rating'))} | "
            + " | ".join(cells)
            + f" | {_ms(r, n)} |"
        )
    return lines


def _reduced_tiers(reports: list[dict[str, Any]], protocol: Protocol) -> list[str]:
    """The note naming the rows at another tier than the protocol's reference tier (none when all are at it)."""
    ref = protocol.default_tier
    reduced, larger = [], False
    for r in sorted(reports, key=lambda r: r["label"]):
        tiers = {}
        for n, sec in r["players"].items():
            if protocol.tier_aliases.get(sec["tier"], sec["tier"]) != ref:
                tiers.setdefault(sec["tier"], []).append(n)
                larger |= _tier_deals(protocol, sec["tier"], int(n)) >= _tier_deals(protocol, ref, int(n))
        reduced += [f"`{r['label']}` {t} for {', '.join(ns)} player(s)" for t, ns in tiers.items()]
    if not reduced:
        return []
    why = "other numbers of games" if larger else "fewer games, wider intervals"
    return ["", f"Not at the {ref} tier ({why}): " + ", ".join(reduced) + "."]


def _versions_and_machines(reports: list[dict[str, Any]]) -> list[str]:
    """The lines naming the protocol, deal set, env and package versions of the rows and the machines."""
    machines = sorted({r.get("timing", {}).get("machine", "?") for r in reports})
    versions: dict[tuple, dict[str, set[int]]] = {}
    for r in reports:
        for n, s in r["players"].items():
            key = (s["protocol_version"], s["deal_set"], s["env_version"], s["package_version"])
            versions.setdefault(key, {}).setdefault(r["label"], set()).add(int(n))
    fewer = [k for k in sorted(versions) if k != max(versions, key=lambda k: sum(map(len, versions[k].values())))]

    def _rows(key: tuple) -> str:  # which rows a version covers, named where versions are mixed
        if key not in fewer:
            return " (the other rows)" if fewer else ""
        parts = [
            f"`{label}` {', '.join(map(str, sorted(ns)))} player(s)" for label, ns in sorted(versions[key].items())
        ]
        return " (" + "; ".join(parts) + ")"

    return [
        "",
        "Protocol, deal set, env and package versions of the rows: "
        + "; ".join(f"protocol {p}, `{d}`, {e}, ohmygoods {v}" + _rows((p, d, e, v)) for p, d, e, v in sorted(versions))
        + ".",
        "",
        "Machine: " + "; ".join(machines) + ".",
    ]


def _tier_deals(protocol: Protocol, tier: str, n: int) -> int:
    """The deals a tier (or an older name of one) plays at ``n`` players (0 for a tier the protocol does not have)."""
    return sum(d for _, d in protocol.tiers.get(protocol.tier_aliases.get(tier, tier), {}).get(n, {}).items())


def _ms(report: dict[str, Any], n: int) -> str:
    t = report.get("timing", {}).get("by_players", {}).get(str(n))
    return "–" if t is None else f"{t['decision_s_mean'] * 1000:.2f}"


__all__ = [
    "DEFAULT_GAME",
    "leaderboard_dir",
    "PROTOCOL_FILE",
    "SCHEMA",
    "SCHEMA_VERSION",
    "Protocol",
    "agent_player_counts",
    "check_report",
    "compare_reports",
    "env_version",
    "evaluate",
    "format_comparison",
    "format_markdown",
    "load_protocol",
    "merge_reports",
    "player_counts",
    "player_counts_text",
    "plot_report",
    "protocol_file",
    "protocol_files",
    "read_report",
    "render_leaderboard",
    "report_file_name",
    "report_game",
    "schedule",
    "without_timing",
    "write_report",
    "write_text",
]
