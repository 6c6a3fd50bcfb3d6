"""``ohmygoods demo --game NAME`` for a game on the framework: its agents play one game, told move by move.

Game-agnostic: everything comes from the game's :class:`~ohmygoods_env.framework.game.GameSpec`
(``make`` deals, ``describe`` names each action, ``render_text`` draws the position for a
spectator) and its agents from the one registry
(:func:`ohmygoods_env.framework.agents.make_agent`). A game's tools name this module as its
``demo`` (``GameTools.commands``: ``{"demo": "ohmygoods_env.apps.game_demo:main"}``, the one line a
game needs for a demo). The agents default to the game's ``heuristic``, else ``random``. The
account: the position at the start and at each new round (when the model has a ``round``), one
line per decision (``seat 2: ...``; the choices of a simultaneous step are told after all of
them were made), and the final position with the scores and winners.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..framework.checks import offset_seed
from ..framework.game import GameSpec, game_spec
from .common import parser, seed_arg

__all__ = ["main", "play_demo"]


def _parser(spec: GameSpec) -> argparse.ArgumentParser:
    ap = parser(f"ohmygoods demo --game {spec.name}", f"Play one game of {spec.title} between agents and tell it.")
    ap.add_argument(
        "--players",
        type=int,
        choices=range(spec.min_players, spec.max_players + 1),
        default=max(2, spec.min_players),
        metavar=f"{{{spec.min_players}..{spec.max_players}}}",
        help="number of players",
    )
    ap.add_argument("--seed", type=seed_arg, default=0, help="seed of the deal and of the agents")
    from ..framework.agents import agent_names

    default = "heuristic" if "heuristic" in agent_names(spec) else "random"
    ap.add_argument("--bots", default=default, help="the agents: one for every seat or a comma list, one per seat")
    ap.add_argument("--quiet", action="store_true", help="print only the final position")
    return ap


def play_demo(spec: GameSpec, players: int, seed: int, names: Sequence[str], out=None, quiet: bool = False) -> object:
    """Play one game of ``spec`` between the agents ``names`` (one per seat) and tell it on ``out``;
    returns the finished model."""
    from ..framework.agents import choose, make_agent

    out = out or sys.stdout
    agents = [make_agent(spec, n, seed=offset_seed(seed, 1000 * (p + 1))) for p, n in enumerate(names)]
    model = spec.make(players, seed=seed)
    last_round = None
    while not model.done:
        now = getattr(model, "round", None)
        if not quiet and now != last_round:
            print(f"\n{spec.render_text(model, None)}\n", file=out)
            last_round = now
        pending = model.pending_players()
        chosen = {p: int(choose(agents[p], model, p)) for p in pending}
        told = [f"  seat {p} ({names[p]}): {spec.describe(a, model)}" for p, a in chosen.items()]
        if len(pending) == 1 and pending[0] == model.current_player:
            model.step(chosen[pending[0]])
        else:
            model.step_joint(chosen)
        if not quiet:
            print("\n".join(told), file=out)
    print(f"\n{spec.render_text(model, None)}", file=out)
    return model


def main(argv: Sequence[str] | None = None, game: str | None = None) -> int:
    """Entry point of ``ohmygoods demo --game NAME`` for a game whose tools name this module
    (:func:`~ohmygoods_env.apps.common.game_command` passes ``game``)."""
    if game is None:
        raise ValueError("game_demo.main needs the game (ohmygoods demo --game NAME calls it with one)")
    spec = game_spec(game)
    ap = _parser(spec)
    args = ap.parse_args(None if argv is None else list(argv))
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    if len(names) not in (1, args.players):
        ap.error(f"--bots: give one agent or {args.players}, got {len(names)}: {names}")
    names = names * args.players if len(names) == 1 else names
    from ..framework.agents import make_agent

    try:
        for n in set(names):  # unknown names before any work (exec: is refused: it needs allow_exec)
            make_agent(spec, n, seed=0)
    except (ValueError, OSError, ImportError, TypeError) as exc:
        ap.error(f"--bots: {exc}")
    print(f"{spec.title} demo: {args.players} players, seed {args.seed}, agents: {', '.join(names)}")
    play_demo(spec, args.players, args.seed, names, quiet=args.quiet)
    return 0
