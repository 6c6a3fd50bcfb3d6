"""Text view of a game: market, players' buildings, goods, staff, hands and assistants.

(The picture view, :mod:`ohmygoods_env.picture`, draws from the same shown state.)

:func:`render_text` turns a :class:`~ohmygoods_env.engine.Game` into a readable table. It
reads the state row through the ``layout`` field constants and the engine's own query
functions (coins, scores); it holds no rules of its own and never changes the state.

Two kinds of view:

* ``viewer=None`` — the **spectator view** (labelled as such): every hand and set-aside card
  is shown. For debugging, replays and demos; never show it to a seated player.
* ``viewer="public"`` (:data:`PUBLIC`) — what a spectator at the table may see: every hand and
  set-aside card hidden, and during the phase-II decisions every seat as it was at the start of
  phase II (the information state of no seat: :func:`~ohmygoods_env.infostate.redact` with
  seat -1). For watching bots play without seeing their cards.
* ``viewer=p`` — what seat ``p`` may see, drawn from its information state
  (:func:`~ohmygoods_env.infostate.redact`, the rule the observation vector and the agents
  follow too): its own hand and set-aside card, opponents' hand sizes only, and during the
  phase-II decisions (R5.2) opponents as they were at the start of phase II, until the
  reveal. Two positions that differ only in what ``p`` may not see give the same text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import core
from . import layout as L
from .cardfacts import building_needs
from .cards import (
    A_COST,
    A_REQ0,
    A_VP,
    B_GOOD,
    B_KIND,
    B_OFFICE,
    B_RES,
    B_SUN,
    B_VALUE,
    B_VP,
    COLOURS,
    GOODS,
    KIND_EXTRA,
    KIND_OFFICE,
    N_RES,
    RESOURCES,
)
from .infostate import redact

if TYPE_CHECKING:
    from .engine import Game

#: The viewer of the public view: a spectator who sees no hand (see the module docstring).
PUBLIC = "public"

_STAFF_TEXT = {
    L.STAFF_NONE: "-",
    L.STAFF_EFFICIENT: "worker (efficient)",
    L.STAFF_SLOPPY: "worker (sloppy)",
    L.STAFF_ASSISTANT: "assistant",
}


def _shown_state(game: Game, viewer: int | None) -> np.ndarray:
    """The state row a view draws: the true state for the spectator, else ``viewer``'s information state.

    A seat's view is drawn from :func:`~ohmygoods_env.infostate.redact` — the one place that
    decides what a seat may know — so no view can show what redaction hides: during the
    phase-II decisions (R5.2) opponents appear as at the start of phase II: their goods, the
    goods they paid back where the seat last saw them, their worker and assistants where they
    stood, their set-aside cards back in hand.
    """
    s = game.state.copy()
    if viewer is None:
        return s
    out = np.empty_like(s)
    redact(s, -1 if viewer == PUBLIC else viewer, out)  # seat -1: no seat's hidden cards or choices
    return out


def _assistant_label(game: Game, s: np.ndarray, k: int) -> str:
    card, side = int(s[L.F_A_CARD + k]), int(s[L.F_A_SIDE + k])
    return f"{card + 1}{'AB'[side]}"


def _assistant_text(game: Game, s: np.ndarray, k: int) -> str:
    card, side = int(s[L.F_A_CARD + k]), int(s[L.F_A_SIDE + k])
    a = game.cards.assistants[card, side]
    req = ", ".join(f"{int(a[A_REQ0 + c])} {COLOURS[c]}" for c in range(len(COLOURS)) if a[A_REQ0 + c] > 0)
    return (
        f"position {k}: assistant {_assistant_label(game, s, k)} — cost {int(a[A_COST])}, {int(a[A_VP])} VP, "
        f"needs buildings: {req or 'none'}"
    )


def _card_text(game: Game, c: int) -> str:
    b = game.cards.buildings[c]
    sun = ", half-sun" if b[B_SUN] else ""
    return f"{game.cards.name(c)} [{RESOURCES[b[B_RES]]}{sun}] (card {c})"


def _needs_text(b: np.ndarray) -> str:
    needs, needs_any = building_needs(b)
    if needs_any:
        return f"any {needs_any}"
    return ", ".join(f"{n} {r}" for r, n in needs.items()) or "-"


def _market_lines(s: np.ndarray) -> list[str]:
    head = "  market  " + "".join(f"{r:>7}" for r in RESOURCES) + "  half-suns"
    lines = [head]
    for row in range(2):
        counts = s[L.F_MKT + row * N_RES : L.F_MKT + (row + 1) * N_RES]
        name = ("row 1", "row 2")[row]
        cut = " (cut short: no cards left)" if s[L.F_ROW_CUT + row] else ""
        lines.append(f"  {name:<8}" + "".join(f"{int(x):>7}" for x in counts) + f"  {int(s[L.F_SUNS + row]):>9}{cut}")
    return lines


def _building_lines(game: Game, s: np.ndarray, p: int) -> list[str]:
    C = game.cards.buildings
    lines = [
        f"    {'slot':<4} {'building':<26} {'needs':<18} {'good':<9} {'goods':>5} {'value':>5} {'coins':>5} "
        f"{'VP':>3}  staff"
    ]
    base = p * L.MAX_SLOTS
    for slot in range(int(s[L.F_NB + p])):
        bid = int(s[L.F_BLD + base + slot])
        b = C[bid]
        k = int(s[L.F_GOODS + base + slot])
        staff = int(s[L.F_STAFF + base + slot])
        staff_text = _STAFF_TEXT[staff]
        aslot = int(s[L.F_ASLOT + base + slot])
        if staff == L.STAFF_ASSISTANT and aslot >= 0:
            staff_text += f" {_assistant_label(game, s, aslot)}"
        if b[B_KIND] == KIND_OFFICE:
            good, needs = "-", f"office: +1 {RESOURCES[b[B_OFFICE]]}"
        elif b[B_KIND] == KIND_EXTRA:
            good, needs = "-", "extra card"
        else:
            good, needs = GOODS[b[B_GOOD]], _needs_text(b)
        value = int(b[B_VALUE]) if b[B_GOOD] >= 0 else 0
        lines.append(
            f"    {slot:<4} {game.cards.name(bid):<26} {needs:<18} {good:<9} {k:>5} {value:>5} {k * value:>5} "
            f"{int(b[B_VP]):>3}  {staff_text}"
        )
    shown = shown_goods(s, p)
    if shown:
        names = ", ".join(f"{_card_text(game, c)} on slot {slot}" for c, slot in shown)
        lines.append(f"    goods shown when fed into a chain (R3.2, R7.7): {names}")
    return lines


def shown_goods(s: np.ndarray, p: int) -> list[tuple[int, int]]:
    """(card, slot) of player ``p``'s goods whose card was shown when fed into a chain (R3.2, R7.7)."""
    out = []
    for c in range(L.N_CARDS):
        loc = int(s[L.F_LOC + c]) - L.L_GOODS - p * L.MAX_SLOTS
        if 0 <= loc < L.MAX_SLOTS and core.is_shown(s, c):
            out.append((c, loc))
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _hand_size(s: np.ndarray, p: int) -> int:
    """Seat ``p``'s hand size in a shown state (an information state keeps opponents' hands as
    they were at the start of phase II until the reveal)."""
    return int(core.hand_count(s, p))


def _has_aside(s: np.ndarray, p: int) -> bool:
    return int(s[L.F_ASIDE + p]) >= 0


def _player_tag(s: np.ndarray, p: int, viewer: int | None) -> str:
    """`` (active player, to act, you)`` — whichever apply to seat ``p`` — or ``""``."""
    tags = []
    if p == int(s[L.F_FIRST]):
        tags.append("active player")
    if p == int(s[L.F_CUR]):
        tags.append("to act")
    if viewer is not None and p == viewer:
        tags.append("you")
    return f" ({', '.join(tags)})" if tags else ""


def _owned_assistants(game: Game, s: np.ndarray, p: int) -> list[str]:
    return [_assistant_label(game, s, k) for k in range(L.N_ASSIST) if int(s[L.F_A_OWNER + k]) == p]


def _player_lines(game: Game, s: np.ndarray, p: int, viewer: int | None) -> list[str]:
    C, AS = game.cards.buildings, game.cards.assistants
    score, left = (int(x) for x in core.score_player(s, C, AS, p))
    coins = int(core.coins(s, C, p))
    tag = _player_tag(s, p, viewer)
    owned = _owned_assistants(game, s, p)
    lines = [
        f"Player {p}{tag}: score {score} VP (+{_plural(left, 'coin')} left over), "
        f"goods worth {_plural(coins, 'coin')}, "
        f"{_plural(int(s[L.F_NB + p]), 'building')}, hand {_plural(_hand_size(s, p), 'card')}, "
        f"assistants: {', '.join(owned) or 'none'}"
    ]
    lines += _building_lines(game, s, p)
    aside = int(s[L.F_ASIDE + p])
    if viewer is None or p == viewer:
        if aside >= 0:
            lines.append(f"    set aside to build: {_card_text(game, aside)}")
    elif _has_aside(s, p):
        lines.append("    set aside to build: a hidden card")
    return lines


def _pending_lines(game: Game, s: np.ndarray, viewer: int | None) -> list[str]:
    """Details of the pending decision, for its player or a spectator."""
    cur = int(s[L.F_CUR])
    if cur < 0 or (viewer is not None and viewer != cur):
        return []
    dec = int(s[L.F_DEC])
    if dec == L.D_PAY:
        purpose = ("an assistant move", "a building", "an assistant")[int(s[L.F_PAY_FOR])]
        return [f"  to pay: {_plural(int(s[L.F_PAY_DUE]), 'coin')} for {purpose}"]
    if dec == L.D_SPEND:
        miss = [f"{int(s[L.F_MISS + r])} {RESOURCES[r]}" for r in range(N_RES) if s[L.F_MISS + r] > 0]
        if s[L.F_MISS_ANY] > 0:
            miss.append(f"{int(s[L.F_MISS_ANY])} of any resource")
        return [f"  producing at slot {int(s[L.F_PROD_SLOT])}, missing: {', '.join(miss) or 'nothing'}"]
    if dec == L.D_CHAIN:
        return [f"  chain open at slot {int(s[L.F_CHAIN_SLOT])}"]
    return []


def _decision_text(s: np.ndarray, viewer: int | None) -> str:
    """The pending decision; hidden from other seats during the simultaneous phase-II choices (R5.2).

    Which phase-II step an opponent is at (e.g. paying for an assistant move) would reveal
    a choice before the reveal, so a seated viewer who is not to act sees only the phase.
    """
    if viewer is not None and viewer != int(s[L.F_CUR]) and int(s[L.F_PH]) == L.PH_P2:
        return "phase II choices (hidden until the reveal)"
    return L.DECISION_NAMES[int(s[L.F_DEC])]


def check_viewer(game: Game, viewer: object) -> int | str | None:
    """``None`` (spectator), ``"public"`` (:data:`PUBLIC`) or a seat of ``game`` as ``int``; a clear
    error for anything else."""
    if viewer is None or (isinstance(viewer, str) and viewer == PUBLIC):
        return viewer
    if isinstance(viewer, (bool, np.bool_)) or not isinstance(viewer, (int, np.integer)):
        raise TypeError(f"viewer must be None, 'public' or a seat in 0..{game.num_players - 1}, got {viewer!r}")
    if not 0 <= int(viewer) < game.num_players:
        raise ValueError(f"viewer {viewer} is out of range: expected None or 0..{game.num_players - 1}")
    return int(viewer)


def render_text(game: Game, viewer: int | None = None) -> str:
    """A readable table view of ``game``: spectator view if ``viewer`` is None, else seat ``viewer``'s view."""
    viewer = check_viewer(game, viewer)
    s = _shown_state(game, viewer)
    n = game.num_players
    edition = "royal" if s[L.F_ROYAL] else "omg2"
    cur = int(s[L.F_CUR])
    loc = s[L.F_LOC : L.F_LOC + L.N_CARDS]
    if viewer is None:
        title = "spectator view — all hands shown"
    elif viewer == PUBLIC:
        title = "public view — every hand hidden"
    else:
        title = f"view of player {viewer} — opponents' hands hidden"
    flags = []
    if s[L.F_FINAL]:
        flags.append("final round (R8.1)")
    elif s[L.F_TRIGGER]:
        flags.append("end triggered: one more round after this one (R8.1)")
    lines = [
        f"=== Oh my Goods! ({edition}, {n} players) — {title} ===",
        (
            f"Game over after {int(s[L.F_ROUND])} rounds"
            if game.done
            else f"Round {int(s[L.F_ROUND]) + 1}, phase {L.PHASE_NAMES[int(s[L.F_PH])]}"
        )
        + (f"; {'; '.join(flags)}" if flags else ""),
        f"Decision: {_decision_text(s, viewer)}"
        + (f", player {cur} to act" if cur >= 0 else "")
        + f"; active player {int(s[L.F_FIRST])}",
        f"Deck {int(s[L.F_DECK_N])} cards, discard pile {int(np.count_nonzero(loc == L.L_DISCARD))} cards",
    ]
    lines += _pending_lines(game, s, viewer)
    lines += _market_lines(s)
    for p in range(n):
        lines.append("")
        lines += _player_lines(game, s, p, viewer)
    lines.append("")
    shown = [k for k in range(L.N_ASSIST) if int(s[L.F_A_OWNER + k]) == -1]
    lines.append("Assistants on display:" + ("" if shown else " none"))
    lines += [f"  {_assistant_text(game, s, k)}" for k in shown]
    hands = range(n) if viewer is None else () if viewer == PUBLIC else (viewer,)
    for p in hands:
        cards = [int(c) for c in np.flatnonzero(loc == L.L_HAND + p)]
        who = "Your hand" if viewer is not None else f"Hand of player {p}"
        lines.append(f"{who} ({len(cards)} cards):" + ("" if cards else " empty"))
        lines += [f"  {_card_text(game, c)}" for c in cards]
    if game.done:
        lines.append("")
        lines.append(final_scores_text(game))
    return "\n".join(lines)


def score_parts(game: Game, p: int) -> dict[str, int]:
    """Seat ``p``'s score by its parts (R8.3): VP of buildings and of assistants, the coins of the
    goods left on its buildings and the VP they give (1 per 5 coins), the coins left over (the
    tie-break) and the total."""
    s = game.state
    C, AS = game.cards.buildings, game.cards.assistants
    buildings = sum(int(C[int(s[L.F_BLD + p * L.MAX_SLOTS + slot]), B_VP]) for slot in range(int(s[L.F_NB + p])))
    assistants = sum(
        int(AS[int(s[L.F_A_CARD + k]), int(s[L.F_A_SIDE + k]), A_VP])
        for k in range(L.N_ASSIST)
        if int(s[L.F_A_OWNER + k]) == p
    )
    coins = int(core.coins(s, C, p))
    return {
        "buildings": buildings,
        "assistants": assistants,
        "coins": coins,
        "goods": coins // 5,
        "left": coins % 5,
        "total": buildings + assistants + coins // 5,
    }


def final_scores_text(game: Game) -> str:
    """Final scores by R8.3: VP, leftover coins and the winner(s)."""
    scores = game.scores()
    winners = game.winners()
    lines = ["Final scores (R8.3):"]
    if game.num_players == 1:  # solo (R10.3): a score, no winner
        vp, left = scores[0]
        lines.append(f"  player 0: {vp} VP, {_plural(left, 'coin')} left over (solo score)")
        return "\n".join(lines)
    for p, (vp, left) in enumerate(scores):
        mark = "  <- winner" if p in winners else ""
        lines.append(f"  player {p}: {vp} VP, {_plural(left, 'coin')} left over{mark}")
    if len(winners) == game.num_players:
        lines.append("  all players tie")
    elif len(winners) > 1:
        lines.append(f"  shared win: players {', '.join(str(w) for w in winners)}")
    else:
        lines.append(f"  winner: player {winners[0]}")
    return "\n".join(lines)
