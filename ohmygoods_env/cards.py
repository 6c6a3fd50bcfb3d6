"""Card data: loads and validates the card tables and turns them into arrays.

This module is the only place that knows the CSV files. Everything above it (rules,
engine, envs, render) sees two integer arrays and a few name lists, bundled in a
:class:`CardSet`:

``buildings`` — ``int32[98, NB_FIELDS]``, one row per building card. Rows 0..93 are the
94 deck cards (R1.1), rows 94..97 the four Charburners. Columns (``B_*`` constants):

=================  =====================================================================
column             meaning
=================  =====================================================================
``B_KIND``         ``KIND_PRODUCTION`` (incl. Charburner, Glassmaker), ``KIND_OFFICE``,
                   ``KIND_EXTRA`` (R1.4)
``B_COLOUR``       index into ``COLOURS`` (5 resources + ``charburner``) (R1.5)
``B_RES``          resource on the card's left edge, index into ``RESOURCES``; -1 for
                   Charburners (R1.2)
``B_SUN``          1 if the card shows a half-sun (R1.2, R5.1)
``B_COST``         build cost in coins
``B_VP``           victory points
``B_NEED0..4``     resources required to produce, per resource (R7.1)
``B_NEED_ANY``     Glassmaker: any N resources (R7.4); 0 otherwise
``B_GOOD``         good produced, index into ``GOODS``; -1 if none
``B_VALUE``        coin value of one good on this building (R1.3)
``B_CH_HAND``      chain input from hand: resource index or -1 (R7.7)
``B_CH_G1``        first chain input good (index into ``GOODS``) or -1
``B_CH_G2``        second chain input good or -1
``B_OFFICE``       Market Office resource index or -1 (R7.5)
=================  =====================================================================

``assistants`` — ``int32[8, 2, NA_FIELDS]`` (card, side): ``A_COST``, ``A_VP`` and
``A_REQ0..5``, the number of buildings of each colour (``COLOURS`` order) the hirer must own
(R7.12).

The shipped assistant table is a labelled reconstruction (no public source gives the printed
values); pass your own with ``load_cards(assistants=path)``.

A malformed table raises :class:`CardTableError` naming the file, the row and the field.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources as _res
from pathlib import Path

import numpy as np

from .framework.files import read_csv_table

RESOURCES: tuple[str, ...] = ("grain", "wood", "clay", "wool", "stone")
COLOURS: tuple[str, ...] = RESOURCES + ("charburner",)
GOODS: tuple[str, ...] = (
    "coal",
    "lumber",
    "iron",
    "barrels",
    "tools",
    "glass",
    "windows",
    "flour",
    "bread",
    "shoes",
    "food",
    "cloth",
    "shirts",
    "meat",
    "brick",
    "cattle",
    "leather",
)
KINDS: tuple[str, ...] = ("production", "market_office", "extra_card")

N_RES = len(RESOURCES)
N_COLOURS = len(COLOURS)
N_GOODS = len(GOODS)
N_DECK = 94
N_CHARBURNERS = 4
N_BUILDING_CARDS = N_DECK + N_CHARBURNERS
N_ASSISTANT_CARDS = 8
CHARBURNER_COLOUR = COLOURS.index("charburner")

KIND_PRODUCTION, KIND_OFFICE, KIND_EXTRA = 0, 1, 2

(
    B_KIND,
    B_COLOUR,
    B_RES,
    B_SUN,
    B_COST,
    B_VP,
    B_NEED0,
) = range(7)
B_NEED_ANY = B_NEED0 + N_RES
B_GOOD = B_NEED_ANY + 1
B_VALUE = B_GOOD + 1
B_CH_HAND = B_VALUE + 1
B_CH_G1 = B_CH_HAND + 1
B_CH_G2 = B_CH_G1 + 1
B_OFFICE = B_CH_G2 + 1
NB_FIELDS = B_OFFICE + 1

A_COST, A_VP, A_REQ0 = 0, 1, 2
NA_FIELDS = A_REQ0 + N_COLOURS

#: Checks of R1.1/R1.2 applied to a deck table (``strict=True``).
EXPECTED_RESOURCE_COUNTS = {"wood": 26, "grain": 17, "clay": 17, "wool": 17, "stone": 17}
EXPECTED_HALF_SUNS = 43


class CardTableError(ValueError):
    """A card table is malformed; the message names the file, row and field."""


@dataclass(frozen=True, eq=False)
class CardSet:
    """The card tables as arrays plus the names needed for text output."""

    buildings: np.ndarray
    assistants: np.ndarray
    names: tuple[str, ...]
    sources: tuple[str, ...]
    assistant_sources: tuple[str, ...] = field(default=())

    def name(self, building_id: int) -> str:
        """Printed name of building card ``building_id`` (0..97)."""
        return self.names[building_id]


def _data_path(name: str) -> Path:
    return Path(str(_res.files("ohmygoods_env") / "data" / name))


def _read(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """Rows of a card table; every problem names the file (:func:`~.framework.files.read_csv_table`)."""
    return read_csv_table(path, columns, CardTableError, "card table")


class _Row:
    """Field parser that names file, row and field in every error."""

    def __init__(self, path: Path, index: int, row: dict[str, str]):
        self.path, self.index, self.row = path, index, row

    def fail(self, fld: str, expected: str) -> CardTableError:
        value = self.row.get(fld)
        return CardTableError(
            f"{self.path.name}: row {self.index + 1} (id={self.row.get('id', self.row.get('card', '?'))!r}), "
            f"field {fld!r} = {value!r}: expected {expected}"
        )

    def int(self, fld: str, lo: int, hi: int) -> int:
        raw = (self.row.get(fld) or "").strip()
        try:
            v = int(raw)
        except ValueError:
            raise self.fail(fld, f"an integer in [{lo}, {hi}]") from None
        if not lo <= v <= hi:
            raise self.fail(fld, f"an integer in [{lo}, {hi}]")
        return v

    def choice(self, fld: str, options: tuple[str, ...], allow_empty: bool = False) -> int:
        raw = (self.row.get(fld) or "").strip()
        if allow_empty and raw == "":
            return -1
        if raw not in options:
            raise self.fail(fld, f"one of {list(options)}" + (" or empty" if allow_empty else ""))
        return options.index(raw)

    def text(self, fld: str) -> str:
        raw = (self.row.get(fld) or "").strip()
        if not raw:
            raise self.fail(fld, "a non-empty text")
        return raw


def _parse_needs(r: _Row, out: np.ndarray) -> None:
    raw = (r.row.get("needs") or "").strip()
    if not raw:
        raise r.fail("needs", "'resource:count;...' or 'any:N'")
    for part in raw.split(";"):
        name, _, cnt = part.partition(":")
        name = name.strip()
        try:
            n = int(cnt)
        except ValueError:
            raise r.fail("needs", "'resource:count;...' with integer counts") from None
        if n <= 0 or n > 20:
            raise r.fail("needs", "counts between 1 and 20")
        if name == "any":
            out[B_NEED_ANY] = n
        elif name in RESOURCES:
            out[B_NEED0 + RESOURCES.index(name)] += n
        else:
            raise r.fail("needs", f"resource names from {list(RESOURCES)} or 'any'")
    if out[B_NEED_ANY] and out[B_NEED0 : B_NEED0 + N_RES].any():
        raise r.fail("needs", "either 'any:N' alone or named resources")


def _parse_chain(r: _Row, out: np.ndarray) -> None:
    raw = (r.row.get("chain") or "").strip()
    out[B_CH_HAND] = out[B_CH_G1] = out[B_CH_G2] = -1
    if not raw:
        return
    parts = raw.split("+")
    if len(parts) > 2:
        raise r.fail("chain", "at most two inputs joined by '+'")
    for part in parts:
        src, _, name = part.strip().partition(":")
        if src == "hand" and name in RESOURCES and out[B_CH_HAND] < 0:
            out[B_CH_HAND] = RESOURCES.index(name)
        elif src == "good" and name in GOODS:
            slot = B_CH_G1 if out[B_CH_G1] < 0 else B_CH_G2
            out[slot] = GOODS.index(name)
        else:
            raise r.fail("chain", f"'hand:RESOURCE' (one at most) or 'good:GOOD' with GOOD in {list(GOODS)}")


def _parse_production(r: _Row, out: np.ndarray) -> None:
    """A production building's needs, good, good value and chain (R7.2, R1.3, R7.7)."""
    _parse_needs(r, out)
    out[B_GOOD] = r.choice("good", GOODS)
    out[B_VALUE] = r.int("good_value", 1, 20)
    _parse_chain(r, out)


def _read_counted(path: Path, columns: tuple[str, ...], n: int, what: str) -> list[dict[str, str]]:
    """The rows of a card table that holds exactly ``n`` cards (``what``, R1.1)."""
    rows = _read(path, columns)
    if len(rows) != n:
        raise CardTableError(f"{path.name}: {len(rows)} rows; expected {n} {what} (R1.1)")
    return rows


def _check_id(r: _Row, i: int, n: int) -> None:
    """Row ``i`` of a table of ``n`` cards has id ``i`` (ids are 0..n-1 in row order)."""
    if r.int("id", 0, n - 1) != i:
        raise r.fail("id", f"{i} (ids are 0..{n - 1} in order)")


DECK_COLUMNS = (
    "id",
    "kind",
    "name",
    "colour",
    "resource",
    "half_sun",
    "cost",
    "vp",
    "needs",
    "good",
    "good_value",
    "chain",
    "office_resource",
    "source",
)
CHARBURNER_COLUMNS = ("id", "name", "needs", "good", "good_value", "chain", "vp", "source")
ASSISTANT_COLUMNS = ("card", "side", "cost", "vp", "requires_buildings", "source")


def _parse_deck(path: Path, strict: bool) -> tuple[np.ndarray, list[str], list[str]]:
    rows = _read_counted(path, DECK_COLUMNS, N_DECK, "deck cards")
    table = np.zeros((N_DECK, NB_FIELDS), np.int32)
    names, sources = [], []
    for i, row in enumerate(rows):
        r = _Row(path, i, row)
        _check_id(r, i, N_DECK)
        out = table[i]
        kind = r.choice("kind", KINDS)
        out[B_KIND] = kind
        names.append(r.text("name"))
        out[B_COLOUR] = r.choice("colour", RESOURCES)
        out[B_RES] = r.choice("resource", RESOURCES)
        out[B_SUN] = r.int("half_sun", 0, 1)
        out[B_COST] = r.int("cost", 1, 40)
        out[B_VP] = r.int("vp", 0, 20)
        out[B_GOOD] = -1
        out[B_OFFICE] = -1
        if kind == KIND_PRODUCTION:
            _parse_production(r, out)
            if (row.get("office_resource") or "").strip():
                raise r.fail("office_resource", "empty for a production building")
        else:
            for fld in ("needs", "good", "good_value", "chain"):
                if (row.get(fld) or "").strip():
                    raise r.fail(fld, f"empty for a {KINDS[kind]} card")
            out[B_CH_HAND] = out[B_CH_G1] = out[B_CH_G2] = -1
            if kind == KIND_OFFICE:
                out[B_OFFICE] = r.choice("office_resource", RESOURCES)
            elif (row.get("office_resource") or "").strip():
                raise r.fail("office_resource", "empty for an extra_card building")
        sources.append((row.get("source") or "").strip())
    if strict:
        counts = {res: int((table[:, B_RES] == k).sum()) for k, res in enumerate(RESOURCES)}
        if counts != EXPECTED_RESOURCE_COUNTS:
            raise CardTableError(f"{path.name}: resource counts {counts}; expected {EXPECTED_RESOURCE_COUNTS} (R1.2)")
        suns = int(table[:, B_SUN].sum())
        if suns != EXPECTED_HALF_SUNS:
            raise CardTableError(f"{path.name}: {suns} half-suns; expected {EXPECTED_HALF_SUNS} (R1.2)")
    return table, names, sources


def _parse_charburners(path: Path) -> tuple[np.ndarray, list[str], list[str]]:
    rows = _read_counted(path, CHARBURNER_COLUMNS, N_CHARBURNERS, "Charburners")
    table = np.zeros((N_CHARBURNERS, NB_FIELDS), np.int32)
    names, sources = [], []
    for i, row in enumerate(rows):
        r = _Row(path, i, row)
        _check_id(r, i, N_CHARBURNERS)
        out = table[i]
        out[B_KIND] = KIND_PRODUCTION
        out[B_COLOUR] = CHARBURNER_COLOUR
        out[B_RES] = -1
        out[B_OFFICE] = -1
        out[B_VP] = r.int("vp", 0, 20)
        _parse_production(r, out)
        names.append(r.text("name"))
        sources.append((row.get("source") or "").strip())
    return table, names, sources


def _parse_assistants(path: Path) -> tuple[np.ndarray, list[str]]:
    rows = _read(path, ASSISTANT_COLUMNS)
    if len(rows) != 2 * N_ASSISTANT_CARDS:
        raise CardTableError(
            f"{path.name}: {len(rows)} rows; expected {2 * N_ASSISTANT_CARDS} (8 cards x sides A, B) (R1.1)"
        )
    table = np.zeros((N_ASSISTANT_CARDS, 2, NA_FIELDS), np.int32)
    seen = np.zeros((N_ASSISTANT_CARDS, 2), bool)
    sources = [""] * (2 * N_ASSISTANT_CARDS)
    for i, row in enumerate(rows):
        r = _Row(path, i, row)
        card = r.int("card", 1, N_ASSISTANT_CARDS) - 1
        side = r.choice("side", ("A", "B"))
        if seen[card, side]:
            raise r.fail("side", "each (card, side) pair once")
        seen[card, side] = True
        out = table[card, side]
        out[A_COST] = r.int("cost", 0, 40)
        out[A_VP] = r.int("vp", 0, 20)
        raw = (row.get("requires_buildings") or "").strip()
        for colour in filter(None, (c.strip() for c in raw.split(";"))):
            if colour not in COLOURS:
                raise r.fail("requires_buildings", f"colours from {list(COLOURS)} separated by ';'")
            out[A_REQ0 + COLOURS.index(colour)] += 1
        sources[card * 2 + side] = (row.get("source") or "").strip()
    return table, sources


@functools.lru_cache(maxsize=8)
def _load_cached(deck: str, charburners: str, assistants: str, strict: bool, stamps: tuple) -> CardSet:
    deck_t, deck_names, deck_src = _parse_deck(Path(deck), strict)
    cb_t, cb_names, cb_src = _parse_charburners(Path(charburners))
    as_t, as_src = _parse_assistants(Path(assistants))
    buildings = np.ascontiguousarray(np.concatenate([deck_t, cb_t]))
    buildings.setflags(write=False)
    as_t.setflags(write=False)
    return CardSet(
        buildings=buildings,
        assistants=as_t,
        names=tuple(deck_names + cb_names),
        sources=tuple(deck_src + cb_src),
        assistant_sources=tuple(as_src),
    )


def _stamp(path: Path) -> tuple[int, int, int]:
    """What the cache compares: a file edited (or replaced) since it was read gives another stamp."""
    try:
        st = path.stat()
    except OSError as exc:
        raise CardTableError(f"{path}: cannot read card table ({exc})") from exc
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def load_cards(
    deck: str | Path | None = None,
    charburners: str | Path | None = None,
    assistants: str | Path | None = None,
    strict: bool = True,
) -> CardSet:
    """Load and validate the card tables; any path left ``None`` uses the shipped file.

    ``strict`` also checks the deck composition of R1.2 (26 wood, 17 of each other
    resource, 43 half-suns). Tables are UTF-8 CSV (a byte-order mark is accepted), one value
    per column. Results are cached per resolved path and file stamp (modification time,
    size, inode): an edited file or another working directory never returns stale tables.
    """
    paths = [
        Path(p or _data_path(default)).resolve()
        for p, default in ((deck, "deck.csv"), (charburners, "charburners.csv"), (assistants, "assistants.csv"))
    ]
    stamps = tuple(_stamp(p) for p in paths)
    return _load_cached(str(paths[0]), str(paths[1]), str(paths[2]), bool(strict), stamps)


def default_cards() -> CardSet:
    """The shipped card set."""
    return load_cards()
