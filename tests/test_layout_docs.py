"""docs/layouts.md and the layout constants agree."""

from pathlib import Path

from ohmygoods_env import layout as L
from ohmygoods_env.actions import RANGES

DOC = (Path(__file__).resolve().parents[1] / "docs" / "layouts.md").read_text()


def test_generated_tables_in_docs():
    from ohmygoods_env import actions, spaces

    assert actions.action_table() in DOC
    assert spaces.observation_table() in DOC
    for table in (L.PLAYER_FEATURE_TABLE, L.SLOT_FEATURE_TABLE, L.ASSIST_FEATURE_TABLE):
        assert spaces.feature_table(table) in DOC
    assert actions.action_table().splitlines()[2] in actions.__doc__


def test_action_registry_is_contiguous():
    end = 0
    for name, start, n in RANGES:
        assert start == end and n >= 1, name
        end = start + n
    assert end == L.N_ACTIONS


def test_action_ranges_documented():
    assert f"Discrete({L.N_ACTIONS})" in DOC
    for name, start, n in RANGES:
        ids = f"{start}..{start + n - 1}" if n > 1 else f"{start}"
        assert f"| {ids} | {name} |" in DOC, (ids, name)


def test_observation_blocks_documented():
    assert f"float32[{L.OBS_DIM}]" in DOC
    for _, off, n in L.OBS_BLOCKS:
        ids = f"{off}..{off + n - 1}" if n > 1 else f"{off}"
        assert f"| {ids} | {n} |" in DOC, (ids, n)


def test_state_size_documented():
    assert f"int32[{L.STATE_LEN}]" in DOC
    assert f"{L.STATE_LEN * 4:,} bytes" in DOC


def test_layout_version_documented():
    assert f"Layout version **v{L.LAYOUT_VERSION}**" in DOC


def test_wait_action_never_legal_in_engine():
    from ohmygoods_env.actions import describe
    from ohmygoods_env.engine import Game

    assert L.A_WAIT == L.N_ACTIONS - 1
    assert describe(L.A_WAIT) == "wait (nothing to decide)"
    for seed in range(3):
        g = Game(2, seed=seed)
        for _ in range(200):
            if g.done:
                break
            mask = g.legal_mask()
            assert mask[L.A_WAIT] == 0
            g.step(int(mask.nonzero()[0][0]))
