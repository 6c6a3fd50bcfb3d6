"""``ohmygoods serve``: the JSON endpoints, and a whole game played in a real headless browser.

The browser test drives Debian's chromium with Selenium (the ``web`` extra). Where either is
missing it is skipped with a message saying how to install them.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.actions import action_kind
from ohmygoods_env.apps import serve as S
from ohmygoods_env.cardfacts import card_facts, card_text
from ohmygoods_env.cards import N_BUILDING_CARDS
from ohmygoods_env.engine import Game
from ohmygoods_env.explain import explain
from ohmygoods_env.infostate import hidden_cards, swap_cards
from ohmygoods_env.picture import render_svg
from ohmygoods_env.render import score_parts

ROOT = Path(__file__).resolve().parents[2]


def _url(srv, path: str) -> str:
    host, port = srv.server_address[:2]
    return f"http://{host}:{port}{path}"


def _call(srv, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-Ohmygoods-Token": srv.token}  # what the page sends
    req = urllib.request.Request(_url(srv, path), data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_server_binds_to_this_computer_only_by_default() -> None:
    args = S._parser().parse_args([])
    assert args.host == "127.0.0.1"


def test_a_game_through_the_json_endpoints(server) -> None:
    status, view = _call(server, "/api/new", {"rules": "royal", "players": 3, "seat": 1, "opponents": ["random"]})
    assert status == 200 and view["seat"] == 1 and view["players"] == ["random", "you", "random"]
    game = server.game(view["id"]).game
    moves = 0
    while not view["done"]:
        assert game.current_player == 1  # the agents played up to the person's turn
        assert [c["action"] for c in view["choices"]] == game.legal_actions()
        assert view["svg"] == render_svg(game, 1, last_move=server.game(view["id"]).last_move)
        assert all(not t.startswith(("player 0: set aside to build", "player 2: set aside to build"))
                   for t in view["since"])  # fmt: skip
        status, view = _call(server, "/api/move", {"id": view["id"], "action": view["choices"][-1]["action"]})
        assert status == 200
        moves += 1
    assert moves > 10 and game.done
    assert [s["vp"] for s in view["scores"]] == [vp for vp, _ in game.scores()]
    assert view["result"].startswith(("You won", "You lost", "You shared")) and view["winners"] == game.winners()


def test_bad_requests_get_400_and_a_message_and_change_nothing(server) -> None:
    _, view = _call(server, "/api/new", {"players": 2, "seat": 0, "opponents": ["random"], "seed": 5})
    game = server.game(view["id"]).game
    before = game.state.copy()
    illegal = next(a for a in range(L.N_ACTIONS) if a not in game.legal_actions())
    cases = [
        ("/api/move", {"id": view["id"], "action": illegal}, "not one of your legal choices"),
        ("/api/move", {"id": view["id"], "action": "3"}, "integer action id"),
        ("/api/move", {"id": "nope", "action": 1}, "no game 'nope'"),
        ("/api/new", {"players": 5}, "players must be 1 (solo), 2, 3 or 4"),
        ("/api/new", {"players": 0}, "players must be 1 (solo), 2, 3 or 4"),
        ("/api/new", {"players": 1, "opponents": ["random"]}, "opponents: a solo game (players 1) has none"),
        ("/api/new", {"keep_one": 1}, "keep_one must be true or false, got 1"),
        ("/api/new", {"two_for_one": "yes"}, "two_for_one must be true or false"),
        ("/api/new", {"rules": "royal", "keep_one": True}, "keep_one (R10.1) needs omg2"),
        ("/api/new", {"players": 2, "seat": 2}, "seat must be in 0..1"),
        ("/api/new", {"rules": "deluxe"}, "rules must be one of"),
        ("/api/new", {"opponents": ["nobody"]}, "unknown agent"),
        ("/api/new", {"opponents": "heuristic"}, "list of agent names"),
    ]
    for path, body, message in cases:
        status, answer = _call(server, path, body)
        assert status == 400 and message in answer["error"], (body, answer)
    assert np.array_equal(game.state, before)
    assert _call(server, "/nothing")[0] == 404


def test_every_registered_agent_is_offered(server) -> None:
    """The registry's names (shipped networks included), never a file path; ``sb3`` needs a path and is left out."""
    from ohmygoods_env.policy import agent_names

    status, info = _call(server, "/api/agents")
    assert status == 200 and info["players"] == [1, 2, 3, 4] and info["variants"] == ["keep_one", "two_for_one"]
    assert set(info["agents"]) == set(agent_names()) - {"sb3", "exec"}  # those two need a path or a command
    assert {"ppo", "ppo-3p", "ppo-4p", "ppo-solo", "heuristic", "mcts"} <= set(info["agents"])
    assert not any("/" in n or ":" in n for n in info["agents"])


@pytest.mark.parametrize(
    ("body", "players", "names"),
    [
        ({"players": 1, "rules": "omg2", "keep_one": True, "two_for_one": True}, 1, ["you"]),
        ({"players": 1, "rules": "royal", "opponents": []}, 1, ["you"]),
        ({"players": 2, "rules": "omg2", "keep_one": True, "opponents": ["ppo"]}, 2, ["you", "ppo"]),
        ({"players": 3, "rules": "royal", "two_for_one": True, "opponents": ["ppo-3p"]}, 3, ["you"] + ["ppo-3p"] * 2),
        ({"players": 4, "opponents": ["ppo-4p", "greedy", "random"]}, 4, ["you", "ppo-4p", "greedy", "random"]),
    ],
)
def test_new_games_of_every_size_rule_set_and_variant(server, body, players, names) -> None:
    status, view = _call(server, "/api/new", {**body, "seed": 11})
    assert status == 200, view
    game = server.game(view["id"]).game
    assert view["players"] == names and game.num_players == players and view["rules"] == game.rules.edition
    for variant in ("keep_one", "two_for_one"):
        assert view["variants"][variant] == getattr(game.rules, variant) == body.get(variant, False)
    while not view["done"]:  # the person plays the last choice each time; the game ends cleanly
        status, view = _call(server, "/api/move", {"id": view["id"], "action": view["choices"][-1]["action"]})
        assert status == 200, view
    assert game.done and len(view["scores"]) == players and view["record"]["num_players"] == players


def test_the_view_holds_nothing_the_seat_may_not_see(server) -> None:
    """Swap an opponent's hidden card with a deck card: the person's view is byte-identical."""
    checked = 0
    for seed in range(8):
        _, view = _call(server, "/api/new", {"players": 2, "seat": 0, "opponents": ["random"], "seed": seed})
        web = server.game(view["id"])
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 8))):
            if view["done"]:
                break
            _, view = _call(
                server, "/api/move", {"id": view["id"], "action": int(rng.choice(web.game.legal_actions()))}
            )
        if view["done"]:
            continue
        loc = web.game.state[L.F_LOC : L.F_LOC + L.N_CARDS]
        hidden = hidden_cards(web.game.state, 0)
        theirs = [c for c in hidden if loc[c] == L.L_HAND + 1]
        deck = [c for c in hidden if loc[c] == L.L_DECK]
        if not theirs or not deck:
            continue
        twin = Game.from_state(web.game.state, web.game.rules, seed=web.game.seed)
        swap_cards(twin.state, theirs[0], deck[-1])
        original, seen = web.game, web.view(view["id"])
        web.game = twin
        try:
            assert web.view(view["id"]) == seen
        finally:
            web.game = original
        assert render_svg(twin) != render_svg(original)  # control: the swap is real
        checked += 1
    assert checked >= 3


def test_a_hint_names_a_legal_choice_and_changes_nothing(server) -> None:
    from ohmygoods_agents import make_agent
    from ohmygoods_agents.base import info_state_of

    _, view = _call(server, "/api/new", {"players": 2, "seat": 1, "opponents": ["random"], "seed": 9})
    web = server.game(view["id"])
    for _ in range(6):
        before = web.game.state.copy()
        status, hint = _call(server, f"/api/hint?id={view['id']}")
        assert status == 200 and hint["agent"] == "heuristic" and np.array_equal(web.game.state, before)
        g = web.game
        twin = make_agent("heuristic", seed=0).act(g.observe(1), g.legal_mask(), info_state_of(g.state, 1))
        assert hint["action"] in g.legal_actions() and hint["action"] == twin
        choice = next(c for c in view["choices"] if c["action"] == hint["action"])
        assert hint["text"] == choice["text"] and hint["explain"] == choice["explain"]  # said as the choice says it
        _, view = _call(server, "/api/move", {"id": view["id"], "action": hint["action"]})
    assert _call(server, "/api/hint?id=nope")[0] == 400


def test_undo_goes_back_to_the_previous_decision(server) -> None:
    _, view = _call(server, "/api/new", {"players": 3, "seat": 2, "opponents": ["random"], "seed": 4})
    web = server.game(view["id"])
    status, answer = _call(server, "/api/undo", {"id": view["id"]})
    assert status == 400 and "nothing to undo" in answer["error"]
    first = (web.game.state.copy(), list(web.game.actions), view)
    _, second = _call(server, "/api/move", {"id": view["id"], "action": view["choices"][0]["action"]})
    state, actions = web.game.state.copy(), list(web.game.actions)
    _, view = _call(server, "/api/move", {"id": view["id"], "action": second["choices"][-1]["action"]})
    assert len(web.game.actions) > len(actions)
    status, view = _call(server, "/api/undo", {"id": view["id"]})
    assert status == 200 and np.array_equal(web.game.state, state) and web.game.actions == actions
    assert view["choices"] == second["choices"] and view["since"][0].startswith("(undone")
    _, view = _call(server, "/api/undo", {"id": view["id"]})
    assert np.array_equal(web.game.state, first[0]) and web.game.actions == first[1]
    assert view["svg"] == first[2]["svg"] and view["choices"] == first[2]["choices"]


def _place(loc: int) -> str:
    if L.L_HAND <= loc < L.L_ASIDE:
        return "hand"
    return "aside" if L.L_ASIDE <= loc < L.L_BUILT else "other"


def test_card_facts_are_sent_for_what_the_seat_may_see_and_hidden_twins_match(server) -> None:
    """The view's ``cards`` hold the facts of the seat's hand, its set-aside card and the buildings; every
    card hidden from the seat (opponents' hands and set-aside cards, face-down goods, the deck) swapped
    with a hidden deck card gives the same state JSON."""
    checked = set()
    for seed in range(12):
        _, view = _call(server, "/api/new", {"players": 3, "seat": 0, "opponents": ["random"], "seed": seed})
        web = server.game(view["id"])
        rng = np.random.default_rng(seed)
        for _ in range(30):
            if view["done"]:
                break
            g = web.game
            assert [f["card"] for f in view["cards"]["hand"]] == g.hand(0)
            assert [[f["card"] for f in b] for b in view["cards"]["buildings"]] == [g.buildings(p) for p in range(3)]
            aside = int(g.state[L.F_ASIDE])
            assert (view["cards"]["aside"] or {}).get("card", -1) == aside
            assert all(f["text"] == card_text(g.cards, f["card"]) for f in view["cards"]["hand"])
            loc = g.state[L.F_LOC : L.F_LOC + L.N_CARDS]
            hidden = hidden_cards(g.state, 0)
            deck = [c for c in hidden if loc[c] == L.L_DECK]
            hint = web.hint()
            for c in [c for c in hidden if loc[c] != L.L_DECK][:4] if deck else []:
                kind = _place(int(loc[c]))
                twin = Game.from_state(g.state, g.rules, seed=g.seed)
                swap_cards(twin.state, c, deck[-1])
                web.game = twin
                try:
                    assert web.view(view["id"]) == view, (seed, kind)
                    assert web.hint() == hint, (seed, kind)  # the hint reads the seat's information only
                finally:
                    web.game = g
                checked.add(kind)
            _, view = _call(server, "/api/move", {"id": view["id"], "action": int(rng.choice(g.legal_actions()))})
    assert {"aside", "hand"} <= checked


# ---------------------------------------------------------------------------- the browser


def _browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("the browser test needs selenium: pip install -e '.[web]'")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.skip("the browser test needs Debian's chromium: apt-get install -y chromium chromium-driver")
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1780,1180"):
        options.add_argument(arg)
    options.binary_location = chromium
    return webdriver.Chrome(options=options, service=Service(driver))


def web_id(srv, web) -> str:
    return next(k for k, g in srv.games.items() if g is web)


def test_a_scripted_game_in_a_headless_browser(server, tmp_path) -> None:
    """Choose rules, players, seat and opponents on the page; click choices to the end; see the scores."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    browser = _browser()
    # OHMYGOODS_SCREENSHOTS=1 refreshes the screenshots of the docs; otherwise they go to a temporary folder
    shots = ROOT / "docs" / "img" if os.environ.get("OHMYGOODS_SCREENSHOTS") == "1" else tmp_path
    try:
        browser.get(_url(server, "/"))
        wait = WebDriverWait(browser, 60, poll_frequency=0.05)
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        Select(browser.find_element(By.ID, "players")).select_by_value("1")  # solo: no opponents to choose
        assert not browser.find_elements(By.CSS_SELECTOR, "select.opponent")
        Select(browser.find_element(By.ID, "rules")).select_by_value("royal")
        assert not browser.find_element(By.ID, "keep_one").is_enabled()  # R10.1 needs omg2
        Select(browser.find_element(By.ID, "rules")).select_by_value("omg2")
        assert browser.find_element(By.ID, "keep_one").is_enabled()
        Select(browser.find_element(By.ID, "players")).select_by_value("3")
        Select(browser.find_element(By.ID, "seat")).select_by_value("1")
        opponents = browser.find_elements(By.CSS_SELECTOR, "select.opponent")
        assert [o.get_attribute("data-seat") for o in opponents] == ["0", "2"]
        offered = [o.get_attribute("value") for o in Select(opponents[0]).options]
        assert {"random", "greedy", "heuristic", "mcts", "ppo", "ppo-3p", "ppo-4p", "ppo-solo"} <= set(offered)
        Select(opponents[0]).select_by_value("heuristic")
        Select(opponents[1]).select_by_value("random")
        browser.find_element(By.ID, "seed").clear()
        browser.find_element(By.ID, "seed").send_keys("3")
        browser.save_screenshot(str(shots / "serve_setup.png"))
        browser.find_element(By.ID, "start").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#choices button.choice")))
        web = next(iter(g for g in server.games.values() if g.seat == 1 and g.names == ["heuristic", "you", "random"]))
        clicks = faced = reveals = by_card = 0
        shot_done: set[str] = set()
        while browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "playing":
            buttons = browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")
            assert [int(b.get_attribute("data-action")) for b in buttons] == web.game.legal_actions()
            svg = browser.find_element(By.CSS_SELECTOR, "#picture svg").get_attribute("outerHTML")
            assert "view of player 1" in svg
            faces = browser.find_elements(By.CSS_SELECTOR, "#hand .card")
            assert [int(f.get_attribute("data-card")) for f in faces] == web.game.hand(1)
            faced += len(faces)
            for face in (
                faces if clicks % 4 == 1 else ()
            ):  # the card face shows cost, VP, needs and output; the full card on hover
                facts = card_facts(web.game.cards, int(face.get_attribute("data-card")))
                assert face.get_attribute("title") == facts["text"]
                text = face.text
                assert facts["name"] in text and f"{facts['vp']} VP" in text and f"cost {facts['cost']}" in text
                assert facts["production"] is None or (f"{facts['good']} ({facts['value']} each)" in text)
            if clicks == 3:  # the hint frames the choice the heuristic would make
                browser.find_element(By.ID, "hint").click()
                wait.until(lambda b: b.find_element(By.ID, "hinted").text)
                framed = browser.find_elements(By.CSS_SELECTOR, "#choices button.hinted")
                hinted = browser.find_element(By.ID, "hinted").text
                assert len(framed) == 1 and framed[0].text.split(". ", 1)[1].split("\n")[0] in hinted
                why = framed[0].find_elements(By.CSS_SELECTOR, ".why")  # the hint explains itself as its choice does
                assert not why or f"({why[0].text})" in hinted
            if clicks == 5:  # undo goes back to the previous decision; the same choice is played again below
                state, n0 = web.game.state.copy(), len(web.game.actions)
                buttons[0].click()
                wait.until(lambda b, n=n0: len(web.game.actions) > n and not b.find_elements(By.CSS_SELECTOR,
                           "#choices button:disabled"))  # fmt: skip
                browser.find_element(By.ID, "undo").click()
                wait.until(lambda b: "(undone" in b.find_element(By.ID, "since").text)
                assert np.array_equal(web.game.state, state)
                buttons = browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")
            for b in buttons if clicks % 4 == 0 else ():  # each choice says what it does in the game's terms
                action = int(b.get_attribute("data-action"))
                why = b.find_elements(By.CSS_SELECTOR, ".why")
                assert [w.text for w in why] == ([explain(web.game, action)] if explain(web.game, action) else [])
            happened = browser.find_element(By.ID, "happened").text
            reveals += happened.count("worker to") + happened.count("no worker placed")
            if clicks == 12:
                since = browser.find_element(By.ID, "since").text
                assert since  # the others' moves since the last decision are listed
            if happened and "serve_game" not in shot_done:
                browser.save_screenshot(str(shots / "serve_game.png"))
                shot_done.add("serve_game")
            before = len(web.game.actions)
            playable = browser.find_elements(By.CSS_SELECTOR, "#hand .card.playable")
            if playable and len(playable) == len(web.game.legal_actions()):  # one choice per card: a click plays it
                card = int(playable[0].get_attribute("data-card"))
                assert any(action_kind(a)[1] == card for a in web.game.legal_actions())
                playable[0].click()
                by_card += 1
            else:
                buttons[0].click()
            wait.until(lambda b, n=before: len(web.game.actions) > n and not b.find_elements(By.CSS_SELECTOR,
                       "#choices button:disabled"))  # fmt: skip
            clicks += 1
        assert web.game.done and clicks > 10 and faced > clicks  # hand cards were on screen, faces and all
        assert reveals >= 3 * 3 and by_card >= 1  # every seat's revealed choices were read; cards were clicked
        result = browser.find_element(By.ID, "result").text
        assert result.startswith(("You won", "You lost", "You shared"))
        rows = browser.find_elements(By.CSS_SELECTOR, "#scores tr")
        assert len(rows) == 1 + 3 + 1 and "tie-break" in rows[-1].text
        for p, (vp, left) in enumerate(web.game.scores()):  # buildings, assistants, goods -> VP, VP, coins left
            parts = score_parts(web.game, p)
            cells = [c.text for c in rows[p + 1].find_elements(By.TAG_NAME, "td")]
            assert cells[1:6] == [str(parts["buildings"]), str(parts["assistants"]),
                                  f"{parts['coins']} \u2192 {parts['goods']}", str(vp), str(left)]  # fmt: skip
        link = browser.find_element(By.ID, "download")
        assert link.is_displayed() and link.get_attribute("href").endswith(f"/api/replay?id={web_id(server, web)}")
        browser.save_screenshot(str(shots / "serve_final.png"))
        assert all((shots / f"serve_{k}.png").stat().st_size > 10_000 for k in ("setup", "game", "final"))
    finally:
        browser.quit()


@pytest.mark.parametrize(("players", "rules", "view"), [(2, "royal", "public"), (4, "omg2", "2")])
def test_watching_agents_play_in_a_headless_browser(server, tmp_path, players, rules, view) -> None:
    """Watch mode: every seat an agent, the public view (no hand on the page) or a seat's, at the fastest
    speed, to the end."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    browser = _browser()
    shots = ROOT / "docs" / "img" if os.environ.get("OHMYGOODS_SCREENSHOTS") == "1" else tmp_path
    try:
        browser.get(_url(server, "/"))
        wait = WebDriverWait(browser, 60, poll_frequency=0.05)
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        Select(browser.find_element(By.ID, "mode")).select_by_value("watch")
        Select(browser.find_element(By.ID, "rules")).select_by_value(rules)
        Select(browser.find_element(By.ID, "players")).select_by_value(str(players))
        assert not browser.find_element(By.ID, "seat").is_displayed()
        bots = browser.find_elements(By.CSS_SELECTOR, "select.opponent")
        assert [o.get_attribute("data-seat") for o in bots] == [str(p) for p in range(players)]  # all agents
        names = ["greedy", "random", "heuristic", "random"][:players]
        for select, name in zip(bots, names, strict=True):
            Select(select).select_by_value(name)
        Select(browser.find_element(By.ID, "view")).select_by_value(view)
        Select(browser.find_element(By.ID, "speed")).select_by_value("20:5")
        browser.find_element(By.ID, "seed").send_keys("2")
        browser.find_element(By.ID, "start").click()
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") in ("watching", "over"))
        web = list(server.games.values())[-1]  # the newest game (the module's server has others)
        assert web.watch and web.names == names and web.game.seed == 2
        title = "public view (every hand hidden)" if view == "public" else f"view of player {view}"
        seen = set()
        read = (
            "return [document.body.dataset.state, document.querySelector('#picture svg').outerHTML,"
            " document.getElementById('happened').innerText,"
            " document.querySelectorAll('#hand .card, #choices button').length]"
        )
        while True:  # one read of the page at a time: it changes under the test
            state, svg, happened, cards = browser.execute_script(read)
            if state != "watching":
                break
            assert title in svg and (view != "public" or cards == 0)  # the public view shows no hand
            assert "hidden card" in svg or 'data-card="' in svg  # the table is drawn
            if happened:
                seen.add(happened)
                if len(seen) == 3 and view == "public":
                    browser.save_screenshot(str(shots / "serve_watch.png"))
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "over")
        assert web.game.done and seen
        rows = browser.find_elements(By.CSS_SELECTOR, "#scores tr")
        assert len(rows) == 1 + players + 1
    finally:
        browser.quit()


def test_a_solo_royal_game_in_a_headless_browser(server) -> None:
    """Solo (R10.3) under the royal rules: clicked to the end; the score by its parts, no winner, no tie-break."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    browser = _browser()
    try:
        browser.get(_url(server, "/"))
        wait = WebDriverWait(browser, 60, poll_frequency=0.05)
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        Select(browser.find_element(By.ID, "players")).select_by_value("1")
        Select(browser.find_element(By.ID, "rules")).select_by_value("royal")
        browser.find_element(By.ID, "seed").send_keys("6")
        browser.find_element(By.ID, "start").click()
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "playing")
        web = list(server.games.values())[-1]  # the newest game (the module's server has others)
        assert web.names == ["you"] and web.game.rules.royal and web.game.seed == 6
        while browser.execute_script("return document.body.dataset.state") == "playing":
            n = len(web.game.actions)
            browser.execute_script("document.querySelector('#choices button.choice:last-of-type').click()")
            wait.until(lambda b, n=n: len(web.game.actions) > n and b.execute_script(
                "return !document.querySelector('#choices button:disabled')"))  # fmt: skip
        assert web.game.done
        rows = browser.find_elements(By.CSS_SELECTOR, "#scores tr")
        assert len(rows) == 2 and "winner" not in rows[1].text
        assert rows[1].text.split()[-2:] == [str(v) for v in web.game.scores()[0]]
    finally:
        browser.quit()


@pytest.mark.parametrize("rules", ["omg2", "royal"])
def test_the_page_draws_every_fact_of_every_card_in_the_deck(server, rules) -> None:
    """Walk the deck (every card id of the rule set's table) through the page's own card face: name,
    cost, VP, the hand-card resource, half-sun, needs, both work modes, the good and its value, the
    chain, a Market Office's resource; the full card text on hover."""
    from selenium.webdriver.support.ui import WebDriverWait

    cards = Game(num_players=2, rules=rules, seed=0).cards
    deck = [card_facts(cards, c) for c in range(N_BUILDING_CARDS)]
    browser = _browser()
    try:
        browser.get(_url(server, "/"))
        WebDriverWait(browser, 60).until(lambda b: b.execute_script("return document.body.dataset.state") == "setup")
        faces = browser.execute_script(
            "return arguments[0].map(f => { const d = cardFace(f);"
            " return [d.dataset.card, d.title, [...d.children].map(r => r.textContent).join('\\n')]; })",
            deck,
        )
    finally:
        browser.quit()
    assert len(faces) == len(deck) == N_BUILDING_CARDS
    for f, (card, title, text) in zip(deck, faces, strict=True):
        where = f"card {f['card']} ({f['name']})"
        assert int(card) == f["card"] and title == f["text"], where
        assert text.splitlines()[0].lstrip("\u25d1") == f["name"], where
        assert ("\u25d1" in text) == f["half_sun"], where
        assert (f"cost {f['cost']}" if f["cost"] is not None else "not built") in text, where
        assert f"{f['vp']} VP" in text and f"hand card: {f['resource'] or '-'}" in text, where
        p = f["production"]
        if p is not None:
            line = next(r for r in text.splitlines() if r.startswith("needs "))[len("needs ") :]
            if p["needs_any"]:
                assert line == f"any {p['needs_any']}", where
            else:  # the order of the parts is the JSON object's; the parts are the card's needs
                assert sorted(line.split(" + ")) == sorted(f"{n} {r}" for r, n in p["needs"].items()), where
            assert f"efficient {p['efficient']['resources']}\u21922" in text, where
            assert f"sloppy {p['sloppy']['resources']}\u21921" in text, where
            assert f"{f['good']} ({f['value']} each)" in text, where
        elif f["office"] is not None:
            assert f"+1 {f['office']} in the market" in text, where
        else:
            assert "extra hand card" in text, where
        if f["chain"] is not None:
            c = f["chain"]
            inputs = " + ".join(x for x in [c["hand"], *c["goods"]] if x)
            assert f"chain: {inputs} \u2192 {c['makes']} {c['output']}" in text, where
        else:
            assert "chain:" not in text, where


@pytest.mark.parametrize(("players", "rules", "seat"), [(2, "omg2", 0), (4, "royal", 3)])
def test_a_clicked_game_of_each_size_in_a_headless_browser(server, players, rules, seat) -> None:
    """2 and 4 players (3 players and solo have tests above): set up on the page, every choice clicked to
    the end; the buttons are the legal moves, the hand faces are the seat's hand, no opponent's hand card
    is named on the page, the end screen has a row per player and the tie-break."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    browser = _browser()
    try:
        browser.get(_url(server, "/"))
        wait = WebDriverWait(browser, 60, poll_frequency=0.05)
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "setup")
        Select(browser.find_element(By.ID, "rules")).select_by_value(rules)
        Select(browser.find_element(By.ID, "players")).select_by_value(str(players))
        Select(browser.find_element(By.ID, "seat")).select_by_value(str(seat))
        opponents = browser.find_elements(By.CSS_SELECTOR, "select.opponent")
        assert len(opponents) == players - 1
        for select, name in zip(opponents, ["greedy", "random", "heuristic"], strict=False):
            Select(select).select_by_value(name)
        browser.find_element(By.ID, "seed").send_keys(str(10 + players))
        browser.find_element(By.ID, "start").click()
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "playing")
        web = list(server.games.values())[-1]  # the newest game (the module's server has others)
        assert web.seat == seat and web.game.num_players == players and web.game.rules.edition == rules
        read = (
            "return [document.body.dataset.state,"
            " [...document.querySelectorAll('#choices button.choice')].map(b => +b.dataset.action),"
            " [...document.querySelectorAll('#hand .card')].map(c => +c.dataset.card),"
            " document.querySelector('#picture svg').outerHTML]"
        )
        clicks = 0
        while True:
            state, actions, hand, svg = browser.execute_script(read)
            if state != "playing":
                break
            g = web.game
            assert actions == g.legal_actions() and hand == g.hand(seat)
            others = [c for p in range(players) if p != seat for c in g.hand(p)]  # card ids are physical cards
            assert others and not any(f'data-card="{c}"' in svg for c in others)  # drawn nowhere on the page
            n = len(g.actions)
            browser.execute_script(
                f"document.querySelectorAll('#choices button.choice')[{clicks % len(actions)}].click()"
            )
            wait.until(lambda b, n=n: len(web.game.actions) > n and b.execute_script(
                "return !document.querySelector('#choices button:disabled')"))  # fmt: skip
            clicks += 1
        assert web.game.done and clicks > 10
        rows = browser.find_elements(By.CSS_SELECTOR, "#scores tr")
        assert len(rows) == 1 + players + 1 and "tie-break" in rows[-1].text
        assert browser.find_element(By.ID, "result").text.startswith(("You won", "You lost", "You shared"))
    finally:
        browser.quit()


@pytest.mark.parametrize("page", ["serve.html", "artificium.html"])
def test_the_setup_says_it_is_loading_until_the_agents_arrive(page) -> None:
    """The page opens with a loading line and Start disabled; the script ends the wait either way."""
    html = S.page_html(page)
    assert '<body data-state="loading">' in html
    assert '<p id="loading" role="status">Loading the agents' in html
    assert '<button id="start" disabled>Start</button>' in html
    setup = html[html.index('api("/api/agents?game=" + encodeURIComponent(GAME))') :]
    assert "setupLoaded();" in setup and "catch (e) { setupLoaded(e); }" in setup
    shell = html[html.index("function setupLoaded(error)") :]
    assert '$("start").disabled = false;' in shell and 'document.body.dataset.state = "setup";' in shell


def test_the_token_is_checked_where_the_page_says(server) -> None:
    """The shell says: reads are answered without the token, every POST needs it."""
    shell = (ROOT / "ohmygoods_env" / "apps" / "static" / "shell.js").read_text()
    assert "checks it on the state-changing ones (every POST" in shell and "every request," not in shell
    with urllib.request.urlopen(_url(server, "/api/agents"), timeout=30) as res:  # no token
        assert res.status == 200
    req = urllib.request.Request(
        _url(server, "/api/new"), data=b"{}", headers={"Content-Type": "application/json"}, method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=30)
    assert refused.value.code == 403 and "X-Ohmygoods-Token" in json.loads(refused.value.read())["error"]
