"""``ohmygoods demo``: one game between built-in bots, told round by round, with final scores.

This module owns the demo narration only. The bots are agents of the ``agents`` registry
(``--bots``, default the heuristic agent; ``random`` is a seeded random-legal policy); the
rules are the engine's. Each round is told as: the market (both
rows), what every player did in phase I, II and IV (consecutive actions of one player
grouped on one line, repeated actions counted, filler such as "production done" left
out), and a one-line standing. The game ends with the scores by R8.3.

The demo game is played with ``auto_forced=False``: forced moves (a single legal action,
such as production the market alone covers, R7.6, or paying with the only goods left) are
taken by the bots like any other, so they appear in the account too.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable, Sequence

import numpy as np

from .. import layout as L
from ..actions import describe
from ..cards import B_COST, RESOURCES
from ..engine import Game
from ..framework.checks import offset_seed
from ..game_spec import OHMYGOODS
from ..render import final_scores_text
from ..rules import EDITIONS
from .common import add_variant_options, own_game_option, parser, seed_arg, variants_of, warm_engine

Bot = Callable[[Game], int]

_WIDTH = 118

#: Actions that only close a step of a turn; left out of the account for readability.
_FILLER = frozenset({L.A_MOVES_DONE, L.A_ASIDE_NONE, L.A_PRODUCTION_DONE, L.A_CHAIN_STOP, L.A_NO_HIRE})
_PHASE_OF_DECISION = {
    L.D_PHASE1: "I",
    L.D_MOVE: "II",
    L.D_WORKER: "II",
    L.D_ASIDE: "II",
    L.D_REFILL: "deck",
}


def random_bot(seed: int) -> Bot:
    """A policy that plays a uniformly random legal action, from its own seeded RNG."""
    rng = np.random.default_rng(seed)

    def act(game: Game) -> int:
        return int(rng.choice(np.flatnonzero(game.legal_mask())))

    return act


def agent_bot(name: str, seed: int) -> Bot:
    """An agent of the ``agents`` registry (``heuristic``, ``mcts``, ``ppo:PATH``...) as a bot.

    The agent gets what a seated player gets: its observation, the legal mask and its
    redacted information state (``ohmygoods_agents.base.Agent`` protocol).
    """
    from ohmygoods_agents import make_agent
    from ohmygoods_agents.base import info_state_of

    agent = make_agent(name, seed=seed)

    def act(game: Game) -> int:
        p = game.current_player
        return int(agent.act(game.observe(p), game.legal_mask(), info_state_of(game.state, p)))

    return act


def make_bots(game: Game, seed: int, agents: Sequence[str] = ("heuristic",)) -> tuple[list[Bot], str]:
    """One bot per seat of ``game`` (``agents``: one name for all seats, or one per seat) and their names."""
    names = list(agents) * game.num_players if len(agents) == 1 else list(agents)
    if len(names) != game.num_players:
        raise ValueError(f"give one agent or {game.num_players} agents, got {len(names)}: {names}")
    seeds = [offset_seed(seed, 1000 * (p + 1)) for p in range(len(names))]
    bots = [random_bot(s) if n == "random" else agent_bot(n, s) for s, n in zip(seeds, names, strict=True)]
    return bots, ", ".join(dict.fromkeys(names))


def _market_text(market: np.ndarray, suns: Sequence[int]) -> str:
    rows = []
    for row in range(2):
        cards = ", ".join(f"{int(k)} {RESOURCES[r]}" for r, k in enumerate(market[row]) if k > 0) or "empty"
        rows.append(f"row {row + 1}: {cards} ({int(suns[row])} half-suns)")
    return "; ".join(rows)


def _action_text(action: int, game: Game) -> str:
    """``describe`` plus the name of the building being built or declined."""
    p = game.current_player
    aside = int(game.state[L.F_ASIDE + p])
    if action in (L.A_BUILD, L.A_NO_BUILD) and aside >= 0:
        name = game.cards.name(aside)
        if action == L.A_BUILD:
            return f"build {name} (cost {int(game.cards.buildings[aside, B_COST])})"
        return f"do not build {name}"
    return describe(action, game)


def _collapse(texts: list[str]) -> str:
    """Join one player's actions: repeats counted ("(x3)"), same-verb runs merged ("verb: a, b")."""
    counted: list[str] = []
    i = 0
    while i < len(texts):
        j = i
        while j < len(texts) and texts[j] == texts[i]:
            j += 1
        counted.append(texts[i] + (f" (x{j - i})" if j - i > 1 else ""))
        i = j
    merged: list[str] = []
    last_verb = None
    for text in counted:
        verb, sep, rest = text.partition(": ")
        if sep and verb == last_verb:
            merged[-1] += f", {rest}"
        else:
            merged.append(text)
            last_verb = verb if sep else None
    return "; ".join(merged)


class _RoundLog:
    """What happened in one round: market and actions grouped by phase and player."""

    def __init__(self, number: int, first: int) -> None:
        self.number, self.first = number, first
        self.market: np.ndarray | None = None
        self.suns: tuple[int, int] = (0, 0)
        self.groups: list[tuple[str, int, list[str]]] = []

    def add(self, phase: str, player: int, text: str | None) -> None:
        if self.groups and self.groups[-1][0] == phase and self.groups[-1][1] == player:
            if text is not None:
                self.groups[-1][2].append(text)
            return
        self.groups.append((phase, player, [] if text is None else [text]))

    def lines(self) -> list[str]:
        out = [f"Round {self.number} (active player {self.first})"]
        if self.market is not None:
            out += _wrap(f"  market   {_market_text(self.market, self.suns)}", 11)
        last_phase = None
        for phase, player, texts in self.groups:
            if not texts:
                continue
            label = f"{phase:<5}" if phase != last_phase else " " * 5
            last_phase = phase
            out += _wrap(f"  {label}   player {player}: {_collapse(texts)}", 20)
        return out


def _wrap(line: str, indent: int) -> list[str]:
    return textwrap.wrap(line, width=_WIDTH, subsequent_indent=" " * indent, break_on_hyphens=False)


def _standing(game: Game) -> list[str]:
    parts = []
    for p, (vp, _) in enumerate(game.scores()):
        n = len(game.buildings(p))
        parts.append(f"player {p}: {vp} VP, {n} building{'' if n == 1 else 's'}, goods worth {game.coins(p)}")
    return _wrap("  standing " + " | ".join(parts), 11)


def play(game: Game, bots: Sequence[Bot], quiet: bool = False, out: Callable[[str], None] = print) -> Game:
    """Play ``game`` to the end with ``bots`` (one per seat), telling it round by round unless ``quiet``."""
    log = _RoundLog(game.round + 1, int(game.state[L.F_FIRST]))
    while not game.done:
        if game.round + 1 != log.number:
            if not quiet:
                out("\n".join(log.lines() + _standing(game)))
            log = _RoundLog(game.round + 1, int(game.state[L.F_FIRST]))
        if game.phase == L.PH_P4:
            log.market = game.market()
            log.suns = (int(game.state[L.F_SUNS]), int(game.state[L.F_SUNS + 1]))
        p = game.current_player
        action = bots[p](game)
        phase = _PHASE_OF_DECISION.get(game.decision, "II" if game.phase == L.PH_P2 else "IV")
        text = None if action in _FILLER else _action_text(action, game)
        game.step(action)
        log.add(phase, p, text)
    if not quiet:
        out("\n".join(log.lines() + _standing(game)))
    return game


def _final_lines(game: Game) -> list[str]:
    lines = ["", f"Game over after {game.round} rounds.", "Buildings:"]
    for p in range(game.num_players):
        names = ", ".join(game.cards.name(b) for b in game.buildings(p))
        lines += _wrap(f"  player {p}: {names}", 12)
    return lines


def _parser() -> argparse.ArgumentParser:
    ap = parser("ohmygoods demo", "Play one game between bots and tell it round by round.")
    own_game_option(ap, "demo", OHMYGOODS.name)
    ap.add_argument("--players", type=int, choices=(1, 2, 3, 4), default=2, help="number of players (1: solo, R10.3)")
    ap.add_argument("--rules", choices=EDITIONS, default="omg2", help="rule set")
    add_variant_options(ap)
    ap.add_argument("--seed", type=seed_arg, default=0, help="seed of the deal and of the bots")
    ap.add_argument(
        "--bots", default="heuristic", help="the bots: one agent for every seat or a comma list, one per seat"
    )
    ap.add_argument("--quiet", action="store_true", help="print only the final scores")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``ohmygoods demo``; returns the exit status."""
    ap = _parser()
    args = ap.parse_args(None if argv is None else list(argv))
    variants = variants_of(ap, args)
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    if len(names) not in (1, args.players):
        ap.error(f"--bots: give one agent or {args.players}, got {len(names)}: {names}")
    from ohmygoods_agents import make_agent

    try:
        for n in set(names) - {"random"}:  # unknown names and unreadable checkpoints before any work
            make_agent(n, seed=0)
    except (ValueError, OSError, ImportError) as exc:
        ap.error(f"--bots: {exc}")
    warm_engine()
    game = Game(args.players, args.rules, seed=args.seed, auto_forced=False, **variants)
    bots, policy = make_bots(game, args.seed, names)
    switched = [name for name, on in variants.items() if on]
    print(
        f"Oh my Goods! demo: {'solo' if args.players == 1 else f'{args.players} players'}, rules {args.rules}"
        f"{', variants ' + ', '.join(switched) if switched else ''}, seed {args.seed}, bots: {policy}"
    )
    play(game, bots, quiet=args.quiet)
    if not args.quiet:
        print("\n".join(_final_lines(game)))
    print(final_scores_text(game))
    return 0
