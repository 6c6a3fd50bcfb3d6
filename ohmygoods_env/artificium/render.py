"""Text view of an *Artificium* game: :func:`render_text`.

With a seat given, the view shows only what that seat may see (A9.2): its own hand and
face-down card, every public board, the market, the played and revealed cards, scores and
the other seats' hand sizes; never another hand, another face-down card or the deck order.
Without a seat it is the spectator's view: public facts only.
"""

from __future__ import annotations

from collections import Counter

from . import layout as L
from .cards import RESOURCES
from .engine import Game, _check_int


def _types_text(game: Game, cards: list[int]) -> str:
    if not cards:
        return "-"
    counts = Counter(game.tables.card_name(c) for c in cards)
    return ", ".join(f"{name} x{n}" if n > 1 else name for name, n in sorted(counts.items()))


def _resources_text(game: Game, p: int) -> str:
    res = game.resources(p)
    return ", ".join(f"{RESOURCES[r]} {n}" for r, n in enumerate(res) if n) or "no resources"


def _seat_lines(game: Game, p: int, viewer: int | None) -> list[str]:
    tag = " (you)" if p == viewer else ""
    first = " [first]" if p == game.first_player else ""
    lines = [
        f"Seat {p}{tag}{first}: score {game.vp(p)}, {game.coins(p)} coins, {_resources_text(game, p)}",
        f"  hand ({len(game.hand(p))} cards): {_types_text(game, game.hand(p)) if p == viewer else 'hidden'}",
    ]
    s = game.state
    if game.decision == L.D_MARKET:
        lines.append(f"  market: {'passed' if s[L.F_PASSED + p] else 'in'}, {int(s[L.F_SWAPS + p])} swap(s) this round")
    chosen = game.cards_at(L.L_CHOSEN + p)
    if chosen:
        lines.append(f"  face down: {_types_text(game, chosen) if p == viewer else 'a card (chosen)'}")
    elif game.decision == L.D_CHOOSE and p in game.pending_players():
        lines.append("  face down: not chosen yet")
    revealed = game.cards_at(L.L_REVEALED + p)
    if revealed:
        lines.append(f"  revealed: {_types_text(game, revealed)}")
    lines.append(f"  played this round: {_types_text(game, game.cards_at(L.L_PLAYED + p))}")
    if game.state[L.F_OUT + p]:
        lines.append("  out of the card play this round")
    return lines


def render_text(game: Game, player: int | None = None) -> str:
    """The game as text from ``player``'s seat (``None``: a spectator who sees public facts only)."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be an artificium Game, got {type(game).__name__}")
    viewer = None if player is None else _check_int(player, "player", 0, game.num_players - 1)
    head = "game over" if game.done else f"round {game.round} of 4, {game.decision_name}"
    lines = [
        f"Artificium, {game.num_players} players: {head}; first player: seat {game.first_player}",
        f"deck {int(game.state[L.F_DECK_N])} cards, discard {len(game.cards_at(L.L_DISCARD))}, bank {game.bank()}",
        f"market: {_types_text(game, game.cards_at(L.L_MARKET))}",
    ]
    for p in range(game.num_players):
        lines.extend(_seat_lines(game, p, viewer))
    if game.done:
        lines.append("final scores: " + ", ".join(f"seat {p} {s}" for p, s in enumerate(game.scores())))
        lines.append("winners: " + ", ".join(str(p) for p in game.winners()))
    else:
        lines.append("waiting for: " + ", ".join(f"seat {p}" for p in game.pending_players()))
    return "\n".join(lines)
