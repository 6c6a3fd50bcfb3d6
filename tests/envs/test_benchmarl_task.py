"""The BenchMARL task module without BenchMARL: its import says what to install.

The tasks themselves run in a venv of their own (``tests/test_packaging.py``, marked ``venv``):
BenchMARL pins a TorchRL older than the ``marl`` extra's.
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest


def test_without_benchmarl_the_import_names_the_extra() -> None:
    if importlib.util.find_spec("benchmarl") is not None:
        pytest.skip("BenchMARL is installed here: tests/test_packaging.py runs the tasks")
    with pytest.raises(ImportError, match=r"pip install 'ohmygoods\[benchmarl\]' in a venv of its own"):
        importlib.import_module("ohmygoods_env.envs.benchmarl_task")
