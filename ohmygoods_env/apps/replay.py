"""``ohmygoods replay``: one game of a ``games.jsonl`` as a self-contained HTML page.

``ohmygoods replay FILE --game K [--seat S | --spectator] -o game.html``

``FILE`` is the ``games.jsonl`` of ``ohmygoods tournament`` or ``ohmygoods play``: one
JSON object per line, each with a ``record`` (rules, players, seed and the actions:
:meth:`GameRecord.to_dict`). ``--game K`` picks the line whose ``index`` is ``K`` (the
game number the tournament printed), else the ``K``-th line (from 0).

The page needs no server and loads nothing from the network: the pictures
(:func:`~ohmygoods_env.picture.render_svg`) of every step are computed here, for the chosen
view only, and stored in the page gzip-compressed (identical pictures once), next to the
move log (:func:`~ohmygoods_env.picture.move_text` for the same view). A seat view hides
what that seat may not see, in the pictures and in the log: opponents' hands, set-aside
cards and phase-II choices until the reveal (R5.2), and a run of an opponent's hidden
choices is one step, so their number stays hidden too. The default view is the spectator's.
The page steps with buttons, a slider, the arrow keys or a click on a move in the log.
"""

from __future__ import annotations

import base64
import gzip
import json
import sys
from html import escape
from pathlib import Path

from ..engine import Game, GameRecord
from ..picture import hides_move, move_text, render_svg
from .common import int_at_least, parser


class ReplayError(ValueError):
    """A games file or a game in it that cannot be replayed (the message says why)."""


def load_game(path: str | Path, game: int) -> dict:
    """The line of ``path`` (a ``games.jsonl``) for game ``game``: its ``index`` field, else its line number."""
    try:
        lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    rows = []
    for n, line in enumerate(lines):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{path}, line {n + 1}: not JSON ({exc.msg})") from None
    by_index = [r for r in rows if isinstance(r, dict) and r.get("index") == game]
    row = by_index[0] if by_index else (rows[game] if 0 <= game < len(rows) else None)
    if row is None:
        raise ReplayError(f"{path} has no game {game}: it holds {len(rows)} games (0..{len(rows) - 1})")
    if not isinstance(row, dict) or "record" not in row:
        raise ReplayError(
            f"{path}, game {game}: no 'record' (rules, seed and actions); files written before records were "
            "stored cannot be replayed"
        )
    return row


def frames(record: GameRecord, viewer: int | None) -> tuple[list[str], list[str]]:
    """Per step of the game: the SVG picture of ``viewer``'s view (step 0: the deal) and the move log.

    In a seat's view a run of one opponent's hidden choices is one step (its last picture):
    how many decisions it took is hidden until the reveal (:func:`~ohmygoods_env.picture.hides_move`).
    """
    game = Game(record.rules.num_players, record.rules, seed=record.seed)
    pictures = [render_svg(game, viewer)]
    log: list[str] = []
    for a in record.actions:
        hidden = hides_move(game, viewer)
        text = move_text(game, a, viewer)
        game.step(int(a))
        picture = render_svg(game, viewer, last_move=text)
        if hidden and log and log[-1] == text:
            pictures[-1] = picture
        else:
            pictures.append(picture)
            log.append(text)
    return pictures, log


def _pack(svg: str) -> str:
    return base64.b64encode(gzip.compress(svg.encode(), compresslevel=9, mtime=0)).decode("ascii")


def replay_html(row: dict, viewer: int | None, title: str = "") -> str:
    """The self-contained page for one ``games.jsonl`` row seen by ``viewer`` (None: spectator)."""
    try:
        record = GameRecord.from_dict(row["record"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"the game's record is malformed: {exc}") from None
    n = record.rules.num_players
    if viewer is not None and not 0 <= viewer < n:
        raise ReplayError(f"--seat {viewer} is out of range: this game has seats 0..{n - 1}")
    try:
        pictures, log = frames(record, viewer)
    except ValueError as exc:  # an illegal action: the record does not belong to this engine version
        raise ReplayError(f"the record does not replay: {exc}") from None
    unique: dict[str, int] = {}
    order = [unique.setdefault(p, len(unique)) for p in pictures]
    packed = [_pack(p) for p in unique]
    who = "spectator view (every hand shown)" if viewer is None else f"view of player {viewer}"
    seats = row.get("seats")
    players = ", ".join(f"player {i}: {escape(str(s))}" for i, s in enumerate(seats)) if seats else ""
    data = json.dumps({"frames": packed, "order": order, "log": log}, separators=(",", ":"))
    template = (Path(__file__).parent / "static" / "replay.html").read_text(encoding="utf-8")
    heading = f"Oh my Goods! replay ({record.rules.edition}, {n} players, seed {record.seed}) \u2014 {who}"
    return (
        template.replace("{{TITLE}}", escape(title or heading))
        .replace("{{HEADING}}", escape(heading))
        .replace("{{PLAYERS}}", players)
        .replace("{{DATA}}", data.replace("</", "<\\/"))
    )


def _parser():
    ap = parser("ohmygoods replay", "Write one game of a games.jsonl as a self-contained HTML page.")
    ap.add_argument("file", help="a games.jsonl written by ohmygoods tournament or ohmygoods play")
    ap.add_argument("--game", type=int_at_least(0), required=True, help="the game: its index, else its line (from 0)")
    view = ap.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int_at_least(0), default=None, help="show what this seat saw")
    view.add_argument("--spectator", action="store_true", help="show every hand (the default view)")
    ap.add_argument("-o", "--out", default="game.html", help="the HTML file to write")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods replay``; returns the exit status."""
    ap = _parser()
    args = ap.parse_args(argv)
    try:
        row = load_game(args.file, args.game)
    except ReplayError as exc:
        ap.error(str(exc))
    players = row["record"].get("num_players") if isinstance(row["record"], dict) else None
    if args.seat is not None and isinstance(players, int) and args.seat >= players:
        ap.error(f"--seat {args.seat} is out of range: this game has seats 0..{players - 1}")
    from .common import warm_engine

    warm_engine()
    try:
        page = replay_html(row, args.seat)
    except ReplayError as exc:
        ap.error(str(exc))
    Path(args.out).write_text(page, encoding="utf-8")
    size = Path(args.out).stat().st_size
    print(f"wrote {args.out} ({size / 1024:.0f} KiB, {len(row['record']['actions']) + 1} steps)", file=sys.stderr)
    return 0
