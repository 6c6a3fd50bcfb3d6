"""The observation and action spaces every env uses: :func:`observation_space`, :func:`action_space`,
and the privileged global state of the PettingZoo envs (:func:`global_state`, :func:`state_space`).

The observation's blocks and features are declared once in :mod:`ohmygoods_env.layout`,
each with its scale and the name of its bound. This module turns the bound names into the
largest raw values the card tables and rules allow and divides by the scale, giving the
per-entry upper bound of the ``Box`` (the lower bound is 0). Bounds are never below 1, so
an entry's bound reads on the same scale as its declaration.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from . import layout as L
from .cards import (
    A_COST,
    A_REQ0,
    A_VP,
    B_COST,
    B_NEED0,
    B_NEED_ANY,
    B_OFFICE,
    B_RES,
    B_VALUE,
    B_VP,
    N_RES,
    CardSet,
    default_cards,
)
from .rules import RuleSet

__all__ = [
    "N_PLACES",
    "STATE_DIM",
    "action_space",
    "bound_values",
    "feature_table",
    "global_state",
    "observation_high",
    "observation_space",
    "observation_table",
    "state_space",
]


def bound_values(cards: CardSet | None = None, rules: RuleSet | None = None) -> dict[str, float]:
    """Largest raw value of each bound name used in ``layout`` (before dividing by the scale)."""
    cards = cards if cards is not None else default_cards()
    rules = rules if rules is not None else RuleSet()
    B, A = cards.buildings, cards.assistants
    n = L.N_CARDS
    deck = B[:n]
    max_value = int(B[:, B_VALUE].max())
    max_vp = int(B[:, B_VP].max())
    max_avp = int(A[:, :, A_VP].max())
    money = n * max_value
    return {
        "one": 1.0,
        "rounds": float(rules.max_rounds),
        "cards": float(n),
        "resource_cards": float(np.bincount(deck[:, B_RES], minlength=N_RES).max()),
        "offices": float(max(int(np.count_nonzero(deck[:, B_OFFICE] == r)) for r in range(N_RES))),
        "need": float(B[:, B_NEED0 : B_NEED0 + N_RES].max()),
        "need_any": float(B[:, B_NEED_ANY].max()),
        "due": float(max(int(B[:, B_COST].max()), int(A[:, :, A_COST].max()), 2)),
        "money": float(money),
        "assistants": float(L.N_ASSIST),
        "score": float(L.MAX_SLOTS * max_vp + L.N_ASSIST * max_avp + money // 5),
        "vp": float(max_vp),
        "assistant_cost": float(A[:, :, A_COST].max()),
        "assistant_vp": float(max_avp),
        "assistant_req": float(A[:, :, A_REQ0:].max()),
    }


def _fill(h: np.ndarray, base: int, table, values: dict[str, float]) -> None:
    for _, off, size, scale, bound in table:
        h[base + off : base + off + size] = values[bound] / scale


def observation_high(cards: CardSet | None = None, rules: RuleSet | None = None) -> np.ndarray:
    """Per-entry upper bound (float32[OBS_DIM]) of the engine's observation; the lower bound is 0."""
    v = bound_values(cards, rules)
    h = np.ones(L.OBS_DIM, np.float64)
    _fill(h, 0, L.OBS_TABLE, v)
    for seat in range(L.MAX_PLAYERS):
        _fill(h, L.O_PLAYERS + seat * L.PLAYER_FEATURES, L.PLAYER_FEATURE_TABLE, v)
        for slot in range(L.MAX_SLOTS):
            _fill(h, L.O_SLOTS + (seat * L.MAX_SLOTS + slot) * L.SLOT_FEATURES, L.SLOT_FEATURE_TABLE, v)
    for k in range(L.N_ASSIST):
        _fill(h, L.O_ASSIST + k * L.ASSIST_FEATURES, L.ASSIST_FEATURE_TABLE, v)
    return np.maximum(h, 1.0).astype(np.float32)


def observation_space(cards: CardSet | None = None, rules: RuleSet | None = None) -> gymnasium.spaces.Box:
    """``Box(0, observation_high(cards, rules), (OBS_DIM,), float32)``: one game's observation."""
    return gymnasium.spaces.Box(low=0.0, high=observation_high(cards, rules), shape=(L.OBS_DIM,), dtype=np.float32)


def action_space() -> gymnasium.spaces.Discrete:
    """``Discrete(N_ACTIONS)``: one action space for every decision (table in :mod:`ohmygoods_env.actions`)."""
    return gymnasium.spaces.Discrete(L.N_ACTIONS)


def _scaled(name: str, scale: float) -> str:
    return name if scale == 1.0 else f"{name} / {scale:g}"


def observation_table() -> str:
    """The markdown block table of ``docs/layouts.md``, generated from ``layout.OBS_TABLE``."""
    lines = ["| index | size | content |", "|---|---|---|"]
    for name, off, n, scale, _ in L.OBS_TABLE:
        ids = f"{off}..{off + n - 1}" if n > 1 else f"{off}"
        lines.append(f"| {ids} | {n} | {_scaled(name, scale)} |")
    return "\n".join(lines)


def feature_table(table: tuple[tuple[str, int, int, float, str], ...]) -> str:
    """A markdown table of one record's features (``layout.*_FEATURE_TABLE``)."""
    lines = ["| offset | size | feature |", "|---|---|---|"]
    for name, off, n, scale, _ in table:
        ids = f"{off}..{off + n - 1}" if n > 1 else f"{off}"
        lines.append(f"| {ids} | {n} | {_scaled(name, scale)} |")
    return "\n".join(lines)


# ===================================================================== the privileged global state

#: Card places in the global state: deck, discard, market rows 1 and 2, escrow, empty-deck
#: discards, then hand, set-aside, built and goods for each of ``MAX_PLAYERS`` seats.
N_PLACES = L.L_GOODS + L.MAX_PLAYERS
#: Length of :func:`global_state`: seat 0's observation, each deck card's true place
#: (one-hot over ``N_PLACES``), each seat's phase-I choice (1 discard) and staff per slot / 3.
STATE_DIM = L.OBS_DIM + L.N_CARDS * N_PLACES + L.MAX_PLAYERS + L.MAX_PLAYERS * L.MAX_SLOTS


def global_state(states: np.ndarray, obs_seat0: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The **privileged** global state (float32[N, STATE_DIM]) of ``N`` games, for centralised critics.

    ``states`` is ``int32[N, STATE_LEN]`` (engine rows), ``obs_seat0`` their observations
    from seat 0 (``float32[N, OBS_DIM]``). Layout: ``obs_seat0`` | per deck card a one-hot of
    its true place (:data:`N_PLACES`) | per seat the phase-I choice | per seat x slot the
    staff code / 3. It holds every hand, set-aside card and the deck's contents: never feed
    it to a policy.
    """
    states = np.asarray(states)
    n = states.shape[0]
    if out is None:
        out = np.empty((n, STATE_DIM), np.float32)
    out[:, : L.OBS_DIM] = obs_seat0
    loc = states[:, L.F_LOC : L.F_LOC + L.N_CARDS].astype(np.int64)
    place = np.where(loc < L.L_GOODS, loc, L.L_GOODS + (loc - L.L_GOODS) // L.MAX_SLOTS)
    o = L.OBS_DIM
    onehot = out[:, o : o + L.N_CARDS * N_PLACES].reshape(n, L.N_CARDS, N_PLACES)
    onehot[:] = 0.0
    np.put_along_axis(onehot, place[:, :, None], 1.0, axis=2)
    o += L.N_CARDS * N_PLACES
    out[:, o : o + L.MAX_PLAYERS] = states[:, L.F_P1 : L.F_P1 + L.MAX_PLAYERS]
    o += L.MAX_PLAYERS
    out[:, o:] = states[:, L.F_STAFF : L.F_STAFF + L.MAX_PLAYERS * L.MAX_SLOTS] / 3.0
    return out


def state_space(cards: CardSet | None = None, rules: RuleSet | None = None) -> gymnasium.spaces.Box:
    """The space of :func:`global_state` rows (privileged: for critics only)."""
    high = np.ones(STATE_DIM, np.float32)
    high[: L.OBS_DIM] = observation_high(cards, rules)
    return gymnasium.spaces.Box(0.0, high, (STATE_DIM,), np.float32)
