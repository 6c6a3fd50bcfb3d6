"""``ohmygoods tournament``: the command line of the round-robin runner in :mod:`ohmygoods_agents.tournament`.

``--game`` picks the registered game (default *Oh my Goods!*, 1-4 players and ``--rules``);
``--game artificium`` plays 2-6 players with the agents of that game by name (``random``,
``greedy``, ``heuristic``, ``ismcts:N``; ``docs/artificium/agents.md``). What differs per game
comes from its spec and tools (:func:`~ohmygoods_env.framework.game.game_tools`: its rule sets,
its search agents for ``--mcts-sims``, the engine to warm); this module names no game.

Arguments are checked before any game is played (agent names and checkpoints, counts).
Results are never deleted: an output folder that already holds games (``games.jsonl`` or
the ``games.partial.jsonl`` of an interrupted run) is refused unless ``--resume`` keeps and
extends them, or ``--out`` names another folder. The rows kept by ``--resume`` and read by
``--summarize`` are checked first (:func:`ohmygoods_agents.tournament.check_game_row`): a bad
one is a usage error naming the file, the line and the field; a name in them is never built.
``--workers`` is at most 4 per CPU core, and a run never starts more processes than games.

An external agent (``exec:COMMAND``, :mod:`ohmygoods_agents.external`) that breaks its protocol
stops the run with status 1 and a message; the finished games stay for ``--resume``.

An agent that loads a Stable-Baselines3 zip (``sb3:PATH``, or ``ppo:PATH`` naming a zip)
unpickles code stored in the file, so it is refused (exit 2, the message names
``--trust-pickle``) unless ``--trust-pickle`` is given; the opt-in reaches those agents only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..framework.game import DEFAULT_GAME, game_names, game_spec, game_tools
from .common import int_at_least, parser, positive_float, seed_arg, workers_arg


def _parser() -> argparse.ArgumentParser:
    ap = parser(
        "ohmygoods tournament",
        "Round-robin tournament between agents: win rates with 95% intervals, scores, ratings.",
    )
    ap.add_argument(
        "--game",
        default=DEFAULT_GAME,
        help=f"registered game: {', '.join(game_names())} (default {DEFAULT_GAME}: Oh my Goods!)",
    )
    ap.add_argument(
        "--agents",
        default="random,heuristic",
        help="comma list of agents: random, greedy, heuristic, mcts, mcts:ppo (search guided by a network), ppo, "
        "ppo:PATH, sb3:PATH (with --trust-pickle); another game: its agents by name (artificium: random, greedy, "
        "heuristic, ismcts:N)",
    )
    ap.add_argument(
        "--trust-pickle",
        action="store_true",
        help="allow sb3:PATH agents (and ppo:PATH naming a zip): loading a Stable-Baselines3 zip unpickles code "
        "stored in it; pass only for files you trust. The other agents never see this opt-in",
    )
    ap.add_argument(
        "--players",
        type=int,
        default=2,
        help="players per game: 1-4 for Oh my Goods! (1: solo score attack), 2-6 for artificium",
    )
    ap.add_argument("--games", type=int_at_least(1), default=100, help="games per lineup")
    ap.add_argument(
        "--rules", default=None, help="rule set of a game with several (ohmygoods: omg2, royal); default its first"
    )
    ap.add_argument("--seed", type=seed_arg, default=0, help="seed of the schedule: deals and agent seeds")
    ap.add_argument(
        "--workers",
        type=workers_arg,
        default=min(2, os.cpu_count() or 1),
        help="processes playing games (at most 4 per CPU core; never more than the games to play)",
    )
    ap.add_argument(
        "--out", default=None, help="output folder (default: results/<agents>_<players>p_<rules>_seed<seed>)"
    )
    ap.add_argument("--mcts-sims", type=int_at_least(1), default=1000, help="MCTS simulations per decision")
    ap.add_argument("--mcts-seconds", type=positive_float, default=None, help="MCTS seconds per decision (a cap)")
    ap.add_argument(
        "--bootstrap", type=int_at_least(0), default=200, help="bootstrap resamples for the 2-player rating intervals"
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="keep the games already in OUT (an interrupted run's games.partial.jsonl, or a finished run's "
        "games.jsonl) and play only the missing ones; needed whenever OUT already holds games",
    )
    ap.add_argument(
        "--summarize",
        metavar="DIR",
        default=None,
        help="play nothing: recompute the tables, files and plots of DIR from DIR/games.jsonl",
    )
    ap.add_argument(
        "--exec-timeout", type=positive_float, default=10.0, help="seconds an exec:COMMAND agent has per decision"
    )
    ap.add_argument("--no-plots", action="store_true", help="write no PNG plots")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    return ap


def loads_pickle(spec: str) -> bool:
    """Whether the agent spec ``spec`` loads a Stable-Baselines3 zip (which unpickles code).

    ``sb3:PATH`` always does; ``ppo:PATH`` does when PATH ends in ``.zip``, or when only
    ``PATH.zip`` exists and no ``PATH.json`` (the rule of :func:`ohmygoods_agents.checkpoint.load_policy`).
    """
    kind, _, arg = spec.partition(":")
    if kind == "sb3":
        return True
    if kind != "ppo" or not arg:
        return False
    p = Path(arg)
    return p.suffix == ".zip" or (not p.with_suffix(".json").exists() and p.with_suffix(".zip").exists())


def _game(ap: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The game of ``--game`` with ``--players`` checked against its range."""
    try:
        spec = game_spec(args.game)
        spec.check_num_players(args.players)
    except (TypeError, ValueError) as exc:
        ap.error(f"--game {args.game} --players {args.players}: {exc}")
    rules = game_tools(spec).rules
    if args.rules is None:
        args.rules = rules[0] if rules else None
    elif args.rules not in rules:
        some = f"one of {', '.join(rules)}" if rules else "none: it has one rule set"
        ap.error(f"--rules {args.rules}: {spec.title} ({spec.name}) has {some}")
    return spec


def _agents(ap: argparse.ArgumentParser, args: argparse.Namespace, spec: Any) -> tuple[list[str], dict[str, dict]]:
    """The agent names of ``--agents`` and their keyword arguments, each built once to fail early."""
    from ohmygoods_agents import tournament as T
    from ohmygoods_agents.checkpoint import UntrustedCheckpointError

    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    if len(set(names)) != len(names):
        ap.error(f"--agents lists an agent twice: {names}")
    if len(names) < 2 and args.players > 1:
        ap.error(f"--agents needs at least 2 different agents, got {names}")
    search = {"sims": args.mcts_sims, "seconds": args.mcts_seconds}
    searching = game_tools(spec).search_agents  # agents that take --mcts-sims / --mcts-seconds
    agent_kwargs: dict[str, dict] = {n: search for n in names if n.split(":")[0] in searching}
    exec_kwargs = {"timeout": args.exec_timeout, "allow_exec": True}  # programs named on this command line
    agent_kwargs.update({n: exec_kwargs for n in names if n.startswith("exec:")})
    if args.trust_pickle:
        agent_kwargs.update({n: {"trust_pickle": True} for n in names if loads_pickle(n)})
    try:
        for n in names:  # fail early on unknown names or unreadable checkpoints
            T.build_agent(spec.name, n, seed=0, **agent_kwargs.get(n, {}))
    except UntrustedCheckpointError as exc:
        ap.error(f"--agents: {exc} (here: --trust-pickle)")
    except (ValueError, OSError, ImportError) as exc:
        ap.error(f"--agents: {exc}")
    return names, agent_kwargs


def _output(ap: argparse.ArgumentParser, args: argparse.Namespace, names: list[str], spec: Any) -> Path:
    """The output folder (``--out`` or one named by the run), refused if it holds games without ``--resume``."""
    label = "-".join(n.replace(":", "_").replace("/", "_") for n in names)
    variant = args.rules or spec.name
    out = Path(args.out or f"results/{label}_{args.players}p_{variant}_seed{args.seed}")
    if out.exists() and not out.is_dir():
        ap.error(f"--out {str(out)!r} is a file; name a folder (it is created if missing)")
    held = [p for p in (out / "games.partial.jsonl", out / "games.jsonl") if p.exists() and p.stat().st_size > 0]
    if held and not args.resume:
        ap.error(
            f"{', '.join(str(p) for p in held)} already holds games; nothing was deleted. Pass --resume to keep "
            "them and play only the missing games, or --out to write somewhere else"
        )
    return out


def _prepare(ap: argparse.ArgumentParser, args: argparse.Namespace, out: Path, spec: Any, names: list[str]) -> Path:
    """Check the games kept by ``--resume``, compile the engine, create ``out``, and carry a finished run's
    games into the partial file; returns the partial file."""
    from ohmygoods_agents import tournament as T

    partial, finished = out / "games.partial.jsonl", out / "games.jsonl"
    if args.resume:  # every kept row checked before anything is written
        try:
            for path in (finished, partial):
                T.read_games_file(path, args.players, len(names), tolerate_cut=path == partial)
        except T.GamesFileError as exc:
            ap.error(f"--resume: {exc}")

    warm = game_tools(spec).load("warm")
    if warm is not None:
        warm()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        ap.error(f"--out {str(out)!r}: cannot create the folder: {exc.strerror or exc}")
    if args.resume and finished.exists():  # a finished run extended with more games: keep its games
        kept = finished.read_text()
        with open(partial, "a") as fh:
            fh.write(kept if kept.endswith("\n") or not kept else kept + "\n")
    return partial


def _config(args: argparse.Namespace, spec: Any, names: list[str], games: list, wall: float, argv) -> dict:
    """The run's settings as recorded in summary.json."""
    return {
        "game": spec.name,
        "agents": names,
        "players": args.players,
        "games_per_lineup": args.games,
        "games": len(games),
        "rules": args.rules,
        "seed": args.seed,
        "workers": args.workers,
        "mcts_sims": args.mcts_sims,
        "mcts_seconds": args.mcts_seconds,
        "trust_pickle": args.trust_pickle,
        "wall_s": round(wall, 1),
        "command": "ohmygoods tournament " + " ".join(argv if argv is not None else sys.argv[1:]),
    }


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods tournament``; returns the exit status."""
    from ohmygoods_agents import tournament as T
    from ohmygoods_agents.external import ExternalAgentError

    ap = _parser()
    args = ap.parse_args(argv)
    if args.summarize:
        return _resummarize(ap, Path(args.summarize), args)
    spec = _game(ap, args)
    names, agent_kwargs = _agents(ap, args, spec)
    specs = T.schedule(len(names), args.players, args.games, args.seed)
    out = _output(ap, args, names, spec)
    print(
        f"{len(specs)} games: {len(T.lineups(len(names), args.players))} lineups x {args.games} games, "
        f"{args.players} players, {'rules ' + args.rules if args.rules else spec.title}, "
        f"seed {args.seed}, {args.workers} workers; output {out}",
        file=sys.stderr,
    )
    partial = _prepare(ap, args, out, spec, names)
    t0 = time.perf_counter()
    try:
        games = T.run_games(
            names, specs, args.players, args.rules, args.workers, agent_kwargs, not args.no_progress, partial,
            game=spec.name,
        )  # fmt: skip
    except ExternalAgentError as exc:
        print(
            f"ohmygoods tournament: {exc}\nthe games finished so far are kept in {partial}; --resume plays only "
            "the missing games",
            file=sys.stderr,
        )
        return 1
    wall = time.perf_counter() - t0
    summary = T.summarize(names, games, bootstrap=args.bootstrap, seed=args.seed)
    print(T.format_tables(summary))
    written = T.write_outputs(out, _config(args, spec, names, games, wall, argv), summary, games,
                              plots=not args.no_plots)  # fmt: skip
    partial.unlink(missing_ok=True)  # every game in it is now in games.jsonl
    print(f"\n{len(games)} games in {wall:.0f} s; wrote " + ", ".join(str(p) for p in written))
    return 0


def _read_finished(ap: argparse.ArgumentParser, out: Path) -> tuple[dict, list[dict]]:
    """The config of ``out/summary.json`` and the checked rows of ``out/games.jsonl`` (usage error otherwise)."""
    from ohmygoods_agents import tournament as T

    from ..framework import files as F

    summary = out / "summary.json"
    try:
        data = F.read_json_file(summary, max_bytes=64 << 20, allow_nan=True)  # ratings may be NaN
        config = F.field_object(F.field_object(data, "summary").get("config"), "config")
        agents = [F.field_str(a, "config.agents[]") for a in F.field_list(config.get("agents"), "config.agents")]
        F.field_int(config.get("seed"), "config.seed", 0, (1 << 64) - 1)
        players = F.field_int(config.get("players"), "config.players", 1, 64)
    except OSError as exc:
        ap.error(f"--summarize: cannot read a finished tournament in {out}: {exc.strerror or exc}")
    except ValueError as exc:  # BadJSON too
        ap.error(f"--summarize: {summary}: {exc}; expected the summary.json of ohmygoods tournament")
    try:
        rows = T.read_games_file(out / "games.jsonl", players, len(agents), tolerate_cut=False)
    except T.GamesFileError as exc:
        ap.error(f"--summarize: {exc}")
    if not rows:
        ap.error(f"--summarize: no games in {out / 'games.jsonl'}: expected the games of a finished tournament")
    return config, [row for _, row in rows]


def _resummarize(ap: argparse.ArgumentParser, out: Path, args: argparse.Namespace) -> int:
    from ohmygoods_agents import tournament as T

    config, games = _read_finished(ap, out)
    summary = T.summarize(config["agents"], games, bootstrap=args.bootstrap, seed=config["seed"])
    print(T.format_tables(summary))
    written = T.write_outputs(out, config, summary, games, plots=not args.no_plots)
    print(f"\n{len(games)} games; wrote " + ", ".join(str(p) for p in written))
    return 0
