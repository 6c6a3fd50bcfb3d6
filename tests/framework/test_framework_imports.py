"""The framework knows no game: no module of ohmygoods_env/framework imports a game module (AST scan)."""

from __future__ import annotations

import ast
from pathlib import Path

import ohmygoods_env.framework

FRAMEWORK = Path(ohmygoods_env.framework.__file__).parent
#: modules of ohmygoods_env outside the framework that the framework may import: none (the old paths
#: ohmygoods_env.checks, files and _jit are aliases of framework modules, for users only)
ALLOWED: set[str] = set()


def _imports(source: str, package: list[str]) -> list[str]:
    """Absolute names of the modules ``source`` (a module of ``package``) imports."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            if node.module:
                out.append(mod)
            else:  # from .. import x: x is a module of the package
                out += [f"{mod}.{alias.name}" for alias in node.names]
    return out


def _offending(name: str) -> bool:
    if name.startswith("ohmygoods_env.framework") or name in ALLOWED:
        return False
    return name.split(".")[0] in {"ohmygoods_env", "ohmygoods_agents", "ohmygoods_training"}


def test_no_framework_module_imports_a_game_module() -> None:
    files = sorted(FRAMEWORK.rglob("*.py"))
    assert len(files) >= 8
    bad = {}
    for f in files:
        package = list(f.relative_to(FRAMEWORK.parent.parent).parts[:-1])
        bad[str(f.relative_to(FRAMEWORK))] = [m for m in _imports(f.read_text(), package) if _offending(m)]
    assert not {f: m for f, m in bad.items() if m}


def test_the_scan_sees_relative_and_absolute_game_imports() -> None:
    source = "from ... import engine\nfrom ...layout import A\nimport ohmygoods_env.core\nfrom .. import game\n"
    found = [m for m in _imports(source, ["ohmygoods_env", "framework", "envs"]) if _offending(m)]
    assert found == ["ohmygoods_env.engine", "ohmygoods_env.layout", "ohmygoods_env.core"]


def test_artificium_imports_the_framework_and_itself_only() -> None:
    """A second game adds a folder: no module of ohmygoods_env/artificium imports an Oh my Goods! module."""
    folder = FRAMEWORK.parent / "artificium"
    files = sorted(folder.rglob("*.py"))
    assert len(files) >= 10
    bad = {}
    for f in files:
        package = list(f.relative_to(FRAMEWORK.parent.parent).parts[:-1])
        names = _imports(f.read_text(), package)
        bad[f.name] = [m for m in names if _offending(m) and not m.startswith("ohmygoods_env.artificium")]
    assert not {f: m for f, m in bad.items() if m}


def test_the_architecture_doc_shows_the_packages_of_pyproject() -> None:
    """docs/architecture.md quotes the ``packages`` and ``package-dir`` lines of pyproject.toml as they are."""
    root = FRAMEWORK.parents[1]
    lines = [
        ln
        for ln in (root / "pyproject.toml").read_text().splitlines()
        if ln.startswith(("packages =", "package-dir ="))
    ]
    doc = (root / "docs" / "architecture.md").read_text().splitlines()
    assert len(lines) == 2 and all(ln in doc for ln in lines)
