"""docs/rules.md is the project's rulebook: every rule number printed anywhere resolves there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = (ROOT / "docs" / "rules.md").read_text()
CITE = re.compile(r"(?<![\w.])R(\d+)(?:\.(\d+)([a-z]?))?(?![\w])")
SOURCES = [
    *sorted((ROOT / "ohmygoods_env").rglob("*.py")),
    *sorted((ROOT / "agents").rglob("*.py")),
    *sorted((ROOT / "training").rglob("*.py")),
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "README.md",
]


def _resolves(section: str, item: str | None, suffix: str) -> bool:
    if item is None:
        return f"\n## R{section} " in RULES
    if f"**R{section}.{item}**" in RULES and not suffix:
        return True
    return f"| R{section}.{item}{suffix} |" in RULES or f"| R{section}.{item}{suffix} (" in RULES


def test_every_printed_rule_number_resolves_in_docs_rules_md():
    cited: dict[str, str] = {}
    for path in SOURCES:
        for m in CITE.finditer(path.read_text(encoding="utf-8")):
            cited.setdefault(m.group(0), str(path.relative_to(ROOT)))
    assert len(cited) > 40
    missing = {c: where for c, where in cited.items() if not _resolves(*CITE.fullmatch(c).groups())}
    assert not missing, missing


def test_the_rulebook_numbers_every_section_and_the_royal_differences():
    for n in range(1, 11):
        assert f"\n## R{n} " in RULES
    assert "§9" in RULES and "**R10.3**" in RULES
