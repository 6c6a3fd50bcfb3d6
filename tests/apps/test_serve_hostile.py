"""``ohmygoods serve`` against hostile requests: a live server on 127.0.0.1, raw sockets.

Three classes: a foreign ``Host`` (DNS rebinding), a state-changing request that does not come
from the server's own page (foreign ``Origin``, no or a wrong token), and malformed requests
(bodies that are deep, huge, not UTF-8, of a bad or missing length, chunked or too slow).
Each gets a 4xx JSON error, no game changes, and the server answers the next request.
All traffic goes to 127.0.0.1; every loop is bounded.
"""

from __future__ import annotations

import json
import select
import socket
import time

import pytest

from ohmygoods_env.apps import serve as S


def _port(srv) -> int:
    return srv.server_address[1]


def _receive(sock: socket.socket, seconds: float = 60.0) -> tuple[int, dict | bytes]:
    """Read one response (the server closes errors' connections; else stop at Content-Length)."""
    sock.settimeout(seconds)
    data = b""
    while b"\r\n\r\n" not in data:
        part = sock.recv(65536)
        if not part:
            break
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1."), f"no HTTP reply: {data[:200]!r}"
    status = int(head.split()[1])
    headers = dict(
        line.split(": ", 1) for line in head.decode("latin-1").split("\r\n")[1:] if ": " in line
    )  # fmt: skip
    n = int(headers.get("Content-Length", "0"))
    for _ in range(1000):
        if len(body) >= n:
            break
        part = sock.recv(65536)
        if not part:
            break
        body += part
    if headers.get("Content-Type") == "application/json":
        return status, json.loads(body)
    return status, body


def _raw(srv, request: bytes, seconds: float = 60.0) -> tuple[int, dict | bytes]:
    with socket.create_connection(("127.0.0.1", _port(srv)), timeout=seconds) as sock:
        sock.sendall(request)
        return _receive(sock, seconds)


def _post(
    srv, path: str, body: bytes, *, host: str | None = None, token: str | None = None, extra: str = ""
) -> tuple[int, dict | bytes]:
    host = host or f"127.0.0.1:{_port(srv)}"
    token = srv.token if token is None else token
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"X-Ohmygoods-Token: {token}\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
    )
    return _raw(srv, head.encode("latin-1") + body)


def _get(srv, path: str, host: str | None = None) -> tuple[int, dict | bytes]:
    host = f"127.0.0.1:{_port(srv)}" if host is None else host
    return _raw(srv, f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())


NEW_GAME = json.dumps({"players": 2, "seat": 0, "opponents": ["random"], "seed": 3}).encode()


def _still_serving(srv) -> None:
    status, answer = _get(srv, "/api/agents")
    assert status == 200 and "random" in answer["agents"]


# ---------------------------------------------------------------------------- Host


def test_only_the_servers_own_host_names_are_answered(server) -> None:
    port = _port(server)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}"):
        status, answer = _get(server, "/api/agents", host)
        assert status == 200 and answer["agents"], host
    for host in (f"attacker.example:{port}", "attacker.example", f"127.0.0.1:{port + 1}", f"127.0.0.1.nip.io:{port}"):
        for path in ("/", "/api/agents"):
            status, answer = _get(server, path, host)
            assert status == 421 and "is not this server's" in answer["error"], (host, path)
            assert server.token not in json.dumps(answer)
    status, answer = _raw(server, b"GET / HTTP/1.0\r\n\r\n")  # no Host at all
    assert status == 421
    games = len(server.games)
    status, _ = _post(server, "/api/new", NEW_GAME, host=f"rebound.example:{port}")
    assert status == 421 and len(server.games) == games


def test_own_hosts_names_the_bound_address_too() -> None:
    assert S.own_hosts("127.0.0.1", 8000) == {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}
    assert "192.168.1.5:9000" in S.own_hosts("192.168.1.5", 9000)
    assert "[fe80::1]:9000" in S.own_hosts("fe80::1", 9000)
    assert S.own_hosts("0.0.0.0", 8000) == S.own_hosts("127.0.0.1", 8000)


# ---------------------------------------------------------------------------- Origin and token


def test_the_page_carries_the_servers_token_and_sends_it(server) -> None:
    status, page = _get(server, "/")
    assert status == 200 and f'content="{server.token}"'.encode() in page
    assert b"{{TOKEN}}" not in page and b'"X-Ohmygoods-Token": TOKEN' in page
    other = S.make_server("127.0.0.1", 0)
    try:
        assert other.token != server.token and len(server.token) >= 32  # per server, random
    finally:
        other.server_close()


def test_state_changing_requests_from_elsewhere_are_refused(server) -> None:
    port = _port(server)
    games = len(server.games)
    status, answer = _post(server, "/api/new", NEW_GAME, token="")
    assert status == 403 and "X-Ohmygoods-Token" in answer["error"]
    status, answer = _post(server, "/api/new", NEW_GAME, token="0" * len(server.token))
    assert status == 403
    for origin in ("http://attacker.example", f"http://attacker.example:{port}", "null", f"https://127.0.0.1:{port}x"):
        status, answer = _post(server, "/api/new", NEW_GAME, extra=f"Origin: {origin}\r\n")
        assert status == 403 and "refused" in answer["error"], origin
    # a form post from another site: no token, a simple content type
    form = b"players=4"
    head = f"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://evil.example\r\n"
    head += f"Content-Type: text/plain\r\nContent-Length: {len(form)}\r\n\r\n"
    assert _raw(server, head.encode() + form)[0] == 403
    assert len(server.games) == games  # nothing was started
    status, view = _post(server, "/api/new", NEW_GAME, extra=f"Origin: http://localhost:{port}\r\n")
    assert status == 200 and len(server.games) == games + 1
    web = server.game(view["id"])
    before = list(web.game.actions)
    move = json.dumps({"id": view["id"], "action": view["choices"][0]["action"]}).encode()
    status, _ = _post(server, "/api/move", move, extra="Origin: http://attacker.example\r\n")
    assert status == 403 and web.game.actions == before
    status, _ = _post(server, "/api/move", move)
    assert status == 200 and len(web.game.actions) > len(before)


# ---------------------------------------------------------------------------- malformed requests

BODIES = {
    "deeply nested": b'{"players": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    "5,000-digit integer": b'{"players": 2, "seed": ' + b"7" * 5000 + b"}",
    "invalid UTF-8": b'{"players": 2, "rules": "\xff\xfe"}',
    "not JSON": b'{"players": 2,',
    "NaN": b'{"seed": NaN}',
    "a list": b"[1, 2]",
}


@pytest.mark.parametrize("kind", list(BODIES))
def test_a_malformed_body_gets_400_json_and_the_server_keeps_serving(server, kind: str) -> None:
    games = len(server.games)
    status, answer = _post(server, "/api/new", BODIES[kind])
    assert status == 400 and answer["error"].startswith("the body"), (kind, answer)
    assert len(server.games) == games
    _still_serving(server)


@pytest.mark.parametrize(
    ("length", "status"),
    [("abc", 400), ("-5", 400), ("+5", 400), ("1e3", 400), (" ", 400), ("99999999999999999999", 400),
     ("1000000", 413), ("5, 5", 400)],
)  # fmt: skip
def test_a_bad_content_length_gets_4xx_json_without_reading(server, length: str, status: int) -> None:
    head = f"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{_port(server)}\r\nX-Ohmygoods-Token: {server.token}\r\n"
    head += f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", _port(server)), timeout=20) as sock:
        sock.sendall(head.encode() + NEW_GAME)  # the connection stays open: a reply must not wait for its end
        got, answer = _receive(sock, 20)
    assert got == status and "error" in answer, (length, answer)
    _still_serving(server)


def test_a_chunked_body_is_refused_not_ignored(server) -> None:
    games = len(server.games)
    body = json.dumps({"players": 4, "opponents": ["random"]}).encode()
    head = f"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{_port(server)}\r\nX-Ohmygoods-Token: {server.token}\r\n"
    head += "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    status, answer = _raw(server, head.encode() + chunked)
    assert status == 411 and "Transfer-Encoding" in answer["error"]
    assert len(server.games) == games  # no 2-player game instead of the 4 asked for
    status, answer = _post(server, "/api/new", b"", extra="")  # no body at all: the defaults
    assert status == 200 and len(answer["players"]) == 2


def test_a_body_that_ends_early_or_arrives_too_slowly_gets_4xx(server) -> None:
    head = f"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{_port(server)}\r\nX-Ohmygoods-Token: {server.token}\r\n"
    head += f"Content-Type: application/json\r\nContent-Length: {len(NEW_GAME)}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", _port(server)), timeout=20) as sock:
        sock.sendall(head.encode() + NEW_GAME[:10])
        sock.shutdown(socket.SHUT_WR)
        status, answer = _receive(sock)
    assert status == 400 and "ended after 10" in answer["error"]
    server.body_seconds = 1.0
    try:
        t0 = time.monotonic()
        with socket.create_connection(("127.0.0.1", _port(server)), timeout=20) as sock:
            sock.sendall(head.encode())
            for byte in NEW_GAME[:30]:  # one byte every 0.3 s until the reply: each read is quick, the whole slow
                sock.sendall(bytes([byte]))
                if select.select([sock], [], [], 0.3)[0]:
                    break
            status, answer = _receive(sock)
        assert status == 408 and "did not arrive within 1 s" in answer["error"]
        assert time.monotonic() - t0 < 10
    finally:
        server.body_seconds = S.GameServer.body_seconds
    _still_serving(server)


def test_malformed_request_lines_and_methods_get_4xx_json(server) -> None:
    port = _port(server)
    for request in (
        b"GARBAGE\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-A: b\r\n" * 200 + b"\r\n",
        b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
        f"DELETE /api/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode(),
    ):
        status, answer = _raw(server, request)
        assert 400 <= status < 500 and isinstance(answer, dict) and answer["error"], request[:40]
    status, answer = _post(server, "/api/nothing", b"{}")
    assert status == 404
    status, answer = _post(server, "/api/new", b'{"seed": -1}')
    assert status == 400 and "seed must be an int in 0 <= seed < 2**64" in answer["error"]
    _still_serving(server)


def test_an_internal_error_is_a_json_500_and_the_server_keeps_serving(server, monkeypatch) -> None:
    def broken(body: dict) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(server, "new_game", broken)
    status, answer = _post(server, "/api/new", NEW_GAME)
    assert status == 500 and "RuntimeError" in answer["error"]
    monkeypatch.undo()
    _still_serving(server)


def test_a_body_sent_with_a_get_is_not_taken_for_a_second_request(server) -> None:
    host = f"127.0.0.1:{_port(server)}"
    hidden = f"POST /api/new HTTP/1.1\r\nHost: {host}\r\nContent-Length: 2\r\n\r\n{{}}".encode()
    request = f"GET /api/agents HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(hidden)}\r\n\r\n".encode() + hidden
    with socket.create_connection(("127.0.0.1", _port(server)), timeout=60) as sock:
        sock.sendall(request)
        status, answer = _receive(sock)
        assert status == 200 and answer["agents"]
        sock.settimeout(10)
        assert sock.recv(65536) == b""  # the connection closed: no second reply


def test_headers_sent_one_line_at_a_time_cannot_hold_a_connection(server) -> None:
    server.request_seconds = 1.0
    try:
        t0 = time.monotonic()
        with socket.create_connection(("127.0.0.1", _port(server)), timeout=20) as sock:
            sock.sendall(f"GET /api/agents HTTP/1.1\r\nHost: 127.0.0.1:{_port(server)}\r\n".encode())
            closed = False
            for _ in range(30):  # a header every 0.3 s: each read is quick, the whole never ends
                try:
                    sock.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    closed = True
                    break
                if select.select([sock], [], [], 0.3)[0]:
                    try:
                        closed = sock.recv(65536) == b""
                    except ConnectionResetError:
                        closed = True
                    break
        assert closed and time.monotonic() - t0 < 5
    finally:
        server.request_seconds = S.GameServer.request_seconds
    _still_serving(server)


@pytest.mark.parametrize("kind", list(BODIES))
def test_a_malformed_body_to_the_watch_step_gets_400_and_the_game_is_unchanged(server, kind: str) -> None:
    status, view = _post(server, "/api/new", json.dumps({"watch": True, "players": 2, "seed": 4}).encode())
    game = server.game(view["id"]).game
    before = game.state.copy()
    status, answer = _post(server, "/api/step", BODIES[kind])
    assert status == 400 and answer["error"].startswith("the body"), (kind, answer)
    assert (game.state == before).all()
    status, _ = _post(server, "/api/step", json.dumps({"id": view["id"]}).encode(), host="rebound.example:1")
    assert status == 421 and (game.state == before).all()  # the Host allow-list, as every endpoint
    _still_serving(server)


def test_the_replay_download_follows_the_host_allow_list(server) -> None:
    status, _ = _get(server, "/api/replay?id=x", host="rebound.example:80")
    assert status == 421
    status, answer = _get(server, "/api/replay?id=" + "x" * 5000)
    assert status == 400 and "no game" in answer["error"]


def test_every_game_page_holds_the_shared_shell_once_and_the_token() -> None:
    """Both pages get static/shell.js and shell.css in place of their include lines (the token check,
    the JSON call, the styles)."""
    from ohmygoods_env.apps.serve import SHELL_PARTS, STATIC, WEB_GAMES, page_html, web_kind

    for game in WEB_GAMES:
        page = page_html(web_kind(game).page)
        for line, part in SHELL_PARTS.items():
            assert line not in page and page.count((STATIC / part).read_text().rstrip("\n")) == 1
        assert page.count("X-Ohmygoods-Token") == 1 and "{{TOKEN}}" in page
