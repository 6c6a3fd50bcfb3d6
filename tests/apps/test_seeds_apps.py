"""Unseeded games at the command line and in the browser: a fresh deal each time, its seed in the record."""

from __future__ import annotations

import io
import json
import sys

import pytest

from ohmygoods_env.apps import demo as D
from ohmygoods_env.apps import fuzz as F
from ohmygoods_env.apps import play as P
from ohmygoods_env.apps import serve as S
from ohmygoods_env.apps import tournament as T
from ohmygoods_env.engine import Game, GameRecord


def _play_to_end(web: S.WebGame) -> None:
    while not web.game.done:
        web.move(web.game.legal_actions()[0])


def test_browser_games_without_a_seed_are_dealt_fresh_and_the_record_comes_at_the_end():
    games = [S.WebGame("omg2", 2, 0, ["random"]) for _ in range(3)]
    assert len({g.game.state.tobytes() for g in games}) == 3
    web = games[0]
    assert "record" not in web.view("g") and "seed" not in json.dumps(web.view("g"))
    _play_to_end(web)
    record = web.view("g")["record"]
    assert record["seed"] == web.game.seed
    assert Game.replay(GameRecord.from_dict(record)).state.tobytes() == web.game.state.tobytes()


def test_the_new_game_request_takes_a_64_bit_seed_as_an_int_or_digits_and_refuses_others():
    srv = S.GameServer.__new__(S.GameServer)  # new_game needs only the games table, its lock and the game's kind
    srv.games, srv.lock, srv.kind = {}, __import__("threading").Lock(), S.OhMyGoodsWeb()
    body = {"players": 2, "opponents": ["random"]}
    for seed in (2**64 - 1, str(2**64 - 1), 2**63):
        gid = srv.new_game({**body, "seed": seed})
        assert srv.games[gid].game.seed == int(seed)
    assert srv.games[srv.new_game(body)].game.seed != srv.games[srv.new_game(body)].game.seed
    for bad in (-1, 2**64, "1e3", "-5", "9" * 25, 1.5, True):
        with pytest.raises(S.BadRequest, match=r"seed must be an int in 0 <= seed < 2\*\*64"):
            srv.new_game({**body, "seed": bad})


def test_the_page_sends_no_seed_unless_one_is_typed():
    page = S.page_html("serve.html")
    assert 'id="seed"' in page and 'value="0"' not in page.split('id="seed"')[1].split(">")[0]
    assert 'if (seed !== "") body.seed = seed' in page


def test_terminal_games_without_a_seed_differ_and_save_the_seed_they_used(tmp_path, monkeypatch):
    save = tmp_path / "games.jsonl"
    for _ in range(2):
        monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3000))
        assert P.main(["--opponents", "random", "--save", str(save), "--hint", "none"]) == 0
    rows = [json.loads(line) for line in save.read_text().splitlines()]
    seeds = [row["record"]["seed"] for row in rows]
    assert seeds[0] != seeds[1] and all(0 <= s < 2**64 for s in seeds)
    for row in rows:
        g = Game.replay(GameRecord.from_dict(row["record"]))
        assert g.done and [vp for vp, _ in g.scores()] == row["scores"]


@pytest.mark.parametrize("main", [P.main, D.main, F.main, T.main], ids=["play", "demo", "fuzz", "tournament"])
@pytest.mark.parametrize("seed", ["-1", str(2**64), "x"])
def test_every_command_refuses_a_seed_outside_0_to_2_64(main, seed, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--seed", seed])
    assert exc.value.code == 2 and "--seed" in capsys.readouterr().err
