"""Card facts: everything a printed building card shows, for one card id, from the card table.

This module owns the reading of a card's row (:class:`~ohmygoods_env.cards.CardSet`) as the
facts a player reads off the printed card: name, kind, colour, cost, victory points, the
resource the card stands for as a hand card (R1.2), the half-sun (R5.1), what the building
needs to produce and what each work mode makes (efficient: all resources, 2 goods; sloppy:
all but one, 1 good, R7.2; the Glassmaker needs any N, R7.4), the good and its value in
coins (R1.3), the chain's inputs and output (R7.7, R7.8), and a Market Office's resource
(R7.5). :func:`card_facts` gives them as a JSON-ready dict, :func:`card_text` as one line,
and :func:`seat_card_facts` gathers the facts of every card a seat may see by name (its own
hand and set-aside card, every building on the table), never a card hidden from it.
"""

from __future__ import annotations

from typing import Any

from . import layout as L
from .cards import (
    B_CH_G1,
    B_CH_G2,
    B_CH_HAND,
    B_COLOUR,
    B_COST,
    B_GOOD,
    B_KIND,
    B_NEED0,
    B_NEED_ANY,
    B_OFFICE,
    B_RES,
    B_SUN,
    B_VALUE,
    B_VP,
    CHARBURNER_COLOUR,
    COLOURS,
    GOODS,
    KIND_PRODUCTION,
    KINDS,
    N_BUILDING_CARDS,
    N_RES,
    RESOURCES,
    CardSet,
)

__all__ = ["building_needs", "card_facts", "card_text", "chain_facts", "seat_card_facts"]


def _check_card(card: object) -> int:
    if isinstance(card, bool) or not isinstance(card, int) and not hasattr(card, "__index__"):
        raise TypeError(f"card must be an int card id in 0..{N_BUILDING_CARDS - 1}, got {card!r}")
    c = int(card)  # numpy integers too
    if not 0 <= c < N_BUILDING_CARDS:
        raise ValueError(f"card must be a card id in 0..{N_BUILDING_CARDS - 1}, got {c}")
    return c


def building_needs(row) -> tuple[dict[str, int], int]:
    """What building row ``row`` needs to produce (R7.2, R7.4): ``{resource: count}`` in resource
    order, and the number of *any* resources it needs (the Glassmaker, R7.4; else 0)."""
    needs = {RESOURCES[r]: int(row[B_NEED0 + r]) for r in range(N_RES) if row[B_NEED0 + r] > 0}
    return needs, int(row[B_NEED_ANY])


def _production(row) -> dict[str, Any] | None:
    """Needs and yield of each work mode (R7.2, R7.4), or None for a building that does not produce."""
    if row[B_KIND] != KIND_PRODUCTION:
        return None
    needs, needs_any = building_needs(row)
    total = needs_any or sum(needs.values())
    return {
        "needs": needs,
        "needs_any": needs_any,
        "efficient": {"resources": total, "goods": 2},
        "sloppy": {"resources": total - 1, "goods": 1},
    }


def chain_facts(row) -> dict[str, Any] | None:
    """Building row ``row``'s chain: ``hand`` (the resource taken from the hand, or None), ``goods``
    (the goods taken from its owner's buildings), ``output`` and ``makes`` (goods one run makes,
    R7.7, R7.8); None without a chain."""
    hand = RESOURCES[row[B_CH_HAND]] if row[B_CH_HAND] >= 0 else None
    goods = [GOODS[row[k]] for k in (B_CH_G1, B_CH_G2) if row[k] >= 0]
    if hand is None and not goods:
        return None
    inputs = (hand is not None) + len(goods)
    return {"hand": hand, "goods": goods, "output": GOODS[row[B_GOOD]], "makes": 2 if inputs == 2 else 1}


def card_facts(cards: CardSet, card: int) -> dict[str, Any]:
    """Every fact printed on building card ``card`` (0..97) of ``cards``, JSON-ready.

    Keys: ``card``, ``name``, ``kind``, ``colour``, ``cost`` (None for a Charburner, which
    is never built), ``vp``, ``resource`` (as a hand card; None for a Charburner),
    ``half_sun``, ``production`` (``needs``, ``needs_any``, ``efficient`` and ``sloppy``
    with their ``resources`` and ``goods``; None for a Market Office or the Extra-card
    building), ``good`` and ``value`` (None without a good), ``chain`` (``hand``, ``goods``,
    ``output``, ``makes``; None without one), ``office`` (a Market Office's resource) and
    ``text`` (:func:`card_text`).
    """
    c = _check_card(card)
    row = cards.buildings[c]
    charburner = row[B_COLOUR] == CHARBURNER_COLOUR
    facts = {
        "card": c,
        "name": cards.name(c),
        "kind": KINDS[row[B_KIND]],
        "colour": COLOURS[row[B_COLOUR]],
        "cost": None if charburner else int(row[B_COST]),
        "vp": int(row[B_VP]),
        "resource": RESOURCES[row[B_RES]] if row[B_RES] >= 0 else None,
        "half_sun": bool(row[B_SUN]),
        "production": _production(row),
        "good": GOODS[row[B_GOOD]] if row[B_GOOD] >= 0 else None,
        "value": int(row[B_VALUE]) if row[B_GOOD] >= 0 else None,
        "chain": chain_facts(row),
        "office": RESOURCES[row[B_OFFICE]] if row[B_OFFICE] >= 0 else None,
    }
    facts["text"] = _text(facts)
    return facts


def card_text(cards: CardSet, card: int) -> str:
    """The facts of :func:`card_facts` as one line of text (the terminal table, the page's hover)."""
    return card_facts(cards, card)["text"]


def _needs_text(production: dict[str, Any]) -> str:
    if production["needs_any"]:
        return f"any {production['needs_any']} resources"
    return " + ".join(f"{n} {r}" for r, n in production["needs"].items())


def _text(f: dict[str, Any]) -> str:
    cost = "not built (every player starts with one)" if f["cost"] is None else f"cost {f['cost']}"
    head = f"{f['name']} (card {f['card']}): {f['colour']} building, {cost}, {f['vp']} VP"
    hand = f"hand card: {f['resource']}" if f["resource"] else "no hand-card resource"
    parts = [head, hand + (", half-sun" if f["half_sun"] else "")]
    p = f["production"]
    if p is not None:
        good, coins = f["good"], "coin" if f["value"] == 1 else "coins"
        parts.append(
            f"needs {_needs_text(p)}: efficient {p['efficient']['resources']} -> 2 {good}, "
            f"sloppy {p['sloppy']['resources']} -> 1 {good}; {good} worth {f['value']} {coins} each"
        )
    elif f["office"] is not None:
        parts.append(f"no production: +1 {f['office']} in the market for its owner (R7.5)")
    else:
        parts.append("no production: an extra hand card in phase I (R1.4)")
    ch = f["chain"]
    if ch is not None:
        inputs = ([f"{ch['hand']} from hand"] if ch["hand"] else []) + [f"{g} from own goods" for g in ch["goods"]]
        parts.append(f"chain: {' + '.join(inputs)} -> {ch['makes']} {ch['output']}")
    return "; ".join(parts)


def seat_card_facts(game, seat: int) -> dict[str, Any]:
    """The facts of every card ``seat`` may see by name in ``game``: its own hand and set-aside
    card (R5.5), and every seat's buildings (public); no card hidden from the seat.

    Returns ``{"hand": [facts, ...], "aside": facts | None, "buildings": [[facts, ...] per seat]}``.
    """
    aside = int(game.state[L.F_ASIDE + seat])
    return {
        "hand": [card_facts(game.cards, c) for c in game.hand(seat)],
        "aside": card_facts(game.cards, aside) if aside >= 0 else None,
        "buildings": [[card_facts(game.cards, b) for b in game.buildings(p)] for p in range(game.num_players)],
    }
