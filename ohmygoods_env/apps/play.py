"""``ohmygoods play``: play Oh my Goods! in the terminal against agents.

``ohmygoods play --players 2 --opponents heuristic [--seat S] [--rules omg2] [--seed S]
[--keep-one] [--two-for-one]``

``--players 1`` is a solo game (R10.3: no opponents, a score attack over 12 rounds, R10.4);
``--keep-one`` (R10.1, omg2 only) and ``--two-for-one`` (R10.2) switch the variants on.

Without ``--seed`` every game is dealt from a fresh seed (an int in ``0 <= seed < 2**64``),
kept in the saved record.

You choose your seat (``--seat``, default 0). Before each of your decisions the screen is
redrawn compactly: first what changed since your last decision (the other players' moves,
as your seat may know them, every seat's revealed choices and production results marked
``>>``, :class:`~ohmygoods_env.chronicle.Chronicle`, and your score), then a short status
(round, phase, market, your buildings and hand), then the decision with its legal choices,
numbered, in the words of :func:`ohmygoods_env.actions.describe`, each explained in the
game's terms (:func:`~ohmygoods_env.explain.explain`).

Commands at the prompt: a number plays that choice; ``#ID`` plays an action id; ``t``
shows the whole table from your seat (:func:`~ohmygoods_env.render.render_text`) and every
fact printed on the cards you may see (:func:`card_lines`); ``hint``
asks an agent (``--hint``, default the heuristic) what it would play; ``undo`` takes back
your last decision and the others' moves after it (against agents only); ``h`` the help;
``q`` quits. Bad input gets a message and a new prompt; end of input leaves the game.

Opponents' moves are told as your seat sees them (:func:`~ohmygoods_env.picture.move_text`):
what the rules keep hidden until a reveal stays hidden — phase-I keep/discard choices
(R4.1), phase-II assistant moves, worker placements, set-aside cards and payments (R5.2),
and cards discarded face down for the new deck (R3.1); a run of one opponent's hidden
choices is one line, so their number stays hidden too (:func:`~ohmygoods_env.picture.log_move`).

The game ends with one plain line ("You won 27–24"). Each finished game is appended to
``--save`` (default ``games.jsonl``; nothing is overwritten) with its record, so
``ohmygoods replay games.jsonl --index K --seat S`` shows it again.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from .. import layout as L
from ..actions import describe
from ..cardfacts import seat_card_facts
from ..cards import RESOURCES
from ..chronicle import Chronicle
from ..engine import Game
from ..explain import explain
from ..framework.checks import offset_seed, seed_or_fresh
from ..framework.files import write_atomic
from ..game_spec import OHMYGOODS
from ..picture import log_move
from ..render import _plural, render_text
from ..rules import EDITIONS
from .common import add_variant_options, int_at_least, own_game_option, parser, positive_float, seed_arg, variants_of

HELP = (
    "type the number of a choice; t = the whole table, hint = ask an agent, undo = take back your last "
    "decision, h = this help, q = quit"
)


def _act(agent, game: Game) -> int:
    from ohmygoods_agents.base import info_state_of

    p = game.current_player
    return int(agent.act(game.observe(p), game.legal_mask(), info_state_of(game.state, p)))


def status_lines(game: Game, seat: int) -> list[str]:
    """A few lines: round and phase, the market, your buildings and goods, your hand."""
    s = game.state
    m = game.market()
    market = "; ".join(
        f"row {r + 1}: " + (", ".join(f"{int(k)} {RESOURCES[i]}" for i, k in enumerate(m[r]) if k > 0) or "empty")
        for r in range(2)
    )
    vp, left = game.scores()[seat]
    blds = ", ".join(
        f"{game.cards.name(b)}" + (f" ({k} goods)" if k else "")
        for b, k in zip(game.buildings(seat), game.goods(seat), strict=True)
    )
    hand = ", ".join(game.cards.name(c) for c in game.hand(seat)) or "empty"
    return [
        f"-- round {game.round + 1}, phase {L.PHASE_NAMES[game.phase]}; deck {int(s[L.F_DECK_N])} cards",
        f"   market {market}",
        f"   you: {vp} VP (+{_plural(left, 'coin')}), goods worth {_plural(game.coins(seat), 'coin')}; "
        f"buildings: {blds}",
        f"   your hand ({len(game.hand(seat))}): {hand}",
    ]


def card_lines(game: Game, seat: int) -> list[str]:
    """The printed facts (:func:`~ohmygoods_env.cardfacts.card_text`) of every card ``seat`` may
    see by name: its hand, its set-aside card, then each seat's buildings (each card once)."""
    facts = seat_card_facts(game, seat)
    lines = ["Cards (every fact a printed card shows):", "  your hand:"]
    lines += [f"    {f['text']}" for f in facts["hand"]] or ["    empty"]
    if facts["aside"] is not None:
        lines += ["  set aside to build:", f"    {facts['aside']['text']}"]
    shown: set[int] = set()
    for p, built in enumerate(facts["buildings"]):
        lines.append(f"  buildings of {'you' if p == seat else f'player {p}'}:")
        for f in built:
            lines.append(f"    {f['text']}" if f["card"] not in shown else f"    {f['name']} (card {f['card']})")
            shown.add(f["card"])
    return lines


class TerminalGame:
    """One game in the terminal: the human's seat, the agents in the others, undo and hints."""

    def __init__(
        self,
        opponents: list,
        rules: str = "omg2",
        seed: int | None = None,
        seat: int = 0,
        read: Callable[[str], str] = input,
        say: Callable[[str], None] = print,
        hint_agent=None,
        variants: dict[str, bool] | None = None,
    ) -> None:
        n = len(opponents) + 1
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is out of range: expected 0..{n - 1}")
        self.game = Game(n, rules, seed=seed, **(variants or {}))
        self.seat = seat
        self.agents = list(opponents[:seat]) + [None] + list(opponents[seat:])
        self.read, self.say, self.hint_agent = read, say, hint_agent
        self.changes: list[str] = []  # what happened since the human's last decision
        names = ["you" if a is None else a.name for a in self.agents]
        self.chronicle = Chronicle(self.game, seat, names)  # every seat's revealed choices and production
        # (game before each human decision, score then, the chronicle then)
        self.history: list[tuple[Game, int, Chronicle]] = []
        self.last_score = self.game.scores()[seat][0]
        self.undos = 0

    # ------------------------------------------------------------------ the human's turn
    def _redraw(self, legal: list[int]) -> None:
        g, say = self.game, self.say
        vp = g.scores()[self.seat][0]
        if vp != self.last_score:
            self.changes.append(f"your score: {self.last_score} -> {vp} VP")
            self.last_score = vp
        if self.changes:
            say("since your last decision:")
            for line in self.changes:
                say(f"  {line}")
        self.changes = []
        for line in status_lines(g, self.seat):
            say(line)
        self._choices(legal)

    def _choices(self, legal: list[int]) -> None:
        self.say(f"Your decision: {self.game.decision_name}")
        for i, a in enumerate(legal, 1):
            why = explain(self.game, a)
            self.say(f"  {i:>3}  {describe(a, self.game)}" + (f"  ({why})" if why else ""))

    def _hint(self, legal: list[int]) -> None:
        if self.hint_agent is None:
            self.say("no hint agent (start with --hint heuristic)")
            return
        a = _act(self.hint_agent, self.game.clone())
        k = legal.index(a) + 1 if a in legal else None
        self.say(f"hint ({self.hint_agent.name}): {k if k else '#' + str(a)} = {describe(a, self.game)}")

    def _undo(self) -> bool:
        if len(self.history) < 2:  # the last entry is the decision being asked
            self.say("nothing to undo: this is your first decision")
            return False
        self.history.pop()
        before, score, chronicle = self.history[-1]
        self.game.restore(before)
        self.chronicle = chronicle.clone()
        self.last_score = score
        self.changes = ["(undone: back to your previous decision)"]
        self.undos += 1
        return True

    def ask(self) -> int | None:
        """Prompt until the human names a legal action; None to quit."""
        legal = self.game.legal_actions()
        self._redraw(legal)
        while True:
            try:
                raw = self.read(f"your move [1-{len(legal)}, h for help]: ").strip().lower()
            except EOFError:
                self.say("\nend of input: the game is left unfinished")
                return None
            except KeyboardInterrupt:
                self.say("\ninterrupted: type q to quit, or a number to play")
                continue
            if raw in ("q", "quit", "exit"):
                return None
            if raw in ("h", "help", "?"):
                self.say(HELP)
            elif raw in ("t", "table"):
                self.say(render_text(self.game, viewer=self.seat))
                self.say("\n".join(card_lines(self.game, self.seat)))
                self._choices(legal)
            elif raw == "hint":
                self._hint(legal)
            elif raw == "undo":
                if self._undo():
                    legal = self.game.legal_actions()
                    self._redraw(legal)
            elif raw.startswith("#"):
                try:
                    a = int(raw[1:])
                except ValueError:
                    self.say(f"{raw!r} is not an action id; {HELP}")
                    continue
                if a in legal:
                    return a
                self.say(f"action id {a} is not legal now; choose a number from the list")
            else:
                try:
                    k = int(raw)
                except ValueError:
                    self.say(f"{raw!r} is not a number; {HELP}")
                    continue
                if not 1 <= k <= len(legal):
                    self.say(f"{k} is out of range: choose 1 to {len(legal)}")
                    continue
                return legal[k - 1]

    # ------------------------------------------------------------------ the game
    def run(self) -> Game | None:
        """Play to the end; the finished game, or None if the human quit."""
        g, say = self.game, self.say
        names = ", ".join(f"player {p}: {'you' if a is None else a.name}" for p, a in enumerate(self.agents))
        seats = "solo" if g.num_players == 1 else f"{g.num_players} players"
        say(f"Oh my Goods! ({g.rules.edition}), {seats} ({names}). {HELP}")
        while not g.done:
            p = g.current_player
            if p == self.seat:
                self.history.append((g.clone(), self.last_score, self.chronicle.clone()))
                a = self.ask()
                if a is None:
                    say("game abandoned")
                    return None
                say(f"you: {describe(a, g)}")
            else:
                a = _act(self.agents[p], g)
                log_move(self.changes, g, a, self.seat, self.agents[p].name)  # hidden runs: one line
            self.changes += [f">> {n.text}" for n in self.chronicle.step(g, a)]
        if self.changes:
            say("since your last decision:")
            for line in self.changes:
                say(f"  {line}")
        say(render_text(g, viewer=self.seat))
        say(final_line(g, self.seat))
        return g


def final_line(game: Game, seat: int) -> str:
    """One plain line: "You won 27–24", "You lost 21–30–25", "You shared the win 25–25" (R8.3)."""
    scores = [vp for vp, _ in game.scores()]
    order = [seat] + [p for p in range(game.num_players) if p != seat]
    text = "\u2013".join(str(scores[p]) for p in order)
    winners = game.winners()
    if winners == [seat]:
        verdict = "You won"
    elif seat in winners:
        verdict = "You shared the win"
    else:
        verdict = "You lost"
    top = max(scores)
    level = [p for p in range(game.num_players) if scores[p] == top]
    tie = " (ahead on leftover coins, R8.3)" if len(level) > len(winners) else ""
    return f"{verdict} {text}{tie}"


def play(
    opponents: list,
    rules: str = "omg2",
    seed: int | None = None,
    read: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
    seat: int = 0,
    hint_agent=None,
    variants: dict[str, bool] | None = None,
) -> Game | None:
    """Play one game with the human in ``seat``; returns the finished game, or None if they quit.

    ``opponents`` empty: a solo game (R10.3). ``variants``: ``keep_one`` (R10.1), ``two_for_one`` (R10.2).
    """
    return TerminalGame(opponents, rules, seed, seat, read, say, hint_agent, variants).run()


def save_game(path: Path, game: Game, seat: int, names: list[str]) -> int:
    """Append the finished ``game`` to ``path`` (a games.jsonl); returns its index there.

    The file is rewritten atomically (:func:`~ohmygoods_env.files.write_atomic`): the games
    already there are kept whatever happens.
    """
    index, kept = 0, ""
    if path.exists():
        kept = path.read_text(encoding="utf-8")
        index = sum(1 for line in kept.splitlines() if line.strip())
        kept = kept if kept.endswith("\n") or not kept else kept + "\n"
    scores = game.scores()
    row = {
        "index": index,
        "source": "ohmygoods play",
        "seats": names,
        "human_seat": seat,
        "scores": [s for s, _ in scores],
        "leftover": [left for _, left in scores],
        "winners": game.winners(),
        "rounds": game.round,
        "record": game.record().to_dict(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, kept + json.dumps(row) + "\n")
    return index


def _parser():
    ap = parser("ohmygoods play", "Play in the terminal against agents.")
    own_game_option(ap, "play", OHMYGOODS.name)
    ap.add_argument(
        "--players", type=int, default=2, choices=(1, 2, 3, 4), help="players, you included (1: solo, R10.3)"
    )
    ap.add_argument(
        "--opponents",
        default=None,
        help="one agent for every opponent, or a comma list (one per opponent seat): any registered agent "
        "(random, greedy, heuristic, mcts, ppo, ppo-3p, ppo-4p, ppo-solo, ...), mcts:ppo (search guided by a "
        "network), ppo:PATH; default heuristic; none in solo",
    )
    ap.add_argument("--seat", type=int_at_least(0), default=0, help="your seat (0 = the first active player)")
    ap.add_argument("--rules", default="omg2", choices=EDITIONS, help="rule set")
    ap.add_argument(
        "--seed", type=seed_arg, default=None, help="seed of the deal and of the agents (default: a fresh one, saved)"
    )
    add_variant_options(ap)
    ap.add_argument("--hint", default="heuristic", help="the agent that answers 'hint' ('none': no hints)")
    ap.add_argument("--mcts-sims", type=int_at_least(1), default=1000, help="MCTS simulations per decision")
    ap.add_argument("--mcts-seconds", type=positive_float, default=None, help="MCTS seconds per decision (a cap)")
    ap.add_argument("--save", default="games.jsonl", help="append finished games here ('' saves nothing)")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods play``; returns the exit status."""
    from ohmygoods_agents import make_agent

    ap = _parser()
    args = ap.parse_args(argv)
    if args.players == 1 and args.opponents is not None:
        ap.error("--opponents: a solo game (--players 1) has no opponents")
    variants = variants_of(ap, args)
    names = [n.strip() for n in (args.opponents or "heuristic").split(",") if n.strip()] if args.players > 1 else []
    if len(names) == 1:
        names = names * (args.players - 1)
    if len(names) != args.players - 1:
        ap.error(f"--opponents: give one agent or {args.players - 1}, got {len(names)}")
    if args.seat >= args.players:
        ap.error(f"--seat {args.seat} is out of range: expected 0..{args.players - 1}")
    if args.save and Path(args.save).is_dir():
        ap.error(f"--save {args.save!r} is a folder; name a games.jsonl file")
    mcts = {"sims": args.mcts_sims, "seconds": args.mcts_seconds}
    deal = seed_or_fresh(args.seed)  # the deal's seed; the saved record keeps it
    try:
        opponents = [
            make_agent(n, seed=offset_seed(deal, 1 + i), **(mcts if n.split(":")[0] == "mcts" else {}))
            for i, n in enumerate(names)
        ]
        hint = None if args.hint == "none" else make_agent(args.hint, seed=offset_seed(deal, 99))
    except (ValueError, OSError, ImportError) as exc:
        ap.error(str(exc))
    from .common import warm_engine

    warm_engine()
    try:
        game = play(opponents, args.rules, deal, seat=args.seat, hint_agent=hint, variants=variants)
    except KeyboardInterrupt:  # outside a prompt (an opponent thinking)
        print("\ninterrupted: game abandoned")
        return 0
    if game is not None and args.save:
        seats = names[: args.seat] + ["you"] + names[args.seat :]
        k = save_game(Path(args.save), game, args.seat, seats)
        print(
            f"game saved to {args.save} as game {k}; see it again with: "
            f"ohmygoods replay {args.save} --index {k} --seat {args.seat} -o game.html",
            file=sys.stderr,
        )
    return 0


__all__ = ["TerminalGame", "card_lines", "final_line", "main", "play", "save_game", "status_lines"]
