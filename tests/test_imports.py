"""The import graph of the project's own modules (``ohmygoods_env``, ``agents``, ``training``), read by AST.

* no import circle: among the imports a module runs when it is loaded (its body, ``if`` / ``try``
  blocks and class bodies; not the imports inside functions, not ``if TYPE_CHECKING``), no module
  reaches itself again;
* no module of the project imports an older-name alias module (:data:`ALIASES`); the aliases warn
  and still work for users;
* importing a game loads the framework and that game only: ``import ohmygoods_env.artificium`` in a
  fresh interpreter loads no *Oh my Goods!* module and not PettingZoo.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: folder -> import name (the folders agents/ and training/ install as ohmygoods_agents / ohmygoods_training)
PACKAGES = {"ohmygoods_env": "ohmygoods_env", "agents": "ohmygoods_agents", "training": "ohmygoods_training"}
#: the older names kept for users, and the module each stands for
ALIASES = {
    "ohmygoods_env.checks": "ohmygoods_env.framework.checks",
    "ohmygoods_env.files": "ohmygoods_env.framework.files",
    "ohmygoods_env._jit": "ohmygoods_env.framework.jit",
    "ohmygoods_env.stats": "ohmygoods_env.framework.stats",
    "ohmygoods_env.framework.examples": "ohmygoods_env.goofspiel.game_spec",  # Goofspiel has a folder now
}


def module_files() -> dict[str, Path]:
    """Every module of the project by its import name (a package by its ``__init__.py``)."""
    out = {}
    for folder, name in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((name, *parts))] = path
    return out


MODULES = module_files()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _load_time_imports(body: list[ast.stmt]):
    """The import statements a module body runs when it is loaded (not those inside functions)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _load_time_imports(node.orelse)
        elif isinstance(node, ast.ClassDef):
            yield from _load_time_imports(node.body)
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from _load_time_imports([n for n in inner if isinstance(n, ast.AST)])
            if isinstance(node, ast.ExceptHandler):
                yield from _load_time_imports(node.body)


def imported_modules(name: str, path: Path, load_time: bool = True) -> set[str]:
    """The project modules ``name`` imports: at load time only (``load_time``), else anywhere in it.

    ``from P import x`` counts as an import of ``P.x`` where that is a module of the project, else
    of ``P``; an import names its target only, not the packages above it.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = (
        _load_time_imports(tree.body)
        if load_time
        else (n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)))
    )
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
            continue
        if node.level:
            base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*base_parts, node.module] if node.module else base_parts)
        else:
            base = node.module or ""
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            out.add(sub if sub in MODULES else base)
    return {m for m in out if m in MODULES and m != name}


def load_time_graph() -> dict[str, set[str]]:
    return {name: imported_modules(name, path) for name, path in MODULES.items()}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_cycle_finder_finds_a_planted_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_circles(graph) == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": set()}) == []


def test_only_load_time_imports_count(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "from typing import TYPE_CHECKING\n"
        "import ohmygoods_env.framework.game\n"
        "if TYPE_CHECKING:\n    import ohmygoods_env.framework.rng\n"
        "try:\n    import ohmygoods_env.framework.checks\nexcept ImportError:\n    pass\n"
        "def f():\n    import ohmygoods_env.framework.files\n"
        "class C:\n    from ohmygoods_env.framework import registry\n",
        encoding="utf-8",
    )
    found = imported_modules("ohmygoods_env.somewhere", src)
    assert found == {
        "ohmygoods_env.framework.game",
        "ohmygoods_env.framework.checks",
        "ohmygoods_env.framework.registry",
    }
    assert "ohmygoods_env.framework.files" in imported_modules("ohmygoods_env.somewhere", src, load_time=False)


def test_no_import_circle_among_the_projects_modules() -> None:
    circles = import_circles(load_time_graph())
    assert not circles, "import circles (each a set of modules that import each other when loaded): " + "; ".join(
        " <-> ".join(c) for c in circles
    )


def test_no_import_circle_even_counting_the_imports_inside_functions() -> None:
    """The stricter reading: a function's import back into a module that imports it is a circle too."""
    graph = {name: imported_modules(name, path, load_time=False) for name, path in MODULES.items()}
    circles = import_circles(graph)
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_no_project_module_imports_an_older_name() -> None:
    offenders = []
    for name, path in MODULES.items():
        if name in ALIASES:
            continue
        used = imported_modules(name, path, load_time=False) & set(ALIASES)
        offenders += [f"{path.relative_to(ROOT)} imports {old} (use {ALIASES[old]})" for old in sorted(used)]
    assert not offenders, "\n".join(offenders)


def run_fresh(code: str, tmp_path: Path) -> str:
    """``code`` in a fresh interpreter outside the repository; its stdout (fails with its stderr)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


#: modules of Oh my Goods! (the game), none of which importing Artificium may load
OHMYGOODS_MODULES = ("engine", "layout", "core", "cards", "rules", "envs", "game_spec", "policy", "batch", "render")


def test_importing_artificium_loads_the_framework_and_artificium_only(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "import ohmygoods_env.artificium\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(('ohmygoods', 'pettingzoo')))))\n"
    )
    loaded = run_fresh(code, tmp_path).split()
    assert "ohmygoods_env.artificium.engine" in loaded
    omg = {f"ohmygoods_env.{m}" for m in OHMYGOODS_MODULES} & set(loaded)
    assert not omg, sorted(omg)
    assert not [m for m in loaded if m.startswith("pettingzoo")]
    ours = [m for m in loaded if m.startswith("ohmygoods")]
    others = [m for m in ours if not m.startswith(("ohmygoods_env.framework", "ohmygoods_env.artificium"))]
    assert others == ["ohmygoods_env"], others  # the package root, and nothing else of another game


@pytest.mark.parametrize(("old", "new"), sorted(ALIASES.items()))
def test_an_older_name_warns_naming_the_new_path_and_still_works(old: str, new: str, tmp_path: Path) -> None:
    code = (
        "import importlib, sys, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        "print([str(w.message) for w in caught if w.category is DeprecationWarning])\n"
        f"print(old is new, sys.modules[{old!r}] is new)\n"
    )
    messages, same = run_fresh(code, tmp_path).splitlines()
    assert old in messages and new in messages, messages  # one warning, naming both paths
    assert same == "True True"  # the older name is the module itself: every name works as before


def test_the_roots_declared_ids_are_the_games_own() -> None:
    from ohmygoods_env.artificium import game_spec as art
    from ohmygoods_env.envs import ENV_ID
    from ohmygoods_env.envs.gym_env import ENV_ID_GYM
    from ohmygoods_env.framework.env_ids import declared_env_ids

    declared = {ids.pettingzoo_id: ids for ids in declared_env_ids()}
    assert {ENV_ID, art.ENV_ID} <= set(declared)
    assert declared[ENV_ID].gym_id == ENV_ID_GYM and declared[art.ENV_ID].gym_id == art.ENV_ID_GYM
    for ids in declared.values():
        for target in (ids.aec, ids.parallel, ids.gym, ids.gym_vector):
            if target is not None:
                module, _, attr = target.partition(":")
                assert callable(getattr(__import__(module, fromlist=[attr]), attr)), target


@pytest.mark.parametrize("first", ["ohmygoods_env", "pettingzoo"])
def test_the_ids_register_whichever_is_imported_first(first: str, tmp_path: Path) -> None:
    """``import ohmygoods_env`` loads neither env library; importing one later (or before) registers the ids."""
    code = (
        "import sys\n"
        f"import {first}\n"
        "if 'ohmygoods_env' in sys.modules: assert 'pettingzoo' not in sys.modules and 'gymnasium' not in sys.modules\n"
        "import ohmygoods_env, pettingzoo, gymnasium\n"
        "aec = pettingzoo.make('aec', 'ohmygoods/oh_my_goods-v2', num_players=3)\n"
        "par = pettingzoo.make('parallel', 'ohmygoods/artificium-v0', num_players=3)\n"
        "gym = gymnasium.make('ohmygoods/Artificium-v0', num_players=2, opponents='random')\n"
        "vec = gymnasium.make_vec('ohmygoods/OhMyGoods-v2', num_envs=2)\n"
        "print(type(aec.unwrapped).__name__, type(par).__name__, type(gym.unwrapped).__name__, type(vec).__name__)\n"
        "print(pettingzoo.__spec__.loader is pettingzoo.__loader__, type(pettingzoo.__loader__).__name__)\n"
    )
    envs, loader = run_fresh(code, tmp_path).splitlines()
    assert envs == "raw_env GameParallelEnv GameSingleAgentEnv OhMyGoodsVectorEnv"  # the AEC class is raw_env
    assert loader == "True SourceFileLoader"  # the library keeps its own loader


def test_the_files_docs_architecture_names_exist() -> None:
    """Every path with a folder that docs/architecture.md names in backticks (``apps/web_shell.py``) is a file."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([A-Za-z_/]+/[A-Za-z_]+\.(?:py|html|css|js|json))`", text))
    assert {
        "apps/web_shell.py",
        "framework/env_ids.py",
        "apps/web_ohmygoods.py",
        "goofspiel/eval_protocol.json",
    } <= named
    bases = (ROOT, ROOT / "ohmygoods_env", ROOT / "ohmygoods_env" / "apps")
    missing = sorted(n for n in named if not any((b / n).is_file() for b in bases))
    assert not missing, missing
