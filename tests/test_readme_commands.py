"""The README's two set-up commands: CI runs exactly the second, and the test command runs the suite in parallel."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    """The command lines of the README's set-up block (the first bash block), without comments."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "README.md has no bash block"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_ci_runs_exactly_the_readme_test_command():
    commands = _readme_commands()
    assert len(commands) == 2, commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[1] in ci, f".ci/run does not run the README's test command {commands[1]!r}"


def test_the_test_command_uses_every_core_and_xdist_is_in_the_dev_extra():
    test_command = _readme_commands()[1]
    assert "pytest" in test_command and "-n auto" in test_command
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dev = re.search(r"^dev = \[(.*?)^\]", pyproject, re.S | re.M)
    assert dev and "pytest-xdist" in dev.group(1)


def test_ci_runs_the_deselected_markers_too():
    """What the default run leaves out (``addopts -m``) is run by .ci/run with its own ``-m``."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    addopts = re.search(r"^addopts = \[(.*)\]$", pyproject, re.M)
    assert addopts
    deselected = re.findall(r"not (\w+)", addopts.group(1))
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for marker in deselected:
        assert re.search(rf"pytest .*-m {marker}\b", ci), f".ci/run never runs the tests marked {marker!r}"
