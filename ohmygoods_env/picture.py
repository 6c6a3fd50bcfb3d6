"""Picture view of a game: the table as an SVG drawing, and as an RGB image rasterised from it.

:func:`render_svg` draws what :func:`~ohmygoods_env.render.render_text` writes, from the same
*shown state* (``render._shown_state``: a seat's information state,
:func:`~ohmygoods_env.infostate.redact`), so a seat's picture never shows more than its text
view, its observation or its agents' information state: opponents' hands and set-aside cards are
hidden (their backs are counted), and during the phase-II choices (R5.2) opponents appear as
they were at the start of phase II. ``viewer=None`` is the spectator view (every hand shown),
``viewer="public"`` the public view (no hand shown, :data:`~ohmygoods_env.render.PUBLIC`).
The drawing is a plain string of SVG 1.1 (no dependency, no script, no external resource),
deterministic: the same view of the same position gives the same bytes.

It holds no rules and never changes the state. Its size depends only on the number of
players (:func:`svg_size`), so frames of one game stack into a video:

=========  =====================================================================
band       content
=========  =====================================================================
header     edition, view, round and phase, pending decision and who acts, deck
           and discard pile; the last move (when the caller passes it) in a
           yellow box; the final scores when the game is over
market     the two market rows: cards per resource in the resource colours,
           half-suns, "cut short" (R3.1)
player     per seat: score, coins, hand size, tags; the buildings in slot order
           as cards (name in full, the chain, what each needs drawn as resource
           chips with counts, good and value, goods, cost, VP, half-sun, staff);
           the set-aside card (or a hidden back; face up while its build is
           being paid for, as announced); the hand as cards with name, hand-card
           resource, cost, VP and half-sun (own seat or spectator), else one
           back per card. Every card is a group (``data-card``; a building also
           ``data-player`` and ``data-slot``) whose ``<title>`` is the whole
           card (:func:`~ohmygoods_env.cardfacts.card_text`): the full card on
           hover. The seat to act has a yellow background.
display    the assistants on display: label, cost, VP, buildings needed (R6)
choices    the legal moves of the seat to act, numbered, in ``describe`` words
           (shown to that seat and to the spectator; 16 at most, then "+N
           more"); the cards and slots they name have an orange frame
=========  =====================================================================

:func:`view` wraps a drawing for Jupyter (``_repr_svg_``). :func:`render_image` (the
``rgb_array`` render mode) rasterises the same SVG with ``cairosvg`` (the ``picture``
extra); there is no second drawing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

import numpy as np

from . import core
from . import layout as L
from .actions import action_kind, describe
from .cardfacts import building_needs, card_facts, card_text, chain_facts
from .cards import (
    A_COST,
    A_REQ0,
    A_VP,
    B_COLOUR,
    B_COST,
    B_GOOD,
    B_KIND,
    B_OFFICE,
    B_SUN,
    B_VALUE,
    B_VP,
    GOODS,
    KIND_EXTRA,
    KIND_OFFICE,
    N_RES,
    RESOURCES,
)
from .render import (
    PUBLIC,
    _assistant_label,
    _decision_text,
    _hand_size,
    _has_aside,
    _owned_assistants,
    _player_tag,
    _plural,
    _shown_state,
    check_viewer,
    shown_goods,
)

if TYPE_CHECKING:
    from .engine import Game

__all__ = [
    "COLOUR_RGB",
    "SvgView",
    "hides_move",
    "log_move",
    "move_text",
    "render_image",
    "render_svg",
    "svg_size",
    "view",
]

#: Face colours of the five resources and the charburner colour (card colours, R1.5).
COLOUR_RGB: dict[str, str] = {
    "grain": "#e8c547",
    "wood": "#8b5a2b",
    "clay": "#c8553d",
    "wool": "#f4f1ea",
    "stone": "#9e9e9e",
    "charburner": "#2f2f2f",
}
_DARK = {"wood", "clay", "charburner"}  # white text on these
_COLOURS = ("grain", "wood", "clay", "wool", "stone", "charburner")
_MARK = "#ff7f00"  # frame of the cards and slots a legal move names
_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

WIDTH = 1340
_HEADER, _MARKET, _PLAYER, _DISPLAY, _CHOICES = 92, 100, 364, 96, 190
_CARD_W, _CARD_H, _GAP = 124, 162, 6
_HAND_PER_ROW, _HAND_ROWS, _HAND_H = 9, 2, 76
_MAX_CHOICES = 16


def svg_size(num_players: int) -> tuple[int, int]:
    """(width, height) of the drawing in pixels for ``num_players`` seats."""
    return WIDTH, _HEADER + _MARKET + num_players * _PLAYER + _DISPLAY + _CHOICES


class _Svg:
    """An SVG document built element by element (coordinates in pixels)."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "#555", sw: float = 1, rx=5):
        self.parts.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{sw:g}"/>'
        )

    def text(self, x: float, y: float, s: str, size: float = 13, fill: str = "#1a1a1a", bold: bool = False,
             anchor: str = "start") -> None:  # fmt: skip
        weight = ' font-weight="bold"' if bold else ""
        self.parts.append(
            f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" fill="{fill}" text-anchor="{anchor}"{weight}>'
            f"{escape(s)}</text>"
        )

    def chip(self, x: float, y: float, colour: str, label: str, w: float = 22, h: float = 22, size: float = 12):
        """A resource-coloured square with a count or short label in it."""
        self.rect(x, y, w, h, COLOUR_RGB[colour], rx=3)
        self.text(x + w / 2, y + h / 2 + size * 0.36, label, size, "white" if colour in _DARK else "#1a1a1a",
                  True, "middle")  # fmt: skip

    def open_group(self, title: str, **data: int) -> None:
        """Start a group whose ``<title>`` is the tooltip of what it holds (the full card on hover)."""
        attrs = "".join(f' data-{k}="{v}"' for k, v in data.items())
        self.parts.append(f"<g{attrs}><title>{escape(title)}</title>")

    def close_group(self) -> None:
        self.parts.append("</g>")

    def document(self) -> str:
        w, h = self.width, self.height
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
            f'font-family="{_FONT}">'
        )
        return "\n".join([head, f'<rect width="{w}" height="{h}" fill="white"/>', *self.parts, "</svg>\n"])


def _wrap(name: str, width: int) -> list[str]:
    """Words of ``name`` in lines of at most ``width`` characters (a longer word gets its own line)."""
    lines: list[str] = []
    for word in name.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


@dataclass(frozen=True)
class _Marks:
    """What the legal moves of the seat to act name: hand cards and building slots."""

    cards: frozenset[int]
    slots: frozenset[int]
    texts: tuple[str, ...]


_CARD_KINDS = ("set aside", "spend hand card", "chain with hand card", "discard for new deck", "discard hand, keep one")


def _marks(game: Game, s: np.ndarray, viewer: int | None, show_legal: bool) -> _Marks | None:
    cur = int(s[L.F_CUR])
    if not show_legal or game.done or cur < 0 or (viewer is not None and viewer != cur):
        return None
    cards: set[int] = set()
    slots: set[int] = set()
    texts = []
    for a in game.legal_actions():
        kind, i = action_kind(a)
        if kind in _CARD_KINDS:
            cards.add(i)
        elif kind in ("produce", "open chain", "pay", "place assistant"):
            slots.add(i)
        elif kind == "place worker":
            slots.add(i // 2)
        elif kind == "move assistant":
            slots.update((i // L.MAX_SLOTS, i % L.MAX_SLOTS))
        texts.append(describe(a, game))
    return _Marks(frozenset(cards), frozenset(slots), tuple(texts))


def _draw_header(d: _Svg, game: Game, s: np.ndarray, viewer: int | None, last_move: str | None) -> None:
    n = game.num_players
    edition = "royal" if s[L.F_ROYAL] else "omg2"
    if viewer is None:
        who = "spectator view (all hands shown)"
    else:
        who = "public view (every hand hidden)" if viewer == PUBLIC else f"view of player {viewer}"
    d.text(14, 26, f"Oh my Goods! ({edition}, {n} players) \u2014 {who}", 19, bold=True)
    loc = s[L.F_LOC : L.F_LOC + L.N_CARDS]
    pile = f"deck {int(s[L.F_DECK_N])} cards, discard pile {int(np.count_nonzero(loc == L.L_DISCARD))}"
    if game.done:
        scores = game.scores()
        winners = game.winners()
        parts = [f"player {p}: {vp} VP (+{left})" for p, (vp, left) in enumerate(scores)]
        line = f"Game over after {int(s[L.F_ROUND])} rounds. Final scores (R8.3): {', '.join(parts)}"
        line += f"; {'winner' if len(winners) == 1 else 'shared win'}: player {', '.join(map(str, winners))}"
    else:
        cur = int(s[L.F_CUR])
        line = f"Round {int(s[L.F_ROUND]) + 1}, phase {L.PHASE_NAMES[int(s[L.F_PH])]}"
        if s[L.F_FINAL]:
            line += " (final round, R8.1)"
        line += f" \u2014 decision: {_decision_text(s, viewer)}"
        line += f", player {cur} to act" if cur >= 0 else ""
        line += f"; {pile}"
    d.text(14, 50, line, 14)
    if last_move:
        d.rect(12, 60, WIDTH - 24, 26, "#fff3b0", "#d4b106", rx=4)
        d.text(20, 78, f"last move: {last_move}", 14)


def _draw_market(d: _Svg, s: np.ndarray, y: float) -> None:
    d.text(14, y + 18, "Market", 15, bold=True)
    for row in range(2):
        yy = y + 28 + row * 34
        d.text(14, yy + 19, f"row {row + 1}", 13)
        for r in range(N_RES):
            count = int(s[L.F_MKT + row * N_RES + r])
            d.chip(70 + r * 118, yy, RESOURCES[r], f"{RESOURCES[r]} {count}", 110, 28, 13)
        cut = " (cut short: no cards left, R3.1)" if s[L.F_ROW_CUT + row] else ""
        d.text(70 + N_RES * 118 + 8, yy + 19, f"{int(s[L.F_SUNS + row])} half-suns{cut}", 13)


def _needs(d: _Svg, b: np.ndarray, x: float, y: float) -> None:
    """What a building needs to produce (R7), as resource chips with counts."""
    if b[B_KIND] == KIND_OFFICE:
        d.text(x, y + 16, "office: +1", 12)
        d.chip(x + 64, y, RESOURCES[b[B_OFFICE]], "1", 22, 22)
        return
    if b[B_KIND] == KIND_EXTRA:
        d.text(x, y + 16, "extra card", 12)
        return
    needs, needs_any = building_needs(b)
    if needs_any:
        d.rect(x, y, 84, 22, "#e0e0e0", rx=3)
        d.text(x + 42, y + 16, f"any {needs_any}", 12, bold=True, anchor="middle")
        return
    for k, (res, n) in enumerate(needs.items()):
        d.chip(x + k * 26, y, res, str(n))
    if not needs:
        d.text(x, y + 16, "needs nothing", 12)


def _chain_text(b: np.ndarray) -> str:
    """A building's chain, short (R7.7, R7.8): its inputs and how many goods one run makes."""
    chain = chain_facts(b)
    if chain is None:
        return ""
    ins = ([chain["hand"]] if chain["hand"] else []) + chain["goods"]
    return f"chain: {'+'.join(ins)} \u2192 {chain['makes']}"


def _building(d: _Svg, game: Game, s: np.ndarray, p: int, slot: int, x: float, y: float, marked: bool) -> None:
    base = p * L.MAX_SLOTS
    bid = int(s[L.F_BLD + base + slot])
    b = game.cards.buildings[bid]
    colour = _COLOURS[int(b[B_COLOUR])]
    d.open_group(card_text(game.cards, bid), player=p, slot=slot, card=bid)
    d.rect(x, y, _CARD_W, _CARD_H, "#fbfaf7", _MARK if marked else "#555", 3.5 if marked else 1)
    d.rect(x, y, _CARD_W, 38, COLOUR_RGB[colour], "none", 0, rx=5)
    fg = "white" if colour in _DARK else "#1a1a1a"
    lines = _wrap(game.cards.name(bid), 15)[:2]
    for i, line in enumerate(lines):
        d.text(x + 6, y + (16 if len(lines) == 2 else 24) + 15 * i, line, 12.5, fg, True)
    d.text(x + _CARD_W - 5, y + 50, f"slot {slot}", 10, "#666", anchor="end")
    chain = _chain_text(b)
    if chain:
        d.text(x + 6, y + 64, chain, 10, "#333")
    y += 12  # below the chain's line
    _needs(d, b, x + 6, y + 56)
    if b[B_GOOD] >= 0:
        d.text(x + 6, y + 96, f"\u2192 {GOODS[b[B_GOOD]]} ({int(b[B_VALUE])})", 12)
        goods = int(s[L.F_GOODS + base + slot])
        shown = sum(1 for _, sl in shown_goods(s, p) if sl == slot)  # public identities, R3.2, R7.7
        d.text(x + 6, y + 113, f"goods: {goods}" + (f", {shown} shown" if shown else ""), 12, bold=goods > 0)
    sun = " \u25d1" if b[B_SUN] else ""  # the half-sun (R5.1)
    cost = "" if colour == "charburner" else f"cost {int(b[B_COST])} \u00b7 "
    d.text(x + 6, y + 129, f"{cost}{int(b[B_VP])} VP{sun}", 12)
    staff = int(s[L.F_STAFF + base + slot])
    if staff == L.STAFF_ASSISTANT:
        aslot = int(s[L.F_ASLOT + base + slot])
        text = "assistant " + (_assistant_label(game, s, aslot) if aslot >= 0 else "")
    else:
        text = {L.STAFF_EFFICIENT: "worker (efficient)", L.STAFF_SLOPPY: "worker (sloppy)"}.get(staff, "")
    if text:
        d.rect(x + 4, y + 134, _CARD_W - 8, 13, "#dfe9f7", "none", 0, rx=3)
        d.text(x + 8, y + 145, text, 10.5)
    d.close_group()


def _hand_card(d: _Svg, game: Game, c: int, x: float, y: float, marked: bool) -> None:
    """A hand (or set-aside) card face: its hand-card resource (R1.2) as the colour of its band, name,
    cost, VP and half-sun (R5.1), what it needs to produce (R7.2, R7.4; or its office, R7.5, or extra
    card, R1.4), its good and the good's value (R1.3), its chain (R7.7, R7.8); every fact on hover."""
    f = card_facts(game.cards, c)
    res = f["resource"]
    d.open_group(f["text"], card=c)
    d.rect(x, y, _CARD_W, _HAND_H - 4, "#fbfaf7", _MARK if marked else "#555", 3.5 if marked else 1)
    d.rect(x, y, _CARD_W, 26, COLOUR_RGB[res], "none", 0, rx=5)
    fg = "white" if res in _DARK else "#1a1a1a"
    lines = _wrap(f["name"], 15)[:2]
    for i, line in enumerate(lines):
        d.text(x + 5, y + (11 if len(lines) == 2 else 17) + 11 * i, line, 10.5, fg, True)
    sun = " \u25d1" if f["half_sun"] else ""
    d.text(x + 5, y + 37, f"{res} \u00b7 cost {f['cost']} \u00b7 {f['vp']} VP{sun}", 9.5)
    p = f["production"]
    if p is not None:
        needs = f"any {p['needs_any']}" if p["needs_any"] else "+".join(f"{n} {r}" for r, n in p["needs"].items())
        d.text(x + 5, y + 48, f"needs {needs}", 8.5, "#333")
        d.text(x + 5, y + 58, f"{p['efficient']['resources']}\u21922 / {p['sloppy']['resources']}\u21921 "
               f"{f['good']} ({f['value']})", 8.5, "#333")  # fmt: skip
    else:
        d.text(x + 5, y + 48, f"office: +1 {f['office']}" if f["office"] else "extra hand card", 8.5, "#333")
    ch = f["chain"]
    if ch is not None:
        ins = "+".join(i for i in [ch["hand"], *ch["goods"]] if i)
        d.text(x + 5, y + 68, f"chain: {ins} \u2192 {ch['makes']}", 8.5, "#333")
    d.close_group()


def _declared_build(game: Game, p: int) -> int:
    """The set-aside card seat ``p`` is paying to build now (announced, so public), else -1."""
    s = game.state
    paying = int(s[L.F_DEC]) == L.D_PAY and int(s[L.F_PAY_FOR]) == L.PAY_BUILD and int(s[L.F_PH]) == L.PH_P4
    return int(s[L.F_ASIDE + p]) if paying and int(s[L.F_CUR]) == p else -1


def _card_back(d: _Svg, x: float, y: float, w: float, h: float, label: str = "") -> None:
    d.rect(x, y, w, h, "#6b7b8c", "#3d4650", rx=4)
    if label:
        d.text(x + w / 2, y + h / 2 + 4, label, 11, "white", anchor="middle")


def _draw_player(d: _Svg, game: Game, s: np.ndarray, p: int, viewer: int | None, y: float, marks) -> None:
    C, AS = game.cards.buildings, game.cards.assistants
    score, left = (int(x) for x in core.score_player(s, C, AS, p))
    to_act = p == int(s[L.F_CUR]) and not game.done
    d.rect(4, y + 2, WIDTH - 8, _PLAYER - 4, "#fffbe6" if to_act else "#f6f6f6", "#cfcfcf", 1, 8)
    head = (
        f"Player {p}{_player_tag(s, p, viewer)}: {score} VP (+{_plural(left, 'coin')} left over), goods worth "
        f"{_plural(int(core.coins(s, C, p)), 'coin')}, hand {_plural(_hand_size(s, p), 'card')}, "
        f"assistants: {', '.join(_owned_assistants(game, s, p)) or 'none'}"
    )
    d.text(14, y + 22, head, 15, bold=True)
    mine = marks is not None and int(s[L.F_CUR]) == p
    top = y + 32
    for slot in range(int(s[L.F_NB + p])):
        marked = mine and slot in marks.slots
        _building(d, game, s, p, slot, 12 + slot * (_CARD_W + _GAP), top, marked)
    xa = 12 + L.MAX_SLOTS * (_CARD_W + _GAP) + 10
    d.text(xa, top + 12, "set aside", 12, "#444")
    aside = int(s[L.F_ASIDE + p])
    declared = _declared_build(game, p)
    if (viewer is None or p == viewer) and aside >= 0:
        _hand_card(d, game, aside, xa, top + 20, False)
    elif declared >= 0:  # being paid for: the build was announced, the card is public (R7.10)
        _hand_card(d, game, declared, xa, top + 20, False)
    elif _has_aside(s, p):
        _card_back(d, xa, top + 20, _CARD_W, _HAND_H - 4, "hidden card")
    hand_y = top + _CARD_H + 10
    if viewer is None or p == viewer:
        loc = s[L.F_LOC : L.F_LOC + L.N_CARDS]
        cards = [int(c) for c in np.flatnonzero(loc == L.L_HAND + p)]
        shown = _HAND_PER_ROW * _HAND_ROWS
        for j, c in enumerate(cards[:shown]):
            row, col = divmod(j, _HAND_PER_ROW)
            marked = mine and c in marks.cards
            _hand_card(d, game, c, 12 + col * (_CARD_W + _GAP), hand_y + row * _HAND_H, marked)
        if len(cards) > shown:
            d.text(xa, hand_y + _HAND_H + 22, f"+{len(cards) - shown} more cards", 13, bold=True)
        if not cards:
            d.text(14, hand_y + 22, "hand: empty", 13)
    else:
        n = _hand_size(s, p)
        for j in range(min(n, _HAND_PER_ROW * 3)):
            _card_back(d, 12 + j * 30, hand_y, 26, 36)
        d.text(12 + min(n, _HAND_PER_ROW * 3) * 30 + 8, hand_y + 23, f"hand: {n} cards (hidden)", 13)


def _draw_display(d: _Svg, game: Game, s: np.ndarray, y: float) -> None:
    d.text(14, y + 18, "Assistants on display", 15, bold=True)
    shown = [k for k in range(L.N_ASSIST) if int(s[L.F_A_OWNER + k]) == -1]
    if not shown:
        d.text(14, y + 44, "none", 13)
    step = min(186, (WIDTH - 24) // max(1, len(shown)))
    for j, k in enumerate(shown):
        a = game.cards.assistants[int(s[L.F_A_CARD + k]), int(s[L.F_A_SIDE + k])]
        x = 12 + j * step
        need = ", ".join(f"{int(a[A_REQ0 + c])} {_COLOURS[c]}" for c in range(len(_COLOURS)) if a[A_REQ0 + c] > 0)
        d.open_group(f"assistant {_assistant_label(game, s, k)}: cost {int(a[A_COST])} coins, {int(a[A_VP])} VP; "
                     f"needs buildings: {need or 'none'} (kept, R7.12)", assistant=k)  # fmt: skip
        d.rect(x, y + 26, step - 6, 62, "#f4f1ea")
        d.text(
            x + 6, y + 43, f"{_assistant_label(game, s, k)}: cost {int(a[A_COST])}, {int(a[A_VP])} VP", 12.5, bold=True
        )
        d.text(x + 6, y + 66, "needs", 11)
        col = 0
        for c in range(len(_COLOURS)):
            if a[A_REQ0 + c] > 0:
                d.chip(x + 42 + col * 24, y + 52, _COLOURS[c], str(int(a[A_REQ0 + c])), 21, 20, 11)
                col += 1
        if col == 0:
            d.text(x + 42, y + 66, "nothing", 11)
        d.close_group()


def _draw_choices(d: _Svg, marks: _Marks | None, y: float, viewer: int | None, s: np.ndarray, done: bool) -> None:
    if done:
        d.text(14, y + 20, "Game over.", 15, bold=True)
        return
    if marks is None:
        cur = int(s[L.F_CUR])
        d.text(14, y + 20, f"Waiting for player {cur}." if cur >= 0 else "", 15, bold=True)
        return
    who = "Your choices" if viewer is not None else f"Choices of player {int(s[L.F_CUR])}"
    d.text(14, y + 20, f"{who} ({len(marks.texts)} legal moves; orange frames: the cards and slots they name)", 15,
           bold=True)  # fmt: skip
    rows = _MAX_CHOICES // 2
    for i, text in enumerate(marks.texts[:_MAX_CHOICES]):
        col, row = divmod(i, rows)
        d.text(14 + col * (WIDTH // 2), y + 42 + row * 18, f"{i + 1:>2}. {text}", 12.5)
    if len(marks.texts) > _MAX_CHOICES:
        d.text(WIDTH - 14, y + 20, f"+{len(marks.texts) - _MAX_CHOICES} more", 13, anchor="end")


def _hidden_choice(game: Game) -> str | None:
    """How the pending move reads to the other seats when the rules hide it, else None."""
    dec = game.decision
    if dec == L.D_PHASE1:
        return "has chosen to keep or discard their hand (revealed when everyone has chosen, R4.1)"
    if game.phase == L.PH_P2 and dec in (L.D_MOVE, L.D_WORKER, L.D_ASIDE, L.D_PAY):
        return "made a phase-II choice (revealed at sunset, R5.2)"
    if dec == L.D_REFILL:
        return "discarded a card face down for the new deck (R3.1)"
    return None


def hides_move(game: Game, viewer: int | None) -> bool:
    """Does the pending move of the seat to act read to ``viewer`` only as a hidden choice?

    True for another seat's phase-I keep/discard (R4.1), phase-II choices (R5.2) and
    face-down discards (R3.1): :func:`move_text` names no detail, and a log of such moves
    should show one event per seat, since even their number is hidden until the reveal.
    """
    viewer = check_viewer(game, viewer)
    return viewer is not None and viewer != game.current_player and _hidden_choice(game) is not None


def move_text(game: Game, action: int, viewer: int | None = None) -> str:
    """How the move ``action`` of the seat to act in ``game`` (before it is applied) reads to ``viewer``.

    The spectator (``None``) and the mover read ``describe``'s words; the other seats read
    only that a choice was made where the rules keep it hidden until a reveal: phase-I
    keep/discard (R4.1), the phase-II choices (R5.2) and face-down discards (R3.1).
    """
    p = game.current_player
    if hides_move(game, viewer):
        return f"player {p} {_hidden_choice(game)}"
    aside = int(game.state[L.F_ASIDE + p]) if p >= 0 else -1
    if int(action) == L.A_BUILD and aside >= 0:  # announced: the card is built (R7.10)
        return f"player {p}: build {game.cards.name(aside)}"
    if int(action) == L.A_NO_BUILD and aside >= 0:
        if viewer is None or viewer == p or game.rules.royal:  # royal: to the face-up discard pile (§9)
            return f"player {p}: do not build {game.cards.name(aside)}"
        return f"player {p}: do not build (the card set aside goes back to the hand, unseen, R7.11)"
    return f"player {p}: {describe(int(action), game)}"


def log_move(log: list[str], game: Game, action: int, viewer: int | None, name: str) -> str:
    """Add the move ``action`` of the seat to act (before it is applied) to ``viewer``'s log of the
    others' moves, as ``"player P (name): ..."``; returns its :func:`move_text`.

    A run of one seat's hidden choices (:func:`hides_move`) is one line: how many assistant
    moves and payments an opponent made is hidden until the reveal, like the moves themselves.
    """
    p = game.current_player
    text = move_text(game, action, viewer)
    line = f"player {p} ({name}){text[len(f'player {p}') :]}"
    if not (hides_move(game, viewer) and log and log[-1] == line):
        log.append(line)
    return text


def render_svg(game: Game, viewer: int | None = None, last_move: str | None = None, show_legal: bool = True) -> str:
    """The table as an SVG document (a string): spectator view if ``viewer`` is None, else seat ``viewer``'s.

    ``last_move`` is drawn in the header as given (callers hide what the viewer may not see,
    e.g. with :func:`ohmygoods_env.render.move_text`). With ``show_legal``, the seat to act
    (and the spectator) sees its legal moves listed and the cards and slots they name framed.
    """
    viewer = check_viewer(game, viewer)
    if last_move is not None and not isinstance(last_move, str):
        raise TypeError(f"last_move must be a str or None, got {type(last_move).__name__}")
    s = _shown_state(game, viewer)
    width, height = svg_size(game.num_players)
    d = _Svg(width, height)
    marks = _marks(game, s, viewer, show_legal)
    _draw_header(d, game, s, viewer, last_move)
    y = _HEADER
    _draw_market(d, s, y)
    y += _MARKET
    for p in range(game.num_players):
        _draw_player(d, game, s, p, viewer, y, marks)
        y += _PLAYER
    _draw_display(d, game, s, y)
    y += _DISPLAY
    _draw_choices(d, marks, y, viewer, s, game.done)
    return d.document()


@dataclass(frozen=True)
class SvgView:
    """An SVG drawing that Jupyter shows inline; ``save(path)`` writes it."""

    svg: str

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.svg)


def view(game: Game, viewer: int | None = None, last_move: str | None = None) -> SvgView:
    """:func:`render_svg` wrapped for Jupyter: the last expression of a cell shows the picture."""
    return SvgView(render_svg(game, viewer, last_move))


def render_image(game: Game, viewer: int | None = None, dpi: int = 96) -> np.ndarray:
    """``uint8[H, W, 3]`` picture of ``game``: :func:`render_svg` rasterised at ``dpi`` (96 = 1 px per unit).

    ``H`` and ``W`` depend only on the number of players and ``dpi``. Needs ``cairosvg``
    (``pip install cairosvg``, or the ``picture`` extra) and the cairo library it loads.
    """
    viewer = check_viewer(game, viewer)
    if not isinstance(dpi, (int, np.integer)) or isinstance(dpi, bool) or not 20 <= int(dpi) <= 300:
        raise ValueError(f"dpi must be an int in [20, 300], got {dpi!r}")
    try:
        import cairosvg
    except (ImportError, OSError) as exc:  # the package, or the cairo library it loads
        raise ImportError(
            "render_image (render_mode='rgb_array') rasterises the SVG picture with cairosvg: "
            "pip install cairosvg (the 'picture' extra), which needs the cairo library (Debian: libcairo2); "
            f"render_svg needs nothing ({exc})"
        ) from exc
    import io

    from PIL import Image

    width, height = svg_size(game.num_players)
    scale = int(dpi) / 96
    png = cairosvg.svg2png(
        bytestring=render_svg(game, viewer).encode(),
        output_width=round(width * scale),
        output_height=round(height * scale),
    )
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).copy()
