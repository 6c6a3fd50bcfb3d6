"""Picture view of a game: the table as an RGB image (``render_mode="rgb_array"``).

:func:`render_image` draws what :func:`~ohmygoods_env.render.render_text` writes, from the
same *shown state* (``render._shown_state``) and the same hiding rules, so a seat's picture
never shows more than its text view or its observation: opponents' hands and set-aside
cards are hidden, and during the phase-II choices (R5.2) opponents appear as they were at
the start of phase II. ``viewer=None`` is the spectator view (every hand shown).

It holds no rules and never changes the state. It needs matplotlib (in the ``train`` and
``dev`` extras; ``pip install matplotlib`` otherwise) and draws off-screen with the Agg
canvas, without pyplot's global state. The image size depends only on the number of
players (so frames of one game stack into a video):

=========  =====================================================================
rows       content
=========  =====================================================================
header     edition, view, round and phase, pending decision and who acts, deck
market     the two market rows: cards per resource (resource colours), half-suns
player     per seat: score, coins, hand size, tags; the buildings in slot order
           (colour of the card, name, good and its value, goods, staff, VP); the
           set-aside card (or "hidden"); the hand as chips in the resource colour
           (own seat or spectator only)
display    the assistants on display: card and side, cost, VP, requirements
=========  =====================================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import core
from . import layout as L
from .cards import (
    A_COST,
    A_REQ0,
    A_VP,
    B_COLOUR,
    B_GOOD,
    B_KIND,
    B_OFFICE,
    B_RES,
    B_VALUE,
    B_VP,
    GOODS,
    KIND_EXTRA,
    KIND_OFFICE,
    RESOURCES,
)
from .render import (
    _STAFF_TEXT,
    _assistant_label,
    _decision_text,
    _hand_size,
    _has_aside,
    _owned_assistants,
    _player_tag,
    _shown_state,
    check_viewer,
    shown_goods,
)

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["COLOUR_RGB", "render_image"]

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

_WIDTH_IN = 13.0
_HEADER_IN, _MARKET_IN, _PLAYER_IN, _DISPLAY_IN = 0.75, 0.95, 2.25, 0.95
_HAND_CHIPS = 18  # chips per hand row; more cards are summarised as "+N"


def _colour_name(index: int) -> str:
    return ("grain", "wood", "clay", "wool", "stone", "charburner")[index]


def _box(ax: Any, x: float, y: float, w: float, h: float, colour: str, text: str = "", size: float = 7.0) -> None:
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (x, y), w, h, boxstyle="round,pad=0,rounding_size=0.05", facecolor=COLOUR_RGB[colour],
            edgecolor="#444444", linewidth=0.8,
        )
    )  # fmt: skip
    if text:
        ax.text(
            x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size,
            color="white" if colour in _DARK else "black", linespacing=1.1,
        )  # fmt: skip


def _short(name: str, n: int) -> str:
    return name if len(name) <= n else name[: n - 1].rstrip() + "."


def _building_label(game: Game, s: np.ndarray, p: int, slot: int) -> str:
    C = game.cards.buildings
    base = p * L.MAX_SLOTS
    bid = int(s[L.F_BLD + base + slot])
    b = C[bid]
    staff = int(s[L.F_STAFF + base + slot])
    staff_text = {L.STAFF_EFFICIENT: "worker eff.", L.STAFF_SLOPPY: "worker sloppy"}.get(staff, "")
    if staff == L.STAFF_ASSISTANT:
        aslot = int(s[L.F_ASLOT + base + slot])
        staff_text = "asst. " + (_assistant_label(game, s, aslot) if aslot >= 0 else "")
    elif staff == L.STAFF_NONE:
        staff_text = _STAFF_TEXT[staff].strip("-")
    if b[B_KIND] == KIND_OFFICE:
        what = f"office +1 {RESOURCES[b[B_OFFICE]]}"
    elif b[B_KIND] == KIND_EXTRA:
        what = "extra card"
    else:
        shown = sum(1 for _, sl in shown_goods(s, p) if sl == slot)  # R3.2, R7.7
        what = f"{GOODS[b[B_GOOD]]} ({int(b[B_VALUE])})\ngoods {int(s[L.F_GOODS + base + slot])}"
        what += f", {shown} shown" if shown else ""
    return f"{_short(game.cards.name(bid), 15)}\n{what}\n{int(b[B_VP])} VP {staff_text}".rstrip()


def _draw_header(ax: Any, game: Game, s: np.ndarray, viewer: int | None, y: float) -> None:
    n = game.num_players
    edition = "royal" if s[L.F_ROYAL] else "omg2"
    view = "spectator view (all hands shown)" if viewer is None else f"view of player {viewer}"
    if game.done:
        when = f"game over after {int(s[L.F_ROUND])} rounds"
    else:
        when = f"round {int(s[L.F_ROUND]) + 1}, phase {L.PHASE_NAMES[int(s[L.F_PH])]}"
        if s[L.F_FINAL]:
            when += " (final round)"
    cur = int(s[L.F_CUR])
    loc = s[L.F_LOC : L.F_LOC + L.N_CARDS]
    ax.text(0.1, y - 0.25, f"Oh my Goods! ({edition}, {n} players) - {view}", fontsize=11, weight="bold", va="center")
    who = f", player {cur} to act" if cur >= 0 else ""
    ax.text(
        0.1, y - 0.55,
        f"{when}; decision: {_decision_text(s, viewer)}{who}; deck {int(s[L.F_DECK_N])}, "
        f"discard {int(np.count_nonzero(loc == L.L_DISCARD))}",
        fontsize=8.5, va="center",
    )  # fmt: skip


def _draw_market(ax: Any, s: np.ndarray, y: float) -> None:
    ax.text(0.1, y - 0.15, "market", fontsize=8.5, weight="bold", va="center")
    for row in range(2):
        yy = y - 0.5 - row * 0.38
        ax.text(0.1, yy + 0.15, f"row {row + 1}", fontsize=8, va="center")
        for r in range(len(RESOURCES)):
            count = int(s[L.F_MKT + row * len(RESOURCES) + r])
            _box(ax, 0.8 + r * 1.15, yy, 1.05, 0.3, RESOURCES[r], f"{RESOURCES[r]} {count}", 7.5)
        cut = " (cut short)" if s[L.F_ROW_CUT + row] else ""
        ax.text(0.8 + 5 * 1.15 + 0.1, yy + 0.15, f"{int(s[L.F_SUNS + row])} half-suns{cut}", fontsize=8, va="center")


def _draw_player(ax: Any, game: Game, s: np.ndarray, p: int, viewer: int | None, y: float) -> None:
    C, AS = game.cards.buildings, game.cards.assistants
    score, left = (int(x) for x in core.score_player(s, C, AS, p))
    head = (
        f"Player {p}{_player_tag(s, p, viewer)}: {score} VP (+{left} coins), goods worth "
        f"{int(core.coins(s, C, p))} coins, hand {_hand_size(game, s, p, viewer)}, "
        f"assistants: {', '.join(_owned_assistants(game, s, p)) or 'none'}"
    )
    ax.text(0.1, y - 0.15, head, fontsize=8.5, weight="bold", va="center")
    w, h, top = 1.16, 0.95, y - 0.35
    for slot in range(int(s[L.F_NB + p])):
        bid = int(s[L.F_BLD + p * L.MAX_SLOTS + slot])
        _box(ax, 0.1 + slot * (w + 0.06), top - h, w, h, _colour_name(int(C[bid, B_COLOUR])),
             _building_label(game, s, p, slot), 6.5)  # fmt: skip
    x_aside = 0.1 + L.MAX_SLOTS * (w + 0.06) + 0.1
    ax.text(x_aside, top - 0.08, "set aside", fontsize=7, va="center")
    aside = int(s[L.F_ASIDE + p])
    if (viewer is None or p == viewer) and aside >= 0:
        _box(
            ax,
            x_aside,
            top - h,
            w,
            h - 0.2,
            _colour_name(int(C[aside, B_COLOUR])),
            _short(game.cards.name(aside), 15),
            6.0,
        )
    elif _has_aside(s, p, viewer):
        _box(ax, x_aside, top - h, w, h - 0.2, "stone", "hidden card", 6.5)
    hand_y = top - h - 0.42
    if viewer is None or p == viewer:
        loc = s[L.F_LOC : L.F_LOC + L.N_CARDS]
        cards = [int(c) for c in np.flatnonzero(loc == L.L_HAND + p)]
        ax.text(0.1, hand_y + 0.15, "hand", fontsize=7.5, va="center")
        for j, c in enumerate(cards[:_HAND_CHIPS]):
            _box(
                ax, 0.55 + j * 0.68, hand_y, 0.64, 0.3, RESOURCES[int(C[c, B_RES])], _short(game.cards.name(c), 10), 5.0
            )
        if len(cards) > _HAND_CHIPS:
            ax.text(0.55 + _HAND_CHIPS * 0.68, hand_y + 0.15, f"+{len(cards) - _HAND_CHIPS}", fontsize=7, va="center")
    else:
        ax.text(0.1, hand_y + 0.15, f"hand: {_hand_size(game, s, p, viewer)} cards (hidden)", fontsize=7.5, va="center")


def _draw_display(ax: Any, game: Game, s: np.ndarray, y: float) -> None:
    ax.text(0.1, y - 0.15, "assistants on display", fontsize=8.5, weight="bold", va="center")
    shown = [k for k in range(L.N_ASSIST) if int(s[L.F_A_OWNER + k]) == -1]
    for j, k in enumerate(shown):
        a = game.cards.assistants[int(s[L.F_A_CARD + k]), int(s[L.F_A_SIDE + k])]
        req = " ".join(f"{int(a[A_REQ0 + c])}{_colour_name(c)[:2]}" for c in range(6) if a[A_REQ0 + c] > 0)
        text = f"{_assistant_label(game, s, k)}: cost {int(a[A_COST])}, {int(a[A_VP])} VP\nneeds {req or '-'}"
        _box(ax, 0.1 + j * 2.1, y - 0.85, 2.0, 0.55, "wool", text, 7.0)


def render_image(game: Game, viewer: int | None = None, dpi: int = 90) -> np.ndarray:
    """``uint8[H, W, 3]`` picture of ``game``: spectator view if ``viewer`` is None, else seat ``viewer``'s.

    ``H`` and ``W`` depend only on the number of players and ``dpi`` (936 x 497 + 162 per
    player at 72 dpi).
    """
    viewer = check_viewer(game, viewer)
    if not isinstance(dpi, (int, np.integer)) or isinstance(dpi, bool) or not 20 <= int(dpi) <= 300:
        raise ValueError(f"dpi must be an int in [20, 300], got {dpi!r}")
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # an optional dependency of the core install
        raise ImportError(
            "render_image (render_mode='rgb_array') needs matplotlib: pip install matplotlib "
            "(it is in the 'train' and 'dev' extras)"
        ) from exc
    s = _shown_state(game, viewer)
    n = game.num_players
    height = _HEADER_IN + _MARKET_IN + n * _PLAYER_IN + _DISPLAY_IN
    fig = Figure(figsize=(_WIDTH_IN, height), dpi=int(dpi), facecolor="white")
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, _WIDTH_IN)
    ax.set_ylim(0, height)
    ax.axis("off")
    y = height
    _draw_header(ax, game, s, viewer, y)
    y -= _HEADER_IN
    _draw_market(ax, s, y)
    y -= _MARKET_IN
    for p in range(n):
        ax.axhline(y, color="#bbbbbb", linewidth=0.6)
        _draw_player(ax, game, s, p, viewer, y)
        y -= _PLAYER_IN
    ax.axhline(y, color="#bbbbbb", linewidth=0.6)
    _draw_display(ax, game, s, y)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
