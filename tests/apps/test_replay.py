"""``ohmygoods replay``: a tournament or play game as a self-contained page, for the chosen view only."""

from __future__ import annotations

import base64
import gzip
import json
import re

import pytest

from ohmygoods_env.apps import replay as R
from ohmygoods_env.apps import tournament as A
from ohmygoods_env.engine import Game, GameRecord
from ohmygoods_env.picture import hides_move, move_text, render_svg


@pytest.fixture(scope="module")
def games_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("t") / "run"
    argv = ["--agents", "random,heuristic", "--games", "2", "--out", str(out), "--no-progress", "--no-plots"]
    assert A.main([*argv, "--workers", "1", "--bootstrap", "5"]) == 0
    return out / "games.jsonl"


def _page_data(html: str) -> dict:
    return json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S).group(1))


def _svgs(data: dict) -> list[str]:
    unique = [gzip.decompress(base64.b64decode(f)).decode() for f in data["frames"]]
    return [unique[k] for k in data["order"]]


@pytest.mark.parametrize("seat", [None, 0, 1])
def test_the_page_holds_every_step_of_the_chosen_view(games_file, tmp_path, seat) -> None:
    out = tmp_path / "game.html"
    argv = [str(games_file), "--index", "1", "-o", str(out)] + (["--seat", str(seat)] if seat is not None else [])
    assert R.main(argv) == 0
    html = out.read_text()
    row = R.load_game(games_file, 1)
    record = GameRecord.from_dict(row["record"])
    data = _page_data(html)
    svgs = _svgs(data)
    assert len(svgs) == len(data["log"]) + 1
    game = Game(record.rules.num_players, record.rules, seed=record.seed)
    expected, log = [render_svg(game, seat)], []
    for a in record.actions:  # every picture and log line is the view's own
        hidden = hides_move(game, seat)
        text = move_text(game, a, seat)
        game.step(a)
        if hidden and log and log[-1] == text:  # a run of an opponent's hidden choices: one step
            expected[-1] = render_svg(game, seat, last_move=text)
        else:
            expected.append(render_svg(game, seat, last_move=text))
            log.append(text)
    assert svgs == expected and data["log"] == log
    assert (len(svgs) == len(record.actions) + 1) == (seat is None)
    assert game.done and [vp for vp, _ in game.scores()] == row["scores"]
    # self-contained: no address but the SVG namespace, no external script or style
    assert not re.search(r"(src|href)=", html)
    assert set(re.findall(r"https?://[^\"' ]+", html)) <= {"http://www.w3.org/2000/svg"}


def test_a_seat_view_log_hides_the_opponents_hidden_choices(games_file, tmp_path) -> None:
    row = R.load_game(games_file, 0)
    record = GameRecord.from_dict(row["record"])
    _, seat0 = R.frames(record, 0)
    _, spectator = R.frames(record, None)
    theirs = [t for t in spectator if t.startswith("player 1: set aside to build")]
    assert theirs  # the opponent set cards aside ...
    assert not any(t.startswith("player 1: set aside to build") for t in seat0)  # ... unseen by seat 0
    assert any(t.startswith("player 0: set aside to build") for t in seat0)  # its own are named


def test_game_means_the_game_and_a_number_after_it_is_the_older_index(games_file, tmp_path, capsys) -> None:
    """``--game`` names a game as in every command; ``--game K`` (the option's meaning here before) still picks
    line K, with a deprecation line, and gives the same page as ``--index K``."""
    new, old, named = (tmp_path / f"{k}.html" for k in ("new", "old", "named"))
    assert R.main([str(games_file), "--index", "1", "-o", str(new)]) == 0
    assert "deprecated" not in capsys.readouterr().err
    assert R.main([str(games_file), "--game", "1", "-o", str(old)]) == 0
    assert "--game 1 is deprecated: use --index 1" in capsys.readouterr().err
    assert R.main([str(games_file), "--index", "1", "--game", "ohmygoods", "-o", str(named)]) == 0
    assert new.read_text() == old.read_text() == named.read_text()


def test_bad_files_and_games_are_usage_errors(games_file, tmp_path, capsys) -> None:
    old = tmp_path / "old.jsonl"
    old.write_text('{"index": 0, "scores": [1, 2]}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    cases = [
        ([str(games_file), "--index", "99"], "has no game 99"),
        ([str(games_file), "--index", "0", "--seat", "2"], "--seat 2 is out of range"),
        ([str(games_file), "--index", "0", "--seat", "0", "--spectator"], "not allowed with"),
        ([str(old), "--index", "0"], "no 'record'"),
        ([str(bad), "--index", "0"], "line 1: not JSON"),
        ([str(tmp_path / "missing.jsonl"), "--index", "0"], "cannot read"),
        ([str(games_file)], "name the game with --index K"),
        ([str(games_file), "--index", "0", "--game", "artificium"], "a game of ohmygoods, not of artificium"),
        ([str(games_file), "--index", "0", "--game", "chess"], "--game chess: unknown game 'chess'"),
        ([str(games_file), "--index", "0", "--game", "1"], "--game 1 is the older spelling of --index"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exc:
            R.main([*argv, "-o", str(tmp_path / "x.html")])
        assert exc.value.code == 2
        assert message in capsys.readouterr().err, argv
    assert not (tmp_path / "x.html").exists()
