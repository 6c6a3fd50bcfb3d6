"""The *Artificium* tables: card types (``data/cards.csv``) and the resource board (``data/board.csv``).

This module is the only one that knows CSV. :func:`load_tables` validates both tables and
returns an :class:`ArtTables` of plain ``int32`` arrays that the kernels of
:mod:`ohmygoods_env.artificium.core` read:

* ``types`` ``int32[N_TYPES, NT_FIELDS]``: one row per card type (A1.2, A1.3): kind, count,
  VP, up to two input resources, output resource and amount, coin cost, effect (A7.2).
* ``board`` ``int32[N_RES, NB_FIELDS]``: buy price, sell price, tier per resource (A1.5, A1.5).
* ``track`` ``int32[TRACK_CELLS]``: the resource a score-track cell gives, -1 for none (A5.4).
* ``card_type`` ``int32[N_CARDS]``: the type of each of the 108 physical cards, ids in type order.

Every problem in a table raises :class:`ArtTableError` naming the file, row and field and
what was expected. The resources, effects and card total are fixed by the engine's layout
(the state row has one slot per card), so the tables must list exactly those.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..framework.files import read_csv_table

#: Resources in board order (A1.5); every resource column and action range uses this order.
RESOURCES: tuple[str, ...] = ("wood", "wheat", "coal", "food", "kvass", "crystal", "metal", "potion", "sword")
N_RES = len(RESOURCES)
#: Card effects (``effect`` column): the four actions (A6) and the three building effects (A7).
EFFECTS: tuple[str, ...] = ("scouting", "theft", "reconstruction", "fair", "produce", "mage", "knight")
EF_SCOUTING, EF_THEFT, EF_RECONSTRUCTION, EF_FAIR, EF_PRODUCE, EF_MAGE, EF_KNIGHT = range(7)
KINDS: tuple[str, ...] = ("action", "building")
KIND_ACTION, KIND_BUILDING = 0, 1
#: Card types (rows of cards.csv) and physical cards (A1.1).
N_TYPES = 16
N_CARDS = 108
#: Score-track cells 0..TRACK_CELLS-1; a cell that gives a resource lies in 1..TRACK_CELLS-1 (A5.4).
TRACK_CELLS = 100
#: Highest price or tier a board row may hold (sane limits for a user-supplied table).
MAX_PRICE = 20
MAX_TIER = 4

# type table fields
T_KIND, T_COUNT, T_VP, T_IN0, T_IN1, T_OUT, T_OUT_N, T_COIN, T_EFFECT = range(9)
NT_FIELDS = 9
# board table fields
B_BUY, B_SELL, B_TIER = range(3)
NB_FIELDS = 3

CARD_COLUMNS = ("id", "name", "kind", "count", "vp", "inputs", "output", "coin_cost", "effect")
BOARD_COLUMNS = ("resource", "buy", "sell", "tier", "track_cells")


class ArtTableError(ValueError):
    """A table is malformed; the message names the file, row and field and what was expected."""


@dataclass(frozen=True, eq=False)
class ArtTables:
    """The validated tables as arrays, plus names for text output and the files they came from."""

    types: np.ndarray
    board: np.ndarray
    track: np.ndarray
    card_type: np.ndarray
    names: tuple[str, ...]
    paths: tuple[str, str]

    def type_name(self, t: int) -> str:
        """Name of card type ``t`` (0..15)."""
        return self.names[t]

    def card_name(self, card: int) -> str:
        """Name of physical card ``card`` (0..107)."""
        return self.names[int(self.card_type[card])]


def data_path(name: str) -> Path:
    """Path of a bundled table (``cards.csv`` or ``board.csv``)."""
    return Path(__file__).resolve().parent / "data" / name


def _read(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """Rows of a table; every problem names the file (:func:`~ohmygoods_env.framework.files.read_csv_table`)."""
    return read_csv_table(path, columns, ArtTableError)


class _Row:
    """Field parser that names the file, row and field in every error."""

    def __init__(self, path: Path, index: int, row: dict[str, str], key: str):
        self.path, self.index, self.row, self.key = path, index, row, key

    def fail(self, fld: str, expected: str) -> ArtTableError:
        return ArtTableError(
            f"{self.path.name}: row {self.index + 1} ({self.key}={self.row.get(self.key)!r}), "
            f"field {fld!r} = {self.row.get(fld)!r}: expected {expected}"
        )

    def raw(self, fld: str) -> str:
        return (self.row.get(fld) or "").strip()

    def int(self, fld: str, lo: int, hi: int) -> int:
        try:
            v = int(self.raw(fld))
        except ValueError:
            raise self.fail(fld, f"an integer in [{lo}, {hi}]") from None
        if not lo <= v <= hi:
            raise self.fail(fld, f"an integer in [{lo}, {hi}]")
        return v

    def choice(self, fld: str, options: tuple[str, ...]) -> int:
        if self.raw(fld) not in options:
            raise self.fail(fld, f"one of {list(options)}")
        return options.index(self.raw(fld))

    def resource(self, fld: str, name: str) -> int:
        if name not in RESOURCES:
            raise self.fail(fld, f"resources from {list(RESOURCES)}")
        return RESOURCES.index(name)


def _parse_inputs(r: _Row, row: np.ndarray) -> None:
    raw = r.raw("inputs")
    names = [s.strip() for s in raw.split("+")] if raw else []
    if len(names) > 2:
        raise r.fail("inputs", "at most two resources joined by '+' (e.g. coal+crystal), or empty")
    row[T_IN0] = r.resource("inputs", names[0]) if names else -1
    row[T_IN1] = r.resource("inputs", names[1]) if len(names) > 1 else -1


def _parse_output(r: _Row, row: np.ndarray, effect: int) -> None:
    raw = r.raw("output")
    row[T_OUT], row[T_OUT_N] = -1, 0
    if effect != EF_PRODUCE:
        if raw:
            raise r.fail("output", f"empty for a card with effect {EFFECTS[effect]!r}")
        return
    name, _, n = raw.partition(":")
    row[T_OUT] = r.resource("output", name.strip())
    try:
        row[T_OUT_N] = int(n)
    except ValueError:
        raise r.fail("output", "resource:amount, e.g. wood:2") from None
    if not 1 <= row[T_OUT_N] <= 5:
        raise r.fail("output", "an amount in [1, 5]")


def _parse_type(r: _Row, t: int) -> tuple[np.ndarray, str]:
    row = np.zeros(NT_FIELDS, np.int32)
    if r.int("id", 0, N_TYPES - 1) != t:
        raise r.fail("id", f"{t} (ids run 0..{N_TYPES - 1} in row order)")
    row[T_KIND] = r.choice("kind", KINDS)
    row[T_COUNT] = r.int("count", 1, N_CARDS)
    row[T_VP] = r.int("vp", 0, 20)
    row[T_COIN] = r.int("coin_cost", 0, 5)
    effect = r.choice("effect", EFFECTS)
    if (effect <= EF_FAIR) != (row[T_KIND] == KIND_ACTION):
        raise r.fail("effect", "an action effect for kind 'action' and a building effect for kind 'building'")
    row[T_EFFECT] = effect
    _parse_inputs(r, row)
    _parse_output(r, row, effect)
    if not r.raw("name"):
        raise r.fail("name", "a non-empty name")
    return row, r.raw("name")


def _parse_cards(path: Path) -> tuple[np.ndarray, tuple[str, ...]]:
    rows = _read(path, CARD_COLUMNS)
    if len(rows) != N_TYPES:
        raise ArtTableError(f"{path.name}: {len(rows)} rows, expected {N_TYPES} card types")
    parsed = [_parse_type(_Row(path, i, row, "id"), i) for i, row in enumerate(rows)]
    types = np.stack([p[0] for p in parsed])
    total = int(types[:, T_COUNT].sum())
    if total != N_CARDS:
        raise ArtTableError(f"{path.name}: the counts add up to {total} cards, expected {N_CARDS}")
    for e in range(len(EFFECTS)):
        if e != EF_PRODUCE and int((types[:, T_EFFECT] == e).sum()) != 1:
            raise ArtTableError(f"{path.name}: effect {EFFECTS[e]!r} must appear on exactly one row")
    return types, tuple(p[1] for p in parsed)


def _parse_cells(r: _Row, res: int, track: np.ndarray) -> None:
    raw = r.raw("track_cells")
    for part in raw.split(";") if raw else []:
        try:
            cell = int(part)
        except ValueError:
            raise r.fail("track_cells", f"cells in [1, {TRACK_CELLS - 1}] separated by ';', or empty") from None
        if not 1 <= cell < TRACK_CELLS:
            raise r.fail("track_cells", f"cells in [1, {TRACK_CELLS - 1}] separated by ';', or empty")
        if track[cell] != -1:
            raise r.fail("track_cells", f"cells not already given to {RESOURCES[track[cell]]!r} (cell {cell})")
        track[cell] = res


def _parse_board(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rows = _read(path, BOARD_COLUMNS)
    if len(rows) != N_RES:
        raise ArtTableError(f"{path.name}: {len(rows)} rows, expected one per resource {list(RESOURCES)}")
    board = np.zeros((N_RES, NB_FIELDS), np.int32)
    track = np.full(TRACK_CELLS, -1, np.int32)
    for i, row in enumerate(rows):
        r = _Row(path, i, row, "resource")
        if r.raw("resource") != RESOURCES[i]:
            raise r.fail("resource", f"{RESOURCES[i]!r} (resources in the order {list(RESOURCES)})")
        board[i, B_SELL] = r.int("sell", 1, MAX_PRICE)
        board[i, B_BUY] = r.int("buy", board[i, B_SELL] + 1, MAX_PRICE)  # A1.5: buy > sell
        board[i, B_TIER] = r.int("tier", 1, MAX_TIER)
        _parse_cells(r, i, track)
    return board, track


@lru_cache(maxsize=8)
def _load_cached(cards: str, board: str, stamps: tuple) -> ArtTables:
    types, names = _parse_cards(Path(cards))
    b, track = _parse_board(Path(board))
    card_type = np.repeat(np.arange(N_TYPES, dtype=np.int32), types[:, T_COUNT]).astype(np.int32)
    for a in (types, b, track, card_type):
        a.setflags(write=False)
    return ArtTables(types, b, track, card_type, names, (cards, board))


def _stamp(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError as exc:
        raise ArtTableError(f"{path}: cannot read the table ({exc})") from exc
    return (st.st_mtime_ns, st.st_size)


def load_tables(cards: str | Path | None = None, board: str | Path | None = None) -> ArtTables:
    """Load and validate the card and board tables (the bundled ones by default).

    A user-supplied ``board`` replaces the reconstructed prices, tiers and track cells
    (see ``data/README.md``). Raises :class:`ArtTableError` naming what is wrong.
    """
    cp = Path(cards) if cards is not None else data_path("cards.csv")
    bp = Path(board) if board is not None else data_path("board.csv")
    return _load_cached(str(cp), str(bp), (_stamp(cp), _stamp(bp)))


def default_tables() -> ArtTables:
    """The bundled tables."""
    return load_tables()
