"""How OpenMP's idle threads wait: ``import ohmygoods_env`` sets ``OMP_WAIT_POLICY=PASSIVE`` unless the
user chose how they wait (``OMP_WAIT_POLICY`` or libgomp's ``GOMP_SPINCOUNT``), and it does so before numba
or torch loads the OpenMP runtime they share (libgomp reads its settings once, when it is loaded).

Each case runs in a fresh interpreter, since this process has long loaded the runtime.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import ohmygoods_env

SETTINGS = ohmygoods_env.OPENMP_WAIT_VARIABLES


def _run(code: str, **env: str) -> str:
    """``code`` in a fresh interpreter whose environment has neither setting, plus ``env``; its stdout."""
    base = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    out = subprocess.run(
        [sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True, timeout=120, check=True
    )
    return out.stdout.strip()


SHOW = "import os, ohmygoods_env; print(os.environ.get('GOMP_SPINCOUNT'), os.environ.get('OMP_WAIT_POLICY'))"


def test_unset_gets_passive_waiting() -> None:
    assert _run(SHOW) == "None PASSIVE"


@pytest.mark.parametrize(
    ("env", "expected"),
    [({"OMP_WAIT_POLICY": "ACTIVE"}, "None ACTIVE"), ({"GOMP_SPINCOUNT": "10000"}, "10000 None")],
)
def test_a_users_setting_is_kept(env: dict[str, str], expected: str) -> None:
    assert _run(SHOW, **env) == expected


def test_set_before_torch_loads_through_the_training_package() -> None:
    """``python -m ohmygoods_training.<module>`` imports torch at the top of the module: the package's own
    ``__init__`` imports ``ohmygoods_env`` first, so the setting is in place when torch (and its libgomp) loads."""
    pytest.importorskip("torch")
    code = """
import os, sys
seen = {}
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" and "at" not in seen:
            seen["at"] = os.environ.get("OMP_WAIT_POLICY")
        return None
sys.meta_path.insert(0, Spy())
import ohmygoods_training.fast_ppo
print(seen.get("at", "torch not imported"))
"""
    assert _run(code) == "PASSIVE"


def test_the_spin_setting_names_a_variable_the_package_respects() -> None:
    """:data:`ohmygoods_env.SPIN_SETTING` is what the plan and the docs tell users to set: it must be one of
    the variables that keep the package's own default away."""
    name, _, value = ohmygoods_env.SPIN_SETTING.partition("=")
    assert name in SETTINGS and value.isdigit()
    assert _run(SHOW, **{name: value}) == f"{value} None"
