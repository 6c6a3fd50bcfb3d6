"""docs/artificium/rules.md is the game's rulebook: every rule id there is cited in the engine and
tested here, and every id printed in the engine or the tests resolves there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = (ROOT / "docs" / "artificium" / "rules.md").read_text(encoding="utf-8")
RULE = re.compile(r"\*\*(A\d+\.\d+)\*\*")
CITE = re.compile(r"(?<![\w.])A(\d+)[._](\d+)(?![\d])")


def _cited(paths: list[Path]) -> set[str]:
    out: set[str] = set()
    for p in paths:
        out |= {f"A{a}.{b}" for a, b in CITE.findall(p.read_text(encoding="utf-8"))}
    return out


RULE_IDS = set(RULE.findall(RULES))
CODE = _cited(sorted((ROOT / "ohmygoods_env" / "artificium").glob("*.py")))
TESTS = _cited(sorted((ROOT / "tests" / "artificium").glob("test_*.py")) + [])


def test_the_rulebook_has_nine_sections_of_numbered_rules():
    assert len(RULE_IDS) >= 50
    for n in range(1, 10):
        assert f"\n## A{n} " in RULES


def test_every_rule_is_cited_in_the_engine():
    assert not RULE_IDS - CODE, sorted(RULE_IDS - CODE)


def test_every_rule_has_a_test():
    tested = _cited(
        [p for p in sorted((ROOT / "tests" / "artificium").glob("test_*.py")) if p.name != Path(__file__).name]
    )
    assert not RULE_IDS - tested, sorted(RULE_IDS - tested)


def test_every_cited_rule_exists():
    assert not (CODE | TESTS) - RULE_IDS, sorted((CODE | TESTS) - RULE_IDS)
