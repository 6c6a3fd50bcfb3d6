"""The generic page (``apps/web_generic.py``, ``static/generic.html``) of a game whose spec names no page.

* Goofspiel is served by it, through the one server (``POST /api/new`` with ``game``), in a person's
  game and a watched one; the replay page downloads at the end; a hint is a 400;
* what the person reads hides the others' face-down bids (the log and the text view);
* ``ohmygoods replay`` draws a Goofspiel game of a tournament's ``games.jsonl``, and refuses a
  record with an illegal action or a bad field (exit 2, one line, nothing written);
* in headless chromium: the page lists every game, Start begins a Goofspiel game, clicking the
  action buttons plays it to the end.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ohmygoods_env.apps import replay
from ohmygoods_env.apps import web_shell as WS
from ohmygoods_env.apps.web_generic import GenericTable, GenericWeb, text_svg
from ohmygoods_env.goofspiel.game_spec import GOOFSPIEL, Goofspiel


def _call(server, path: str, body: dict | None = None) -> tuple[int, object, dict]:
    host, port = server.server_address[:2]
    headers = {"X-Ohmygoods-Token": server.token}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(f"http://{host}:{port}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            raw, status, heads = res.read().decode(), res.status, dict(res.headers)
    except urllib.error.HTTPError as exc:
        raw, status, heads = exc.read().decode(), exc.code, dict(exc.headers)
    try:
        return status, json.loads(raw), heads
    except json.JSONDecodeError:
        return status, raw, heads


def test_the_server_plays_a_goofspiel_game_on_the_generic_page(server) -> None:
    status, page, _ = _call(server, "/?game=goofspiel")
    assert status == 200 and '<meta name="ohmygoods-game" content="goofspiel">' in page and server.token in page
    status, offer, _ = _call(server, "/api/agents?game=goofspiel")
    assert status == 200 and offer == {
        "game": "goofspiel",
        "title": "Goofspiel",
        "agents": ["ismcts", "random"],
        "players": [2, 3, 4, 5, 6],
        "hint": False,
    }
    body = {"game": "goofspiel", "players": 3, "seat": 1, "opponents": ["random", "ismcts"], "seed": 4}
    status, view, _ = _call(server, "/api/new", body)
    assert status == 200 and view["game"] == "goofspiel" and view["players"] == ["random", "you", "ismcts"]
    status, answer, _ = _call(server, f"/api/hint?id={view['id']}")
    assert status == 400 and "no hint" in answer["error"]
    for _ in range(20):
        if view["done"]:
            break
        status, view, _ = _call(server, "/api/move", {"id": view["id"], "action": view["choices"][-1]["action"]})
        assert status == 200
    assert view["done"] and view["record"]["game"] == "goofspiel" and len(view["scores"]) == 3
    status, page, headers = _call(server, f"/api/replay?id={view['id']}")
    assert status == 200 and "Goofspiel replay (3 players, seed 4)" in page
    assert 'filename="goofspiel-replay.html"' in headers["Content-Disposition"]
    status, answer, _ = _call(server, "/api/new", {"game": "goofspiel", "players": 7})
    assert status == 400 and "players must be in 2..6" in answer["error"]


def test_the_person_reads_no_face_down_bid() -> None:
    """Seat 0 (an agent) leads and bids before seat 1 (the person): its bid stays face down in the log and
    the text view until the reveal, and after the reveal the spent cards are public."""
    t = GenericWeb("goofspiel").new_game({"players": 2, "seat": 1, "opponents": ["random"], "seed": 2})
    view = t.view("x")
    assert view["since"][-1] == "seat 0 (random): chose face down"
    assert "bid face down" in view["text"] and t.game.bids[0] >= 0
    assert f"bid {t.game.bids[0] + 1}" not in " ".join(view["since"])
    twin = GenericTable(GOOFSPIEL, 2, 1, ["random"], seed=2)
    twin.game.bids[0] = (t.game.bids[0] + 1) % 3  # another face-down bid: the person sees the same
    assert twin.view("x")["text"] == view["text"] and twin.view("x")["choices"] == view["choices"]


def test_a_watched_game_and_its_spectator_view() -> None:
    t = GenericWeb("goofspiel").new_game({"players": 2, "watch": True, "opponents": ["random"], "seed": 5})
    t.step(50)
    view = t.view("w")
    assert view["done"] and view["viewer"] == "public" and not view["choices"]
    assert not any("face down" in line for line in view["since"])  # the spectator reads every move
    with pytest.raises(WS.BadRequest, match="watched game"):
        t.move(0)


def _games_file(tmp_path: Path) -> Path:
    g = Goofspiel(3, seed=9)
    while not g.done:
        g.step(int(next(a for a, ok in enumerate(g.legal_mask()) if ok)))
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps({"index": 0, "seats": ["a", "b", "c"], "record": g.record().to_dict()}) + "\n")
    return path


def test_ohmygoods_replay_draws_a_goofspiel_game(tmp_path: Path, capsys) -> None:
    out = tmp_path / "g.html"
    assert replay.main([str(_games_file(tmp_path)), "--index", "0", "--seat", "2", "-o", str(out)]) == 0
    page = out.read_text()
    assert "Goofspiel replay (3 players, seed 9)" in page and "view of seat 2" in page
    assert "wrote" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"actions": [0]}, "record.actions[0]': action 0 is not legal"),
        ({"num_players": 9}, "num_players must be in 2..6"),
        ({"seed": -1}, "seed"),
        ({"actions": "0,1"}, "'actions' must be a list"),
        ({"options": {"num_cards": 99}}, "num_cards must be an int in 2..13"),
    ],
)
def test_a_bad_record_is_refused_and_nothing_is_written(tmp_path: Path, capsys, change: dict, message: str) -> None:
    path = _games_file(tmp_path)
    row = json.loads(path.read_text())
    row["record"].update(change)
    path.write_text(json.dumps(row) + "\n")
    out = tmp_path / "g.html"
    with pytest.raises(SystemExit) as exc:
        replay.main([str(path), "--index", "0", "-o", str(out)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err and not out.exists()


def test_the_text_picture_escapes_the_text() -> None:
    svg = text_svg("a <b> & c\nline two")
    assert "&lt;b&gt; &amp; c" in svg and svg.count("<tspan") == 2 and "<b>" not in svg


def test_a_person_plays_goofspiel_in_the_browser(server) -> None:
    """In headless chromium: /?game=goofspiel opens the generic page, Start begins a game, the action
    buttons play it to the end and the replay link appears."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait
    from test_serve import _browser

    browser = _browser()
    host, port = server.server_address[:2]
    try:
        browser.get(f"http://{host}:{port}/?game=goofspiel")
        wait = WebDriverWait(browser, 60, poll_frequency=0.05)
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        assert browser.title == "Goofspiel — play in the browser"
        wait.until(lambda b: len(Select(b.find_element(By.ID, "games")).options) >= 3)
        games = Select(browser.find_element(By.ID, "games"))
        assert [o.get_attribute("value") for o in games.options] == WS.web_games()
        assert games.first_selected_option.get_attribute("value") == "goofspiel"
        browser.find_element(By.ID, "start").click()
        for _ in range(30):
            wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") in ("playing", "over"))
            if browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "over":
                break
            text = browser.find_element(By.ID, "text").text
            assert text.startswith("Goofspiel, round")
            buttons = browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")
            assert buttons
            buttons[0].click()
            wait.until(
                lambda b, before=text: (
                    b.find_element(By.ID, "text").text != before
                    or b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "over"
                )
            )
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "over"
        assert browser.find_element(By.ID, "download").is_displayed()
        assert browser.find_element(By.ID, "result").text.startswith("You")
    finally:
        browser.quit()
