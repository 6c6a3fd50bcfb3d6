"""ohmygoods — fast, exact RL environments for production-chain card games: *Oh my Goods!* and *Artificium*.

Importing this package loads only the framework's game registry: each game is *declared* (its
spec's module, its PettingZoo and Gymnasium ids with ``"module:callable"`` entry points) and
loaded on first use, so ``import ohmygoods_env.artificium`` loads no *Oh my Goods!* module and
no PettingZoo. The ids register in PettingZoo's and Gymnasium's registries as soon as those
libraries are imported (:mod:`ohmygoods_env.framework.env_ids`), so ``import ohmygoods_env,
pettingzoo`` then ``pettingzoo.make("aec", "ohmygoods/oh_my_goods-v2")`` works as before. The
public names below (``Game``, ``env``, ``make``, ...) and every submodule (``ohmygoods_env.layout``)
load when first used (PEP 562).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings
from typing import Any

#: How idle OpenMP threads wait. numba and torch share one OpenMP runtime (libgomp), which reads its
#: settings once, when it is loaded: this package sets ``OMP_WAIT_POLICY=PASSIVE`` before either loads it,
#: unless ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` is set already. A thread that spins after its work takes
#: a core that another process wants: on a 2-core machine with one other busy process, spinning made a
#: training iteration 1.5-2.2x as long. On a machine of your own, spinning briefly is faster (a sleeping
#: thread must be woken for each of the many short parallel regions: each layer of the network's forward,
#: a batch step): start the process with :data:`SPIN_SETTING` in its environment (an idle 2-core machine:
#: the forward on 2 threads twice as fast, 1.2x the training loop's decisions per second;
#: docs/performance.md, *OpenMP's idle threads*).
SPIN_SETTING = "GOMP_SPINCOUNT=10000"
#: the variables that say how idle OpenMP threads wait (libgomp's ``GOMP_SPINCOUNT`` overrides the policy)
OPENMP_WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
if not any(k in os.environ for k in OPENMP_WAIT_VARIABLES):
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"


def openmp_wait() -> str:
    """How idle OpenMP threads wait in this process, as its environment sets it: ``OMP_WAIT_POLICY=...``
    and / or ``GOMP_SPINCOUNT=...`` (what ``ohmygoods train`` and ``bench --train`` print beside the threads)."""
    parts = [f"{k}={os.environ[k]}" for k in OPENMP_WAIT_VARIABLES if k in os.environ]
    return " ".join(parts) or "libgomp's default"


from .framework.env_ids import EnvIds, declare_env_ids  # noqa: E402
from .framework.game import declare_game  # noqa: E402

__version__ = "0.1.0"

#: public name -> the module that defines it (loaded on first use)
_PUBLIC = {
    "CardSet": "ohmygoods_env.cards",
    "CardTableError": "ohmygoods_env.cards",
    "load_cards": "ohmygoods_env.cards",
    "Game": "ohmygoods_env.engine",
    "GameOverError": "ohmygoods_env.engine",
    "GameRecord": "ohmygoods_env.engine",
    "IllegalActionError": "ohmygoods_env.engine",
    "ENV_ID": "ohmygoods_env.envs",
    "env": "ohmygoods_env.envs",
    "make": "ohmygoods_env.envs",
    "parallel_env": "ohmygoods_env.envs",
    "raw_env": "ohmygoods_env.envs",
    "RuleSet": "ohmygoods_env.rules",
}
__all__ = sorted(_PUBLIC)

# The games this distribution ships: where each spec lives and its env ids. The versions in the
# ids are each layout's (``layout.LAYOUT_VERSION``); tests/test_imports.py checks they agree.
declare_game("ohmygoods", "ohmygoods_env.game_spec:OHMYGOODS")
declare_game("artificium", "ohmygoods_env.artificium.game_spec:ARTIFICIUM")
declare_game("goofspiel", "ohmygoods_env.goofspiel.game_spec:GOOFSPIEL")
declare_env_ids(
    EnvIds(
        pettingzoo_id="ohmygoods/oh_my_goods-v2",
        aec="ohmygoods_env.envs.pettingzoo_env:env",
        parallel="ohmygoods_env.envs.parallel:parallel_env",
        gym_id="ohmygoods/OhMyGoods-v2",
        gym="ohmygoods_env.envs.gym_env:OhMyGoodsEnv",
        gym_vector="ohmygoods_env.envs.vector:OhMyGoodsVectorEnv",
    )
)
declare_env_ids(
    EnvIds(
        pettingzoo_id="ohmygoods/artificium-v0",
        aec="ohmygoods_env.artificium.game_spec:env",
        parallel="ohmygoods_env.artificium.game_spec:parallel_env",
        gym_id="ohmygoods/Artificium-v0",
        gym="ohmygoods_env.artificium.game_spec:gym_env",
    )
)


def __getattr__(name: str) -> Any:
    """A public name or a submodule, imported on first use."""
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    if not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


def _moved(old: str, new: str) -> None:
    """Warn that the module ``old`` is an older name of ``new``, at the line that imported it."""
    message = f"{old} is an older name of {new}: import {new}"
    frame = sys._getframe(2)  # 0: here, 1: the alias module, 2 on: the import machinery, then the importer
    skip = (importlib.__file__, __file__)  # the import machinery and this package's __getattr__
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen") or frame.f_code.co_filename in skip):
        frame = frame.f_back
    if frame is None:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return
    where = frame.f_globals
    warnings.warn_explicit(
        message,
        DeprecationWarning,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=where.get("__name__", "?"),
        registry=where.setdefault("__warningregistry__", {}),
    )
