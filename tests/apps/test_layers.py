"""The app layer is the top of the import graph: nothing below it imports it, ``agents`` or ``training``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the file's package
                pkg = path.relative_to(ROOT).with_suffix("").parts[: -node.level]
                base = ".".join([*pkg, base] if base else pkg)
            names.add(base)
            names |= {f"{base}.{a.name}" for a in node.names}
    return names


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


UPPER = ("ohmygoods_agents", "ohmygoods_training")  # the import names of the folders agents/ and training/
LIBRARY = [p for p in _modules("ohmygoods_env") if "apps" not in p.parts and p.name != "__main__.py"]


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_imports_nothing_above_itself(path: Path) -> None:
    above = {
        n
        for n in _imports(path)
        if n.split(".")[0] in ("ohmygoods_agents", "ohmygoods_training") or n.startswith("ohmygoods_env.apps")
    }
    assert not above, f"{path.relative_to(ROOT)} imports {sorted(above)}"


@pytest.mark.parametrize("path", _modules("agents"), ids=lambda p: str(p.relative_to(ROOT)))
def test_agents_import_neither_training_nor_apps(path: Path) -> None:
    above = {n for n in _imports(path) if n.split(".")[0] == "ohmygoods_training" or n.startswith("ohmygoods_env.apps")}
    assert not above, f"{path.relative_to(ROOT)} imports {sorted(above)}"


@pytest.mark.parametrize("path", _modules("training"), ids=lambda p: str(p.relative_to(ROOT)))
def test_training_does_not_import_the_apps(path: Path) -> None:
    above = {n for n in _imports(path) if n.startswith("ohmygoods_env.apps")}
    assert not above, f"{path.relative_to(ROOT)} imports {sorted(above)}"


def test_no_import_strings_hide_upward_imports() -> None:
    for path in LIBRARY + _modules("agents") + _modules("training"):
        text = path.read_text(encoding="utf-8")
        for needle in (
            'import_module("ohmygoods_agents',
            'import_module("ohmygoods_training',
            "import_module('ohmygoods_agents",
        ):
            assert needle not in text, f"{path.relative_to(ROOT)} imports by string: {needle}"


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_names_an_app_module_only_as_a_games_page(path: Path) -> None:
    """A game's spec names its browser page (``GameSpec(web="ohmygoods_env.apps.web_X:Kind")``), which only
    the web shell imports, and its tools (``GameTools(...)``) name its command lines and engine warm-up,
    which only the app layer imports (``GameTools.load``, ``apps.common.game_command``); no other string of
    the library names a module of the app layer."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pages = {id(k.value) for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords if k.arg == "web"}
    pages |= {  # every string inside a GameTools(...) call
        id(c)
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == "GameTools"
        for c in ast.walk(n)
    }
    named = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("ohmygoods_env.apps")
        if id(n) not in pages
    ]
    assert not named, f"{path.relative_to(ROOT)} names {named}"


def test_every_game_with_a_page_names_a_module_of_the_app_layer() -> None:
    from ohmygoods_env.apps.web_shell import page_target, web_games

    for game in web_games():  # its own page kind, or the generic one (a game whose spec names none)
        module = page_target(game).partition(":")[0]
        assert module.startswith("ohmygoods_env.apps.web_") and (ROOT / (module.replace(".", "/") + ".py")).is_file()
