"""Goofspiel, the third game, is one folder plus one registration line.

* ``ohmygoods_env/goofspiel`` imports the framework and itself only (no other game, no app);
* the package root declares it in one line, and naming it loads only the framework and that folder;
* ``ohmygoods_env.framework.examples`` is its older name: it warns and is the same module;
* its record is a step record (JSON), which the generic page replays;
* its tools give it the framework's ``demo``; the commands it lacks refuse it with exit 2 and one line
  naming the games that have them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from ohmygoods_env.framework.game import games_with
from ohmygoods_env.goofspiel.game_spec import GOOFSPIEL, Goofspiel

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "ohmygoods_env" / "goofspiel"


def test_the_folder_imports_the_framework_and_itself_only() -> None:
    from test_framework_imports import _imports, _offending

    files = sorted(FOLDER.rglob("*.py"))
    assert len(files) == 3
    bad = {}
    for f in files:
        package = list(f.relative_to(ROOT).parts[:-1])
        bad[f.name] = [
            m for m in _imports(f.read_text(), package) if _offending(m) and not m.startswith("ohmygoods_env.goofspiel")
        ]
    assert not {f: m for f, m in bad.items() if m}


def test_one_root_line_declares_it_and_naming_it_loads_that_folder_only(tmp_path: Path) -> None:
    root = (ROOT / "ohmygoods_env" / "__init__.py").read_text()
    assert (
        sum("goofspiel" in line for line in root.splitlines()) == 1
        and 'declare_game("goofspiel", "ohmygoods_env.goofspiel.game_spec:GOOFSPIEL")' in root
    )
    code = (
        "import sys\n"
        "from ohmygoods_env.framework.game import game_spec\n"
        "print(game_spec('goofspiel').title)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('ohmygoods', 'pettingzoo')))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    title, loaded = done.stdout.splitlines()
    assert title == "Goofspiel"
    others = [m for m in loaded.split() if not m.startswith(("ohmygoods_env.framework", "ohmygoods_env.goofspiel"))]
    assert others == ["ohmygoods_env"], others


def test_the_older_name_warns_and_is_the_same_module() -> None:
    sys.modules.pop("ohmygoods_env.framework.examples", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from ohmygoods_env.framework.examples import GOOFSPIEL as old
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert any("ohmygoods_env.framework.examples" in m and "ohmygoods_env.goofspiel.game_spec" in m for m in messages)
    assert old is GOOFSPIEL and sys.modules["ohmygoods_env.framework.examples"].Goofspiel is Goofspiel


def test_its_record_is_a_json_step_record_that_replays() -> None:
    g = Goofspiel(3, seed=8, num_cards=4)
    while not g.done:
        g.step(int(next(a for a, ok in enumerate(g.legal_mask()) if ok)))
    data = json.loads(json.dumps(g.record().to_dict()))
    assert data == {"game": "goofspiel", "num_players": 3, "seed": 8, "options": {"num_cards": 4}, "actions": g.actions}
    again = Goofspiel.replay(data)
    assert again.scores() == g.scores() and again.actions == g.actions
    for bad, match in (
        ({**data, "game": "chess"}, "not a Goofspiel game record"),
        ({**data, "options": {"cards": 4}}, "options"),
        ({**data, "actions": ["x"]}, "actions"),
    ):
        with pytest.raises((TypeError, ValueError), match=match):
            Goofspiel.replay(bad)


#: the commands a game supplies through its tools (GameSpec.tools); the ones Goofspiel lacks are refused
COMMANDS = ("demo", "fuzz", "play", "train")
LACKS = [c for c in COMMANDS if "goofspiel" not in games_with(c)]


def test_its_tools_give_it_the_framework_demo_and_train_and_nothing_else() -> None:
    assert LACKS == ["fuzz", "play"]
    done = subprocess.run(
        [sys.executable, "-m", "ohmygoods_env.apps.cli", "demo", "--game", "goofspiel"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "Goofspiel, round 3/3, over" in done.stdout


@pytest.mark.parametrize("command", LACKS)
def test_a_command_it_lacks_refuses_it_naming_the_games_that_have_it(command: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ohmygoods_env.apps.cli", command, "--game", "goofspiel"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        f"ohmygoods {command}: Goofspiel (goofspiel) has no {command}: games with one: {', '.join(games_with(command))}"
    )
