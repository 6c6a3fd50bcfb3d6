"""The web shell of ``ohmygoods serve`` and the replay pages: what every game's browser page shares.

This module knows no game. It holds the HTTP server and its checks (:class:`GameServer`,
:class:`Handler`: the ``Host`` allow-list, the page's token on every POST, bounded reads), the
sessions (games kept in memory), the table every game's page builds on (:class:`Table`: seats,
agents, undo, hints, watch mode), the checks of a new-game request (:func:`seed_of`,
:func:`opponents_of`, :func:`bots_of`, :func:`view_of`; all at once: :func:`table_of`), the page files
(:func:`page_html`: a game's page with ``static/shell.js``, ``shell.css`` and ``table.js`` put in) and
what a replay page is made of (:func:`pack_svg`, :func:`fill_template`, :func:`replay_page`,
:func:`replay_seats`, :class:`ReplayError`).

A game supplies its page through its spec: :attr:`ohmygoods_env.framework.game.GameSpec.web`
names its page kind (``"module:Class"``, a :class:`WebKind`), imported here when the game is
first asked for (:func:`web_kind`); a game whose spec names none gets the generic page
(:data:`GENERIC_PAGE`, :mod:`ohmygoods_env.apps.web_generic`: the seat's text view and its legal
actions as buttons). Every registered game is offered on every page (``GET /api/games``: a person
chooses the game in the page, ``/?game=NAME``). *Oh my Goods!*'s page kind is
:mod:`ohmygoods_env.apps.web_ohmygoods`, *Artificium*'s :mod:`ohmygoods_env.apps.web_artificium`;
each imports this module, and this module imports none of them (each is named by a string:
``tests/test_imports.py`` finds no import circle).
"""

from __future__ import annotations

import base64
import gzip
import hmac
import importlib
import io
import json
import re
import secrets
import sys
import threading
import time
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlparse

from ..framework.checks import offset_seed, optional_seed
from ..framework.files import BadJSON, loads_bounded
from ..framework.game import game_names, game_spec

MAX_GAMES = 64  # games kept in memory; the oldest goes first
MAX_BODY = 65536  # bytes of a request body
#: the view of a watched game (or a replay) that shows no hand (the same word as ``render.PUBLIC``)
PUBLIC = "public"


class BadRequest(ValueError):
    """A request the server refuses (status 400 unless another 4xx is given); the message says what was wrong."""

    def __init__(self, message: str, status: int = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = int(status)


class Table:
    """What every game's table in the browser shares: a person at ``seat`` (or nobody: ``watch``), the
    agents, the log (``since``), what was revealed (``happened``), undo history and the checks of the
    person's and the watcher's requests. A game's table (``web_ohmygoods.WebGame``, ``web_artificium.ArtWebGame``)
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
    download: str = "replay.html"  # the replay page's file name (the server sets its game's)

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


def seed_of(value: object) -> int | None:
    """The ``seed`` of a new-game request: None (a fresh seed), an int, or a string of up to 20 digits."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        value = int(value)
    try:
        return optional_seed(value)
    except (TypeError, ValueError) as exc:
        raise BadRequest(str(exc)) from None


def opponents_of(body: dict, players: int, default: str) -> list[str]:
    """The agent names of a new-game request: one per other seat (one name fills them all; ``default`` for
    every seat where the request names none); none in solo."""
    if "opponents" not in body:
        return [default] * (players - 1)
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


def bots_of(body: dict, players: int, default: str) -> list[str]:
    """The agents of a watched game: one per seat (one name fills them all; ``default`` where none is named)."""
    bots = body.get("opponents", [default])
    if not isinstance(bots, list) or not bots or not all(isinstance(n, str) and n.strip() for n in bots):
        raise BadRequest(f"opponents must be a list of agent names, got {bots!r}")
    bots = [n.strip() for n in bots]
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise BadRequest(f"opponents: a watched game needs one agent or {players}, got {len(bots)}")
    return bots


def view_of(body: dict, players: int) -> int | str:
    """The view of a watched game: ``"public"`` (the default: every hand hidden) or a seat."""
    view = body.get("view", PUBLIC)
    if view == PUBLIC:
        return PUBLIC
    if isinstance(view, bool) or not isinstance(view, int) or not 0 <= view < players:
        raise BadRequest(f"view must be 'public' or a seat in 0..{players - 1}, got {view!r}")
    return view


def table_of(body: dict, min_players: int, max_players: int, players: int, agent: str) -> tuple:
    """What a new-game request asks for, checked, for a game of ``min_players..max_players`` seats:
    ``(players, seat, agents, seed, viewer)``. ``players`` is the default count, ``agent`` the default
    agent; a watched game (``watch``) has seat None, an agent at every seat and ``viewer`` None (the
    public view) or a seat; a person's game has ``viewer`` None. A bad field is a :class:`BadRequest`."""
    players, seat = body.get("players", players), body.get("seat", 0)
    for key, value in (("players", players), ("seat", seat)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadRequest(f"{key} must be an integer, got {value!r}")
    if not min_players <= players <= max_players:
        raise BadRequest(f"players must be in {min_players}..{max_players}, got {players}")
    if not 0 <= seat < players:
        raise BadRequest(f"seat must be in 0..{players - 1}, got {seat}")
    seed = seed_of(body.get("seed"))
    watch = body.get("watch", False)
    if not isinstance(watch, bool):
        raise BadRequest(f"watch must be true or false, got {watch!r}")
    if watch:
        view = view_of(body, players)
        return players, None, bots_of(body, players, agent), seed, None if view == PUBLIC else view
    return players, seat, opponents_of(body, players, agent), seed, None


class WebKind(Protocol):
    """One game's part of the web shell: its page, what the page offers, how a game starts, its replays.

    The server's HTTP, sessions and checks (:class:`GameServer`, :class:`Handler`) are the same
    for every game; a game adds a class of this shape and a page in ``static/``, and names the
    class in its spec (``GameSpec.web``). A game object (what :meth:`new_game` returns, a
    :class:`Table`) has ``lock`` (a ``threading.Lock``), ``view(game_id) -> dict``,
    ``move(action)``, ``undo()``, ``hint() -> dict``, ``step(moves)`` and ``replay_page() -> str``;
    each refuses a bad request with :class:`BadRequest`.
    """

    name: str  # the game's registered name
    page: str  # file name in static/
    download: str  # file name of the replay page

    def offered(self) -> dict: ...

    def new_game(self, body: dict) -> Any: ...

    def record_size(self, row: dict, where: str) -> tuple[int, int]:
        """``(players, steps)`` of a ``games.jsonl`` row's record; :class:`ReplayError` names a bad field."""
        ...

    def replay_html(self, row: dict, viewer: int | str | None, title: str = "") -> str: ...

    def warm(self) -> None:
        """Compile (or load) what the game needs before the first request, telling the user if it takes a while."""
        ...


_KINDS: dict[str, WebKind] = {}
#: the page kind of every game whose spec names none (``GameSpec.web`` None): the seat's text view and its
#: legal actions as buttons (:mod:`ohmygoods_env.apps.web_generic`), made with the game's name
GENERIC_PAGE = "ohmygoods_env.apps.web_generic:GenericWeb"


def page_target(game: str) -> str:
    """``"module:Class"`` of the registered ``game``'s page kind: its spec's ``web``, else :data:`GENERIC_PAGE`."""
    return game_spec(game).web or GENERIC_PAGE


def web_kind(game: str) -> WebKind:
    """The :class:`WebKind` of the registered ``game`` (made once per process): the one its spec names
    (``web``), else the generic page's for that game; ``ValueError`` names the games that have a page."""
    kind = _KINDS.get(game) if isinstance(game, str) else None
    if kind is not None:
        return kind
    try:
        spec = game_spec(game)
    except (TypeError, ValueError):
        raise ValueError(f"no browser page for game {game!r}: expected one of {web_games()}") from None
    module, _, cls = (spec.web or GENERIC_PAGE).partition(":")
    made = getattr(importlib.import_module(module), cls)
    kind = _KINDS[spec.name] = made() if spec.web else made(spec.name)
    return kind


def web_games() -> list[str]:
    """The registered games, each of which has a browser page (its own, or the generic one), sorted."""
    return game_names()


def game_choices() -> list[dict[str, str]]:
    """What ``GET /api/games`` offers: ``{name, title}`` of every game with a page."""
    return [{"name": name, "title": game_spec(name).title} for name in web_games()]


STATIC = Path(__file__).parent / "static"
SHELL_INCLUDE = "//@include shell.js"
#: the include lines of a game's page and the shared file each stands for
SHELL_PARTS: dict[str, str] = {SHELL_INCLUDE: "shell.js", "/*@include shell.css*/": "shell.css"}
#: the include lines a page may hold (at most once) and the shared file each stands for: ``static/table.js``,
#: the table of a page that shows the seat's view and its legal actions as buttons (the generic page, Artificium's),
#: and ``static/table.html``, the setup form it reads
PAGE_PARTS: dict[str, str] = {"//@include table.js": "table.js", "<!--@include table.html-->": "table.html"}


def page_html(name: str) -> str:
    """The page ``static/<name>`` with what every game's page shares put in place of its include lines
    (``//@include shell.js``: ``static/shell.js``; ``/*@include shell.css*/``: ``static/shell.css``), and
    what some pages share in place of theirs (:data:`PAGE_PARTS`); a page without each shell line exactly
    once, or with a page part's line more than once, is refused (``ValueError``)."""
    page = (STATIC / name).read_text(encoding="utf-8")
    for line, part in {**SHELL_PARTS, **PAGE_PARTS}.items():
        count = page.count(line)
        if count != 1 and (line in SHELL_PARTS or count > 1):
            raise ValueError(f"static/{name} must hold the line {line!r} once")
        page = page.replace(line, (STATIC / part).read_text(encoding="utf-8").rstrip("\n"))
    return page


class GameServer(ThreadingHTTPServer):
    """The HTTP server, its games (in memory), and what a request must carry to be obeyed.

    ``game``: the game whose page ``/`` shows (``kind``); every game with a page is served
    (``/?game=NAME``, ``POST /api/new`` with ``game``). ``hosts``: the ``Host`` values accepted
    (this server's own names; anything else, such as a DNS-rebinding name, is refused).
    ``token``: a random secret written into the page that every state-changing request must
    send back (``X-Ohmygoods-Token``).
    """

    daemon_threads = True
    #: seconds a request may take to send its request line and headers (and an idle connection may wait)
    request_seconds = 30.0
    #: seconds a request may take to send its whole body
    body_seconds = 10.0

    def __init__(self, address: tuple[str, int], game: str) -> None:
        self.kind = web_kind(game)  # before binding: an unknown game binds no port
        super().__init__(address, Handler)
        self.games: dict[str, Any] = {}
        self.lock = threading.Lock()
        self.token = secrets.token_urlsafe(32)
        self.pages: dict[str, bytes] = {}
        self.page = self.page_of(self.kind)
        self.hosts = own_hosts(address[0], self.server_address[1])

    def page_of(self, kind: WebKind) -> bytes:
        """``kind``'s page with this server's token and the game's name in place (made once)."""
        if kind.name not in self.pages:
            page = page_html(kind.page).replace("{{TOKEN}}", self.token).replace("{{GAME}}", kind.name)
            self.pages[kind.name] = page.encode("utf-8")
        return self.pages[kind.name]

    def kind_of(self, game: object) -> WebKind:
        """The page kind a request names (``game``; none: the server's own game); 400 for a game without a page."""
        if game is None or game == self.kind.name:
            return self.kind
        try:
            return web_kind(game)  # type: ignore[arg-type]
        except ValueError as exc:
            raise BadRequest(str(exc)[:300]) from None

    @property
    def agent_names(self) -> list[str]:
        """The agent names the page offers for this server's game."""
        return self.kind.offered()["agents"]

    def new_game(self, body: dict) -> str:
        """Start a game from a ``POST /api/new`` body (``game``: its name, default the server's; the
        game's :class:`WebKind` reads the rest); its id."""
        kind = self.kind_of(body.get("game"))
        game = kind.new_game(body)
        game.download = kind.download
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
        query = parse_qs(url.query)
        if url.path in ("/", "/index.html"):
            kind = self.server.kind_of(query.get("game", [None])[0])
            self._send(HTTPStatus.OK, self.server.page_of(kind), "text/html; charset=utf-8")
        elif url.path == "/api/games":
            self._json(HTTPStatus.OK, {"games": game_choices(), "default": self.server.kind.name})
        elif url.path == "/api/agents":
            self._json(HTTPStatus.OK, self.server.kind_of(query.get("game", [None])[0]).offered())
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
            download = getattr(game, "download", self.server.kind.download)
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8", download=download)
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


# ------------------------------------------------------------------------------ replay pages


class ReplayError(ValueError):
    """A games file or a game in it that cannot be replayed (the message says why)."""


def pack_svg(svg: str) -> str:
    """A picture as the replay page stores it: gzip (no time stamp), base64."""
    return base64.b64encode(gzip.compress(svg.encode(), compresslevel=9, mtime=0)).decode("ascii")


def fill_template(template: str, texts: dict[str, str], scripts: dict[str, str]) -> str:
    """``template`` with each ``{{NAME}}`` replaced in one pass: ``texts`` as given (already escaped
    HTML), ``scripts`` (JSON) with ``<``, ``>``, ``&`` escaped for a ``<script type="application/json">``."""
    safe = {k: v.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") for k, v in scripts.items()}
    values = {**texts, **safe}
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: values.get(m.group(1), m.group(0)), template)


def replay_seats(row: dict, viewer: int | str | None, n: int) -> tuple[int | None, list[str]]:
    """The seat a replay of an ``n``-seat game row is drawn for (``viewer``: a seat; ``None`` or
    ``"public"``: None) and the seats' names (``seat P (AGENT)`` from the row's optional ``seats``, else
    ``seat P``); a seat out of range or a bad ``seats`` field is a :class:`ReplayError`."""
    seat = None if viewer in (None, PUBLIC) else viewer
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
        raise ReplayError(f"seat {viewer!r} is out of range: this game has seats 0..{n - 1}")
    seats = row.get("seats")
    if seats is not None and (
        not isinstance(seats, list) or len(seats) != n or not all(isinstance(s, str) for s in seats)
    ):
        raise ReplayError(f"field 'seats' must list {n} agent names, got {seats!r}"[:300])
    names = [f"seat {p} ({s})" for p, s in enumerate(seats)] if seats else [f"seat {p}" for p in range(n)]
    return seat, names


def replay_page(
    pictures: list[str], log: list[str], notes: list[list[str]], heading: str, players: str, title: str = ""
) -> str:
    """The self-contained replay page (``static/replay.html``) of one game: a picture per step (each
    distinct picture stored once, packed), the move log and what happened at each step.

    The placeholders are filled in one pass (:func:`fill_template`): texts HTML-escaped, the data as
    JSON with ``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no field of a games file (a player
    name, say) can reach markup or the script.
    """
    unique: dict[str, int] = {}
    order = [unique.setdefault(p, len(unique)) for p in pictures]
    data = json.dumps({"frames": [pack_svg(p) for p in unique], "order": order, "log": log, "notes": notes},
                      separators=(",", ":"))  # fmt: skip
    return fill_template(
        (STATIC / "replay.html").read_text(encoding="utf-8"),
        {"TITLE": escape(title or heading), "HEADING": escape(heading), "PLAYERS": escape(players)},
        {"DATA": data},
    )
