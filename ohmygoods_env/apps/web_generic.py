"""The generic page of ``ohmygoods serve``: any registered game whose spec names no page of its own.

:class:`GenericWeb` is a :class:`~ohmygoods_env.apps.web_shell.WebKind` made for one game
(:func:`~ohmygoods_env.apps.web_shell.web_kind` builds it with the game's name when the spec's
``web`` is ``None``). It knows no game: everything comes from the game's
:class:`~ohmygoods_env.framework.game.GameSpec` and its forward model.

* The page (``static/generic.html``) shows the viewer's text view (``spec.render_text(game,
  seat)``; a watched game: ``None``, the spectator's view, or a seat) and the person's legal
  actions as buttons, each named by ``spec.describe(action, game)``.
* Agents: every name of the framework's registry for the game that builds without an argument
  (``random``, ``ismcts``, the game's own). An agent moves when its seat is the game's
  ``current_player``; during a simultaneous choice the seats choose one at a time through
  ``step`` and each choice stays face down (the forward model's promise), so the agents never see
  the person's choice, nor the person theirs.
* The move log names a move made while several seats were choosing (a face-down choice) only to
  its own seat: the other seats read ``seat p: chose face down``; the spectator reads every move.
  The generic view has no public view of its own: ``"public"`` (a watched game's default, the
  replay's ``--public``) is the spectator's, ``spec.render_text(game, None)``.
* Records and replays: a game's ``record().to_dict()`` in the framework's *step record* form,
  ``{"game", "num_players", "seed", "options", "actions"}`` (actions in the order ``step`` applied
  them), replays here (:func:`replay_html`: ``spec.make(num_players, seed, **options)`` then one
  ``step`` per action, each checked), one text picture per step on the shared replay template. A
  game whose record has another form gets a :class:`~.web_shell.ReplayError` saying so.
* No hint: the page offers none (``hint: false``; ``GET /api/hint`` is a 400).
"""

from __future__ import annotations

import threading
from html import escape
from typing import Any

from ..framework import agents as fa
from ..framework.checks import check_seed
from ..framework.game import GameSpec, game_spec
from .web_shell import PUBLIC, BadRequest, ReplayError, Table, buildable, replay_page, replay_seats, table_of

#: the keys of a step record (``record().to_dict()``), the form this page replays
STEP_RECORD_KEYS = ("game", "num_players", "seed", "options", "actions")


def text_svg(text: str) -> str:
    """``text`` (a game's text view) as an SVG picture of monospace lines, for the replay template."""
    lines = text.splitlines() or [""]
    width = 16 + 8 * max(len(line) for line in lines)
    height = 16 + 18 * len(lines)
    spans = "".join(f'<tspan x="8" y="{20 + 18 * i}">{escape(line) or " "}</tspan>' for i, line in enumerate(lines))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        f'<rect width="100%" height="100%" fill="white"/>'
        f'<text font-family="monospace" font-size="14" xml:space="preserve">{spans}</text></svg>'
    )


def step_record(model: Any) -> dict:
    """The step record of ``model`` (``record().to_dict()``); :class:`ReplayError` when the game keeps another form."""
    record = model.record()
    data = record.to_dict() if callable(getattr(record, "to_dict", None)) else record
    if not isinstance(data, dict) or not set(STEP_RECORD_KEYS) <= set(data):
        raise ReplayError(
            f"{type(model).__name__}'s record is not a step record: expected record().to_dict() with the keys "
            f"{list(STEP_RECORD_KEYS)}"
        )
    return data


def move_text(spec: GameSpec, game: Any, player: int, action: int, viewer: int | None, names: list[str]) -> str:
    """``player``'s ``action`` (not applied yet) as ``viewer`` may read it: a choice made while several seats
    are choosing is face down for every other seat (``viewer`` None, the spectator, reads every move)."""
    if viewer is not None and player != viewer and len(game.pending_players()) > 1:
        return f"{names[player]}: chose face down"
    return f"{names[player]}: {spec.describe(action, game)}"


class GenericTable(Table):
    """One game of a registered game between a person (``seat``) and agents, or agents only (watched)."""

    def __init__(
        self,
        spec: GameSpec,
        players: int,
        seat: int | None,
        agents: list[str],
        seed: int | None = None,
        viewer: int | None = None,
    ) -> None:
        self.spec = spec
        try:
            self.game = spec.make(players, seed=seed)
        except (TypeError, ValueError) as exc:
            raise BadRequest(str(exc)) from None
        self._seat_agents(seat, agents, lambda name, s: fa.make_agent(spec.name, name, seed=s))
        self.viewer = seat if seat is not None else viewer
        self.since: list[str] = []
        self.happened: list[str] = []
        self.history: list[tuple[Any, list[str]]] = []
        self.lock = threading.Lock()
        if not self.watch:
            self._advance()

    def _labels(self) -> list[str]:
        return [f"seat {p} ({n})" for p, n in enumerate(self.names)]

    def _play(self, p: int, action: int) -> None:
        self.since.append(move_text(self.spec, self.game, p, action, self.viewer, self._labels()))
        self.game.step(action)
        if self.game.done:
            note = game_over(self.game, self._labels())
            self.since.append(f"\u25b6 {note}")
            self.happened = [*self.happened, note]

    def _next_agent_move(self) -> None:
        p = self.game.current_player
        self._play(p, fa.choose(self.agents[p], self.game, p))

    def _advance(self) -> None:
        """Agents play until the person's seat is the one the game asks, or the game is over."""
        while not self.game.done and self.game.current_player != self.seat:
            self._next_agent_move()

    def _legal(self) -> list[int]:
        if self.game.current_player != self.seat:
            return []
        return [int(a) for a, ok in enumerate(self.game.legal_mask(self.seat)) if ok]

    def _person_move(self, action: int) -> None:
        self.since, self.happened = [], []
        self._play(self.seat, action)

    def _snapshot(self) -> tuple:
        return (self.game.clone(), list(self.since))

    def _restore(self, snapshot: tuple) -> list[str]:
        self.game, since = snapshot[0].clone(), snapshot[1]
        return since

    def _hint_action(self) -> dict:
        raise BadRequest(f"no hint: the generic page of {self.spec.title} offers none")

    def _replay_page(self) -> str:
        return replay_html({"record": step_record(self.game), "seats": self.names}, self.viewer)

    def view(self, game_id: str) -> dict:
        g, spec = self.game, self.spec
        choices = [] if g.done or self.watch else [{"action": a, "text": spec.describe(a, g)} for a in self._legal()]
        out = {
            "id": game_id,
            "game": spec.name,
            "title": spec.title,
            "seat": self.seat,
            "watch": self.watch,
            "viewer": PUBLIC if self.viewer is None else self.viewer,
            "players": self.names,
            "pending": list(g.pending_players()),
            "text": spec.render_text(g, self.viewer),
            "since": list(self.since),
            "happened": list(self.happened),
            "done": g.done,
            "decision": None if g.done or self.watch else "your move",
            "choices": choices,
        }
        if g.done:
            scores, winners = [_plain(s) for s in g.scores()], [int(w) for w in g.winners()]
            out["scores"] = [{"player": p, "score": s} for p, s in enumerate(scores)]
            out["winners"] = winners
            out["result"] = _final_line(winners, self.seat)
            try:
                out["record"] = step_record(g)  # the seed only now: it would tell the hidden cards
            except ReplayError:
                out["record"] = None
        return out


def game_over(game: Any, names: list[str]) -> str:
    """The line of a finished game: each seat's score."""
    return "game over: " + ", ".join(f"{n} {_plain(s)}" for n, s in zip(names, game.scores(), strict=True))


def _plain(score: object) -> Any:
    """A score as JSON data (an int, a float, or a list of them)."""
    if isinstance(score, (tuple, list)):
        return [_plain(s) for s in score]
    return score.item() if hasattr(score, "item") else score


def _final_line(winners: list[int], seat: int | None) -> str:
    who = ", ".join(map(str, winners))
    if seat is None:
        return f"Seat{'s' if len(winners) > 1 else ''} {who} won"
    if seat in winners:
        return "You shared the win" if len(winners) > 1 else "You won"
    return f"You lost: seat{'s' if len(winners) > 1 else ''} {who} won"


class GenericWeb:
    """The generic :class:`~ohmygoods_env.apps.web_shell.WebKind` of the registered game ``game``."""

    page = "generic.html"

    def __init__(self, game: str) -> None:
        self.spec = game_spec(game)
        self.name = self.spec.name
        self.download = f"{self.name}-replay.html"
        self._agents: list[str] | None = None  # built on the first offer: every agent is made once to check it

    def offered(self) -> dict:
        if self._agents is None:
            self._agents = buildable(fa.agent_names(self.name), lambda n: fa.make_agent(self.name, n, seed=0))
        return {
            "game": self.name,
            "title": self.spec.title,
            "agents": self._agents,
            "players": list(range(self.spec.min_players, self.spec.max_players + 1)),
            "hint": False,
        }

    def new_game(self, body: dict) -> GenericTable:
        spec = self.spec
        players, seat, agents, seed, viewer = table_of(
            body, spec.min_players, spec.max_players, spec.min_players, "random"
        )
        return GenericTable(spec, players, seat, agents, seed, viewer)

    def record_size(self, row: dict, where: str) -> tuple[int, int]:
        record = record_of(self.spec, row, where)
        return record["num_players"], len(record["actions"]) + 1

    def replay_html(self, row: dict, viewer: int | str | None, title: str = "") -> str:
        return replay_html(row, viewer, title, self.spec)

    def warm(self) -> None:
        """Nothing to compile: the page steps the game's forward model."""


# ------------------------------------------------------------------------------ replay


def record_of(spec: GameSpec, row: dict, where: str = "the game") -> dict:
    """The step record of a ``games.jsonl`` row of ``spec``'s game, its fields checked; :class:`ReplayError`
    names the field."""
    d = row.get("record")
    try:
        if not isinstance(d, dict) or not set(STEP_RECORD_KEYS) <= set(d):
            raise ValueError(f"expected a step record with the keys {list(STEP_RECORD_KEYS)}")
        if d["game"] != spec.name:
            raise ValueError(f"the record is of the game {d['game']!r:.40}, not {spec.name!r}")
        players = spec.check_num_players(d["num_players"])
        check_seed(d["seed"])
        if not isinstance(d["options"], dict) or not all(isinstance(k, str) for k in d["options"]):
            raise ValueError("'options' must be an object of the game's options")
        actions = d["actions"]
        if not isinstance(actions, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions):
            raise ValueError("'actions' must be a list of action ids")
    except (TypeError, ValueError, KeyError) as exc:
        raise ReplayError(f"{where}: field 'record': {exc}"[:300]) from None
    return {**d, "num_players": players}


def frames(spec: GameSpec, record: dict, viewer: int | None, names: list[str]) -> tuple[list, list, list]:
    """Per step: the picture of ``viewer``'s text view (step 0: the deal), the move log, the notes."""
    try:
        game = spec.make(record["num_players"], seed=record["seed"], **record["options"])
    except (TypeError, ValueError) as exc:
        raise ReplayError(f"field 'record': {exc}"[:300]) from None
    pictures, log, notes = [text_svg(spec.render_text(game, viewer))], [], [[]]
    for k, a in enumerate(record["actions"]):
        p = game.current_player
        if game.done or not 0 <= a < game.num_actions or not game.legal_mask(p)[a]:
            raise ReplayError(f"field 'record.actions[{k}]': action {a} is not legal for seat {p} at that step")
        text = move_text(spec, game, p, a, viewer, names)
        game.step(a)
        pictures.append(text_svg(spec.render_text(game, viewer)))
        log.append(text)
        notes.append([game_over(game, names)] if game.done else [])
    return pictures, log, notes


def replay_html(row: dict, viewer: int | str | None, title: str = "", spec: GameSpec | None = None) -> str:
    """The self-contained replay page of a step-record row (``record``, optional ``seats``) for ``viewer``
    (a seat; ``None``: the spectator's view; ``"public"``: the spectator's view too, as the generic text
    view has no other), on the shared template ``static/replay.html``."""
    if spec is None:
        record = row.get("record")
        try:
            spec = game_spec(record.get("game") if isinstance(record, dict) else None)
        except (TypeError, ValueError) as exc:
            raise ReplayError(f"field 'record.game': {exc}"[:300]) from None
    record = record_of(spec, row)
    n = record["num_players"]
    seat, names = replay_seats(row, viewer, n)
    pictures, log, notes = frames(spec, record, seat, names)
    who = "spectator's view" if seat is None else f"view of seat {seat}"
    heading = f"{spec.title} replay ({n} players, seed {record['seed']}) \u2014 {who}"
    return replay_page(pictures, log, notes, heading, ", ".join(names), title)
