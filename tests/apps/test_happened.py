"""What happened (the chronicle), explained choices, score parts, the public view, watch mode and the
replay download of ``ohmygoods serve``; hidden-card twins read the same up to the reveal."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from xml.sax.saxutils import escape

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.actions import action_kind
from ohmygoods_env.apps import replay as R
from ohmygoods_env.cardfacts import card_facts
from ohmygoods_env.cards import N_BUILDING_CARDS
from ohmygoods_env.chronicle import Chronicle
from ohmygoods_env.engine import Game
from ohmygoods_env.explain import explain
from ohmygoods_env.infostate import hidden_cards, swap_cards
from ohmygoods_env.picture import move_text, render_svg
from ohmygoods_env.render import PUBLIC, render_text, score_parts


def _call(srv, path: str, body: dict | None = None, token: bool = True) -> tuple[int, dict | bytes, dict]:
    host, port = srv.server_address[:2]
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} | ({"X-Ohmygoods-Token": srv.token} if token else {})
    req = urllib.request.Request(f"http://{host}:{port}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            raw, status, hdrs = res.read(), res.status, dict(res.headers)
    except urllib.error.HTTPError as exc:
        raw, status, hdrs = exc.read(), exc.code, dict(exc.headers)
    kind = hdrs.get("Content-Type", "")
    return status, (json.loads(raw) if kind.startswith("application/json") else raw), hdrs


def _play(game: Game, chronicle: Chronicle, seed: int, until=None) -> list:
    """Random moves (chosen by their index among the legal ones) until the end or ``until(game)``."""
    rng = np.random.default_rng(seed)
    notes = []
    while not game.done and not (until and until(game)):
        legal = game.legal_actions()
        notes += chronicle.step(game, legal[int(rng.integers(len(legal)))])
    return notes


# ---------------------------------------------------------------------------- the chronicle


def _summed_up(players: int, rules: str, seed: int) -> int:
    """Play a random game through a chronicle; check its lines; return how many chains they name."""
    game = Game(players, rules, seed=seed)
    chronicle = Chronicle(game, 0, ["you"] + ["random"] * (players - 1))
    notes = _play(game, chronicle, seed)
    reveals = [n for n in notes if n.kind == "reveal"]
    productions = [n for n in notes if n.kind == "production"]
    rounds = int(game.state[L.F_ROUND])
    assert len(reveals) == len(productions) == rounds * players  # one line per seat, per reveal and per phase IV
    for k in range(0, len(reveals), players):
        assert sorted(n.player for n in reveals[k : k + players]) == list(range(players))
    assert all(n.text.startswith("you: ") == (n.player == 0) for n in notes)
    built = sum(len(game.buildings(p)) - 1 for p in range(players))  # the Charburner is never built
    assert sum(len(re.findall(r"(?:: |; )built ", n.text)) for n in productions) == built
    for n in reveals:
        assert ("worker to " in n.text) or ("no worker placed" in n.text)
    chains = 0
    for n in productions:  # a chain turns each card fed into it into one good (R7.8): inputs == goods made
        for inputs, made in re.findall(r"chain: (.*?) -> (\d+) ", n.text):
            fed = sum(1 if " from hand" in part else int(part.split()[0]) for part in inputs.split(" + "))
            assert fed == int(made), n.text
            chains += 1
    return chains


@pytest.mark.parametrize(("players", "rules"), [(1, "omg2"), (2, "royal"), (3, "omg2"), (4, "royal")])
def test_every_reveal_and_every_production_turn_is_summed_up(players, rules) -> None:
    _summed_up(players, rules, 7)


def test_chains_are_summed_up_with_their_own_inputs() -> None:
    """Several chains in one turn (the final round's R8.2 opens any): each lists only what went into it."""
    assert sum(_summed_up(2, "omg2", seed) for seed in range(4)) >= 3


def test_the_seat_view_names_no_hidden_card_and_the_spectator_does() -> None:
    game = Game(3, "omg2", seed=2)
    seat0, spectator = Chronicle(game, 0), Chronicle(game, None)
    rng = np.random.default_rng(0)
    lines0, lines_all = [], []
    while not game.done and game.round < 6:
        a = game.legal_actions()[int(rng.integers(len(game.legal_actions())))]
        before = game.clone()
        lines_all += [n.text for n in spectator.step(before, a)]
        lines0 += [n.text for n in seat0.step(game, a)]
    others = [t for t in lines0 if not t.startswith("player 0")]
    assert any("set a card aside to build (face down)" in t for t in others)
    assert not any("did not build " in t and "stays hidden" not in t for t in others)
    assert any(re.search(r"player [12]: .*set .+ aside to build$", t) for t in lines_all)  # the spectator reads names


def _twins(rules: str, seed: int) -> tuple[Game, Game]:
    """Two games differing only in two cards swapped between seats 1 and 2's hands (hidden from seat 0)."""
    game = Game(3, rules, seed=seed)
    twin = game.clone()
    swap_cards(twin.state, game.hand(1)[0], game.hand(2)[-1])
    assert game.hand(1) != twin.hand(1)
    return game, twin


@pytest.mark.parametrize(("rules", "seed"), [("royal", 1), ("royal", 5), ("omg2", 3)])
def test_hidden_card_twins_read_the_same_up_to_and_at_the_reveal(rules, seed) -> None:
    """The page of seat 0 (picture, move log, what happened) is the same in both twins until the first
    production turn; the spectator's differs (the swap is real)."""
    pages = []
    for game in _twins(rules, seed):
        chronicle = Chronicle(game, 0, ["you", "random", "random"])
        rng = np.random.default_rng(seed)
        page = []
        while game.phase != L.PH_P4 and not game.done:
            legal = game.legal_actions()
            if game.decision == L.D_PHASE1:
                legal = [L.A_KEEP]  # a discarded hand is face up: the twins would no longer be twins
            a = legal[int(rng.integers(len(legal)))]
            text = move_text(game, a, 0)
            notes = [n.text for n in chronicle.step(game, a) if n.kind == "reveal"]
            page.append((render_svg(game, 0, last_move=text), text, notes, render_text(game, 0)))
        pages.append((page, render_svg(game, None)))
        assert any(notes for _, _, notes, _ in page)  # the reveal was reached and summed up
    (mine, spectator), (theirs, spectator2) = pages
    assert mine[:-1] == theirs[:-1]  # every step before the reveal: picture, log line, text view
    # the reveal step: the same summary (the first production turn may begin in it, which is public)
    assert mine[-1][2] == theirs[-1][2] and mine[-1][1] == theirs[-1][1]
    assert spectator != spectator2


def test_a_build_being_paid_for_shows_its_card_not_a_back() -> None:
    """In a seat's view, once an opponent announces a build, its card is on the table (no 'hidden card')."""
    seen = 0
    for seed in range(6):
        game = Game(2, "omg2", seed=seed)
        rng = np.random.default_rng(seed)
        while not game.done and seen < 3:
            if game.decision == L.D_PAY and int(game.state[L.F_PAY_FOR]) == L.PAY_BUILD and game.current_player == 1:
                card = int(game.state[L.F_ASIDE + 1])
                svg = render_svg(game, 0)
                assert f'data-card="{card}"' in svg and "hidden card" not in svg
                seen += 1
            game.step(int(rng.choice(game.legal_actions())))
    assert seen >= 1


# ---------------------------------------------------------------------------- card facts and choices


def test_every_card_id_shows_every_printed_fact_in_the_svg() -> None:
    """Walk the deck: each card in seat 0's hand (and each Charburner on the table) is drawn with its
    facts on the face and the whole card (card_text) as its hover title."""
    game = Game(4, "omg2", seed=0)
    hand = game.hand(0)
    seen = set()
    for c in range(N_BUILDING_CARDS):
        g = game.clone()
        if c < L.N_CARDS and c not in hand:  # the Charburners (ids from N_CARDS on) are on the table
            swap_cards(g.state, c, hand[0])
        svg = render_svg(g, 0)
        facts = card_facts(g.cards, c)
        title = f"<title>{escape(facts['text'])}</title>"
        if title in svg:
            seen.add(c)
            face = svg.split(title, 1)[1].split("</g>", 1)[0]
            assert f"{facts['vp']} VP" in face and escape(facts["name"].split()[0]) in face, facts
            assert facts["cost"] is None or f"cost {facts['cost']}" in face, facts
            assert facts["resource"] is None or facts["resource"] in face, facts
            assert ("\u25d1" in face) == facts["half_sun"], facts
    assert seen == set(range(N_BUILDING_CARDS))


def test_each_choice_is_explained_in_the_games_terms() -> None:
    game = Game(2, "omg2", seed=4)
    rng = np.random.default_rng(4)
    kinds = set()
    while not game.done:
        for a in game.legal_actions():
            kind, _ = action_kind(a)
            text = explain(game, a)
            if kind == "place worker":
                assert re.search(r"(efficient|sloppy): all .* -> [12] \w+ \(\d+ coins?\)", text), text
            elif kind in ("set aside", "build"):
                assert re.search(r"cost \d+, your goods are worth \d+ coins?", text), text
            elif kind == "pay":
                assert re.search(r"spends 1 \w+ worth \d+ coins?; \d+ due", text), text
            elif kind in ("spend hand card", "chain with hand card"):
                assert "stands for 1 " in text
            elif kind == "hire":
                assert re.search(r"pay \d+ coins in goods; \d VP; needs buildings: ", text), text
            elif kind == "place assistant":
                assert re.search(r"it works there: needs .+ -> 1 \w+$", text), text
            kinds.add(kind) if text else None
        game.step(int(rng.choice(game.legal_actions())))
    assert {"place worker", "set aside", "build", "pay"} <= kinds


def test_score_parts_add_up_to_the_score() -> None:
    game = Game(3, "royal", seed=8)
    _play(game, Chronicle(game, None), 8)
    for p, (vp, left) in enumerate(game.scores()):
        parts = score_parts(game, p)
        assert parts["total"] == vp and parts["left"] == left
        assert parts["buildings"] + parts["assistants"] + parts["coins"] // 5 == vp


# ---------------------------------------------------------------------------- the public view


def test_the_public_view_hides_every_hand_and_the_phase_two_choices() -> None:
    checked = 0
    for seed in range(6):
        game = Game(3, "omg2", seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(5, 60))):
            game.step(int(rng.choice(game.legal_actions())))
        svg = render_svg(game, PUBLIC)
        assert "public view" in svg and not any(f'data-card="{c}"' in svg for p in range(3) for c in game.hand(p))
        hidden = [c for p in range(3) for c in hidden_cards(game.state, p)]
        twin = game.clone()
        deck = [c for c in hidden_cards(game.state, 0) if int(game.state[L.F_LOC + c]) == L.L_DECK]
        swap_cards(twin.state, game.hand(0)[0], deck[-1])
        assert render_svg(twin, PUBLIC) == svg and render_text(twin, PUBLIC) == render_text(game, PUBLIC)
        assert render_svg(twin, 0) != render_svg(game, 0)  # control
        checked += bool(hidden)
    assert checked


# ---------------------------------------------------------------------------- the server


def test_a_person_reads_what_happened_explained_choices_and_the_score_parts(server) -> None:
    _, view, _ = _call(server, "/api/new", {"players": 2, "rules": "royal", "opponents": ["greedy"], "seed": 3})
    web = server.game(view["id"])
    reveals = 0
    while not view["done"]:
        assert all("explain" in c for c in view["choices"])
        for c in view["choices"]:
            if "card" in c:
                assert c["card"] in web.game.hand(0)
        reveals += sum(n["kind"] == "reveal" for n in view["happened"])
        assert all(f"\u25b6 {n['text']}" in view["since"] for n in view["happened"])
        _, view, _ = _call(server, "/api/move", {"id": view["id"], "action": view["choices"][0]["action"]})
    reveals += sum(n["kind"] == "reveal" for n in view["happened"])
    assert reveals == 2 * int(web.game.state[L.F_ROUND])
    for s, (vp, left) in zip(view["scores"], web.game.scores(), strict=True):
        assert s["vp"] == vp and s["coins"] == left and s["buildings"] + s["assistants"] + s["goods"] == vp
    status, page, headers = _call(server, f"/api/replay?id={view['id']}")
    assert status == 200 and "attachment" in headers["Content-Disposition"] and b"view of player 0" in page
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page.decode(), re.S)[1])
    assert sum(len(n) for n in data["notes"]) == 4 * int(web.game.state[L.F_ROUND])  # reveal + production, 2 seats


@pytest.mark.parametrize(("players", "rules", "view"), [(2, "royal", PUBLIC), (3, "omg2", 1), (4, "omg2", PUBLIC)])
def test_a_watched_game_steps_to_the_end_in_its_view(server, players, rules, view) -> None:
    body = {"watch": True, "players": players, "rules": rules, "opponents": ["random"], "view": view, "seed": 5}
    status, state, _ = _call(server, "/api/new", body)
    assert status == 200 and state["watch"] and state["choices"] == [] and state["players"] == ["random"] * players
    web = server.game(state["id"])
    while not state["done"]:
        status, state, _ = _call(server, "/api/step", {"id": state["id"], "moves": 25})
        assert status == 200 and state["svg"] == render_svg(web.game, view, last_move=web.last_move)
        assert (state["cards"]["hand"] == []) == (view == PUBLIC)
    status, page, _ = _call(server, f"/api/replay?id={state['id']}")
    assert status == 200 and (b"public view" in page) == (view == PUBLIC)
    assert len(state["scores"]) == players


def test_watch_and_replay_requests_are_checked(server) -> None:
    _, play, _ = _call(server, "/api/new", {"players": 2, "opponents": ["random"], "seed": 1})
    _, watch, _ = _call(server, "/api/new", {"watch": True, "players": 2, "opponents": ["random"], "seed": 1})
    web = server.game(watch["id"])
    before = web.game.state.copy()
    cases = [
        ("/api/step", {"id": watch["id"], "moves": 0}, "moves must be an integer in 1..50"),
        ("/api/step", {"id": watch["id"], "moves": "3"}, "moves must be an integer in 1..50"),
        ("/api/step", {"id": watch["id"], "moves": 51}, "moves must be an integer in 1..50"),
        ("/api/step", {"id": play["id"]}, "has a person at the table"),
        ("/api/step", {"id": "nope"}, "no game 'nope'"),
        ("/api/move", {"id": watch["id"], "action": 0}, "a watched game has no person's move"),
        ("/api/new", {"watch": "yes"}, "watch must be true or false"),
        ("/api/new", {"watch": True, "view": 2}, "view must be 'public' or a seat in 0..1"),
        ("/api/new", {"watch": True, "view": "all"}, "view must be 'public' or a seat"),
        ("/api/new", {"watch": True, "opponents": ["random"] * 3}, "needs one agent or 2"),
    ]
    for path, body, message in cases:
        status, answer, _ = _call(server, path, body)
        assert status == 400 and message in answer["error"], (body, answer)
    assert _call(server, f"/api/replay?id={play['id']}")[0] == 400  # not over yet
    assert _call(server, "/api/replay?id=nope")[0] == 400
    assert _call(server, f"/api/hint?id={watch['id']}")[0] == 400
    assert _call(server, "/api/step", {"id": watch["id"]}, token=False)[0] == 403  # the page's token, as every POST
    assert np.array_equal(web.game.state, before)


def test_a_replay_page_carries_what_happened_in_its_view(tmp_path) -> None:
    """Seat and public views of one recorded game: the chronicle's lines of that view, per step."""
    game = Game(2, "omg2", seed=12)
    _play(game, Chronicle(game, None), 12)
    row = {"record": game.record().to_dict(), "seats": ["greedy", "random"]}
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(row) + "\n")
    for argv, viewer in ((["--seat", "1"], 1), (["--public"], PUBLIC)):
        out = tmp_path / "game.html"
        assert R.main([str(path), "--index", "0", *argv, "-o", str(out)]) == 0
        html = out.read_text()
        data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S)[1])
        replayed = Game(2, "omg2", seed=12)
        expected = Chronicle(replayed, viewer, ["player 0 (greedy)", "player 1 (random)"])
        for a in game.actions:
            expected.step(replayed, a)
        assert [t for step in data["notes"] for t in step] == [n.text for n in expected.notes]
        assert len(data["notes"]) == len(data["log"]) + 1
        assert ("public view" in html) == (viewer == PUBLIC)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hidden_card_twins_give_the_same_browser_page_until_the_reveal(server, seed) -> None:
    """Two browser games differing only in the opponents' hidden hand cards: the same state JSON at every
    decision before the reveal, and the same reveal lines after it."""
    from ohmygoods_env.apps.serve import WebGame

    webs = []
    for twin in (False, True):
        web = WebGame("royal", 3, 0, ["random", "random"], seed=seed)
        deal = Game(3, "royal", seed=seed)  # back to the deal (the agents may have moved), the twin swapped
        if twin:
            swap_cards(deal.state, deal.hand(1)[0], deal.hand(2)[-1])
        web.game.restore(deal)
        web.since, web.last_move, web.happened = [], None, []
        web.chronicle.sync(web.game)
        web._advance()
        webs.append(web)
    assert webs[0].game.hand(1) != webs[1].game.hand(1)
    steps = 0
    while True:
        views = [web.view("g") for web in webs]
        revealed = [[n for n in v["happened"] if n["kind"] == "reveal"] for v in views]
        if any(revealed):
            assert revealed[0] == revealed[1] and len(revealed[0]) == 3
            break
        assert views[0] == views[1], steps
        for web in webs:
            web.move(views[0]["choices"][0]["action"])
        steps += 1
    assert steps >= 2
