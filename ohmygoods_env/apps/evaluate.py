"""``ohmygoods evaluate``: the command line of the evaluation protocol in :mod:`ohmygoods_agents.evaluation`.

Three forms, each turning arguments into calls of that module:

* ``ohmygoods evaluate AGENT [--tier smoke|standard|full] [--players 2,3] [--workers 2] [--out DIR]`` — the report
  card of one agent: ``report.json``, ``report.md``, ``report.png`` and the games
  (``games_<n>p.jsonl``) in ``DIR``. A folder that already holds games is refused unless
  ``--resume`` keeps them (and plays only the missing ones).
  ``--deals reserved`` plays the reserved deal set (:mod:`ohmygoods_agents.reserved`: the deals of
  the final figures of shipped agents, which no training run or snapshot choice may use),
  ``--opponents`` some of the ladder, ``--deals-per-opponent N`` another number of deals.
* ``ohmygoods evaluate --compare A.json B.json`` — where two reports differ significantly.
* ``ohmygoods evaluate --leaderboard [--agents ...] [--players N]`` — evaluates each agent,
  merges its report card into ``docs/leaderboard/<agent>.json`` (only the player counts
  played are replaced) and writes ``docs/leaderboard.md`` from every card there.

``--game`` picks the registered game and with it its shipped protocol, player counts and
default tier (default *Oh my Goods!*; ``--game artificium``: 2-6 players, the cards in
``docs/artificium/leaderboard/`` and the page ``docs/artificium/leaderboard.md``). Every game's
protocol has the tiers ``smoke``, ``standard`` and ``full`` (``--quick`` and ``--tier quick``:
*Oh my Goods!*'s older name of ``standard``, its protocol's ``tier_aliases``). What differs per
game comes from its spec and tools (:func:`~ohmygoods_env.framework.game.game_tools`: search
agents for ``mcts-N``, the leaderboard's agents and folder, the engine to warm); this module
names no game. Any agent name the game's registry resolves can be evaluated, one from an
entry point included.

Arguments are checked before any game is played; bad ones exit with status 2 and a message.
So are the files read: a protocol file (``Protocol.from_dict``), the report cards
(``check_report``), the games kept by ``--resume`` (``check_game_row``), each by one validator
naming the file and the field. No file may let an agent run code: only this command line
allows an ``exec:`` AGENT or ``--trust-pickle`` for that AGENT; a protocol's ladder never
(:func:`ohmygoods_env.framework.agents.check_file_agent`). An output is never an input:
``--out`` that is a file and ``--markdown`` that is a card, the protocol or a folder are refused.
An external agent that breaks the protocol (``exec:COMMAND``) stops the run with status 1
and a message; the games already finished stay in the games file for ``--resume``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..framework.game import DEFAULT_GAME, game_tools
from .common import int_at_least, parser, positive_float, workers_arg


def _comma_counts(text: str) -> list[int]:
    """``--players``: a comma list of player counts (which ones the game has is checked against its spec)."""
    parts = [x.strip() for x in text.split(",") if x.strip()]
    try:
        values = [int(x) for x in parts]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected a comma list of player counts such as 2,3, got {text!r}")
    return list(dict.fromkeys(values))


_comma_counts.__name__ = "comma list"


def _parser() -> argparse.ArgumentParser:
    ap = parser(
        "ohmygoods evaluate",
        "Report card of an agent against the fixed ladder on the fixed deals (docs/evaluation.md).",
    )
    ap.add_argument(
        "agent",
        nargs="?",
        help="agent spec: random, greedy, heuristic, mcts, ppo, ppo-3p, ppo:PATH, exec:COMMAND ...; another "
        "game: any agent name of its registry (artificium: random, greedy, heuristic, ismcts:N, ppo, exec:COMMAND ...)",
    )
    ap.add_argument(
        "--game",
        default=None,
        help="registered game with a shipped protocol, as in every command (ohmygoods, artificium, goofspiel; "
        "default: ohmygoods, the first declared, or the game of --protocol)",
    )
    tier = ap.add_mutually_exclusive_group()
    tier.add_argument(
        "--quick", action="store_true", help="Oh my Goods!'s older name of --tier standard (its protocol's alias)"
    )
    tier.add_argument(
        "--tier",
        default=None,
        help="tier of the protocol, every game: smoke (seconds), standard (minutes) or full (docs/evaluation.md); "
        "default: the protocol's own (ohmygoods full, artificium standard)",
    )
    ap.add_argument(
        "--players",
        type=_comma_counts,
        default=None,
        help="player counts (default: a policy checkpoint's own count, else every count of the game: 1,2,3,4; "
        "artificium 2,3,4,5,6)",
    )
    ap.add_argument(
        "--workers",
        type=workers_arg,
        default=min(2, os.cpu_count() or 1),
        help="processes playing games (at most 4 per CPU core; never more than the games to play)",
    )
    ap.add_argument("--out", default=None, help="output folder (default: evaluations/<agent>_<tier>)")
    ap.add_argument("--resume", action="store_true", help="keep the games already in OUT, play only the missing")
    ap.add_argument("--label", default=None, help="the agent's name in the report (default: the spec)")
    ap.add_argument("--mcts-sims", type=int_at_least(1), default=None, help="simulations of an mcts AGENT")
    ap.add_argument(
        "--exec-timeout", type=positive_float, default=10.0, help="seconds an exec:COMMAND agent has per decision"
    )
    ap.add_argument("--trust-pickle", action="store_true", help="allow an AGENT that loads a Stable-Baselines3 zip")
    ap.add_argument("--protocol", default=None, help="a protocol JSON file instead of the shipped one")
    ap.add_argument(
        "--deals",
        choices=("protocol", "reserved"),
        default="protocol",
        help="the protocol's deal set, or the reserved one kept for the final figures of shipped agents "
        "(no training run or snapshot choice may use it; docs/evaluation.md)",
    )
    ap.add_argument(
        "--opponents",
        default=None,
        help="play only these ladder agents, a comma list such as heuristic (default: the tier's whole ladder)",
    )
    ap.add_argument(
        "--deals-per-opponent",
        type=int_at_least(1),
        default=None,
        help="deals against every opponent instead of the tier's (each played from every seat); more than the "
        "protocol's deal set holds: only with --deals reserved",
    )
    ap.add_argument("--no-plot", action="store_true", help="write no report.png")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"), help="compare two reports and exit")
    ap.add_argument(
        "--leaderboard", action="store_true", help="evaluate --agents and regenerate the leaderboard (see --markdown)"
    )
    ap.add_argument(
        "--agents",
        default=None,
        help="--leaderboard: agents (mcts-N: a search agent with N sims; default: the game's leaderboard agents, "
        "else its protocol's ladder)",
    )
    ap.add_argument(
        "--reports",
        default=None,
        help="--leaderboard: folder of the report cards (default: the game's, docs/leaderboard for ohmygoods, "
        "docs/GAME/leaderboard for another)",
    )
    ap.add_argument(
        "--markdown",
        default=None,
        help="--leaderboard: the page written (default docs/leaderboard.md; another game: docs/GAME/leaderboard.md)",
    )
    ap.add_argument(
        "--games-dir",
        default="results/leaderboard",
        help="--leaderboard: games files, kept per env version and agent (a rerun plays only missing games)",
    )
    ap.add_argument(
        "--render-only", action="store_true", help="--leaderboard: play nothing, rewrite the page from the cards"
    )
    return ap


def agent_setup(spec: str, args: argparse.Namespace, trusted: bool = True) -> tuple[str, dict[str, Any], str]:
    """``(spec, make_agent keyword arguments, label)``; ``NAME-N`` is ``NAME`` with ``N`` simulations for a
    search agent of the game (its tools' ``search_agents``: *Oh my Goods!*'s ``mcts``; other agents are
    taken by their names as they are). ``trusted``: the
    spec was named on this command line, so ``exec:`` may run and ``--trust-pickle`` reaches it; an
    agent name from a file (a protocol's ladder) gets neither."""
    kwargs: dict[str, Any] = {}
    label = spec
    name, _, arg = spec.partition(":")
    if name == "exec" and trusted:  # named on this command line: the user allows the program to run (any game)
        kwargs = {"timeout": args.exec_timeout, "allow_exec": True}
    elif _search_sims(name, args) is not None:
        base, sims = _search_sims(name, args)
        kwargs = {"sims": sims, "seconds": None}
        spec = base + (f":{arg}" if arg else "")
    elif name in game_tools(getattr(args, "game", None) or DEFAULT_GAME).search_agents and args.mcts_sims is not None:
        kwargs = {"sims": args.mcts_sims, "seconds": None}
        label = f"{spec}-{args.mcts_sims}"
    if args.trust_pickle and trusted:
        from .tournament import loads_pickle

        if loads_pickle(spec):
            kwargs["trust_pickle"] = True
    return spec, kwargs, label


def _search_sims(name: str, args: argparse.Namespace) -> tuple[str, int] | None:
    """``(agent, sims)`` of ``NAME-N`` for a search agent ``NAME`` of the game, else None."""
    base, _, sims = name.rpartition("-")
    if base in game_tools(getattr(args, "game", None) or DEFAULT_GAME).search_agents and sims.isdigit():
        return base, int(sims)
    return None


def _check_agent(ap: argparse.ArgumentParser, spec: str, kwargs: dict[str, Any], game: str = DEFAULT_GAME) -> None:
    from ohmygoods_agents.checkpoint import UntrustedCheckpointError
    from ohmygoods_agents.tournament import build_agent

    try:
        build_agent(game, spec, seed=0, **kwargs)
    except UntrustedCheckpointError as exc:
        ap.error(f"{exc} (here: --trust-pickle)")
    except (ValueError, OSError, ImportError, TypeError) as exc:
        ap.error(f"agent {spec!r}: {exc}")


def _check_ladder(ap: argparse.ArgumentParser, protocol: Any, tier: str, counts: list[int], source: str) -> None:
    """Build each ladder agent the run plays once (the protocol's own settings), so that a bad one is a
    usage error naming the protocol before any game; never with a permission (the protocol is a file)."""
    from ohmygoods_agents.tournament import build_agent

    labels = {label for n in counts if n > 1 for label, _ in protocol.plan(tier, n)}
    for label in sorted(labels):
        entry = protocol.ladder[label]
        try:
            build_agent(protocol.game, entry["spec"], seed=0, **entry["kwargs"])
        except (ValueError, OSError, ImportError, TypeError) as exc:
            ap.error(f"--protocol {source}: ladder {label!r}: {exc}")


def _compare(ap: argparse.ArgumentParser, paths: list[str]) -> int:
    from ohmygoods_agents import evaluation as E

    try:
        a, b = (E.read_report(p) for p in paths)
        rows = E.compare_reports(a, b)
    except ValueError as exc:
        ap.error(f"--compare: {exc}")
    print(E.format_comparison(a, b, rows), end="")
    return 0


def _run_one(
    ap: argparse.ArgumentParser,
    args: argparse.Namespace,
    protocol: Any,
    tier: str,
    spec: str,
    kwargs: dict,
    label: str,
    out: Path,
) -> Any:
    from ohmygoods_agents import evaluation as E
    from ohmygoods_agents.external import ExternalAgentError
    from ohmygoods_agents.tournament import GamesFileError

    try:
        return E.evaluate(
            spec, tier, args.players, args.workers, protocol, kwargs, out, not args.no_progress, label=label
        )
    except GamesFileError as exc:  # raised before any game is played: nothing written
        ap.error(f"--resume: {exc}")
    except ExternalAgentError as exc:
        print(
            f"ohmygoods evaluate: {exc}\nthe games finished so far are kept in {out}; fix the agent and rerun with "
            "--resume to play only the missing games",
            file=sys.stderr,
        )
        return None


def _leaderboard(ap: argparse.ArgumentParser, args: argparse.Namespace, protocol: Any, tier: str) -> int:
    from ohmygoods_agents import evaluation as E

    from ohmygoods_env.framework.files import OutputError, check_output

    game = protocol.game
    place = E.leaderboard_dir(game)
    reports_dir = Path(args.reports or f"{place}/leaderboard")
    markdown = args.markdown or f"{place}/leaderboard.md"
    named = args.agents is not None  # named on this command line, else the game's or its protocol's: no permission
    agents = args.agents or game_tools(game).leaderboard_agents or ",".join(protocol.ladder)
    setups = [agent_setup(s.strip(), args, trusted=named) for s in agents.split(",") if s.strip()]
    if reports_dir.exists() and not reports_dir.is_dir():
        ap.error(f"--reports {str(reports_dir)!r} is a file; name the folder of the report cards")
    held_cards = sorted(reports_dir.glob("*.json")) if reports_dir.is_dir() else []
    inputs = [*held_cards, *(reports_dir / E.report_file_name(label) for _, _, label in setups)]
    try:  # the page is never one of the inputs (a card, the protocol) nor a folder (a missing folder is created)
        if Path(markdown).parent.is_dir():
            check_output(markdown, [*inputs, *([args.protocol] if args.protocol else [])])
    except OutputError as exc:
        ap.error(f"--markdown: {exc}")
    try:  # every card checked before any game is played
        held_reports = {p: E.read_report(p) for p in held_cards}
    except ValueError as exc:
        ap.error(f"--leaderboard: {exc}")
    if not args.render_only:
        counts = sorted({n for s, _, _ in setups for n in E.agent_player_counts(s, game) if n in (args.players or [n])})
        _check_ladder(ap, protocol, tier, counts, args.protocol or str(E.protocol_file(game)))
        for spec, kwargs, label in setups:
            _check_agent(ap, spec, kwargs, game)
            card = reports_dir / E.report_file_name(label)
            held = E.report_game(held_reports[card]) if card in held_reports else game
            if held != game:
                ap.error(f"--leaderboard: {card} is a card of {held!r}, not {game!r}; name another --reports")
        for spec, kwargs, label in setups:
            own = E.agent_player_counts(spec, game)
            counts = [n for n in (args.players or own) if n in own]
            if not counts:
                continue
            print(f"{label}: {tier} tier, players {counts}", file=sys.stderr)
            sub = argparse.Namespace(**{**vars(args), "players": counts})
            out = Path(args.games_dir) / E.env_version(game) / E.report_file_name(label).removesuffix(".json")
            report = _run_one(ap, sub, protocol, tier, spec, kwargs, label, out)
            if report is None:
                return 1
            card = reports_dir / E.report_file_name(label)
            held_reports[card] = E.merge_reports(held_reports.get(card), report)
            E.write_report(held_reports[card], card)
    cards = sorted(held_reports)
    if not cards:
        ap.error(f"--leaderboard: no report cards in {reports_dir}")
    try:
        reports = [held_reports[p] for p in cards]
        page = E.render_leaderboard(reports, protocol)
    except ValueError as exc:
        ap.error(f"--leaderboard: {exc}")
    E.write_text(markdown, page)
    print(f"wrote {markdown} from {len(reports)} report cards in {reports_dir}")
    return 0


def _deals_and_opponents(ap: argparse.ArgumentParser, args: argparse.Namespace, protocol: Any, tier: str) -> Any:
    """The protocol as ``--deals`` and ``--opponents`` ask: on the reserved deals
    (:func:`ohmygoods_agents.reserved.reserved_protocol`), and with only the named ladder agents in
    the tiers. The leaderboard keeps the protocol's deals and whole ladder (its cards are compared)."""
    import dataclasses

    if args.leaderboard and (args.deals != "protocol" or args.opponents or args.deals_per_opponent):
        ap.error(
            "--leaderboard plays the protocol's deals, tiers and whole ladder: drop --deals, --opponents and "
            "--deals-per-opponent"
        )
    count = args.deals_per_opponent
    if args.deals == "reserved":
        from ohmygoods_agents.reserved import reserved_protocol

        protocol = reserved_protocol(protocol, count or 0)
    elif count is not None:
        from ohmygoods_agents.evaluation import agent_player_counts

        played = args.players or (agent_player_counts(args.agent, protocol.game) if args.agent else protocol.deals)
        held = min(len(protocol.deals.get(n, [])) for n in played)
        if count > held:
            ap.error(f"--deals-per-opponent {count}: the protocol's deal set holds {held}; more: with --deals reserved")
    names = [x.strip() for x in (args.opponents or ",".join(protocol.ladder)).split(",") if x.strip()]
    bad = [x for x in names if x not in protocol.ladder]
    if not names or bad:
        ap.error(
            f"--opponents: {bad[0] if bad else args.opponents!r} is not a ladder agent of {protocol.game}: "
            f"expected some of {','.join(protocol.ladder)}"
        )
    if args.opponents is None and count is None:
        return protocol
    tiers = {
        t: {n: {o: count or d for o, d in plan.items() if n == 1 or o in names} for n, plan in by_n.items()}
        for t, by_n in protocol.tiers.items()
    }
    return dataclasses.replace(protocol, tiers={t: {n: p for n, p in by_n.items() if p} for t, by_n in tiers.items()})


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods evaluate``; returns the exit status."""
    from ohmygoods_agents import evaluation as E

    ap = _parser()
    args = ap.parse_args(argv)
    if args.compare:
        return _compare(ap, args.compare)
    try:
        protocol = E.load_protocol(args.protocol, game=args.game)
    except ValueError as exc:
        ap.error(f"--game {args.game}: {exc}" if args.protocol is None else f"--protocol: {exc}")
    args.game = protocol.game
    try:
        tier = protocol.tier_name("quick" if args.quick else (args.tier or protocol.default_tier))
    except ValueError as exc:
        ap.error(f"--tier: {exc}")
    bad = [n for n in args.players or () if n not in protocol.player_counts]
    if bad:
        ap.error(
            f"--players: {bad[0]} is not allowed for {protocol.game}: expected some of "
            f"{','.join(map(str, protocol.player_counts))} ({E.player_counts_text(protocol.game)})"
        )
    protocol = _deals_and_opponents(ap, args, protocol, tier)
    if args.leaderboard:
        return _leaderboard(ap, args, protocol, tier)
    if not args.agent:
        ap.error("name an AGENT to evaluate, or use --compare A.json B.json or --leaderboard")
    spec, kwargs, label = agent_setup(args.agent, args)
    if args.label:
        label = args.label
    _check_agent(ap, spec, kwargs, protocol.game)
    for n in args.players or ():
        if not protocol.plan(tier, n):
            ap.error(f"--players: tier {tier!r} has no games for {n} players")
    prefix = game_tools(protocol.game).out_prefix
    name = (f"{protocol.game}_" if prefix is None else prefix) + E.report_file_name(label).removesuffix(".json")
    out = Path(args.out or f"evaluations/{name}_{tier}" + ("_reserved" if args.deals == "reserved" else ""))
    if out.exists() and not out.is_dir():
        ap.error(f"--out {str(out)!r} is a file, not a folder; name a folder for the report (it is created if missing)")
    counts = list(args.players or E.agent_player_counts(spec, protocol.game))
    _check_ladder(ap, protocol, tier, counts, args.protocol or str(E.protocol_file(protocol.game)))
    held = sorted(out.glob("games_*p.jsonl")) if out.is_dir() else []
    if held and not args.resume:
        ap.error(f"{out} already holds games ({held[0].name}); nothing was deleted. Pass --resume or another --out")
    warm = game_tools(protocol.game).load("warm")
    if warm is not None:
        warm()
    report = _run_one(ap, args, protocol, tier, spec, kwargs, label, out)
    if report is None:
        return 1
    written = [E.write_report(report, out / "report.json"), E.write_text(out / "report.md", E.format_markdown(report))]
    if not args.no_plot:
        png = E.plot_report(report, out / "report.png")
        if png is None:
            print("matplotlib is not installed: no report.png", file=sys.stderr)
        else:
            written.append(png)
    print(E.format_markdown(report), end="")
    print("\nwrote " + ", ".join(str(p) for p in written))
    return 0
