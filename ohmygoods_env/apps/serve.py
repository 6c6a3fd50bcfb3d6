"""``ohmygoods serve``: play Oh my Goods! in the browser against agents (a local web server).

``ohmygoods serve [--port 8000] [--host 127.0.0.1]`` then open ``http://127.0.0.1:8000/``.

The standard library is enough: :class:`http.server.ThreadingHTTPServer` serves one page
(``static/serve.html``, no external resource) and four JSON endpoints. It binds to
127.0.0.1 unless ``--host`` says otherwise.

===========================  ==================================================================
endpoint                     what it does
===========================  ==================================================================
``GET /``                    the page: choose rules, players, your seat and the opponents
``GET /api/agents``          the agent names offered (the registry's short names and shipped
                             checkpoints); any other name of ``ohmygoods_agents.make_agent`` is accepted
``POST /api/new``            ``{rules, players, seat, opponents: [..], seed}``: a new game; the
                             agents play until it is your turn. ``seed`` (an int or a string of
                             digits, ``0 <= seed < 2**64``) fixes the deal; without it every
                             game is dealt from a fresh seed
``GET /api/state?id=G``      your view of game G (below)
``POST /api/move``           ``{id, action}``: play one of your legal actions; the agents play
                             until it is your turn again or the game is over
===========================  ==================================================================

A view holds only what your seat may see: the SVG seat view
(:func:`~ohmygoods_env.picture.render_svg` with ``viewer=seat``), your legal choices labelled
with :func:`~ohmygoods_env.actions.describe`, the others' moves since your last decision as
your seat sees them (:func:`~ohmygoods_env.picture.move_text`: hidden choices stay hidden
until the reveal), and at the end the final scores, one plain line ("You won 27–24") and the game's ``record``
(rules, seed and actions, as ``games.jsonl`` rows hold it, so the game can be replayed).
Bad requests get status 400 and a message; the game is unchanged.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from ..actions import describe
from ..checks import offset_seed, optional_seed
from ..engine import Game
from ..picture import move_text, render_svg
from ..rules import EDITIONS
from .common import int_at_least, parser

MAX_GAMES = 64  # games kept in memory; the oldest goes first


class BadRequest(ValueError):
    """A request the server refuses with status 400; the message says what was wrong."""


def agent_names() -> list[str]:
    """Agent names offered on the page: registry short names and the shipped checkpoints."""
    import ohmygoods_agents

    names = [n for n in ohmygoods_agents.AGENT_NAMES if ":" not in n]
    shipped = Path(ohmygoods_agents.__file__).parent / "checkpoints"
    names += [f"ppo:{p}" for p in sorted(shipped.glob("*.zip"))]
    return names


class WebGame:
    """One game between a person (``seat``) and agents, as the person's view sees it."""

    def __init__(self, rules: str, players: int, seat: int, opponents: list[str], seed: int | None = None) -> None:
        from ohmygoods_agents import make_agent

        self.game = Game(players, rules, seed=seed)  # no seed: a fresh one, kept in the game's record
        self.seat = seat
        self.names = opponents[:seat] + ["you"] + opponents[seat:]
        deal = self.game.seed
        try:
            self.agents = [
                None if p == seat else make_agent(self.names[p], seed=offset_seed(deal, 1 + p)) for p in range(players)
            ]
        except (ValueError, OSError, ImportError, TypeError) as exc:
            raise BadRequest(f"opponents: {exc}") from None
        self.since: list[str] = []
        self.last_move: str | None = None
        self.lock = threading.Lock()
        self._advance()

    def _advance(self) -> None:
        """Let the agents play until it is the person's turn or the game is over."""
        from ohmygoods_agents.base import info_state_of

        g = self.game
        while not g.done and g.current_player != self.seat:
            p = g.current_player
            a = int(self.agents[p].act(g.observe(p), g.legal_mask(), info_state_of(g.state, p)))
            text = move_text(g, a, self.seat)
            g.step(a)
            self.since.append(f"player {p} ({self.names[p]}){text[len(f'player {p}') :]}")
            self.last_move = text

    def move(self, action: object) -> None:
        g = self.game
        if g.done:
            raise BadRequest("the game is over")
        if isinstance(action, bool) or not isinstance(action, int):
            raise BadRequest(f"action must be an integer action id, got {action!r}")
        if action not in g.legal_actions():
            raise BadRequest(f"action {action} is not one of your legal choices: {g.legal_actions()}")
        text = move_text(g, action, self.seat)
        g.step(action)
        self.since = [f"you: {text.split(': ', 1)[1]}"]
        self.last_move = text
        self._advance()

    def view(self, game_id: str) -> dict:
        from .play import final_line

        g = self.game
        out = {
            "id": game_id,
            "seat": self.seat,
            "players": self.names,
            "rules": g.rules.edition,
            "svg": render_svg(g, self.seat, last_move=self.last_move),
            "since": list(self.since),
            "done": g.done,
            "decision": None if g.done else g.decision_name,
            "choices": [] if g.done else [{"action": a, "text": describe(a, g)} for a in g.legal_actions()],
        }
        if g.done:
            out["scores"] = [{"player": p, "vp": vp, "coins": left} for p, (vp, left) in enumerate(g.scores())]
            out["winners"] = g.winners()
            out["result"] = final_line(g, self.seat)
            out["record"] = g.record().to_dict()  # the seed only now: it would tell the hidden cards
        return out


def _seed(value: object) -> int | None:
    """The ``seed`` of a new-game request: None (a fresh seed), an int, or a string of up to 20 digits."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        value = int(value)
    try:
        return optional_seed(value)
    except (TypeError, ValueError) as exc:
        raise BadRequest(str(exc)) from None


class GameServer(ThreadingHTTPServer):
    """The HTTP server and its games (in memory)."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, Handler)
        self.games: dict[str, WebGame] = {}
        self.lock = threading.Lock()
        self.page = (Path(__file__).parent / "static" / "serve.html").read_bytes()
        self.agent_names = agent_names()

    def new_game(self, body: dict) -> str:
        rules = body.get("rules", "omg2")
        if rules not in EDITIONS:
            raise BadRequest(f"rules must be one of {list(EDITIONS)}, got {rules!r}")
        players, seat = body.get("players", 2), body.get("seat", 0)
        for key, value in (("players", players), ("seat", seat)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadRequest(f"{key} must be an integer, got {value!r}")
        seed = _seed(body.get("seed"))
        if players not in (2, 3, 4):
            raise BadRequest(f"players must be 2, 3 or 4, got {players}")
        if not 0 <= seat < players:
            raise BadRequest(f"seat must be in 0..{players - 1}, got {seat}")
        opponents = body.get("opponents", ["heuristic"])
        if not isinstance(opponents, list) or not all(isinstance(n, str) and n.strip() for n in opponents):
            raise BadRequest(f"opponents must be a list of agent names, got {opponents!r}")
        opponents = [n.strip() for n in opponents]
        if len(opponents) == 1:
            opponents = opponents * (players - 1)
        if len(opponents) != players - 1:
            raise BadRequest(f"opponents: give one agent or {players - 1}, got {len(opponents)}")
        game = WebGame(rules, players, seat, opponents, seed)
        game_id = secrets.token_hex(8)
        with self.lock:
            self.games[game_id] = game
            while len(self.games) > MAX_GAMES:
                self.games.pop(next(iter(self.games)))
        return game_id

    def game(self, game_id: object) -> WebGame:
        with self.lock:
            game = self.games.get(game_id) if isinstance(game_id, str) else None
        if game is None:
            raise BadRequest(f"no game {game_id!r} (start one with POST /api/new)")
        return game


class Handler(BaseHTTPRequestHandler):
    """The page and the JSON endpoints (see the module docstring)."""

    server: GameServer

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # quiet: the terminal shows only the address

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: dict) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _body(self) -> dict:
        n = int(self.headers.get("Content-Length") or 0)
        if n > 65536:
            raise BadRequest("request body too large")
        try:
            body = json.loads(self.rfile.read(n) or b"{}")
        except json.JSONDecodeError as exc:
            raise BadRequest(f"the body is not JSON: {exc.msg}") from None
        if not isinstance(body, dict):
            raise BadRequest("the body must be a JSON object")
        return body

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        url = urlparse(self.path)
        try:
            if url.path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
            elif url.path == "/api/agents":
                self._json(HTTPStatus.OK, {"agents": self.server.agent_names, "rules": list(EDITIONS)})
            elif url.path == "/api/state":
                game_id = parse_qs(url.query).get("id", [None])[0]
                game = self.server.game(game_id)
                with game.lock:
                    self._json(HTTPStatus.OK, game.view(game_id))
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page: {url.path}"})
        except BadRequest as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        url = urlparse(self.path)
        try:
            body = self._body()
            if url.path == "/api/new":
                game_id = self.server.new_game(body)
                game = self.server.game(game_id)
            elif url.path == "/api/move":
                game_id = body.get("id")
                game = self.server.game(game_id)
                with game.lock:
                    game.move(body.get("action"))
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no such endpoint: {url.path}"})
                return
            with game.lock:
                self._json(HTTPStatus.OK, game.view(game_id))
        except BadRequest as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})


def make_server(host: str = "127.0.0.1", port: int = 8000) -> GameServer:
    """A server bound to ``host:port`` (port 0: any free port); call ``serve_forever()`` on it."""
    return GameServer((host, port))


def _parser():
    ap = parser("ohmygoods serve", "Play in the browser against agents: a local web server.")
    ap.add_argument("--port", type=int_at_least(0), default=8000, help="TCP port (0: any free port)")
    ap.add_argument("--host", default="127.0.0.1", help="address to bind; the default serves this computer only")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods serve``; runs until interrupted."""
    ap = _parser()
    args = ap.parse_args(argv)
    if args.port > 65535:
        ap.error(f"--port must be at most 65535, got {args.port}")
    from .common import warm_engine

    warm_engine()
    try:
        server = make_server(args.host, args.port)
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
