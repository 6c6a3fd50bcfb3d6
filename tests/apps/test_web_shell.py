"""The web shell knows no game: each game's spec names its page, and one server offers every game.

* ``apps/web_shell.py`` (and the ``serve`` and ``replay`` commands on it) load no game's module:
  a game's page kind is imported only when the game is asked for, through its spec (``GameSpec.web``);
* every registered game whose spec names a page is served by the same server: ``GET /api/games``
  lists them, ``/?game=NAME`` is that game's page, ``/api/agents?game=NAME`` its offer and
  ``POST /api/new`` with ``game`` starts one, whatever game ``/`` shows;
* a game with no page of its own (Goofspiel) gets the generic page; an unknown game is refused with
  the games that have one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ohmygoods_env.apps import web_shell as WS
from ohmygoods_env.framework.game import game_names, game_spec

ROOT = Path(__file__).resolve().parents[2]


def _call(srv, path: str, body: dict | None = None) -> tuple[int, object, dict]:
    host, port = srv.server_address[:2]
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-Ohmygoods-Token": srv.token}
    req = urllib.request.Request(f"http://{host}:{port}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as res:
            raw, hdrs = res.read(), dict(res.headers)
            status = res.status
    except urllib.error.HTTPError as exc:
        raw, hdrs, status = exc.read(), dict(exc.headers), exc.code
    kind = hdrs.get("Content-Type", "")
    return status, (json.loads(raw) if kind.startswith("application/json") else raw.decode()), hdrs


def test_the_shell_serve_and_replay_load_no_games_module(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "import ohmygoods_env.apps.web_shell, ohmygoods_env.apps.serve, ohmygoods_env.apps.replay\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('ohmygoods'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = done.stdout.split()
    assert "ohmygoods_env.apps.web_shell" in loaded
    games = [m for m in loaded if m.startswith("ohmygoods_env.") and m.split(".")[1] not in ("apps", "framework")]
    assert games == ["ohmygoods_env.argtypes"], games  # the argument types of the command line, no game
    assert not [m for m in loaded if m.startswith("ohmygoods_env.apps.web_") and m != "ohmygoods_env.apps.web_shell"]


def test_each_game_names_its_page_in_its_spec_and_the_shell_finds_it() -> None:
    served = WS.web_games()
    assert {"ohmygoods", "artificium", "goofspiel"} <= set(served) and served == game_names()
    for name in served:
        target = WS.page_target(name)
        assert target == (game_spec(name).web or WS.GENERIC_PAGE)
        assert target.startswith("ohmygoods_env.apps.web_") and target.count(":") == 1, target
        kind = WS.web_kind(name)
        assert kind.name == name and kind is WS.web_kind(name)  # made once
        page = WS.page_html(kind.page)
        assert '<meta name="ohmygoods-game" content="{{GAME}}">' in page and 'id="games"' in page
    assert {g["name"]: g["title"] for g in WS.game_choices()} == {n: game_spec(n).title for n in served}


def test_a_game_without_a_page_of_its_own_gets_the_generic_page_and_an_unknown_one_is_refused() -> None:
    from ohmygoods_env.apps.web_generic import GenericWeb

    assert game_spec("goofspiel").web is None
    assert type(WS.web_kind("goofspiel")) is GenericWeb and WS.web_kind("goofspiel").page == "generic.html"
    assert type(WS.web_kind("artificium")) is not GenericWeb  # a game's own page comes first
    for game in ("chess", 3):
        with pytest.raises(ValueError, match=r"no browser page for game .*'artificium'.*'goofspiel'.*'ohmygoods'"):
            WS.web_kind(game)
    with pytest.raises(ValueError, match="no browser page"):
        WS.GameServer(("127.0.0.1", 0), "chess")  # refused before a port is bound


def test_one_server_offers_and_starts_every_game(server) -> None:
    status, games, _ = _call(server, "/api/games")
    assert status == 200 and games["default"] == "ohmygoods"
    assert [g["name"] for g in games["games"]] == WS.web_games()
    status, page, _ = _call(server, "/?game=artificium")
    assert status == 200 and "<title>Artificium" in page and '<meta name="ohmygoods-game" content="artificium">' in page
    assert server.token in page
    status, page, _ = _call(server, "/")
    assert status == 200 and '<meta name="ohmygoods-game" content="ohmygoods">' in page
    status, offer, _ = _call(server, "/api/agents?game=artificium")
    assert status == 200 and offer["game"] == "artificium" and offer["players"] == [2, 3, 4, 5, 6]
    body = {"game": "artificium", "players": 2, "opponents": ["random"], "seed": 5}
    status, view, _ = _call(server, "/api/new", body)
    assert status == 200 and view["game"] == "artificium" and view["players"][0] == "you"
    status, view, _ = _call(server, "/api/new", {"players": 2, "opponents": ["random"], "seed": 5})
    assert status == 200 and view["rules"] == "omg2"  # no game named: the server's own


def test_a_watched_game_of_another_game_downloads_that_games_replay(server) -> None:
    body = {"game": "artificium", "players": 2, "watch": True, "opponents": ["random"], "seed": 3}
    status, view, _ = _call(server, "/api/new", body)
    assert status == 200
    for _ in range(40):
        if view["done"]:
            break
        status, view, _ = _call(server, "/api/step", {"id": view["id"], "moves": 50})
        assert status == 200
    assert view["done"]
    status, page, headers = _call(server, f"/api/replay?id={view['id']}")
    assert status == 200 and "Artificium replay (2 players, seed 3)" in page
    assert 'filename="artificium-replay.html"' in headers["Content-Disposition"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/?game=nosuch", None),
        ("/api/agents?game=nosuch", None),
        ("/api/new", {"game": "nosuch", "players": 2}),
        ("/api/new", {"game": ["artificium"], "players": 2}),
    ],
)
def test_a_game_without_a_page_is_a_bad_request(server, path: str, body: dict | None) -> None:
    before = len(server.games)
    status, answer, _ = _call(server, path, body)
    assert status == 400 and "no browser page for game" in answer["error"] and "'artificium'" in answer["error"]
    assert len(server.games) == before


def test_a_person_chooses_the_game_in_the_page(server) -> None:
    """In headless chromium: the Oh my Goods! page lists both games; choosing Artificium opens its page,
    whose Start begins an Artificium game on the same server."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait
    from test_serve import _browser

    browser = _browser()
    host, port = server.server_address[:2]
    try:
        browser.get(f"http://{host}:{port}/")
        wait = WebDriverWait(browser, 60, poll_frequency=0.05)
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        wait.until(lambda b: len(Select(b.find_element(By.ID, "games")).options) >= 2)
        games = Select(browser.find_element(By.ID, "games"))
        assert [o.get_attribute("value") for o in games.options] == WS.web_games()
        assert games.first_selected_option.get_attribute("value") == "ohmygoods"
        assert "Artificium" in [o.text for o in games.options]
        games.select_by_value("artificium")
        wait.until(lambda b: b.title.startswith("Artificium"))
        assert browser.current_url.endswith("/?game=artificium")
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        assert Select(browser.find_element(By.ID, "games")).first_selected_option.get_attribute("value") == "artificium"
        before = set(server.games)
        browser.find_element(By.ID, "start").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#choices button.choice")))
        started = [server.games[k] for k in set(server.games) - before]
        assert len(started) == 1 and type(started[0]).__name__ == "ArtWebGame"
    finally:
        browser.quit()


def test_the_pages_that_show_a_view_and_buttons_share_one_table_script(tmp_path: Path, monkeypatch) -> None:
    """static/table.js and its setup form, static/table.html, stand once in the generic page and
    Artificium's (each defines its hooks before the script), in no other page; a page that names a part
    twice is refused."""
    table = (WS.STATIC / "table.js").read_text(encoding="utf-8").rstrip("\n")
    setup = (WS.STATIC / "table.html").read_text(encoding="utf-8").rstrip("\n")
    for name, picture in (("generic.html", 'id="text"'), ("artificium.html", 'id="picture"')):
        page = WS.page_html(name)
        assert page.count(table) == 1 and "//@include" not in page and picture in page
        assert page.index("function render(view)") < page.index(table)  # the hooks come first
        assert page.index("function offered(offer)") < page.index(table)
        assert page.count(setup) == 1 and "<!--@include" not in page
    serve = WS.page_html("serve.html")
    assert table not in serve and setup not in serve
    for part in ("shell.js", "shell.css", "table.js", "table.html"):
        (tmp_path / part).write_text((WS.STATIC / part).read_text(encoding="utf-8"), encoding="utf-8")
    twice = (
        (WS.STATIC / "generic.html")
        .read_text(encoding="utf-8")
        .replace("//@include table.js", "//@include table.js\n//@include table.js")
    )
    (tmp_path / "twice.html").write_text(twice, encoding="utf-8")
    monkeypatch.setattr(WS, "STATIC", tmp_path)
    with pytest.raises(ValueError, match=r"static/twice.html must hold the line '//@include table.js' once"):
        WS.page_html("twice.html")
