"""Picture view of an *Artificium* position: the table as an SVG drawing (:func:`render_svg`).

It draws what :func:`~ohmygoods_env.artificium.render.render_text` writes and obeys the same
information rule (A9.2): ``viewer`` a seat shows that seat's hand and face-down card as card
faces and every other hand as backs (counted), another seat's face-down card as a back
("chosen") until the reveal (A4.2); ``viewer=None`` is the spectator's public view (every hand
and every face-down card hidden). The deck order, the deck's contents and the discard pile's
contents are never drawn, only their sizes.

Every card face shows the facts of its type from the card table
(:func:`card_facts`, ``data/cards.csv`` through :class:`~.cards.ArtTables`): name, kind, VP,
what it needs (resources and coins) and what it makes (resources, or its effect). Every card is
a group with ``data-type`` and a ``<title>`` holding the whole card (:func:`card_text`).

The drawing is a plain SVG 1.1 string (no script, no external resource), deterministic, and
its size depends only on the number of players. It holds no rules and never changes the state.
"""

from __future__ import annotations

from html import escape

from . import layout as L
from .cards import (
    B_BUY,
    B_SELL,
    B_TIER,
    EF_PRODUCE,
    EFFECTS,
    KINDS,
    RESOURCES,
    T_COIN,
    T_EFFECT,
    T_IN0,
    T_IN1,
    T_KIND,
    T_OUT,
    T_OUT_N,
    T_VP,
    ArtTables,
)
from .engine import Game, _check_int

__all__ = ["card_facts", "card_text", "render_svg", "svg_size", "table_facts"]

#: What an effect does, in words (the rules A6.1-A6.4, A7.3, A7.4); the numbers stay in the card table.
EFFECT_WORDS: dict[str, str] = {
    "scouting": "take a random card from another hand",
    "theft": "take a tier I/II resource from another board",
    "reconstruction": "take back a card you applied this round",
    "fair": "2 coins per card you applied this round",
    "mage": "draw 5, then discard 3",
    "knight": "move a marker 4 cells back",
}
RES_COLOURS = ("#8d6e63", "#f9a825", "#424242", "#ef6c00", "#c0ca33", "#4fc3f7", "#78909c", "#ab47bc", "#b71c1c")
KIND_COLOURS = {"action": "#e3f2fd", "building": "#fff8e1"}

CARD_W, CARD_H, GAP = 108, 132, 8
WIDTH = 1240
HEAD_H, MARKET_H, SEAT_H = 70, CARD_H + 36, CARD_H + 40


def card_facts(tables: ArtTables, card_type: int) -> dict:
    """The printed facts of card type ``card_type`` (0..15), read from the card table (A1.2, A1.3, A7.2).

    ``{"type", "name", "kind", "vp", "needs": [resource names], "coins", "makes": [resource, n] or
    None, "effect", "does", "text"}``; ``does`` is the effect in words for an action, Mage or Knight.
    """
    t = _check_int(card_type, "card_type", 0, len(tables.names) - 1)
    row = tables.types[t]
    needs = [RESOURCES[int(r)] for r in (row[T_IN0], row[T_IN1]) if r >= 0]
    effect = EFFECTS[int(row[T_EFFECT])]
    makes = [RESOURCES[int(row[T_OUT])], int(row[T_OUT_N])] if int(row[T_EFFECT]) == EF_PRODUCE else None
    facts = {
        "type": t,
        "name": tables.type_name(t),
        "kind": KINDS[int(row[T_KIND])],
        "vp": int(row[T_VP]),
        "needs": needs,
        "coins": int(row[T_COIN]),
        "makes": makes,
        "effect": effect,
        "does": None if makes else EFFECT_WORDS.get(effect, effect),
    }
    facts["text"] = card_text(facts)
    return facts


def card_text(facts: dict) -> str:
    """One line for a card: ``Armoury (building, 5 VP): needs coal + metal -> makes sword x1``."""
    needs = list(facts["needs"]) + ([f"{facts['coins']} coin"] if facts["coins"] else [])
    made = f"makes {facts['makes'][0]} x{facts['makes'][1]}" if facts["makes"] else facts["does"]
    head = f"{facts['name']} ({facts['kind']}, {facts['vp']} VP)"
    return f"{head}: needs {' + '.join(needs)} -> {made}" if needs else f"{head}: {made}"


def table_facts(tables: ArtTables) -> list[dict]:
    """:func:`card_facts` of every card type, in type order."""
    return [card_facts(tables, t) for t in range(len(tables.names))]


def svg_size(num_players: int) -> tuple[int, int]:
    """``(width, height)`` of the drawing for ``num_players`` seats."""
    return WIDTH, HEAD_H + MARKET_H + SEAT_H * int(num_players) + 10


def _text(x: float, y: float, s: str, size: int = 12, weight: str = "normal", anchor: str = "start",
          fill: str = "#1a1a1a") -> str:  # fmt: skip
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" font-weight="{weight}" text-anchor="{anchor}" '
        f'fill="{fill}">{escape(s)}</text>'
    )


def _wrap(s: str, width: int) -> list[str]:
    words, lines, line = s.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return [*lines, line] if line else lines


def _card(out: list[str], x: float, y: float, facts: dict, tag: str = "") -> None:
    """One card face: name, kind and VP, what it needs, what it makes or does (no physical card id:
    copies of a type are interchangeable, A9.9, and which copy a seat holds would tell of others)."""
    out.append(f'<g class="card" data-type="{facts["type"]}"><title>{escape(facts["text"])}</title>')
    fill = KIND_COLOURS.get(facts["kind"], "#ffffff")
    out.append(f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="{fill}" stroke="#555"/>')
    lines = _wrap(facts["name"], 15)
    for i, line in enumerate(lines[:2]):
        out.append(_text(x + 6, y + 16 + 14 * i, line, 11, "bold"))
    yy = y + 18 + 14 * min(2, len(lines))
    out.append(_text(x + 6, yy, f"{facts['kind']} \u00b7 {facts['vp']} VP", 11, fill="#444"))
    yy += 16
    needs = list(facts["needs"]) + ([f"{facts['coins']} coin"] if facts["coins"] else [])
    if needs:
        out.append(_text(x + 6, yy, "needs:", 10, fill="#555"))
        for i, n in enumerate(needs):
            colour = RES_COLOURS[RESOURCES.index(n)] if n in RESOURCES else "#f9a825"
            out.append(f'<circle cx="{x + 10}" cy="{yy + 9 + 13 * i}" r="4" fill="{colour}"/>')
            out.append(_text(x + 18, yy + 13 + 13 * i, n, 11))
        yy += 13 * len(needs) + 14
    if facts["makes"]:
        res, n = facts["makes"]
        out.append(f'<circle cx="{x + 10}" cy="{yy - 4}" r="5" fill="{RES_COLOURS[RESOURCES.index(res)]}"/>')
        out.append(_text(x + 18, yy, f"\u2192 {res} x{n}", 11, "bold"))
    else:
        for i, line in enumerate(_wrap(facts["does"], 17)[:4]):
            out.append(_text(x + 6, yy + 13 * i, line, 10, fill="#0d47a1"))
    if tag:
        out.append(_text(x + CARD_W - 5, y + CARD_H - 6, tag, 10, "bold", "end", "#b71c1c"))
    out.append("</g>")


def _back(out: list[str], x: float, y: float, label: str) -> None:
    out.append(f'<g class="back"><rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="#5d4037" '
               f'stroke="#3e2723"/>')  # fmt: skip
    out.append(_text(x + CARD_W / 2, y + CARD_H / 2 + 4, label, 12, "bold", "middle", "#fff8e1"))
    out.append("</g>")


def _row(out: list[str], game: Game, x: float, y: float, cards: list[int], width: float, tag: str = "") -> float:
    """Card faces of ``cards`` from ``x``, overlapping when they would pass ``width``; returns the end x."""
    if not cards:
        return x
    step = min(CARD_W + GAP, (width - CARD_W) / max(1, len(cards) - 1)) if len(cards) > 1 else CARD_W + GAP
    for i, c in enumerate(sorted(cards, key=lambda c: (int(game.tables.card_type[c]), c))):
        _card(out, x + i * step, y, card_facts(game.tables, int(game.tables.card_type[c])), tag)
    return x + step * (len(cards) - 1) + CARD_W + GAP


def render_svg(game: Game, viewer: int | None = None, last_move: str | None = None) -> str:
    """The table as SVG from ``viewer``'s seat (``None``: the spectator, public facts only; A9.2)."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be an artificium Game, got {type(game).__name__}")
    me = None if viewer is None else _check_int(viewer, "viewer", 0, game.num_players - 1)
    w, h = svg_size(game.num_players)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        f'font-family="DejaVu Sans, Verdana, sans-serif">',
        f'<rect width="{w}" height="{h}" fill="#fdfbf5"/>',
    ]
    who = "spectator view (public facts only)" if me is None else f"view of seat {me}"
    state = "game over" if game.done else f"round {game.round} of 4 \u00b7 {game.decision_name}"
    out.append(_text(10, 22, f"Artificium \u00b7 {game.num_players} players \u00b7 {state} \u00b7 {who}", 16, "bold"))
    deck, discard = int(game.state[L.F_DECK_N]), len(game.cards_at(L.L_DISCARD))
    pending = ", ".join(f"seat {p}" for p in game.pending_players()) or "-"
    out.append(_text(10, 42, f"first player: seat {game.first_player} \u00b7 deck {deck} \u00b7 discard {discard} "
                             f"\u00b7 bank {game.bank()} \u00b7 waiting for: {pending}", 13))  # fmt: skip
    prices = "  ".join(
        f"{r} {int(game.tables.board[i, B_BUY])}/{int(game.tables.board[i, B_SELL])}"
        f" (T{int(game.tables.board[i, B_TIER])})"
        for i, r in enumerate(RESOURCES)
    )
    out.append(_text(10, 60, f"board buy/sell: {prices}", 11, fill="#444"))
    if last_move:
        out.append(f'<rect x="{w - 430}" y="6" width="420" height="22" fill="#fff3b0" stroke="#e0c200"/>')
        out.append(_text(w - 424, 22, f"last: {last_move}"[:70], 12))
    y = HEAD_H
    market = game.cards_at(L.L_MARKET)
    out.append(_text(10, y + 14, f"market ({len(market)})", 13, "bold"))
    _row(out, game, 10, y + 22, market, w - 20)
    if not market:
        out.append(_text(10, y + 40, "empty (the market is laid at the start of each round, A3.1)", 12, fill="#777"))
    y += MARKET_H
    for p in range(game.num_players):
        _seat(out, game, p, me, y, w)
        y += SEAT_H
    out.append("</svg>")
    return "\n".join(out)


def _seat(out: list[str], game: Game, p: int, me: int | None, y: float, w: int) -> None:
    s = game.state
    pending = p in game.pending_players()
    out.append(f'<g class="seat" data-seat="{p}">')
    out.append(f'<rect x="4" y="{y}" width="{w - 8}" height="{SEAT_H - 4}" rx="6" '
               f'fill="{"#fff9c4" if pending else "#ffffff"}" stroke="#bbb"/>')  # fmt: skip
    name = f"seat {p}" + (" (you)" if p == me else "") + (" \u2605 first" if p == game.first_player else "")
    out.append(_text(12, y + 18, name, 14, "bold"))
    out.append(_text(12, y + 36, f"score {game.vp(p)} \u00b7 {game.coins(p)} coins", 13))
    hand = game.hand(p)
    out.append(_text(12, y + 52, f"hand: {len(hand)} cards", 12))
    tags = []
    if s[L.F_OUT + p]:
        tags.append("out of the card play")
    if game.decision == L.D_MARKET and s[L.F_PASSED + p]:
        tags.append("passed")
    if game.decision == L.D_MARKET and s[L.F_SWAPS + p]:
        tags.append(f"{int(s[L.F_SWAPS + p])} swap(s)")
    for i, tag in enumerate(tags):
        out.append(_text(12, y + 68 + 14 * i, tag, 11, fill="#b71c1c"))
    res = game.resources(p)
    yy = y + 100
    for r, n in enumerate(res):
        if n:
            out.append(f'<circle cx="{18}" cy="{yy - 4}" r="5" fill="{RES_COLOURS[r]}"/>')
            out.append(_text(28, yy, f"{RESOURCES[r]} {n}", 11))
            yy += 13
            if yy > y + SEAT_H - 8:
                break
    if not any(res):
        out.append(_text(12, yy, "no resources", 11, fill="#777"))
    x, top = 170.0, y + 22
    chosen = game.cards_at(L.L_CHOSEN + p)
    revealed = game.cards_at(L.L_REVEALED + p)
    played = game.cards_at(L.L_PLAYED + p)
    labels = []
    if p == me:
        x = _label(out, x, top, "hand", _row(out, game, x, top, hand, min(560, w - x - 400)) if hand else x, labels)
    elif hand:
        _back(out, x, top, f"{len(hand)} cards")
        x = _label(out, x, top, "hand", x + CARD_W + GAP, labels)
    if chosen:
        if p == me:
            end = _row(out, game, x, top, chosen, CARD_W, "face down")
        else:
            _back(out, x, top, "chosen")
            end = x + CARD_W + GAP
        x = _label(out, x, top, "face down", end, labels)
    if revealed:
        x = _label(out, x, top, "revealed", _row(out, game, x, top, revealed, CARD_W, "revealed"), labels)
    if played:
        x = _label(out, x, top, "played this round", _row(out, game, x, top, played, max(CARD_W, w - x - 10)), labels)
    for lx, text in labels:
        out.append(_text(lx, y + 16, text, 11, "bold", fill="#555"))
    out.append("</g>")


def _label(out: list[str], x: float, top: float, text: str, end: float, labels: list) -> float:  # noqa: ARG001
    labels.append((x, text))
    return end + 6
