"""The terminal game: seat choice, compact redraw, hint, undo, final line, saved records; bad input
answered with a message, never a traceback."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest
from ohmygoods_agents import make_agent

from ohmygoods_env import Game
from ohmygoods_env import layout as L
from ohmygoods_env.apps import play as P
from ohmygoods_env.engine import GameRecord


def _script(lines):
    it = iter(lines)

    def read(prompt: str) -> str:
        try:
            item = next(it)
        except StopIteration:
            raise EOFError from None
        if isinstance(item, BaseException):
            raise item
        return item

    return read


def test_a_whole_game_with_scripted_input() -> None:
    out: list[str] = []
    game = P.play([make_agent("heuristic", seed=1)], "omg2", seed=2, read=lambda prompt: "1", say=out.append)
    assert game is not None and game.done
    text = "\n".join(out)
    assert "your hand" in text and "Your decision:" in text and "player 1 (heuristic)" in text
    assert "Final scores" in text
    assert out[-1] == P.final_line(game, 0) and out[-1].startswith(("You won ", "You lost ", "You shared"))
    lines = sum(chunk.count("\n") + 1 for chunk in out)
    decisions = sum(1 for chunk in out if chunk.startswith("you: "))
    assert lines < 20 * decisions  # a compact redraw, not the ~45-line table before every decision


def test_the_terminal_tells_what_happened_and_explains_the_choices() -> None:
    out: list[str] = []
    game = P.play([make_agent("greedy", seed=1)], "royal", seed=3, read=lambda prompt: "1", say=out.append)
    text = "\n".join(out)
    mine = [line for line in text.splitlines() if line.strip().startswith(">> you: ")]
    reveals = [line for line in mine if line.endswith(("aside to build", "set no card aside"))]
    assert len(reveals) == int(game.state[L.F_ROUND])  # every reveal, told once (the last one after the end too)
    assert len(mine) == 2 * len(reveals)  # and every production turn
    assert text.count(">> player 1 (greedy): ") == 2 * len(reveals)
    assert "efficient: all of" in text and "your goods are worth" in text  # worker and build choices explained


def test_bad_input_gets_a_message_and_a_new_prompt() -> None:
    out: list[str] = []
    script = ["banana", "0", "999", "#100000", "", "h", "t", KeyboardInterrupt(), "1", "q"]
    game = P.play([make_agent("random", seed=1)], "omg2", seed=3, read=_script(script), say=out.append)
    assert game is None  # quit with q
    text = "\n".join(out)
    assert "'banana' is not a number" in text
    assert "0 is out of range" in text and "999 is out of range" in text
    assert "action id 100000 is not legal" in text
    assert "'' is not a number" in text
    assert text.count("type the number of a choice") >= 2  # the banner and the help
    assert "interrupted" in text
    assert "you: " in text  # the valid "1" was played
    assert "game abandoned" in text


def test_end_of_input_leaves_the_game_cleanly() -> None:
    out: list[str] = []
    assert P.play([make_agent("random", seed=1)], "royal", seed=1, read=_script(["1"]), say=out.append) is None
    assert "end of input" in "\n".join(out)


def test_hidden_opponent_choices_are_not_announced() -> None:
    """Opponents' phase-II choices (R5.2) are announced without the card or the building."""
    out: list[str] = []
    P.play([make_agent("heuristic", seed=1)] * 2, "omg2", seed=5, read=lambda prompt: "1", say=out.append)
    moves = [line.strip() for line in out if line.strip().startswith(("player 1", "player 2"))]
    assert any("phase-II choice" in m for m in moves)
    assert not any("set aside to build" in m or "worker to" in m for m in moves)


def test_main_with_piped_stdin(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\n-1\n2\n1\n"))
    assert P.main(["--players", "3", "--opponents", "random,greedy", "--seed", "1", "--save", ""]) == 0
    text = capsys.readouterr().out
    assert "'x' is not a number" in text and "-1 is out of range" in text and "end of input" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponents", "nobody"], "unknown agent"),
        (["--players", "3", "--opponents", "random,random,random"], "give one agent or 2"),
        (["--seat", "2"], "--seat 2 is out of range"),
        (["--seat", "-1"], "--seat: expected an integer >= 0"),
        (["--hint", "nobody"], "unknown agent"),
    ],
)
def test_main_rejects_bad_arguments(argv, message, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        P.main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def _final_game(scores_wanted):
    for seed in range(200):
        g = Game(2, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.done:
            g.step(int(rng.choice(g.legal_actions())))
        if scores_wanted(g):
            return g
    pytest.skip("no such game among the sampled ones")


def test_final_line_names_the_result_from_the_humans_seat() -> None:
    g = _final_game(lambda g: g.winners() == [1])
    a, b = (vp for vp, _ in g.scores())
    assert P.final_line(g, 1) == f"You won {b}\u2013{a}" + (" (ahead on leftover coins, R8.3)" if a == b else "")
    assert P.final_line(g, 0).startswith(f"You lost {a}\u2013{b}")


def test_you_can_choose_your_seat_and_the_agents_fill_the_others() -> None:
    out: list[str] = []
    seen = []

    def read(prompt: str) -> str:
        seen.append(prompt)
        return "1"

    game = P.play([make_agent("random", seed=1)] * 2, "royal", seed=4, read=read, say=out.append, seat=2)
    assert game is not None and game.done and seen
    text = "\n".join(out)
    assert "player 2: you" in text and "player 0 (random)" in text and "player 1 (random)" in text
    assert "view of player 2" in text  # the final table from the human's seat


def test_hint_asks_the_agent_and_undo_goes_back_to_the_previous_decision() -> None:
    out: list[str] = []
    hint = make_agent("heuristic", seed=5)
    script = iter(["hint", "1", "2", "undo", "undo", "undo", "q"])
    tg = P.TerminalGame([make_agent("heuristic", seed=1)], "omg2", seed=2, seat=0,
                        read=lambda prompt: next(script), say=out.append, hint_agent=hint)  # fmt: skip
    assert tg.run() is None  # quit at the end of the script
    text = "\n".join(out)
    hint_line = next(line for line in out if line.startswith("hint (heuristic): "))
    assert " = " in hint_line
    assert "undone: back to your previous decision" in text
    assert "nothing to undo: this is your first decision" in text  # the second undo reached the first one
    first = tg.history[0][0]  # the game as it was at the human's first decision
    assert len(tg.history) == 1 and np.array_equal(tg.game.state, first.state) and tg.game.actions == first.actions
    assert tg.game.current_player == 0
    assert tg.undos == 2


def test_a_finished_game_is_saved_and_replays(tmp_path, monkeypatch, capsys) -> None:
    from ohmygoods_env.engine import GameRecord

    save = tmp_path / "games.jsonl"
    save.write_text('{"index": 0, "earlier": true}\n')
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3000))
    assert P.main(["--opponents", "random", "--seed", "3", "--seat", "1", "--save", str(save), "--hint", "none"]) == 0
    rows = [json.loads(line) for line in save.read_text().splitlines()]
    assert rows[0] == {"index": 0, "earlier": True}  # appended, nothing overwritten
    row = rows[1]
    assert row["index"] == 1 and row["seats"] == ["random", "you"] and row["human_seat"] == 1
    g = Game.replay(GameRecord.from_dict(row["record"]))
    assert g.done and [vp for vp, _ in g.scores()] == row["scores"]
    assert "ohmygoods replay" in capsys.readouterr().err


def test_command_line_never_prints_a_traceback() -> None:
    script = "hello\n42\n#3\n\n" + "1\n" * 40  # then end of input mid-game
    proc = subprocess.run(
        [sys.executable, "-m", "ohmygoods_env", "play", "--opponents", "heuristic", "--seed", "7", "--save", ""],
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "'hello' is not a number" in proc.stdout and "end of input" in proc.stdout


def test_status_lines_show_market_buildings_and_hand() -> None:
    g = Game(2, seed=1)
    text = "\n".join(P.status_lines(g, 0))
    assert "market row 1" in text and "your hand (5)" in text
    assert L.PHASE_NAMES[g.phase] in text
    assert all(g.cards.name(c) in text for c in g.hand(0))


def test_solo_and_the_variants_from_the_command_line(tmp_path, monkeypatch, capsys) -> None:
    """--players 1 is a solo game with no opponents; --keep-one offers R10.1's choice; both are saved."""
    save = tmp_path / "games.jsonl"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    argv = ["--players", "1", "--keep-one", "--two-for-one", "--seed", "4", "--save", str(save)]
    assert P.main(argv) == 0
    text = capsys.readouterr().out
    assert "solo (player 0: you)" in text and "discard the hand but keep" in text  # R10.1's choice offered
    record = json.loads(save.read_text())["record"]
    assert (record["num_players"], record["keep_one"], record["two_for_one"]) == (1, True, True)
    game = Game.replay(GameRecord.from_dict(record))
    assert game.done and game.rules.num_players == 1


def test_without_keep_one_the_hand_is_discarded_whole() -> None:
    out: list[str] = []
    P.play([], "omg2", seed=4, read=lambda prompt: "q", say=out.append)
    assert "discard hand" in "\n".join(out) and "discard the hand but keep" not in "\n".join(out)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "1", "--opponents", "random"], "a solo game (--players 1) has no opponents"),
        (["--rules", "royal", "--keep-one"], "--keep-one: keep_one (R10.1) needs omg2"),
        (["--players", "5"], "invalid choice: 5"),
    ],
)
def test_solo_and_variant_arguments_are_checked(argv, message, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        P.main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_the_table_command_lists_every_fact_of_the_cards_the_seat_may_see() -> None:
    from ohmygoods_env.cardfacts import card_text

    out: list[str] = []
    game = P.TerminalGame([make_agent("random", seed=1)] * 2, "omg2", seed=6, read=_script(["t", "q"]), say=out.append)
    game.run()
    table = next((t for t in out if t.startswith("Cards (every fact")), "")
    g = game.game
    for c in g.hand(0) + [b for p in range(3) for b in g.buildings(p)]:
        assert card_text(g.cards, c) in table
    assert not any(card_text(g.cards, c) in table for c in g.hand(1) + g.hand(2))
