"""The shared argument checks (:mod:`ohmygoods_env.checks`), the one seed mixer and constants declared once."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ohmygoods_env import batch, core, fuzz, layout, rules
from ohmygoods_env.framework.checks import (
    check_finite,
    check_flag,
    check_seed,
    check_seeds,
    fresh_seed,
    offset_seed,
    optional_seed,
    seed_or_fresh,
)

PACKAGE = Path(core.__file__).parents[1]
M64 = (1 << 64) - 1


def _splitmix64(z: int) -> int:
    """Reference splitmix64 (increment, then finaliser) in plain Python."""
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


@pytest.mark.parametrize("seed", [0, 1, 2**63 - 1, 2**63, 2**64 - 1, np.uint64(2**64 - 1), np.int64(7)])
def test_every_64_bit_seed_is_accepted(seed):
    assert check_seed(seed) == int(seed) and optional_seed(seed) == int(seed) and seed_or_fresh(seed) == int(seed)


@pytest.mark.parametrize("seed", [-1, 2**64, -(2**63), 10**30])
def test_seeds_out_of_range_are_a_value_error_naming_the_range(seed):
    with pytest.raises(ValueError, match=rf"seed must be an int in 0 <= seed < 2\*\*64, got {seed}"):
        check_seed(seed)


@pytest.mark.parametrize("seed", [1.0, "3", True, np.bool_(False), [1], None])
def test_seeds_that_are_not_ints_are_a_type_error(seed):
    with pytest.raises(TypeError, match="seed must be an int in 0 <= seed < 2"):
        check_seed(seed)


def test_no_seed_draws_fresh_entropy():
    assert optional_seed(None) is None
    drawn = {seed_or_fresh(None) for _ in range(8)} | {fresh_seed() for _ in range(8)}
    assert len(drawn) == 16 and all(0 <= s < 2**64 for s in drawn)


def test_seed_arrays_keep_all_64_bits_and_name_a_bad_entry():
    assert check_seeds([0, 2**64 - 1, 2**63], 3).tolist() == [0, 2**64 - 1, 2**63]
    assert check_seeds(np.array([5, 6], np.int64), 2).dtype == np.uint64
    with pytest.raises(ValueError, match=r"seeds\[1\] must be an int in 0 <= s < 2\*\*64, got -2"):
        check_seeds(np.array([1, -2]), 2)
    with pytest.raises(ValueError, match=r"seeds\[0\] .* got 18446744073709551616"):
        check_seeds([2**64, 1], 2)
    with pytest.raises(TypeError, match=r"seeds\[1\] .* got float 1.5"):
        check_seeds([1, 1.5], 2)
    with pytest.raises(ValueError, match="must be 3 ints"):
        check_seeds([1, 2], 3)
    assert offset_seed(2**64 - 1, 2) == 1 and offset_seed(5, 3) == 8


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), np.float32("nan")])
def test_non_finite_numbers_are_refused(bad):
    with pytest.raises(ValueError, match="penalty must be a finite number"):
        check_finite(bad, "penalty")


def test_finite_numbers_pass_and_other_types_are_a_type_error():
    assert check_finite(-1, "penalty") == -1.0 and check_finite(np.float32(0.5), "penalty") == 0.5
    for bad in ("1", None, True):
        with pytest.raises(TypeError, match="penalty must be a finite number"):
            check_finite(bad, "penalty")


@pytest.mark.parametrize("bad", ["no", "false", "0", 0, 1, None, 1.0])
def test_flags_are_bools_only(bad):
    with pytest.raises(TypeError, match=r"autoreset must be a bool \(True or False\)"):
        check_flag(bad, "autoreset")
    assert check_flag(np.bool_(True), "autoreset") is True and check_flag(False, "autoreset") is False


def test_one_seed_mixer_is_splitmix64_and_every_user_shares_it():
    for z in (0, 1, 2**63, M64, 123456789):
        assert int(core.mix64(np.uint64(z))) == _splitmix64(z)
    assert batch._mix64 is core.mix64
    # the splitmix64 constants are written once in the package, in the pure-Python seed recipe, which
    # the kernels' constants are built from (fuzz and batch call core.mix64)
    hits = [p.name for p in PACKAGE.rglob("*.py") if re.search(r"0x9E3779B97F4A7C15|0xBF58476D1CE4E5B9", p.read_text())]
    assert hits == ["seeds.py"], hits
    assert "mix64" in Path(fuzz.__file__).read_text()


def test_max_players_is_declared_once():
    assert layout.MAX_PLAYERS == rules.MAX_PLAYERS == 4
    decl = re.compile(r"^\s*(MIN_PLAYERS, )?MAX_PLAYERS\s*=\s*\d", re.M)  # a value, not a re-export
    hits = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if decl.search(p.read_text()))
    # once per game: Oh my Goods! in rules.py, Artificium (2-6 players, A1.1) in its own layout,
    # Goofspiel in its engine
    assert hits == ["artificium/layout.py", "goofspiel/engine.py", "rules.py"], hits
