"""The engine in short functions (issue 30): no long function in the engine or the scenario
builder, and one ``_legal_`` and one ``_apply_`` helper per decision kind."""

import ast
from pathlib import Path

import pytest

from ohmygoods_env import core, layout

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 80
CHECKED = ("ohmygoods_env/core.py", "ohmygoods_env/scenario.py")


def _function_lengths(path: Path) -> dict[str, int]:
    """Lines of every function (methods and nested ones included) of the module at ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return {
        f"{node.name}:{node.lineno}": node.end_lineno - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


@pytest.mark.parametrize("rel", CHECKED)
def test_no_function_longer_than_80_lines(rel: str) -> None:
    lengths = _function_lengths(ROOT / rel)
    assert lengths, rel
    too_long = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not too_long, f"{rel}: functions over {MAX_LINES} lines: {too_long}"


def _decision_kinds() -> list[str]:
    """The decision kinds of the layout (``D_*``), the end of the game excluded."""
    kinds = [(v, k[2:].lower()) for k, v in vars(layout).items() if k.startswith("D_") and isinstance(v, int)]
    return [name for v, name in sorted(kinds) if v != layout.D_OVER]


def test_decision_kinds_are_the_layouts() -> None:
    kinds = _decision_kinds()
    assert len(kinds) == layout.D_OVER and "phase1" in kinds and "refill" in kinds


@pytest.mark.parametrize("kind", _decision_kinds())
def test_every_decision_has_a_legal_and_an_apply_helper(kind: str) -> None:
    for prefix in ("_legal_", "_apply_"):
        helper = getattr(core, prefix + kind, None)
        assert helper is not None, f"core has no {prefix}{kind}"
        assert hasattr(helper, "py_func"), f"{prefix}{kind} is not a compiled kernel"


def test_dispatchers_call_every_helper_in_decision_order() -> None:
    """``legal_mask`` and ``apply_decision`` hand the decisions to their helpers in the same order."""
    tree = ast.parse((ROOT / "ohmygoods_env/core.py").read_text())
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for dispatcher, prefix in (("legal_mask", "_legal_"), ("apply_decision", "_apply_")):
        calls = [
            n
            for n in ast.walk(funcs[dispatcher])
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id.startswith(prefix)
        ]
        called = [n.func.id[len(prefix) :] for n in sorted(calls, key=lambda n: (n.lineno, n.col_offset))]
        assert called == _decision_kinds(), (dispatcher, called)
