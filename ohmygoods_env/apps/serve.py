"""``ohmygoods serve``: play Oh my Goods! (or *Artificium*) in the browser against agents (a local web server).

``ohmygoods serve [--game ohmygoods|artificium] [--port 8000] [--host 127.0.0.1]`` then open
``http://127.0.0.1:8000/``.

One shell serves every game: the HTTP server, its checks and its sessions (:class:`GameServer`,
:class:`Handler`) are shared; what is particular to a game (its page, what the page offers, how
a game starts and what a view holds) is a :class:`WebKind` named in :data:`WEB_GAMES`
(*Oh my Goods!*: :class:`OhMyGoodsWeb` below; *Artificium*:
:mod:`ohmygoods_env.apps.web_artificium`). The table below is Oh my Goods!'s; Artificium's
endpoints are the same (its module says what its views hold).

The standard library is enough: :class:`http.server.ThreadingHTTPServer` serves one page
(``static/serve.html``, no external resource) and four JSON endpoints. It binds to
127.0.0.1 unless ``--host`` says otherwise.

===========================  ==================================================================
endpoint                     what it does
===========================  ==================================================================
``GET /``                    the page: choose rules, players, your seat and the opponents
``GET /api/agents``          the agent names offered (every name of the agent registry,
                             :func:`ohmygoods_env.policy.agent_names`, that needs no argument:
                             the shipped networks ``ppo``, ``ppo-3p``, ``ppo-4p``, ``ppo-solo``
                             included), the rule sets, player counts and variants; any other
                             name of ``make_agent`` is accepted
``POST /api/new``            ``{rules, players, seat, opponents: [..], seed, keep_one,
                             two_for_one}``: a new game of 1-4 players (1: solo, R10.3, no
                             opponents); the agents play until it is your turn. ``seed`` (an
                             int or a string of digits, ``0 <= seed < 2**64``) fixes the deal;
                             without it every game is dealt from a fresh seed. ``keep_one``
                             (R10.1, omg2 only) and ``two_for_one`` (R10.2) are the variants
                             (JSON booleans, default false)
``GET /api/state?id=G``      your view of game G (below)
``POST /api/move``           ``{id, action}``: play one of your legal actions; the agents play
                             until it is your turn again or the game is over
``POST /api/undo``           ``{id}``: take back your last decision and the agents' moves after
                             it (as the terminal's ``undo``); 400 at your first decision
``GET /api/hint?id=G``       what the heuristic agent would play in your place (from your
                             information state only): ``{action, text, explain, agent}``
``POST /api/step``           ``{id, moves}``: a watched game (``/api/new`` with ``watch: true``,
                             ``opponents`` naming every seat's agent, ``view`` ``"public"``
                             or a seat) plays ``moves`` (1-50) more moves
``GET /api/replay?id=G``     the finished game's replay page in this game's view (a download,
                             :func:`~ohmygoods_env.apps.replay.replay_html`); 400 before the end
===========================  ==================================================================

A view holds only what your seat may see (a watched game: its chosen view): the SVG seat view
(:func:`~ohmygoods_env.picture.render_svg` with ``viewer=seat``), your legal choices labelled
with :func:`~ohmygoods_env.actions.describe`, explained (:func:`~ohmygoods_env.explain.explain`:
needs and yield of a worker placement given the market now, a build's cost against your goods,
what a payment spends) and tied to the card or slot they name (``card``/``slot``, for a click),
``happened``: every seat's revealed choices and production results since your last decision
(:class:`~ohmygoods_env.chronicle.Chronicle`, written at the reveal and after each seat's
production, never earlier), the printed facts (``cards``:
:func:`~ohmygoods_env.cardfacts.seat_card_facts`) of your hand, your set-aside card and every
building on the table, the others' moves since your last decision as
your seat sees them (:func:`~ohmygoods_env.picture.move_text`: hidden choices stay hidden
until the reveal, and a run of one seat's hidden choices is one line, so their number stays
hidden too), and at the end the final scores by their parts (buildings, assistants, goods -> VP, coins left
over: :func:`~ohmygoods_env.render.score_parts`), one plain line ("You won 27–24") and the game's ``record``
(rules, seed and actions, as ``games.jsonl`` rows hold it, so the game can be replayed).
Bad requests get status 400 and a message; the game is unchanged.

**Only its own page is obeyed.** Every request must name one of the server's own hosts in
``Host`` (``127.0.0.1:PORT``, ``localhost:PORT``, ``[::1]:PORT`` or the ``--host`` address),
so a page reached through a DNS-rebinding name gets status 421. A POST must carry the random
token the server wrote into its page (header ``X-Ohmygoods-Token``; a page from another site
cannot read it) and no foreign ``Origin`` (403). Reads are bounded: a body needs a
``Content-Length`` (chunked bodies get 411) of at most :data:`MAX_BODY` bytes (413) that
arrives within ``body_seconds`` (408; the request line and headers must arrive within
``request_seconds``, else the connection closes), is UTF-8 JSON nested at most 32 deep with numbers of at
most 40 characters (:func:`~ohmygoods_env.files.loads_bounded`; else 400). Every refusal is a
JSON ``{"error": ...}`` and the connection closes; the server keeps serving.
"""

from __future__ import annotations

import hmac
import io
import json
import secrets
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlparse

from .. import layout as L
from ..actions import action_kind, describe
from ..cardfacts import seat_card_facts
from ..chronicle import Chronicle, Note
from ..engine import Game
from ..explain import explain
from ..framework.checks import offset_seed, optional_seed
from ..framework.files import BadJSON, loads_bounded
from ..picture import log_move, move_text, render_svg
from ..render import PUBLIC, final_scores_text, score_parts
from ..rules import EDITIONS, MAX_PLAYERS, MIN_PLAYERS
from .common import int_at_least, parser

MAX_GAMES = 64  # games kept in memory; the oldest goes first
MAX_BODY = 65536  # bytes of a request body


class BadRequest(ValueError):
    """A request the server refuses (status 400 unless another 4xx is given); the message says what was wrong."""

    def __init__(self, message: str, status: int = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = int(status)


class Table:
    """What every game's table in the browser shares: a person at ``seat`` (or nobody: ``watch``), the
    agents, the log (``since``), what was revealed (``happened``), undo history and the checks of the
    person's and the watcher's requests. A game's table (:class:`WebGame`, ``web_artificium.ArtWebGame``)
    supplies the hooks: :meth:`_next_agent_move`, :meth:`_legal`, :meth:`_person_move`, :meth:`_snapshot`,
    :meth:`_restore`, :meth:`_hint_action` and :meth:`_replay_row`."""

    game: Any
    seat: int | None
    watch: bool
    names: list[str]
    since: list[str]
    happened: list
    history: list
    hinter: Any = None

    def _seat_agents(self, seat: int | None, agents: list[str], build: Any) -> None:
        """The person's ``seat`` (None: a watched game, every seat an agent), the seats' names and the
        agents, each built as ``build(name, seed)`` with a seed derived from the deal and the seat; an
        agent that cannot be built is a ``BadRequest``."""
        self.seat = seat
        self.watch = seat is None
        self.names = list(agents) if self.watch else agents[:seat] + ["you"] + agents[seat:]
        deal = self.game.seed
        try:
            self.agents = [
                None if p == seat else build(name, offset_seed(deal, 1 + p)) for p, name in enumerate(self.names)
            ]
        except (ValueError, OSError, ImportError, TypeError) as exc:
            raise BadRequest(f"opponents: {exc}") from None

    def _next_agent_move(self) -> None:
        raise NotImplementedError

    def _advance(self) -> None:
        raise NotImplementedError

    def _legal(self) -> list[int]:
        raise NotImplementedError

    def _person_move(self, action: int) -> None:
        raise NotImplementedError

    def _snapshot(self) -> tuple:
        raise NotImplementedError

    def _restore(self, snapshot: tuple) -> None:
        raise NotImplementedError

    def _hint_action(self) -> dict:
        raise NotImplementedError

    def step(self, moves: object = 1) -> None:
        """Watch mode: the agents play ``moves`` more moves (1..50; fewer if the game ends)."""
        if not self.watch:
            raise BadRequest("this game has a person at the table: play with POST /api/move")
        if isinstance(moves, bool) or not isinstance(moves, int) or not 1 <= moves <= 50:
            raise BadRequest(f"moves must be an integer in 1..50, got {moves!r}")
        if self.game.done:
            raise BadRequest("the game is over")
        self.happened = []
        for _ in range(moves):
            if self.game.done:
                break
            self._next_agent_move()
        self.since = self.since[-60:]

    def move(self, action: object) -> None:
        """The person plays ``action`` (one of their legal choices); then the agents play until the person
        is asked again or the game is over."""
        if self.watch:
            raise BadRequest("a watched game has no person's move: step it with POST /api/step")
        if self.game.done:
            raise BadRequest("the game is over")
        if isinstance(action, bool) or not isinstance(action, int):
            raise BadRequest(f"action must be an integer action id, got {action!r}")
        legal = self._legal()
        if action not in legal:
            raise BadRequest(f"action {action} is not one of your legal choices: {legal}")
        self.history.append(self._snapshot())
        self._person_move(action)
        self._advance()

    def undo(self) -> None:
        """Take back the person's last decision and the agents' moves after it (the agents keep their state)."""
        if not self.history:
            raise BadRequest("nothing to undo: this is your first decision")
        since = self._restore(self.history.pop())
        self.happened = []
        self.since = ["(undone: back to your previous decision)", *since]

    def hint(self) -> dict:
        """What the game's hint agent (its heuristic) would play for the person now, from the seat's
        information only: ``{action, text, explain, agent}``."""
        if self.watch:
            raise BadRequest("a watched game has no person to hint")
        if self.game.done:
            raise BadRequest("the game is over: no hint")
        return self._hint_action()

    def replay_page(self) -> str:
        """The finished game as a replay page in this table's view."""
        if not self.game.done:
            raise BadRequest("the replay page comes at the end of the game")
        return self._replay_page()

    def _replay_page(self) -> str:
        raise NotImplementedError


#: The variants a new game may switch on (R10.1, R10.2): the :class:`~ohmygoods_env.rules.RuleSet` fields.
VARIANTS: tuple[str, ...] = ("keep_one", "two_for_one")


def buildable(names: list[str], build: Any) -> list[str]:
    """The ``names`` for which ``build(name)`` makes an agent: what a page offers, for either game
    (an agent that needs an argument, ``sb3:PATH`` or ``exec:COMMAND``, is left out)."""
    offered = []
    for name in names:
        try:
            build(name)
        except (ValueError, OSError, ImportError, TypeError):
            continue
        offered.append(name)
    return offered


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
        """The finished game as a replay page (:func:`~ohmygoods_env.apps.replay.replay_html`) in this game's view."""
        from .replay import replay_html

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


def _seed(value: object) -> int | None:
    """The ``seed`` of a new-game request: None (a fresh seed), an int, or a string of up to 20 digits."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        value = int(value)
    try:
        return optional_seed(value)
    except (TypeError, ValueError) as exc:
        raise BadRequest(str(exc)) from None


def _variants(body: dict) -> dict[str, bool]:
    """The variant switches of a new-game request (:data:`VARIANTS`): JSON booleans, default false."""
    out = {}
    for name in VARIANTS:
        value = body.get(name, False)
        if not isinstance(value, bool):
            raise BadRequest(f"{name} must be true or false, got {value!r}")
        out[name] = value
    return out


def _opponents(body: dict, players: int) -> list[str]:
    """The agent names of a new-game request: one per other seat (one name fills them all); none in solo."""
    if "opponents" not in body:
        return ["heuristic"] * (players - 1)
    opponents = body["opponents"]
    if not isinstance(opponents, list) or not all(isinstance(n, str) and n.strip() for n in opponents):
        raise BadRequest(f"opponents must be a list of agent names, got {opponents!r}")
    opponents = [n.strip() for n in opponents]
    if players == 1 and opponents:
        raise BadRequest(f"opponents: a solo game (players 1) has none, got {len(opponents)}")
    if len(opponents) == 1:
        opponents = opponents * (players - 1)
    if len(opponents) != players - 1:
        raise BadRequest(f"opponents: give one agent or {players - 1}, got {len(opponents)}")
    return opponents


def _bots(body: dict, players: int) -> list[str]:
    """The agents of a watched game: one per seat (one name fills them all; default heuristic)."""
    bots = body.get("opponents", ["heuristic"])
    if not isinstance(bots, list) or not bots or not all(isinstance(n, str) and n.strip() for n in bots):
        raise BadRequest(f"opponents must be a list of agent names, got {bots!r}")
    bots = [n.strip() for n in bots]
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise BadRequest(f"opponents: a watched game needs one agent or {players}, got {len(bots)}")
    return bots


def _view(body: dict, players: int) -> int | str:
    """The view of a watched game: ``"public"`` (the default: every hand hidden) or a seat."""
    view = body.get("view", PUBLIC)
    if view == PUBLIC:
        return PUBLIC
    if isinstance(view, bool) or not isinstance(view, int) or not 0 <= view < players:
        raise BadRequest(f"view must be 'public' or a seat in 0..{players - 1}, got {view!r}")
    return view


class WebKind(Protocol):
    """One game's part of ``ohmygoods serve``: its page, what the page offers, how a game starts.

    The server's HTTP, sessions and checks (:class:`GameServer`, :class:`Handler`) are the same
    for every game; a game adds a class of this shape and a page, and names it in
    :data:`WEB_GAMES`. A game object (what :meth:`new_game` returns) has ``lock`` (a
    ``threading.Lock``), ``view(game_id) -> dict``, ``move(action)``, ``undo()``, ``hint() -> dict``,
    ``step(moves)`` and ``replay_page() -> str``; each refuses a bad request with :class:`BadRequest`.
    """

    name: str
    page: str  # file name in static/
    download: str  # file name of the replay page

    def offered(self) -> dict: ...

    def new_game(self, body: dict) -> Any: ...


class OhMyGoodsWeb:
    """*Oh my Goods!* in ``ohmygoods serve``: the page ``serve.html`` and :class:`WebGame`."""

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
        seed = _seed(body.get("seed"))
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise BadRequest(f"players must be 1 (solo), 2, 3 or 4, got {players}")
        if not 0 <= seat < players:
            raise BadRequest(f"seat must be in 0..{players - 1}, got {seat}")
        variants = _variants(body)
        watch = body.get("watch", False)
        if not isinstance(watch, bool):
            raise BadRequest(f"watch must be true or false, got {watch!r}")
        if watch:
            return WebGame(rules, players, None, _bots(body, players), seed, variants, _view(body, players))
        return WebGame(rules, players, seat, _opponents(body, players), seed, variants)


#: The games ``ohmygoods serve --game NAME`` serves: name -> ``"module:class"`` of its :class:`WebKind`.
WEB_GAMES: dict[str, str] = {
    "ohmygoods": "ohmygoods_env.apps.serve:OhMyGoodsWeb",
    "artificium": "ohmygoods_env.apps.web_artificium:ArtificiumWeb",
}


def web_kind(game: str) -> WebKind:
    """The :class:`WebKind` of ``game`` (a name of :data:`WEB_GAMES`); ``ValueError`` names the known ones."""
    import importlib

    if game not in WEB_GAMES:
        raise ValueError(f"no browser app for game {game!r}: expected one of {sorted(WEB_GAMES)}")
    module, _, cls = WEB_GAMES[game].partition(":")
    return getattr(importlib.import_module(module), cls)()


STATIC = Path(__file__).parent / "static"
SHELL_INCLUDE = "//@include shell.js"
#: the include lines of a game's page and the shared file each stands for
SHELL_PARTS: dict[str, str] = {SHELL_INCLUDE: "shell.js", "/*@include shell.css*/": "shell.css"}


def page_html(name: str) -> str:
    """The page ``static/<name>`` with what every game's page shares put in place of its include lines
    (``//@include shell.js``: ``static/shell.js``; ``/*@include shell.css*/``: ``static/shell.css``); a page
    without each line exactly once is refused (``ValueError``)."""
    page = (STATIC / name).read_text(encoding="utf-8")
    for line, part in SHELL_PARTS.items():
        if page.count(line) != 1:
            raise ValueError(f"static/{name} must hold the line {line!r} once")
        page = page.replace(line, (STATIC / part).read_text(encoding="utf-8").rstrip("\n"))
    return page


class GameServer(ThreadingHTTPServer):
    """The HTTP server, its games (in memory), and what a request must carry to be obeyed.

    ``hosts``: the ``Host`` values accepted (this server's own names; anything else, such as
    a DNS-rebinding name, is refused). ``token``: a random secret written into the page that
    every state-changing request must send back (``X-Ohmygoods-Token``).
    """

    daemon_threads = True
    #: seconds a request may take to send its request line and headers (and an idle connection may wait)
    request_seconds = 30.0
    #: seconds a request may take to send its whole body
    body_seconds = 10.0

    def __init__(self, address: tuple[str, int], game: str = "ohmygoods") -> None:
        self.kind = web_kind(game)  # before binding: an unknown game binds no port
        super().__init__(address, Handler)
        self.games: dict[str, Any] = {}
        self.lock = threading.Lock()
        self.token = secrets.token_urlsafe(32)
        self.page = page_html(self.kind.page).replace("{{TOKEN}}", self.token).encode("utf-8")
        self.hosts = own_hosts(address[0], self.server_address[1])

    @property
    def agent_names(self) -> list[str]:
        """The agent names the page offers for this server's game."""
        return self.kind.offered()["agents"]

    def new_game(self, body: dict) -> str:
        """Start a game from a ``POST /api/new`` body (the game's :class:`WebKind` reads it); its id."""
        game = self.kind.new_game(body)
        game_id = secrets.token_hex(8)
        with self.lock:
            self.games[game_id] = game
            while len(self.games) > MAX_GAMES:
                self.games.pop(next(iter(self.games)))
        return game_id

    def game(self, game_id: object) -> Any:
        with self.lock:
            game = self.games.get(game_id) if isinstance(game_id, str) else None
        if game is None:
            raise BadRequest(f"no game {game_id!r} (start one with POST /api/new)")
        return game


class _DeadlineReader(io.RawIOBase):
    """The handler's socket as a raw stream whose every read ends by ``handler.deadline``
    (``TimeoutError`` after it): a client that sends one byte at a time cannot hold a thread."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.handler.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request took too long")
        self.handler.connection.settimeout(left)
        return self.handler.connection.recv_into(buffer)


def own_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` header values of a server bound to ``host:port``: the loopback names, and ``host``."""
    names = {"127.0.0.1", "localhost", "[::1]"}
    if host not in ("", "0.0.0.0", "::"):  # a wildcard address is no name a page can be asked for
        names.add((f"[{host}]" if ":" in host else host).lower())
    return frozenset(f"{n}:{port}" for n in names) | (frozenset(names) if port == 80 else frozenset())


class Handler(BaseHTTPRequestHandler):
    """The page and the JSON endpoints (see the module docstring); every request is checked first.

    A request is obeyed only when its ``Host`` is one of the server's own names; a POST also
    needs the page's token, no foreign ``Origin``, a JSON ``Content-Type`` and a
    ``Content-Length`` of at most :data:`MAX_BODY` bytes that arrive within
    ``server.body_seconds``. Anything else gets a 4xx JSON ``{"error": ...}``.
    """

    server: GameServer
    timeout = 30  # seconds a write may wait for the client
    deadline = 0.0  # time.monotonic() by which the part being read must have arrived

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # reads go through the deadline below instead
        self.rfile = io.BufferedReader(_DeadlineReader(self))

    def handle_one_request(self) -> None:
        """One request; its line and headers must arrive within ``server.request_seconds`` (else the
        connection closes), its body within ``server.body_seconds``."""
        self.deadline = time.monotonic() + self.server.request_seconds
        super().handle_one_request()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # quiet: the terminal shows only the address

    def _send(self, status: int, body: bytes, kind: str, download: str | None = None) -> None:
        self.connection.settimeout(self.timeout)
        if self.request_version == "HTTP/0.9":  # a request line without a version still gets a status line
            self.request_version = "HTTP/1.0"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", "frame-ancestors 'none'")
        if download is not None:
            self.send_header("Content-Disposition", f'attachment; filename="{download}"')
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: dict) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's errors (a malformed request line or headers, an unknown method) as JSON."""
        self.close_connection = True
        if code == HTTPStatus.NOT_IMPLEMENTED:  # an unknown method is the client's mistake
            code = HTTPStatus.METHOD_NOT_ALLOWED
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self._json(code, {"error": message or phrase})

    def _check_host(self) -> None:
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1 or hosts[0].strip().lower() not in self.server.hosts:
            raise BadRequest(
                f"Host {', '.join(hosts) or '(none)'} is not this server's; use {sorted(self.server.hosts)[0]}",
                HTTPStatus.MISDIRECTED_REQUEST,
            )

    def _check_sender(self) -> None:
        """A state-changing request must come from this server's own page."""
        origin = self.headers.get("Origin")
        if origin is not None and urlparse(origin).netloc.lower() not in self.server.hosts:
            raise BadRequest(f"requests from {origin!r} are refused", HTTPStatus.FORBIDDEN)
        token = self.headers.get("X-Ohmygoods-Token", "")
        if not hmac.compare_digest(token.encode("utf-8", "replace"), self.server.token.encode("ascii")):
            raise BadRequest("missing or wrong X-Ohmygoods-Token: send requests from this server's page", 403)

    def _body(self) -> dict:
        if "Transfer-Encoding" in self.headers:
            raise BadRequest("Transfer-Encoding is not accepted: send a Content-Length", HTTPStatus.LENGTH_REQUIRED)
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            raise BadRequest("a POST needs a Content-Length", HTTPStatus.LENGTH_REQUIRED)
        text = lengths[0].strip()
        if len(lengths) != 1 or not (text.isascii() and text.isdigit()) or len(text) > 9:
            raise BadRequest(f"Content-Length must be one whole number of bytes, got {', '.join(lengths)!r}")
        n = int(text)
        if n > MAX_BODY:
            raise BadRequest(f"request body of {n} bytes: at most {MAX_BODY}", HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise BadRequest(f"Content-Type must be application/json, got {kind or '(none)'!r}", 415)
        try:
            body = loads_bounded(self._read(n) or b"{}")
        except BadJSON as exc:
            raise BadRequest(f"the body: {exc}") from None
        if not isinstance(body, dict):
            raise BadRequest("the body must be a JSON object")
        return body

    def _read(self, n: int) -> bytes:
        """Exactly ``n`` bytes of body, within ``server.body_seconds`` in all (408 otherwise)."""
        self.deadline = time.monotonic() + self.server.body_seconds
        try:
            data = self.rfile.read(n)
        except TimeoutError:
            raise BadRequest(
                f"the body did not arrive within {self.server.body_seconds:g} s", HTTPStatus.REQUEST_TIMEOUT
            ) from None
        if len(data) < n:
            raise BadRequest(f"the body ended after {len(data)} of {n} bytes")
        return data

    def _answer(self, respond) -> None:
        """Run ``respond`` and turn a refusal into its status and a JSON message (and any bug into 500)."""
        try:
            self._check_host()
            respond()
        except BadRequest as exc:
            self.close_connection = True  # an unread body must not be taken for the next request
            self._json(exc.status, {"error": str(exc)})
        except Exception as exc:  # a bug: answer, keep serving, say what broke
            self.close_connection = True
            print(f"ohmygoods serve: {self.command} {self.path}: {exc!r}", file=sys.stderr)
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(exc).__name__}"})

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        self._answer(self._get)

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        self._answer(self._post)

    def _get(self) -> None:
        url = urlparse(self.path)
        if "Transfer-Encoding" in self.headers or self.headers.get("Content-Length", "0").strip() != "0":
            self.close_connection = True  # a body a GET does not read must not be taken for the next request
        if url.path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
        elif url.path == "/api/agents":
            self._json(HTTPStatus.OK, self.server.kind.offered())
        elif url.path == "/api/state":
            game_id = parse_qs(url.query).get("id", [None])[0]
            game = self.server.game(game_id)
            with game.lock:
                self._json(HTTPStatus.OK, game.view(game_id))
        elif url.path == "/api/hint":
            game = self.server.game(parse_qs(url.query).get("id", [None])[0])
            with game.lock:
                self._json(HTTPStatus.OK, game.hint())
        elif url.path == "/api/replay":
            game = self.server.game(parse_qs(url.query).get("id", [None])[0])
            with game.lock:
                page = game.replay_page().encode()
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8", download=self.server.kind.download)
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page: {url.path}"})

    def _post(self) -> None:
        url = urlparse(self.path)
        if url.path not in ("/api/new", "/api/move", "/api/undo", "/api/step"):
            raise BadRequest(f"no such endpoint: {url.path}", HTTPStatus.NOT_FOUND)
        self._check_sender()
        body = self._body()
        if url.path == "/api/new":
            game_id = self.server.new_game(body)
            game = self.server.game(game_id)
        else:
            game_id = body.get("id")
            game = self.server.game(game_id)
            with game.lock:
                if url.path == "/api/undo":
                    game.undo()
                elif url.path == "/api/step":
                    game.step(body.get("moves", 1))
                else:
                    game.move(body.get("action"))
        with game.lock:
            self._json(HTTPStatus.OK, game.view(game_id))


def make_server(host: str = "127.0.0.1", port: int = 8000, game: str = "ohmygoods") -> GameServer:
    """A server of ``game`` (:data:`WEB_GAMES`) bound to ``host:port`` (port 0: any free port); call
    ``serve_forever()`` on it."""
    return GameServer((host, port), game)


def _parser():
    ap = parser("ohmygoods serve", "Play in the browser against agents: a local web server.")
    ap.add_argument("--game", choices=sorted(WEB_GAMES), default="ohmygoods", help="the game to play")
    ap.add_argument("--port", type=int_at_least(0), default=8000, help="TCP port (0: any free port)")
    ap.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (127.0.0.1: this computer only). Requests must name this address or a "
        "loopback name in their Host header (so bind a LAN address itself, not 0.0.0.0, to play from another device)",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods serve``; runs until interrupted."""
    ap = _parser()
    args = ap.parse_args(argv)
    if args.port > 65535:
        ap.error(f"--port must be at most 65535, got {args.port}")
    from .common import warm_engine

    if args.game == "ohmygoods":
        warm_engine()
    try:
        server = make_server(args.host, args.port, args.game)
    except OSError as exc:
        print(f"ohmygoods serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    print(f"ohmygoods serve: open http://{host}:{port}/ in a browser (Ctrl-C stops the server)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped")
    finally:
        server.server_close()
    return 0
