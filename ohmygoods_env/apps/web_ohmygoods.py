"""*Oh my Goods!* in the web shell: its page kind, its table and its replay pages.

:class:`OhMyGoodsWeb` is the game's :class:`~ohmygoods_env.apps.web_shell.WebKind`, named by
its spec (``ohmygoods_env.game_spec``: ``web``): the page ``static/serve.html``, what the page
offers (``GET /api/agents``: every agent name of :func:`ohmygoods_env.policy.agent_names` that
builds without an argument, the rule sets, the player counts and the variants), and
:class:`WebGame`, one game between a person and agents (or agents only, watched). What a view
holds is told in :mod:`ohmygoods_env.apps.serve`. The replay pages (:func:`replay_html`: the
shared template with this game's pictures, move log and summaries for the chosen view) serve
``ohmygoods replay`` and ``GET /api/replay``. The HTTP server, its checks and the table every
game shares are the shell's (:mod:`ohmygoods_env.apps.web_shell`).
"""

from __future__ import annotations

import threading

from .. import layout as L
from ..actions import action_kind, describe
from ..cardfacts import seat_card_facts
from ..chronicle import Chronicle, Note
from ..engine import Game, GameRecord
from ..explain import explain
from ..framework.checks import offset_seed
from ..picture import hides_move, log_move, move_text, render_svg
from ..render import PUBLIC, final_scores_text, score_parts
from ..rules import EDITIONS, MAX_PLAYERS, MIN_PLAYERS, RuleSet
from .web_shell import BadRequest, ReplayError, Table, bots_of, buildable, opponents_of, replay_page, seed_of, view_of

#: The variants a new game may switch on (R10.1, R10.2): the :class:`~ohmygoods_env.rules.RuleSet` fields.
VARIANTS: tuple[str, ...] = ("keep_one", "two_for_one")


def agent_names() -> list[str]:
    """Agent names offered on the page: every registry name that builds without an argument
    (``sb3`` needs ``sb3:PATH`` and ``exec`` a command; both are left out), the shipped networks included."""
    from ..policy import agent_names as registered
    from ..policy import make_agent

    return buildable(registered(), lambda name: make_agent(name, seed=0))


def _concerns(action: int) -> dict[str, int]:
    """The card or slot of the person's own table a choice names, so the page can play it from a click."""
    kind, i = action_kind(action)
    if kind in ("set aside", "spend hand card", "chain with hand card", "discard for new deck",
                "discard hand, keep one"):  # fmt: skip
        return {"card": i}
    if kind in ("produce", "open chain", "pay", "place assistant"):
        return {"slot": i}
    if kind == "place worker":
        return {"slot": i // 2}
    if kind == "move assistant":
        return {"slot": i // L.MAX_SLOTS}
    if kind == "hire":
        return {"assistant": i}
    return {}


class WebGame(Table):
    """One game between a person (``seat``) and agents, as the person's view sees it.

    ``watch``: every seat is an agent (``opponents`` names them all, ``seat`` is None) and the
    game moves one step per :meth:`step`; ``viewer`` is the view shown: a seat, or
    ``"public"`` (every hand hidden, :data:`~ohmygoods_env.render.PUBLIC`).
    """

    watch = False
    watch_view: int | str = PUBLIC
    chronicle: Chronicle | None = None  # made on the first move where a caller built the game by hand
    happened: list[Note] = []  # replaced, never changed in place

    @property
    def viewer(self) -> int | str | None:
        """The view shown: the person's seat, or a watched game's chosen view."""
        return self.watch_view if self.watch else self.seat

    def __init__(
        self,
        rules: str,
        players: int,
        seat: int | None,
        opponents: list[str],
        seed: int | None = None,
        variants: dict[str, bool] | None = None,
        viewer: int | str | None = None,
    ) -> None:
        from ohmygoods_agents import make_agent

        try:  # no seed: a fresh one, kept in the game's record
            self.game = Game(players, rules, seed=seed, **(variants or {}))
        except (ValueError, TypeError) as exc:  # a rule set the RuleSet refuses (royal with keep_one)
            raise BadRequest(str(exc)) from None
        self._seat_agents(seat, opponents, lambda name, s: make_agent(name, seed=s))
        self.watch_view = viewer if viewer is not None else PUBLIC
        self.since: list[str] = []
        self.chronicle = Chronicle(self.game, self.viewer, self.names)
        self.happened: list[Note] = []  # what was revealed and produced since the person's last decision
        self.hinter = None  # the hint agent, made on the first hint
        # before each of the person's moves: the game, the log, the last move, the chronicle
        self.history: list[tuple[Game, list[str], str | None, Chronicle]] = []
        self.last_move: str | None = None
        self.lock = threading.Lock()
        if not self.watch:
            self._advance()

    def _agent_move(self) -> None:
        """The seat to act (an agent) plays one move."""
        from ohmygoods_agents.base import info_state_of

        g = self.game
        p = g.current_player
        a = int(self.agents[p].act(g.observe(p), g.legal_mask(), info_state_of(g.state, p)))
        self.last_move = log_move(self.since, g, a, self.viewer, self.names[p])  # hidden runs: one line
        self._note(self._chronicle().step(g, a))

    def _chronicle(self) -> Chronicle:
        if self.chronicle is None:
            self.chronicle = Chronicle(self.game, self.viewer, self.names)
        return self.chronicle

    def _note(self, notes: list[Note]) -> None:
        self.happened = [*self.happened, *notes]
        self.since += [f"\u25b6 {n.text}" for n in notes]

    def _advance(self) -> None:
        """Let the agents play until it is the person's turn or the game is over."""
        g = self.game
        while not g.done and g.current_player != self.seat:
            self._agent_move()

    def _next_agent_move(self) -> None:
        self._agent_move()

    def _legal(self) -> list[int]:
        return self.game.legal_actions()

    def _snapshot(self) -> tuple:
        return (self.game.clone(), list(self.since), self.last_move, self._chronicle().clone())

    def _restore(self, snapshot: tuple) -> list[str]:
        before, since, self.last_move, self.chronicle = snapshot
        self.game.restore(before)
        return since

    def _person_move(self, action: int) -> None:
        g = self.game
        text = move_text(g, action, self.seat)
        self.since = [f"you: {text.split(': ', 1)[1]}"]
        self.happened = []
        self._note(self._chronicle().step(g, action))
        self.last_move = text

    def _hint_action(self) -> dict:
        from ohmygoods_agents import make_agent
        from ohmygoods_agents.base import info_state_of

        g = self.game
        if self.hinter is None:
            self.hinter = make_agent("heuristic", seed=offset_seed(g.seed, 99))
        a = int(self.hinter.act(g.observe(self.seat), g.legal_mask(), info_state_of(g.state, self.seat)))
        return {"action": a, "text": describe(a, g), "explain": explain(g, a), "agent": self.hinter.name}

    def _replay_page(self) -> str:
        """The finished game as a replay page (:func:`replay_html`) in this game's view."""
        return replay_html({"record": self.game.record().to_dict(), "seats": self.names}, self.viewer)

    def _choices(self) -> list[dict]:
        g = self.game
        if g.done or self.watch:
            return []
        return [
            {"action": a, "text": describe(a, g), "explain": explain(g, a), **_concerns(a)} for a in g.legal_actions()
        ]

    def _scores(self) -> list[dict]:
        g = self.game
        out = []
        for p, (vp, left) in enumerate(g.scores()):
            parts = score_parts(g, p)
            out.append({"player": p, "vp": vp, "coins": left, "buildings": parts["buildings"],
                        "assistants": parts["assistants"], "goods_coins": parts["coins"],
                        "goods": parts["goods"]})  # fmt: skip
        return out

    def view(self, game_id: str) -> dict:
        from .play import final_line

        g = self.game
        seat = self.viewer if isinstance(self.viewer, int) else None
        cards = seat_card_facts(g, seat) if seat is not None else public_card_facts(g)
        out = {
            "id": game_id,
            "seat": self.seat,
            "watch": self.watch,
            "viewer": self.viewer,
            "players": self.names,
            "rules": g.rules.edition,
            "variants": {v: getattr(g.rules, v) for v in VARIANTS},
            "svg": render_svg(g, self.viewer, last_move=self.last_move),
            "cards": cards,  # own hand and set-aside card, the buildings on the table
            "since": list(self.since),
            "happened": [n.to_dict() for n in self.happened],
            "done": g.done,
            "decision": None if g.done or self.watch else g.decision_name,
            "choices": self._choices(),
        }
        if g.done:
            out["scores"] = self._scores()
            out["winners"] = g.winners()
            out["result"] = (
                final_line(g, self.seat) if not self.watch else final_scores_text(g).splitlines()[-1].strip()
            )
            out["record"] = g.record().to_dict()  # the seed only now: it would tell the hidden cards
        return out


def public_card_facts(game: Game) -> dict:
    """The card facts of the public view: the buildings on the table only."""
    from ..cardfacts import card_facts

    return {
        "hand": [],
        "aside": None,
        "buildings": [[card_facts(game.cards, b) for b in game.buildings(p)] for p in range(game.num_players)],
    }


def _variants(body: dict) -> dict[str, bool]:
    """The variant switches of a new-game request (:data:`VARIANTS`): JSON booleans, default false."""
    out = {}
    for name in VARIANTS:
        value = body.get(name, False)
        if not isinstance(value, bool):
            raise BadRequest(f"{name} must be true or false, got {value!r}")
        out[name] = value
    return out


class OhMyGoodsWeb:
    """*Oh my Goods!*'s page kind (:class:`~ohmygoods_env.apps.web_shell.WebKind`): the page ``serve.html``,
    :class:`WebGame` and the replay pages (:func:`replay_html`)."""

    name = "ohmygoods"
    page = "serve.html"
    download = "ohmygoods-replay.html"

    _agents: list[str] | None = None  # built on the first offer: every agent is made once to check it

    def offered(self) -> dict:
        if self._agents is None:
            self._agents = agent_names()
        return {
            "game": self.name,
            "agents": self._agents,
            "rules": list(EDITIONS),
            "players": list(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
            "variants": list(VARIANTS),
        }

    def new_game(self, body: dict) -> WebGame:
        rules = body.get("rules", "omg2")
        if rules not in EDITIONS:
            raise BadRequest(f"rules must be one of {list(EDITIONS)}, got {rules!r}")
        players, seat = body.get("players", 2), body.get("seat", 0)
        for key, value in (("players", players), ("seat", seat)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadRequest(f"{key} must be an integer, got {value!r}")
        seed = seed_of(body.get("seed"))
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise BadRequest(f"players must be 1 (solo), 2, 3 or 4, got {players}")
        if not 0 <= seat < players:
            raise BadRequest(f"seat must be in 0..{players - 1}, got {seat}")
        variants = _variants(body)
        watch = body.get("watch", False)
        if not isinstance(watch, bool):
            raise BadRequest(f"watch must be true or false, got {watch!r}")
        if watch:
            bots = bots_of(body, players, "heuristic")
            return WebGame(rules, players, None, bots, seed, variants, view_of(body, players))
        return WebGame(rules, players, seat, opponents_of(body, players, "heuristic"), seed, variants)

    def record_size(self, row: dict, where: str) -> tuple[int, int]:
        record = record_of(row, where)
        return record.rules.num_players, len(record.actions) + 1

    def replay_html(self, row: dict, viewer: int | str | None, title: str = "") -> str:
        return replay_html(row, viewer, title)

    def warm(self) -> None:
        from .common import warm_engine

        warm_engine()


# ------------------------------------------------------------------------------ replay


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
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < L.N_ACTIONS:
            raise ReplayError(
                f"{where}: field 'record.actions[{k}]' must be an action id 0..{L.N_ACTIONS - 1}, got {a!r}"
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


def replay_html(row: dict, viewer: int | None, title: str = "") -> str:
    """The self-contained page for one ``games.jsonl`` row seen by ``viewer`` (None: spectator).

    The template's placeholders are filled in one pass (no inserted text is scanned again):
    texts HTML-escaped, the data as JSON with ``<``, ``>`` and ``&`` written as ``\\u`` escapes,
    so no field of the file (a player name, say) can reach markup or the script.
    """
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
    if viewer is None:
        who = "spectator view (every hand shown)"
    else:
        who = "public view (every hand hidden)" if viewer == PUBLIC else f"view of player {viewer}"
    players = ", ".join(f"player {i}: {s}" for i, s in enumerate(seats)) if seats else ""
    heading = f"Oh my Goods! replay ({record.rules.edition}, {n} players, seed {record.seed}) \u2014 {who}"
    return replay_page(pictures, log, notes, heading, players, title)


def _names(seats: list[str] | None, viewer: int | str | None) -> list[str] | None:
    """Seat labels of the summaries: ``player P (agent)`` where the file names the agents."""
    if not seats:
        return None
    return [f"player {p} ({name})" if name != "you" else f"player {p}" for p, name in enumerate(seats)]
