"""The env adapters are thin and independent: no adapter module imports a sibling adapter module.

Every module of ``ohmygoods_env/envs`` is listed here as an adapter, a shared module or a
front end over adapters; the rule is read from the source (AST), imports inside functions
included, so a lazy import cannot slip past it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENVS = Path(__file__).resolve().parents[2] / "ohmygoods_env" / "envs"

#: one env interface over the engine each
ADAPTERS = frozenset({"pettingzoo_env", "parallel", "gym_env", "vector", "sb3", "seat_vec", "batched"})
#: what adapters share: helpers, the single-learner core, SB3 VecEnv plumbing, the parallel env's phases
SHARED = frozenset({"common", "learner", "sb3_base", "simultaneous"})
#: built on adapters: the package (env ids, registration), a BenchMARL task over the parallel env,
#: a deprecated alias of ``ohmygoods_env.bench.marl``
FRONT_ENDS = frozenset({"__init__", "benchmarl_task", "bench_marl"})
#: the only modules that import stable-baselines3 (an optional extra)
SB3_MODULES = frozenset({"sb3", "sb3_base", "seat_vec"})


def _imported_siblings(module: str, folder: Path = ENVS) -> set[str]:
    """Sibling modules of ``ohmygoods_env.envs`` that ``module`` imports (anywhere in the file)."""
    tree = ast.parse((folder / f"{module}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            absolute = node.level == 0 and (node.module or "").startswith("ohmygoods_env.envs")
            if node.level == 1 or absolute:
                base = (node.module or "").removeprefix("ohmygoods_env.envs").lstrip(".")
                if base:
                    found.add(base.split(".")[0])
                else:  # from . import x
                    found.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("ohmygoods_env.envs."):
                    found.add(a.name.split(".")[2])
    return found - {module}


def _imports_sb3(module: str) -> bool:
    tree = ast.parse((ENVS / f"{module}.py").read_text())
    for node in ast.walk(tree):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        if any(n.split(".")[0] in ("stable_baselines3", "sb3_contrib") for n in names):
            return True
    return False


def test_every_envs_module_is_classified() -> None:
    modules = {p.stem for p in ENVS.glob("*.py")}
    assert not (ADAPTERS & SHARED or ADAPTERS & FRONT_ENDS or SHARED & FRONT_ENDS)
    unlisted = modules - (ADAPTERS | SHARED | FRONT_ENDS)
    assert not unlisted, f"classify these modules here (adapter, shared or front end): {sorted(unlisted)}"
    assert ADAPTERS | SHARED <= modules


def test_no_adapter_imports_a_sibling_adapter() -> None:
    bad = {m: sorted(_imported_siblings(m) & ADAPTERS) for m in sorted(ADAPTERS)}
    assert not any(bad.values()), f"adapters importing adapters (move the shared piece to common.py): {bad}"


def test_shared_modules_import_no_adapter() -> None:
    bad = {m: sorted(_imported_siblings(m) & ADAPTERS) for m in sorted(SHARED)}
    assert not any(bad.values()), bad


def test_only_the_sb3_modules_import_sb3() -> None:
    assert {m for m in ADAPTERS | SHARED if _imports_sb3(m)} == SB3_MODULES


def test_the_scan_sees_every_import_form(tmp_path) -> None:
    """The scanner itself: relative, absolute and in-function imports of a sibling are all found."""
    (tmp_path / "probe.py").write_text(
        "from .a import x\nfrom . import b\nimport ohmygoods_env.envs.c\n"
        "from ohmygoods_env.envs.d import y\nfrom ..batch import BatchGames\n\ndef f():\n    from .e import z\n"
    )
    assert _imported_siblings("probe", tmp_path) == {"a", "b", "c", "d", "e"}
