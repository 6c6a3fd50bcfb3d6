"""Files and JSON from outside: bounded parsing, atomic writes, and outputs that never overwrite inputs.

Everything the project reads from a user (a games file, a checkpoint description, a request
body) goes through :func:`loads_bounded`, which refuses what ``json.loads`` would let through
or crash on: nesting deeper than ``max_depth`` (checked by a scan before anything is parsed),
numbers longer than ``max_digits`` characters (a 5,000-digit integer), ``NaN`` / ``Infinity``
and floats that overflow to infinity, and bytes that are not UTF-8. Each refusal is a
:class:`BadJSON` whose message names the problem.

A data table of a game (its cards, its board) is read by :func:`read_csv_table`: every
problem (a missing column, a row with more fields than the header, bytes that are not UTF-8,
malformed CSV, an unreadable file) raises the game's own table error naming the file.

Everything the commands write goes through :func:`write_atomic` (a temporary file in the same
folder, then ``os.replace``: a reader sees the old file or the new one, never half of one),
after :func:`check_output` has refused an output that is one of the inputs (same path, another
spelling, a symbolic or hard link: compared by device and inode) or that cannot be a file.

The validators of the project's JSON formats (an evaluation protocol, a report card, a games
file's rows) check each field with :func:`field_str`, :func:`field_int`, :func:`field_number`,
:func:`field_object` and :func:`field_list`: each returns the value or raises a ``ValueError``
naming the field (``where``) and what was expected.
"""

from __future__ import annotations

import csv
import math
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "BadJSON",
    "OutputError",
    "check_output",
    "field_int",
    "field_list",
    "field_number",
    "field_object",
    "field_str",
    "json_depth_exceeds",
    "loads_bounded",
    "read_csv_table",
    "read_json_file",
    "same_file",
    "write_atomic",
]

#: default limits of :func:`loads_bounded`
MAX_DEPTH = 32
MAX_DIGITS = 40

_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class BadJSON(ValueError):
    """JSON text that is malformed or beyond the limits (the message says which)."""


class OutputError(ValueError):
    """An output path that cannot be written without harm (the message says why)."""


def json_depth_exceeds(data: bytes, max_depth: int) -> bool:
    """Whether the JSON text ``data`` nests arrays/objects deeper than ``max_depth`` (a scan, no parsing)."""
    depth = 0
    for m in _TOKENS.finditer(data):
        c = m.group()
        if c in (b"[", b"{"):
            depth += 1
            if depth > max_depth:
                return True
        elif c in (b"]", b"}"):
            depth -= 1
    return False


def loads_bounded(
    data: bytes | str, *, max_depth: int = MAX_DEPTH, max_digits: int = MAX_DIGITS, allow_nan: bool = False
) -> Any:
    """``json.loads`` within limits: :class:`BadJSON` for invalid UTF-8, deep nesting, long or non-finite numbers.

    ``allow_nan=True`` accepts ``NaN``, ``Infinity`` and overflowing floats (files of other
    programs that write them, such as Stable-Baselines3's ``data``).
    """
    import json

    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadJSON(f"not UTF-8 text (byte {exc.start})") from None
    if json_depth_exceeds(data, max_depth):
        raise BadJSON(f"nested deeper than {max_depth} levels")

    def number(kind: type) -> Any:
        def convert(s: str) -> Any:
            if len(s) > max_digits:
                raise BadJSON(f"a number of {len(s)} characters (at most {max_digits})")
            value = kind(s)
            if kind is float and not allow_nan and not math.isfinite(value):
                raise BadJSON(f"the number {s} is not finite")
            return value

        return convert

    def constant(s: str) -> Any:
        if allow_nan:
            return float(s)
        raise BadJSON(f"{s} is not a JSON number")

    try:
        return json.loads(text, parse_int=number(int), parse_float=number(float), parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise BadJSON(f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:  # pragma: no cover - the depth scan refuses these first
        raise BadJSON(f"nested deeper than {max_depth} levels") from None


def _got(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


def field_str(value: object, where: str) -> str:
    """``value`` if it is a string, else ``ValueError`` naming ``where``."""
    if not isinstance(value, str):
        raise ValueError(f"{where} must be a string, got {_got(value)}")
    return value


def field_int(value: object, where: str, lo: int = 0, hi: int = 10**9) -> int:
    """``value`` if it is an int (not a bool) in ``[lo, hi]``, else ``ValueError`` naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{where} must be an int in [{lo}, {hi}], got {_got(value)}")
    return value


def field_number(value: object, where: str, lo: float = -1e12, hi: float = 1e12) -> float:
    """``value`` as a float if it is a number (not a bool) in ``[lo, hi]``, else ``ValueError`` naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise ValueError(f"{where} must be a number in [{lo:g}, {hi:g}], got {_got(value)}")
    return float(value)


def field_object(value: object, where: str) -> dict:
    """``value`` if it is a JSON object (a dict), else ``ValueError`` naming ``where``."""
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be an object, got {_got(value)}")
    return value


def field_list(value: object, where: str, length: int | None = None) -> list:
    """``value`` if it is a list (of ``length`` items when given), else ``ValueError`` naming ``where``."""
    if not isinstance(value, list) or (length is not None and len(value) != length):
        size = "" if length is None else f" of {length} items"
        raise ValueError(f"{where} must be a list{size}, got {_got(value)}")
    return value


def read_csv_table(
    path: Path, columns: tuple[str, ...], error: type[Exception], what: str = "table"
) -> list[dict[str, str]]:
    """Rows of the UTF-8 CSV table ``path`` (a byte-order mark is accepted) as dicts by column.

    Every problem raises ``error`` naming the file: a column of ``columns`` missing from the
    header, a row with more fields than the header, bytes that are not UTF-8, malformed CSV
    (a field over ``csv.field_size_limit()``), a file that cannot be read (``what`` names it).
    """
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = tuple(reader.fieldnames or ())
            missing = [c for c in columns if c not in header]
            if missing:
                raise error(f"{path}: missing column(s) {missing}; expected {list(columns)}")
            rows = []
            for row in reader:
                if None in row:  # DictReader's key for fields beyond the header
                    raise error(
                        f"{path}: line {reader.line_num} has {len(header) + len(row[None])} fields, the header "
                        f"has {len(header)}: expected one value per column {list(header)}"
                    )
                rows.append(row)
            return rows
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); save the table as UTF-8") from exc
    except csv.Error as exc:
        raise error(
            f"{path}: malformed CSV ({exc}); fields are limited to {csv.field_size_limit()} characters"
        ) from exc
    except OSError as exc:
        raise error(f"{path}: cannot read {what} ({exc})") from exc


def read_json_file(path: str | Path, *, max_bytes: int, **limits: int) -> Any:
    """The JSON of file ``path`` (at most ``max_bytes``), parsed by :func:`loads_bounded`.

    :class:`BadJSON` for a file too large or bad JSON; ``OSError`` when it cannot be read.
    """
    with open(path, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise BadJSON(f"larger than {max_bytes} bytes")
    return loads_bounded(data, **limits)


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same device and inode (links, ``./`` spellings)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist: compare the resolved paths
        return Path(os.path.abspath(a)).resolve() == Path(os.path.abspath(b)).resolve()


def check_output(out: str | Path, inputs: Iterable[str | Path] = ()) -> Path:
    """``out`` as a Path, after refusing an output that is an input, a folder, or in a missing folder."""
    p = Path(out)
    for src in inputs:
        if same_file(p, src):
            raise OutputError(f"the output {str(out)!r} is the input {str(src)!r}: it would be overwritten")
    if p.is_dir():
        raise OutputError(f"the output {str(out)!r} is a folder; name a file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"the output's folder {str(parent)!r} does not exist")
    return p


def write_atomic(path: str | Path, data: str | bytes, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    A reader sees the old file or the new one, never a half-written one; on any error the
    temporary file is removed and the old file stays. The new file keeps the old one's
    permissions (a new one gets ``0o644``).
    """
    p = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=p.parent if str(p.parent) else ".", prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, p.stat().st_mode & 0o777 if p.exists() else 0o644)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p
