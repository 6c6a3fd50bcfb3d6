"""docs/artificium/layout.md matches the layout registries."""

from __future__ import annotations

from pathlib import Path

from ohmygoods_env.artificium import layout as L

DOC = (Path(__file__).resolve().parents[2] / "docs" / "artificium" / "layout.md").read_text(encoding="utf-8")


def test_every_action_range_is_in_the_doc():
    for name, off, n in L.ACTION_RANGES:
        assert f"| {name} | {off} | {n} |" in DOC, name
    assert f"## Action ids ({L.N_ACTIONS})" in DOC


def test_every_observation_block_and_state_field_is_in_the_doc():
    for name, off, n, sc in L.OBS_TABLE + L.PLAYER_FEATURE_TABLE:
        assert f"| {name} | {off} | {n} | {sc:g} |" in DOC, name
    for name, off, n in L.STATE_FIELDS:
        assert f"| {name} | {off} | {n} |" in DOC, name
    assert f"({L.OBS_DIM} floats per seat)" in DOC


def test_the_module_docstring_tables_match_the_registries():
    doc = L.__doc__
    for name, off, n, sc in L.OBS_TABLE + L.PLAYER_FEATURE_TABLE:
        assert f"{off:<6}  {n:<4}  {sc:<5g}  {name}" in doc, name
    ranges = {off: n for _, off, n in L.ACTION_RANGES}
    for const, off in vars(L).items():
        if const.startswith("A_") and off in ranges:
            assert any(line.startswith(f"``{const}``") and f" {ranges[off]} " in line for line in doc.splitlines()), (
                const
            )


def test_every_action_id_has_words():
    from ohmygoods_env.artificium.engine import describe

    words = {describe(a) for a in range(L.N_ACTIONS)}
    assert len(words) == L.N_ACTIONS  # distinct words for distinct ids
