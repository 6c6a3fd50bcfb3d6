"""``ohmygoods replay``: one game of a ``games.jsonl`` as a self-contained HTML page.

``ohmygoods replay FILE --index K [--game NAME] [--seat S | --spectator | --public] -o game.html``

``FILE`` is the ``games.jsonl`` of ``ohmygoods tournament`` or ``ohmygoods play``: one
JSON object per line, each with a ``record`` (rules, players, seed and the actions:
:meth:`GameRecord.to_dict`). ``--index K`` picks the line whose ``index`` is ``K`` (the
game number the tournament printed), else the ``K``-th line (from 0). ``--game NAME`` means
what it means in every command, a registered game: the row must be a game of it. An
integer after ``--game`` is the older spelling of ``--index`` (``--game`` was the game's
number here before): it still works, with a deprecation line on stderr; a number is never a
game's name, so the two cannot be confused.

The page needs no server and loads nothing from the network: the pictures
(:func:`~ohmygoods_env.picture.render_svg`) of every step are computed here, for the chosen
view only, and stored in the page gzip-compressed (identical pictures once), next to the
move log (:func:`~ohmygoods_env.picture.move_text` for the same view) and, at the reveal and
after each seat's production, a summary of what every seat did
(:class:`~ohmygoods_env.chronicle.Chronicle`, for the same view). A seat view hides
what that seat may not see, in the pictures and in the log: opponents' hands, set-aside
cards and phase-II choices until the reveal (R5.2), and a run of an opponent's hidden
choices is one step, so their number stays hidden too. The default view is the spectator's;
``--public`` shows no hand at all (:data:`~ohmygoods_env.render.PUBLIC`).
The page steps with buttons, a slider, the arrow keys or a click on a move in the log.
The row's record names its game (``"game"``; a record without one is an *Oh my Goods!* game,
as every record was before there were two games); the game's page kind, named by its spec
(:func:`~ohmygoods_env.apps.web_shell.web_kind`), checks the record and draws the page
(*Oh my Goods!*: :func:`ohmygoods_env.apps.web_ohmygoods.replay_html`; *Artificium*:
:func:`ohmygoods_env.apps.web_artificium.replay_html`, whose public view is the default, as the
game has no view with every hand shown; a game without a page of its own, such as *Goofspiel*:
the generic page's :func:`ohmygoods_env.apps.web_generic.replay_html`, which replays a step record
and draws the seat's text view). This module knows no game's record.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from ..framework.files import BadJSON, OutputError, check_output, loads_bounded, write_atomic
from .common import int_at_least, parser
from .web_shell import PUBLIC, ReplayError, WebKind, fill_template, web_kind  # noqa: F401  (fill_template: used here before)
from .web_shell import pack_svg as _pack  # noqa: F401  (its older name)

#: the game of a record that names none: every record was Oh my Goods!'s before there were two games
UNNAMED_RECORD_GAME = "ohmygoods"
#: Oh my Goods!'s replay pieces, which lived here: loaded from their module on first use (PEP 562)
_MOVED = {name: "ohmygoods_env.apps.web_ohmygoods" for name in ("frames", "frames_and_notes", "record_of", "_names")}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MAX_LINE = 1 << 22  # bytes of one games.jsonl line (a recorded game is a few KiB)


def _lines(path: str | Path):
    """``(line number, bytes)`` of the non-blank lines of ``path``, each at most :data:`MAX_LINE` bytes."""
    try:
        with open(path, "rb") as fh:
            for n, line in enumerate(iter(lambda: fh.readline(MAX_LINE + 1), b""), start=1):
                if len(line) > MAX_LINE:
                    raise ReplayError(f"{path}, line {n}: longer than {MAX_LINE} bytes")
                if line.strip():
                    yield n, line
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None


def load_game(path: str | Path, game: int) -> dict:
    """The line of ``path`` (a ``games.jsonl``) for game ``game``: its ``index`` field, else its line number.

    The row gets the key ``"line"`` (its line number in the file) for the messages of
    :func:`record_of`. Every line is parsed within limits (:func:`~ohmygoods_env.files.loads_bounded`).
    """
    rows = []
    for n, line in _lines(path):
        try:
            rows.append((n, loads_bounded(line)))
        except BadJSON as exc:
            raise ReplayError(f"{path}, line {n}: {exc}") from None
    by_index = [(n, r) for n, r in rows if isinstance(r, dict) and r.get("index") == game]
    found = by_index[0] if by_index else (rows[game] if 0 <= game < len(rows) else None)
    if found is None:
        raise ReplayError(f"{path} has no game {game}: it holds {len(rows)} games (0..{len(rows) - 1})")
    n, row = found
    if not isinstance(row, dict) or "record" not in row:
        raise ReplayError(
            f"{path}, line {n} (game {game}): no 'record' (rules, seed and actions); files written before records "
            "were stored cannot be replayed"
        )
    return {**row, "line": n}


def kind_of(row: dict, where: str = "the game") -> WebKind:
    """The page kind of the game a row's record names (``record.game``); :class:`ReplayError` for a game
    without replay pages."""
    record = row.get("record")
    game = record.get("game", UNNAMED_RECORD_GAME) if isinstance(record, dict) else UNNAMED_RECORD_GAME
    try:
        return web_kind(game)
    except ValueError as exc:
        raise ReplayError(f"{where}: field 'record.game': {exc}"[:300]) from None


def replay_html(row: dict, viewer: int | str | None, title: str = "") -> str:
    """The self-contained replay page of one ``games.jsonl`` row seen by ``viewer`` (None: the game's
    default view), drawn by the page kind of the row's game (:func:`kind_of`)."""
    return kind_of(row).replay_html(row, viewer, title)


def record_game(row: dict) -> str:
    """The game a row's record names (``record.game``; a record without one: :data:`UNNAMED_RECORD_GAME`)."""
    record = row.get("record")
    game = record.get("game", UNNAMED_RECORD_GAME) if isinstance(record, dict) else UNNAMED_RECORD_GAME
    return game if isinstance(game, str) else repr(game)


def _parser():
    ap = parser("ohmygoods replay", "Write one game of a games.jsonl as a self-contained HTML page.")
    ap.add_argument("file", help="a games.jsonl written by ohmygoods tournament or ohmygoods play")
    ap.add_argument(
        "--index", type=int_at_least(0), default=None, help="the game: its index, else its line (from 0); needed"
    )
    ap.add_argument(
        "--game",
        default=None,
        help="the registered game the row must be a game of (as in every command); a number: the older "
        "spelling of --index (deprecated)",
    )
    view = ap.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int_at_least(0), default=None, help="show what this seat saw")
    view.add_argument("--spectator", action="store_true", help="show every hand (the default view)")
    view.add_argument("--public", action="store_true", help="show no hand: what a spectator at the table sees")
    ap.add_argument("-o", "--out", default="game.html", help="the HTML file to write")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods replay``; returns the exit status."""
    ap = _parser()
    args = ap.parse_args(argv)
    game = args.game
    if game is not None and game.isdigit():  # --game K: this command's older name of --index K
        if args.index is not None:
            ap.error(f"--game {game} is the older spelling of --index: give --index {args.index} only")
        print(
            f"ohmygoods replay: --game {game} is deprecated: use --index {game} (--game names a game, as in every "
            "command)",
            file=sys.stderr,
        )
        args.index, game = int(game), None
    if args.index is None:
        ap.error("name the game with --index K (its index in the file, else its line from 0)")
    if game is not None:
        from ..framework.game import game_spec

        try:
            game = game_spec(game).name
        except (TypeError, ValueError) as exc:
            ap.error(f"--game {game}: {exc}")
    try:
        out = check_output(args.out, [args.file])
        row = load_game(args.file, args.index)
        if game is not None and record_game(row) != game:
            raise ReplayError(
                f"{args.file}, line {row['line']}: a game of {record_game(row)}, not of {game} (--game names the game)"
            )
        kind = kind_of(row, f"{args.file}, line {row['line']}")
        players, steps = kind.record_size(row, f"{args.file}, line {row['line']}")
    except (ReplayError, OutputError) as exc:
        ap.error(str(exc))
    if args.seat is not None and args.seat >= players:
        ap.error(f"--seat {args.seat} is out of range: this game has seats 0..{players - 1}")
    kind.warm()
    try:
        page = kind.replay_html(row, PUBLIC if args.public else args.seat)
    except ReplayError as exc:
        ap.error(f"{args.file}, {exc}")
    try:
        write_atomic(out, page)
    except OSError as exc:
        ap.error(f"cannot write {args.out}: {exc.strerror or exc}")
    size = out.stat().st_size
    print(f"wrote {args.out} ({size / 1024:.0f} KiB, {steps} steps)", file=sys.stderr)
    return 0
