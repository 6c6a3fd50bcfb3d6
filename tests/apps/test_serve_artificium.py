"""``ohmygoods serve --game artificium``: the shared shell serving *Artificium*, its JSON views and a
whole game clicked in a headless browser.

The shell's checks (own Host, the page's token, no foreign Origin) hold for this game as for
Oh my Goods!; a view holds only what the person's seat may see (A9.2): twins that differ only
in hidden cards give byte-identical views; the simultaneous reveal (A4.2) is shown once every
seat has chosen, never earlier. The browser test skips where Debian's chromium is absent.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from ohmygoods_env.apps import serve as S
from ohmygoods_env.apps import web_artificium as W
from ohmygoods_env.apps.replay import replay_html
from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import describe
from ohmygoods_env.framework import agents as fa

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def art_server():
    srv = S.make_server("127.0.0.1", 0, game="artificium")
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _url(srv, path: str) -> str:
    host, port = srv.server_address[:2]
    return f"http://{host}:{port}{path}"


def _call(srv, path: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", "X-Ohmygoods-Token": srv.token, **(headers or {})}
    req = urllib.request.Request(_url(srv, path), data=data, headers=sent)
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_an_unknown_game_is_refused_before_binding() -> None:
    with pytest.raises(ValueError, match="artificium"):
        S.make_server("127.0.0.1", 0, game="chess")
    assert S._parser().parse_args(["--game", "artificium"]).game == "artificium"


def test_the_page_and_the_offer_are_artificium_s(art_server) -> None:
    """The registry's Artificium agents at run time (``random``, entry-point ``ismcts``, any other), 2-6 players."""
    with urllib.request.urlopen(_url(art_server, "/"), timeout=30) as res:
        page = res.read().decode()
    assert "Artificium" in page and art_server.token in page
    status, offer = _call(art_server, "/api/agents")
    assert status == 200 and offer["game"] == "artificium" and offer["players"] == [2, 3, 4, 5, 6]
    assert offer["agents"] == W.offered_agents() and {"random", "ismcts", "ppo"} <= set(offer["agents"])
    assert set(fa.agent_names("artificium")) - set(offer["agents"]) == {"exec"}  # never a program from a page
    assert offer["hint"] == ("heuristic" in offer["agents"])


def test_only_its_own_page_is_obeyed(art_server) -> None:
    """The shell's guards hold for this game: no token or a foreign Origin 403, a foreign Host 421."""
    body = {"players": 3, "seat": 0, "opponents": ["random"]}
    n = len(art_server.games)
    assert _call(art_server, "/api/new", body, {"X-Ohmygoods-Token": "wrong"})[0] == 403
    assert _call(art_server, "/api/new", body, {"Origin": "http://evil.example"})[0] == 403
    assert _call(art_server, "/api/new", body, {"Host": "evil.example"})[0] == 421
    assert len(art_server.games) == n


def test_a_game_through_the_json_endpoints(art_server) -> None:
    """3 players against random: the choices are the seat's legal actions; the reveal shows every card (A4.2)."""
    status, view = _call(art_server, "/api/new", {"players": 3, "seat": 1, "opponents": ["random"], "seed": 5})
    assert status == 200 and view["players"] == ["random", "you", "random"] and view["seat"] == 1
    web = art_server.game(view["id"])
    g, rng, reveals, moves = web.game, np.random.default_rng(0), 0, 0
    while not view["done"]:
        assert 1 in g.pending_players()  # the agents played until the person is asked
        if g.decision == L.D_CHOOSE:  # the other choosing seats chose first (A4.1), face down
            assert g.pending_players() == (1,)
        assert [c["action"] for c in view["choices"]] == g.legal_actions(1)
        assert [c["text"] for c in view["choices"]] == [describe(a, g) for a in g.legal_actions(1)]
        for note in view["happened"]:
            if note.startswith("revealed together"):
                reveals += 1
        status, view = _call(art_server, "/api/move", {"id": view["id"], "action": int(rng.choice(g.legal_actions(1)))})
        assert status == 200, view
        moves += 1
    assert g.done and reveals >= 4 and moves > 10
    assert [s["score"] for s in view["scores"]] == g.scores() and view["winners"] == g.winners()
    assert view["result"].startswith(("You won", "You lost", "You shared"))
    assert view["record"] == json.loads(json.dumps(g.record().to_dict()))
    with urllib.request.urlopen(_url(art_server, f"/api/replay?id={view['id']}"), timeout=60) as res:
        page = res.read().decode()
        assert "artificium-replay.html" in res.headers["Content-Disposition"]
    assert "Artificium replay (3 players" in page and "view of seat 1" in page


def test_bad_requests_get_400_and_change_nothing(art_server) -> None:
    for body, words in [
        ({"players": 7}, "players must be in 2..6"),
        ({"players": 3, "seat": 3}, "seat must be in 0..2"),
        ({"players": 3, "opponents": ["nobody"]}, "unknown agent"),
        ({"players": True}, "players must be an integer"),
        ({"players": 3, "seed": -1}, "seed"),
    ]:
        status, answer = _call(art_server, "/api/new", body)
        assert status == 400 and words in answer["error"], (body, answer)
    _, view = _call(art_server, "/api/new", {"players": 2, "seat": 0, "opponents": ["random"], "seed": 1})
    web = art_server.game(view["id"])
    state = web.game.state.copy()
    illegal = next(a for a in range(L.N_ACTIONS) if a not in web.game.legal_actions(0))
    for action in (illegal, "1", True, None):
        status, answer = _call(art_server, "/api/move", {"id": view["id"], "action": action})
        assert status == 400 and "action" in answer["error"]
    assert _call(art_server, "/api/undo", {"id": view["id"]})[0] == 400  # nothing to undo yet
    assert np.array_equal(web.game.state, state)


def test_undo_goes_back_to_the_previous_decision(art_server) -> None:
    _, view = _call(art_server, "/api/new", {"players": 4, "seat": 2, "opponents": ["random"], "seed": 8})
    web = art_server.game(view["id"])
    state, seen = web.game.state.copy(), view["choices"]
    _call(art_server, "/api/move", {"id": view["id"], "action": seen[0]["action"]})
    assert not np.array_equal(web.game.state, state)
    status, view = _call(art_server, "/api/undo", {"id": view["id"]})
    assert status == 200 and np.array_equal(web.game.state, state) and view["choices"] == seen


def test_hidden_information_twins_give_identical_views() -> None:
    """A9.2, A9.3: the person's view (picture, text, log, reveal notes, choices) is the same JSON in a
    world re-dealt for the person's seat: other hands, face-down cards and the deck order do not show."""
    differed = checked = 0
    for seed in range(4):
        web = W.ArtWebGame(3, seed % 3, ["random", "random"], seed=seed)
        rng = np.random.default_rng(seed)
        while not web.game.done:
            seen = json.dumps(web.view("g"), sort_keys=True)
            original = web.game
            twin = original.determinize(web.seat, seed=int(rng.integers(1 << 30)))
            twin.seed, twin.moves = original.seed, list(original.moves)  # the record comes only at the end
            web.game = twin
            try:
                assert json.dumps(web.view("g"), sort_keys=True) == seen
            finally:
                web.game = original
            differed += twin.full_state_view()["players"] != original.full_state_view()["players"]
            checked += 1
            web.move(int(rng.choice(original.legal_actions(web.seat))))
    assert checked > 40 and differed > checked // 2  # control: the twins really held other hidden cards


def test_the_log_names_no_hidden_card_and_the_reveal_comes_after_the_last_choice() -> None:
    """A4.1, A4.2, A9.2: another seat's face-down choice and discards are logged without their card."""
    web = W.ArtWebGame(3, 0, ["random", "random"], seed=3)
    g = web.game
    while g.decision != L.D_CHOOSE:
        web.move(g.legal_actions(0)[-1])
    choosing = [n for n in web.since if "chose a card face down" in n]
    assert choosing and not any("revealed" in n for n in web.happened)  # they chose; nothing revealed yet
    assert all(g.tables.type_name(t) not in n for n in choosing for t in range(16))
    web.move(g.legal_actions(0)[0])
    revealed = [n for n in web.happened if n.startswith("revealed together")]
    assert revealed and "seat 0 (you)" in revealed[0]
    for p in range(3):
        for c in g.cards_at(L.L_REVEALED + p) + g.cards_at(L.L_PLAYED + p):
            assert g.tables.card_name(c) in " ".join(web.since)
    assert W.move_text(g, 1, L.A_PLAY, 0) == "seat 1: chose a card face down"
    assert W.move_text(g, 0, L.A_PLAY, 0).startswith("seat 0: choose card: ")


def test_a_watched_game_and_its_replay_in_the_public_view() -> None:
    web = W.ArtificiumWeb().new_game({"players": 2, "watch": True, "opponents": ["random"], "seed": 2})
    assert web.view("w")["choices"] == [] and web.view("w")["viewer"] == "public"
    while not web.game.done:
        web.step(50)
    row = {"record": web.game.record().to_dict(), "seats": web.names}
    page = replay_html(row, None)  # the replay command's entry point hands Artificium records on
    assert "Artificium replay (2 players" in page and "public view" in page
    with pytest.raises(ValueError, match="seat 5"):
        replay_html(row, 5)


def test_the_replay_command_writes_an_artificium_page(tmp_path) -> None:
    """``ohmygoods replay`` on a games.jsonl line holding an Artificium record: seat 1's view."""
    from ohmygoods_env.apps import replay as R

    web = W.ArtWebGame(3, None, ["random"] * 3, seed=4)
    while not web.game.done:
        web.step(50)
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps({"index": 0, "record": web.game.record().to_dict(), "seats": web.names}) + "\n")
    out = tmp_path / "game.html"
    assert R.main([str(games), "--index", "0", "--seat", "1", "-o", str(out)]) == 0
    page = out.read_text()
    assert "Artificium replay (3 players, seed 4)" in page and "view of seat 1" in page
    with pytest.raises(SystemExit):
        R.main([str(games), "--index", "0", "--seat", "3", "-o", str(tmp_path / "x.html")])


# ---------------------------------------------------------------------------- the browser


def test_a_full_game_clicked_in_a_headless_browser(art_server, tmp_path) -> None:
    """3 players against random: set up on the page, click a choice or a card to the end, read the result."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait
    from test_serve import _browser

    browser = _browser()
    shots = ROOT / "docs" / "img" if os.environ.get("OHMYGOODS_SCREENSHOTS") == "1" else tmp_path
    try:
        browser.get(_url(art_server, "/"))
        wait = WebDriverWait(browser, 60, poll_frequency=0.02)
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        Select(browser.find_element(By.ID, "players")).select_by_value("3")
        Select(browser.find_element(By.ID, "seat")).select_by_value("0")
        opponents = browser.find_elements(By.CSS_SELECTOR, "select.opponent")
        assert [o.get_attribute("data-seat") for o in opponents] == ["1", "2"]
        assert [o.get_attribute("value") for o in Select(opponents[0]).options] == W.offered_agents()
        for o in opponents:
            Select(o).select_by_value("random")
        browser.find_element(By.ID, "seed").send_keys("7")
        browser.find_element(By.ID, "start").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#choices button.choice")))
        web = next(g for g in art_server.games.values() if g.names == ["you", "random", "random"] and g.game.seed == 7)
        game_id = next(k for k, g in art_server.games.items() if g is web)
        clicks = by_card = reveals = 0
        shot = twinned = False
        started = time.perf_counter()
        while browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "playing":
            g = web.game
            if not twinned and any(g.cards_at(L.L_CHOSEN + p) for p in (1, 2)):  # a face-down card on the table
                twinned = _page_of_a_twin_is_the_same(browser, web, game_id)
            buttons = browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")
            assert [int(b.get_attribute("data-action")) for b in buttons] == g.legal_actions(0)
            svg = browser.find_element(By.CSS_SELECTOR, "#picture svg")
            for p in (1, 2):  # the other seats' panels show only their revealed and played cards as faces
                faces = svg.find_elements(By.CSS_SELECTOR, f'g.seat[data-seat="{p}"] g.card')
                assert len(faces) == len(g.cards_at(L.L_REVEALED + p)) + len(g.cards_at(L.L_PLAYED + p))
            if clicks == 0:  # the card market (A3) with its faces
                browser.save_screenshot(str(shots / "artificium_market.png"))
            happened = browser.find_element(By.ID, "happened").text
            reveals += "revealed together" in happened
            if "revealed together" in happened and not shot:
                browser.save_screenshot(str(shots / "artificium_serve.png"))
                shot = True
            before = len(g.moves)
            playable = svg.find_elements(By.CSS_SELECTOR, 'g.seat[data-seat="0"] g.card.playable')
            if playable and clicks % 2:
                playable[0].click()
                by_card += 1
            elif L.A_APPLY in g.legal_actions(0):  # apply a revealed card when it can (A4.4), so the game scores
                browser.find_element(By.CSS_SELECTOR, f'#choices button[data-action="{L.A_APPLY}"]').click()
            else:
                buttons[-1 if clicks % 3 == 0 else 0].click()
            wait.until(lambda b, n=before: len(web.game.moves) > n and not b.find_elements(By.CSS_SELECTOR,
                       "#choices button:disabled"))  # fmt: skip
            clicks += 1
        per_click = (time.perf_counter() - started) / clicks
        print(f"artificium in the browser: {clicks} decisions, {per_click * 1000:.0f} ms per decision")
        assert web.game.done and clicks > 10 and reveals >= 3 and by_card >= 1 and twinned
        result = browser.find_element(By.ID, "result").text
        assert result.startswith(("You won", "You lost", "You shared"))
        rows = browser.find_elements(By.CSS_SELECTOR, "#scores tr")
        assert len(rows) == 1 + 3
        for p, score in enumerate(web.game.scores()):
            assert rows[p + 1].find_elements(By.TAG_NAME, "td")[2].text == str(score)
        assert browser.find_element(By.ID, "download").is_displayed()
        browser.save_screenshot(str(shots / "artificium_final.png"))
        assert shot and (shots / "artificium_serve.png").stat().st_size > 10_000
    finally:
        browser.quit()


@pytest.mark.parametrize(("players", "view"), [(4, "public"), (3, "1")])
def test_watching_agents_play_in_a_headless_browser(art_server, players, view) -> None:
    """Watch mode: every seat an agent, stepped by the page's "ten moves" button to the end. After
    each step the drawing holds exactly the card faces its view may show (A9.2): the public view
    only revealed and played cards, a seat's view also that seat's hand and face-down card."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait
    from test_serve import _browser

    browser = _browser()
    try:
        browser.get(_url(art_server, "/"))
        wait = WebDriverWait(browser, 60, poll_frequency=0.02)
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        Select(browser.find_element(By.ID, "mode")).select_by_value("watch")
        Select(browser.find_element(By.ID, "players")).select_by_value(str(players))
        assert not browser.find_element(By.ID, "seat").is_displayed()
        bots = browser.find_elements(By.CSS_SELECTOR, "select.opponent")
        assert [o.get_attribute("data-seat") for o in bots] == [str(p) for p in range(players)]  # all agents
        names = ["heuristic", "random", "greedy", "random"][:players]
        for select, name in zip(bots, names, strict=True):
            Select(select).select_by_value(name)
        Select(browser.find_element(By.ID, "view")).select_by_value(view)
        browser.find_element(By.ID, "seed").send_keys("5")
        browser.find_element(By.ID, "start").click()
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "watching")
        web = list(art_server.games.values())[-1]  # the newest game (the module's server has others)
        assert web.watch and web.names == names and web.game.seed == 5
        me = None if view == "public" else int(view)
        title = "spectator view (public facts only)" if me is None else f"view of seat {me}"
        read = (
            "return [document.body.dataset.state, busy, document.querySelector('#picture svg').outerHTML,"
            " [...document.querySelectorAll('#picture svg g.seat')].map(g => g.querySelectorAll('g.card').length),"
            " document.querySelectorAll('#choices button').length]"
        )
        steps = drawn = 0
        while True:
            state, busy, svg, faces, buttons = browser.execute_script(read)
            if state != "watching":
                break
            g = web.game
            shown = [
                len(g.cards_at(L.L_REVEALED + p)) + len(g.cards_at(L.L_PLAYED + p))
                + (len(g.hand(p)) + len(g.cards_at(L.L_CHOSEN + p)) if p == me else 0)
                for p in range(players)
            ]  # fmt: skip
            assert not busy and title in svg and buttons == 0 and faces == shown
            drawn += sum(faces)
            before = len(g.moves)
            browser.find_element(By.ID, "stepten").click()
            wait.until(lambda b, n=before: len(web.game.moves) > n and not b.execute_script("return busy"))
            steps += 1
        assert state == "over" and web.game.done and steps > 5 and drawn > 0
        assert browser.find_element(By.ID, "result").text and not browser.find_element(By.ID, "watchbar").is_displayed()
        rows = browser.find_elements(By.CSS_SELECTOR, "#scores tr")
        assert len(rows) == 1 + players
        for p, score in enumerate(web.game.scores()):
            assert rows[p + 1].find_elements(By.TAG_NAME, "td")[2].text == str(score)
    finally:
        browser.quit()


def _page_of_a_twin_is_the_same(browser, web, game_id: str) -> bool:
    """A9.2: the page drawn from a world re-dealt for the person's seat (other hands and face-down
    cards changed) is the same page: the view is fetched again and drawn by the page's own code."""
    redraw = (
        "const done = arguments[arguments.length - 1];"
        f"api('/api/state?id={game_id}').then(v => {{ show(v); done(document.getElementById('game').innerHTML); }});"
    )
    before = browser.execute_async_script(redraw)
    original = web.game
    for seed in range(20):
        twin = original.determinize(web.seat, seed=seed)
        twin.seed, twin.moves = original.seed, list(original.moves)
        if twin.full_state_view()["players"] != original.full_state_view()["players"]:
            break
    else:
        raise AssertionError("no re-dealt world differed from the game")
    with web.lock:
        web.game = twin
    try:
        assert browser.execute_async_script(redraw) == before
    finally:
        with web.lock:
            web.game = original
    return True
