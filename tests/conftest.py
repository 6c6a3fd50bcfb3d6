"""Fixtures shared across test folders: a tiny MaskablePPO zip and tampered copies of it."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest


@pytest.fixture(scope="session")
def sb3_zip(tmp_path_factory) -> Path:
    """An untrained MaskablePPO zip of the game's spaces (actor ``[OBS_DIM, 32, 16, N_ACTIONS]``, tanh)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import gymnasium as gym

    from ohmygoods_env import layout as L

    class Spaces(gym.Env):
        """Only the spaces of the game, to build an untrained policy of the right shape."""

        observation_space = gym.spaces.Box(0.0, 10.0, (L.OBS_DIM,), np.float32)
        action_space = gym.spaces.Discrete(L.N_ACTIONS)

        def reset(self, *, seed=None, options=None):
            return np.zeros(L.OBS_DIM, np.float32), {}

        def step(self, action):
            return np.zeros(L.OBS_DIM, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(L.N_ACTIONS, bool)

    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        Spaces(),
        n_steps=8,
        batch_size=8,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": [32, 16], "vf": [8]}},
    )
    path = tmp_path_factory.mktemp("sb3") / "tiny_policy.zip"
    model.save(path)
    return path


def tampered_copy(src: Path, dst: Path, marker: Path) -> Path:
    """A copy of the zip ``src`` whose ``data`` JSON has an extra ``":serialized:"`` entry: unpickling
    it creates the file ``marker``."""

    class Payload:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').close()",))

    blob = base64.b64encode(pickle.dumps(Payload())).decode()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "data":
                d = json.loads(data)
                d["extra_field"] = {":type:": "<class 'int'>", ":serialized:": blob}
                data = json.dumps(d).encode()
            zout.writestr(item, data)
    return dst


@pytest.fixture(scope="session")
def make_tampered_zip() -> Callable[[Path, Path, Path], Path]:
    """:func:`tampered_copy`, for tests in any folder."""
    return tampered_copy


@pytest.fixture
def ticking_clocks(monkeypatch) -> dict[str, float]:
    """The bench timer's wall and CPU clocks (:mod:`ohmygoods_env.bench.timer`) replaced by clocks
    that advance one second per reading; returns their readings so far."""
    from ohmygoods_env.bench import timer

    ticks = {"wall": 0.0, "cpu": 0.0}

    def tick(which: str) -> float:
        ticks[which] += 1.0
        return ticks[which]

    monkeypatch.setattr(timer, "wall_clock", lambda: tick("wall"))
    monkeypatch.setattr(timer, "cpu_clock", lambda: tick("cpu"))
    return ticks
