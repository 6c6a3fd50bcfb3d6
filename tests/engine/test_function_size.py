"""The engine in short functions (issue 30): no long function in the engine package, the scenario
builder or the Python fronts over the engine; one ``_legal_`` and one ``_apply_`` helper per
decision kind; the modules of :mod:`ohmygoods_env.core` import only the ones below them."""

import ast
from pathlib import Path

import pytest

from ohmygoods_env import core, layout

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "ohmygoods_env" / "core"
MAX_LINES = 80
CHECKED = (
    *(f"ohmygoods_env/core/{m}.py" for m in ("__init__", *core.MODULES)),
    "ohmygoods_env/scenario.py",
    "ohmygoods_env/batch.py",
    "ohmygoods_env/infostate.py",
    "ohmygoods_env/engine.py",
)


def _function_lengths(path: Path) -> dict[str, int]:
    """Lines of every function (methods and nested ones included) of the module at ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return {
        f"{node.name}:{node.lineno}": node.end_lineno - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def test_every_module_of_the_engine_is_checked() -> None:
    on_disk = {f"ohmygoods_env/core/{p.name}" for p in CORE.glob("*.py")}
    assert on_disk == {c for c in CHECKED if c.startswith("ohmygoods_env/core/")}


@pytest.mark.parametrize("rel", CHECKED)
def test_no_function_longer_than_80_lines(rel: str) -> None:
    lengths = _function_lengths(ROOT / rel)
    too_long = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not too_long, f"{rel}: functions over {MAX_LINES} lines: {too_long}"


def _package_imports(path: Path) -> set[str]:
    """The modules of ``core`` that the module at ``path`` imports (``from . import x``, ``from .x import y``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module] if node.module else [a.name for a in node.names])
    return found


@pytest.mark.parametrize("index", range(len(core.MODULES)))
def test_core_modules_import_only_the_ones_below(index: int) -> None:
    name = core.MODULES[index]
    below = set(core.MODULES[:index])
    imported = _package_imports(CORE / f"{name}.py")
    assert imported <= below, f"core.{name} imports {sorted(imported - below)}, not below it in {core.MODULES}"


def test_the_order_is_the_one_the_package_docstring_gives() -> None:
    listed = [line.split("``")[1] for line in core.__doc__.splitlines() if line.startswith("``")]
    assert tuple(listed) == core.MODULES


def _absolute(node: ast.ImportFrom, path: Path) -> str | None:
    """The module a ``from X import ...`` names, relative imports resolved against the file's package."""
    if not node.level:
        return node.module
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    base = parts[: len(parts) - node.level]
    return ".".join(base + ([node.module] if node.module else []))


def _imports_core(node: ast.ImportFrom, path: Path) -> bool:
    """``from ohmygoods_env import core``, ``from .. import core`` or ``from ohmygoods_env.core import x``
    (another game's own ``core``, such as ``ohmygoods_env.artificium.core``, is not this one)."""
    module = _absolute(node, path)
    return (module == "ohmygoods_env" and any(a.name == "core" for a in node.names)) or module == "ohmygoods_env.core"


def test_kernels_called_through_core_are_exported() -> None:
    """Every ``core.<name>`` used elsewhere in the package, the agents, training or the tests exists."""
    used = set()
    for folder in ("ohmygoods_env", "agents", "training", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text())
            imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and _imports_core(n, path)]
            if CORE in path.parents or not imports:
                continue
            for node in imports:
                if _absolute(node, path) == "ohmygoods_env.core":
                    used.update(a.name for a in node.names)
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "core":
                    used.add(node.attr)
    missing = sorted(n for n in used if not hasattr(core, n))
    assert used and not missing, missing


def _decision_kinds() -> list[str]:
    """The decision kinds of the layout (``D_*``), the end of the game excluded."""
    kinds = [(v, k[2:].lower()) for k, v in vars(layout).items() if k.startswith("D_") and isinstance(v, int)]
    return [name for v, name in sorted(kinds) if v != layout.D_OVER]


def test_decision_kinds_are_the_layouts() -> None:
    kinds = _decision_kinds()
    assert len(kinds) == layout.D_OVER and "phase1" in kinds and "refill" in kinds


@pytest.mark.parametrize("kind", _decision_kinds())
def test_every_decision_has_a_legal_and_an_apply_helper(kind: str) -> None:
    for module, prefix in ((core.legal, "_legal_"), (core.apply, "_apply_")):
        helper = getattr(module, prefix + kind, None)
        assert helper is not None, f"{module.__name__} has no {prefix}{kind}"
        assert hasattr(helper, "py_func"), f"{prefix}{kind} is not a compiled kernel"


def test_dispatchers_call_every_helper_in_decision_order() -> None:
    """``legal_mask`` and ``apply_decision`` hand the decisions to their helpers in the same order."""
    for module, dispatcher, prefix in (("legal", "legal_mask", "_legal_"), ("apply", "apply_decision", "_apply_")):
        tree = ast.parse((CORE / f"{module}.py").read_text())
        funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        calls = [
            n
            for n in ast.walk(funcs[dispatcher])
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id.startswith(prefix)
        ]
        called = [n.func.id[len(prefix) :] for n in sorted(calls, key=lambda n: (n.lineno, n.col_offset))]
        assert called == _decision_kinds(), (dispatcher, called)
