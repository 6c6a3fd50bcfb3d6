"""``ohmygoods replay``: one game of a ``games.jsonl`` as a self-contained HTML page.

``ohmygoods replay FILE --game K [--seat S | --spectator | --public] -o game.html``

``FILE`` is the ``games.jsonl`` of ``ohmygoods tournament`` or ``ohmygoods play``: one
JSON object per line, each with a ``record`` (rules, players, seed and the actions:
:meth:`GameRecord.to_dict`). ``--game K`` picks the line whose ``index`` is ``K`` (the
game number the tournament printed), else the ``K``-th line (from 0).

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
A row whose record is an *Artificium* game (``"game": "artificium"``) gets the same page with
that game's pictures and log (:func:`ohmygoods_env.apps.web_artificium.replay_html`; its public
view is the default there, as the game has no view with every hand shown).
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import sys
from html import escape
from pathlib import Path

from ..chronicle import Chronicle
from ..engine import Game, GameRecord
from ..framework.files import BadJSON, OutputError, check_output, loads_bounded, write_atomic
from ..layout import N_ACTIONS
from ..picture import hides_move, move_text, render_svg
from ..render import PUBLIC
from ..rules import RuleSet
from .common import int_at_least, parser


class ReplayError(ValueError):
    """A games file or a game in it that cannot be replayed (the message says why)."""


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


def record_of(row: dict, where: str = "the game") -> GameRecord:
    """The :class:`GameRecord` of a ``games.jsonl`` row, every field checked; :class:`ReplayError` names the field."""
    d = row.get("record")
    if not isinstance(d, dict):
        raise ReplayError(f"{where}: field 'record' must be an object, got {type(d).__name__}")
    for key, kind in (("num_players", int), ("rules", str), ("auto_forced", bool), ("max_rounds", int),
                      ("seed", int), ("actions", list)):  # fmt: skip
        value = d.get(key)
        if key not in d or not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ReplayError(f"{where}: field 'record.{key}' must be {kind.__name__}, got {value!r}"[:300])
    try:
        rules = RuleSet(d["num_players"], d["rules"], d["auto_forced"], d["max_rounds"])
    except (TypeError, ValueError) as exc:
        raise ReplayError(f"{where}: field 'record': {exc}") from None
    for k, a in enumerate(d["actions"]):
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < N_ACTIONS:
            raise ReplayError(
                f"{where}: field 'record.actions[{k}]' must be an action id 0..{N_ACTIONS - 1}, got {a!r}"
            )
    seats = row.get("seats")
    if seats is not None and (
        not isinstance(seats, list) or len(seats) != rules.num_players or not all(isinstance(x, str) for x in seats)
    ):
        raise ReplayError(f"{where}: field 'seats' must list {rules.num_players} agent names, got {seats!r}"[:300])
    return GameRecord(rules, d["seed"], list(d["actions"]))


def frames(record: GameRecord, viewer: int | str | None) -> tuple[list[str], list[str]]:
    """Per step of the game: the SVG picture of ``viewer``'s view (step 0: the deal) and the move log.

    In a seat's view a run of one opponent's hidden choices is one step (its last picture):
    how many decisions it took is hidden until the reveal (:func:`~ohmygoods_env.picture.hides_move`).
    """
    pictures, log, _ = frames_and_notes(record, viewer)
    return pictures, log


def frames_and_notes(
    record: GameRecord, viewer: int | str | None, names: list[str] | None = None
) -> tuple[list[str], list[str], list[list[str]]]:
    """:func:`frames` and, per step, what happened at it as ``viewer`` may read it: every seat's
    revealed choices and production results (:class:`~ohmygoods_env.chronicle.Chronicle`)."""
    game = Game(record.rules.num_players, record.rules, seed=record.seed)
    chronicle = Chronicle(game, viewer, names)
    pictures = [render_svg(game, viewer)]
    log: list[str] = []
    notes: list[list[str]] = [[]]
    for k, a in enumerate(record.actions):
        if game.done:
            raise ReplayError(f"field 'record.actions[{k}]': action {a} comes after the end of the game")
        if not game.legal_mask()[a]:
            raise ReplayError(
                f"field 'record.actions[{k}]': action {a} is not legal at that step (player {game.current_player}, "
                f"{game.decision_name}); the record does not belong to this engine version"
            )
        hidden = hides_move(game, viewer)
        text = move_text(game, a, viewer)
        new = [n.text for n in chronicle.step(game, int(a))]
        picture = render_svg(game, viewer, last_move=text)
        if hidden and log and log[-1] == text:
            pictures[-1] = picture
            notes[-1] += new
        else:
            pictures.append(picture)
            log.append(text)
            notes.append(new)
    return pictures, log, notes


def _pack(svg: str) -> str:
    return base64.b64encode(gzip.compress(svg.encode(), compresslevel=9, mtime=0)).decode("ascii")


def replay_html(row: dict, viewer: int | None, title: str = "") -> str:
    """The self-contained page for one ``games.jsonl`` row seen by ``viewer`` (None: spectator).

    The template's placeholders are filled in one pass (no inserted text is scanned again):
    texts HTML-escaped, the data as JSON with ``<``, ``>`` and ``&`` written as ``\\u`` escapes,
    so no field of the file (a player name, say) can reach markup or the script.
    """
    if isinstance(row.get("record"), dict) and row["record"].get("game") == "artificium":
        from .web_artificium import replay_html as artificium_page  # the same template, Artificium's pictures

        return artificium_page(row, viewer, title)
    where = f"line {row['line']}" if "line" in row else "the game"
    record = record_of(row, where)
    n = record.rules.num_players
    if isinstance(viewer, int) and not 0 <= viewer < n:
        raise ReplayError(f"--seat {viewer} is out of range: this game has seats 0..{n - 1}")
    try:
        seats = row.get("seats")
        pictures, log, notes = frames_and_notes(record, viewer, _names(seats, viewer))
    except ReplayError as exc:
        raise ReplayError(f"{where}: {exc}") from None
    unique: dict[str, int] = {}
    order = [unique.setdefault(p, len(unique)) for p in pictures]
    packed = [_pack(p) for p in unique]
    if viewer is None:
        who = "spectator view (every hand shown)"
    else:
        who = "public view (every hand hidden)" if viewer == PUBLIC else f"view of player {viewer}"
    players = ", ".join(f"player {i}: {s}" for i, s in enumerate(seats)) if seats else ""
    data = json.dumps({"frames": packed, "order": order, "log": log, "notes": notes}, separators=(",", ":"))
    heading = f"Oh my Goods! replay ({record.rules.edition}, {n} players, seed {record.seed}) \u2014 {who}"
    return fill_template(
        (Path(__file__).parent / "static" / "replay.html").read_text(encoding="utf-8"),
        {"TITLE": escape(title or heading), "HEADING": escape(heading), "PLAYERS": escape(players)},
        {"DATA": data},
    )


def _names(seats: list[str] | None, viewer: int | str | None) -> list[str] | None:
    """Seat labels of the summaries: ``player P (agent)`` where the file names the agents."""
    if not seats:
        return None
    return [f"player {p} ({name})" if name != "you" else f"player {p}" for p, name in enumerate(seats)]


def fill_template(template: str, texts: dict[str, str], scripts: dict[str, str]) -> str:
    """``template`` with each ``{{NAME}}`` replaced in one pass: ``texts`` as given (already escaped
    HTML), ``scripts`` (JSON) with ``<``, ``>``, ``&`` escaped for a ``<script type="application/json">``."""
    safe = {k: v.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") for k, v in scripts.items()}
    values = {**texts, **safe}
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: values.get(m.group(1), m.group(0)), template)


def _parser():
    ap = parser("ohmygoods replay", "Write one game of a games.jsonl as a self-contained HTML page.")
    ap.add_argument("file", help="a games.jsonl written by ohmygoods tournament or ohmygoods play")
    ap.add_argument("--game", type=int_at_least(0), required=True, help="the game: its index, else its line (from 0)")
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
    try:
        out = check_output(args.out, [args.file])
        row = load_game(args.file, args.game)
        artificium = isinstance(row.get("record"), dict) and row["record"].get("game") == "artificium"
        if artificium:  # an Artificium record: its own pictures on the same page
            from .web_artificium import record_of as artificium_record

            record = artificium_record(row, f"{args.file}, line {row['line']}")
            players, steps = record.num_players, len(record.moves) + 1
        else:
            record = record_of(row, f"{args.file}, line {row['line']}")
            players, steps = record.rules.num_players, len(record.actions) + 1
    except (ReplayError, OutputError) as exc:
        ap.error(str(exc))
    if args.seat is not None and args.seat >= players:
        ap.error(f"--seat {args.seat} is out of range: this game has seats 0..{players - 1}")
    from .common import warm_engine

    if not artificium:
        warm_engine()
    try:
        page = replay_html(row, PUBLIC if args.public else args.seat)
    except ReplayError as exc:
        ap.error(f"{args.file}, {exc}")
    try:
        write_atomic(out, page)
    except OSError as exc:
        ap.error(f"cannot write {args.out}: {exc.strerror or exc}")
    size = out.stat().st_size
    print(f"wrote {args.out} ({size / 1024:.0f} KiB, {steps} steps)", file=sys.stderr)
    return 0
