"""Play Oh my Goods! in the terminal against the baseline agents.

``ohmygoods play --players 2 --opponents heuristic [--rules omg2] [--seed S]``

You play seat 0. Before each of your decisions the table is shown from your seat
(:func:`ohmygoods_env.render.render_text` with ``viewer=0``: your hand, opponents' hand sizes
only), followed by the legal actions, numbered, with their meanings
(:func:`ohmygoods_env.actions.describe`). Type a number to play it; ``t`` shows the table
again, ``h`` the help, ``q`` quits. Bad input (not a number, out of range, an action id that
is not legal) is answered with a message and a new prompt; end of input ends the game.

Opponents' moves are printed as they happen, except what the rules keep hidden until a
later reveal: phase-I keep/discard choices (R4.1), phase-II assistant moves, worker placements
and set-aside cards (R5.2), and cards discarded face down for the empty-deck rule (R3.1).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from agents import make_agent
from agents.base import Agent, info_state_of
from ohmygoods_env import Game
from ohmygoods_env import layout as L
from ohmygoods_env.actions import describe
from ohmygoods_env.rules import EDITIONS

HUMAN = 0
HELP = "type the number of an action; t = show the table again, h = this help, q = quit"


def render_table(game: Game, viewer: int = HUMAN) -> str:
    """The table from ``viewer``'s seat (the project's renderer, or a minimal fallback)."""
    try:
        from ohmygoods_env.render import render_text
    except ImportError:
        return _fallback_render(game, viewer)
    return render_text(game, viewer=viewer)


def _fallback_render(game: Game, viewer: int) -> str:
    s = game.state
    lines = [f"round {game.round + 1}, {L.PHASE_NAMES[game.phase]}; decision: {game.decision_name}"]
    m = game.market()
    lines.append(f"market row 1 {m[0].tolist()}  row 2 {m[1].tolist()}  (grain wood clay wool stone)")
    for p in range(game.num_players):
        blds = ", ".join(f"{game.cards.name(b)}({k})" for b, k in zip(game.buildings(p), game.goods(p), strict=True))
        n_hand = int((s[L.F_LOC : L.F_LOC + L.N_CARDS] == L.L_HAND + p).sum())
        lines.append(f"player {p}: {game.coins(p)} coins, hand {n_hand}: {blds}")
    lines.append("your hand: " + ", ".join(f"{game.cards.name(c)} (card {c})" for c in game.hand(viewer)))
    return "\n".join(lines)


def _hidden_move(game: Game) -> str | None:
    """How an opponent's pending decision is announced when the rules hide it, else None."""
    dec = game.decision
    if dec == L.D_PHASE1:
        return "has chosen to keep or discard their hand (revealed when everyone has chosen)"
    if game.phase == L.PH_P2 and dec in (L.D_MOVE, L.D_WORKER, L.D_ASIDE, L.D_PAY):
        return "made a phase-II choice (revealed at sunset)"
    if dec == L.D_REFILL:
        return "discarded a card face down for the new deck"
    return None


def _ask(game: Game, legal: list[int], read: Callable[[str], str], say: Callable[[str], None]) -> int | None:
    """Prompt until the player names a legal action; None to quit."""
    say(render_table(game))
    say("")
    say(f"Your decision: {game.decision_name}")
    for i, a in enumerate(legal, 1):
        say(f"  {i:>3}  {describe(a, game)}")
    while True:
        try:
            raw = read(f"your move [1-{len(legal)}, h for help]: ").strip().lower()
        except EOFError:
            say("\nend of input: the game is left unfinished")
            return None
        except KeyboardInterrupt:
            say("\ninterrupted: type q to quit, or a number to play")
            continue
        if raw in ("q", "quit", "exit"):
            return None
        if raw in ("h", "help", "?"):
            say(HELP)
            continue
        if raw in ("t", "table"):
            say(render_table(game))
            for i, a in enumerate(legal, 1):
                say(f"  {i:>3}  {describe(a, game)}")
            continue
        if raw.startswith("#"):  # a raw action id
            try:
                a = int(raw[1:])
            except ValueError:
                say(f"{raw!r} is not an action id; {HELP}")
                continue
            if a in legal:
                return a
            say(f"action id {a} is not legal now; choose a number from the list")
            continue
        try:
            k = int(raw)
        except ValueError:
            say(f"{raw!r} is not a number; {HELP}")
            continue
        if not 1 <= k <= len(legal):
            say(f"{k} is out of range: choose 1 to {len(legal)}")
            continue
        return legal[k - 1]


def play(
    opponents: list[Agent],
    rules: str = "omg2",
    seed: int = 0,
    read: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> Game | None:
    """Play one game with the human in seat 0; returns the finished game, or None if they quit."""
    game = Game(len(opponents) + 1, rules, seed=seed)
    seats: list[Agent | None] = [None, *opponents]
    say(f"Oh my Goods! ({rules}), {game.num_players} players; you are player {HUMAN}. {HELP}")
    while not game.done:
        p = game.current_player
        legal = game.legal_actions()
        if p == HUMAN:
            a = _ask(game, legal, read, say)
            if a is None:
                say("game abandoned")
                return None
            say(f"you: {describe(a, game)}")
        else:
            agent = seats[p]
            assert agent is not None
            a = int(agent.act(game.observe(p), game.legal_mask(), info_state_of(game.state, p)))
            hidden = _hidden_move(game)
            say(f"player {p} ({agent.name}): " + (hidden if hidden else describe(a, game)))
        game.step(a)
    table = render_table(game)
    say(table)
    scores = game.scores()
    if "Final scores" not in table:
        parts = [f"player {p}: {s} VP (+{c} coins)" for p, (s, c) in enumerate(scores)]
        say("\nFinal scores (R8.3): " + ", ".join(parts))
    winners = game.winners()
    say("You win!" if winners == [HUMAN] else ("Shared win." if HUMAN in winners else f"Winner(s): {winners}"))
    return game


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ohmygoods play", description="play in the terminal against bots (seat 0)")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument(
        "--opponents", default="heuristic", help="one agent for every opponent, or a comma list (one per seat)"
    )
    ap.add_argument("--rules", default="omg2", choices=EDITIONS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mcts-sims", type=int, default=1000, help="MCTS simulations per decision")
    ap.add_argument("--mcts-seconds", type=float, default=None, help="MCTS seconds per decision (optional cap)")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.opponents.split(",") if n.strip()]
    if len(names) == 1:
        names = names * (args.players - 1)
    if len(names) != args.players - 1:
        ap.error(f"--opponents: give one agent or {args.players - 1}, got {len(names)}")
    mcts = {"sims": args.mcts_sims, "seconds": args.mcts_seconds}
    try:
        opponents = [
            make_agent(n, seed=args.seed + 1 + i, **(mcts if n == "mcts" else {})) for i, n in enumerate(names)
        ]
    except (ValueError, OSError, ImportError) as exc:
        print(f"ohmygoods play: {exc}", file=sys.stderr)
        return 2
    try:
        play(opponents, args.rules, args.seed)
    except KeyboardInterrupt:  # outside a prompt (an opponent thinking)
        print("\ninterrupted: game abandoned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
