"""The terminal game: scripted input, bad input answered with a message, never a traceback."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from agents import make_agent
from ohmygoods_env import layout as L
from ohmygoods_env.apps import play as P


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
    assert "view of player 0" in text or "your hand" in text.lower()
    assert "Your decision:" in text and "player 1 (heuristic):" in text
    assert "Final scores" in text


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
    assert "type the number of an action" in text  # help
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
    moves = [line for line in out if line.startswith("player 1") or line.startswith("player 2")]
    assert any("phase-II choice" in m for m in moves)
    assert not any("set aside to build" in m or "worker to" in m for m in moves)


def test_main_with_piped_stdin(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\n-1\n2\n1\n"))
    assert P.main(["--players", "3", "--opponents", "random,greedy", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "'x' is not a number" in text and "-1 is out of range" in text and "end of input" in text


def test_main_rejects_bad_opponents(capsys) -> None:
    assert P.main(["--opponents", "nobody"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        P.main(["--players", "3", "--opponents", "random,random,random"])


def test_command_line_never_prints_a_traceback() -> None:
    script = "hello\n42\n#3\n\n" + "1\n" * 40  # then end of input mid-game
    proc = subprocess.run(
        [sys.executable, "-m", "ohmygoods_env", "play", "--opponents", "heuristic", "--seed", "7"],
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "'hello' is not a number" in proc.stdout and "end of input" in proc.stdout


def test_fallback_render_without_the_renderer() -> None:
    from ohmygoods_env import Game

    g = Game(2, seed=1)
    text = P._fallback_render(g, 0)
    assert "market row 1" in text and "your hand" in text
    assert str(g.decision_name) in text
    assert L.PHASE_NAMES[g.phase] in text
