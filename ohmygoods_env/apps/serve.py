"""``ohmygoods serve``: play Oh my Goods! (or *Artificium*) in the browser against agents (a local web server).

``ohmygoods serve [--game ohmygoods|artificium] [--port 8000] [--host 127.0.0.1]`` then open
``http://127.0.0.1:8000/``.

One shell serves every game (:mod:`ohmygoods_env.apps.web_shell`): the HTTP server, its checks
and its sessions (:class:`GameServer`, :class:`Handler`) are shared; what is particular to a game
(its page, what the page offers, how a game starts and what a view holds) is a :class:`WebKind`
that the game's spec names (``GameSpec.web``; *Oh my Goods!*:
:mod:`ohmygoods_env.apps.web_ohmygoods`, *Artificium*: :mod:`ohmygoods_env.apps.web_artificium`).
Every game with a page is served at once: ``--game`` picks the one ``/`` shows, and the page's
game list (``GET /api/games``) opens another (``/?game=NAME``; ``GET /api/agents?game=NAME`` and
``POST /api/new`` with ``game`` name it). The table below is Oh my Goods!'s; Artificium's
endpoints are the same (its module says what its views hold).

The standard library is enough: :class:`http.server.ThreadingHTTPServer` serves one page
(``static/serve.html``, no external resource) and four JSON endpoints. It binds to
127.0.0.1 unless ``--host`` says otherwise.

===========================  ==================================================================
endpoint                     what it does
===========================  ==================================================================
``GET /``                    the page: choose the game, rules, players, your seat and the opponents
                             (``/?game=NAME``: that game's page)
``GET /api/games``           ``{games: [{name, title}], default}``: every game with a page
``GET /api/agents``          the agent names offered (every name of the agent registry,
                             :func:`ohmygoods_env.policy.agent_names`, that needs no argument:
                             the shipped networks ``ppo``, ``ppo-long``, ``ppo-3p``, ``ppo-4p``, ``ppo-solo``
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
                             :func:`~ohmygoods_env.apps.web_ohmygoods.replay_html`); 400 before the end
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
most 40 characters (:func:`~ohmygoods_env.framework.files.loads_bounded`; else 400). Every refusal is a
JSON ``{"error": ...}`` and the connection closes; the server keeps serving.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from .common import int_at_least, parser
from .web_shell import (  # noqa: F401  (the shell's names, re-exported: they were this module's)
    MAX_BODY,
    MAX_GAMES,
    PUBLIC,
    SHELL_INCLUDE,
    SHELL_PARTS,
    STATIC,
    BadRequest,
    GameServer,
    Handler,
    Table,
    WebKind,
    buildable,
    own_hosts,
    page_html,
    web_games,
    web_kind,
)

#: Oh my Goods!'s page pieces, which lived here: loaded from their module on first use (PEP 562)
_MOVED = {
    name: "ohmygoods_env.apps.web_ohmygoods"
    for name in ("OhMyGoodsWeb", "VARIANTS", "WebGame", "agent_names", "public_card_facts")
}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        return getattr(importlib.import_module(_MOVED[name]), name)
    if name == "WEB_GAMES":  # the games with a page: name -> "module:Class" of its page kind (from the specs)
        from .web_shell import page_target

        return {game: page_target(game) for game in web_games()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_server(host: str = "127.0.0.1", port: int = 8000, game: str | None = None) -> GameServer:
    """A server of every game with a page, ``game``'s at ``/`` (:func:`~.web_shell.web_games`; None: the default
    game), bound to ``host:port`` (port 0: any free port); call ``serve_forever()`` on it."""
    from ..framework.game import default_game

    return GameServer((host, port), game or default_game())


def _parser():
    from ..framework.game import default_game

    ap = parser("ohmygoods serve", "Play in the browser against agents: a local web server.")
    ap.add_argument(
        "--game",
        choices=web_games(),
        default=default_game(),
        help="the game the page opens with (the page offers every game)",
    )
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
    web_kind(args.game).warm()
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
