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

#: How long an idle OpenMP thread spins before it sleeps (libgomp's ``GOMP_SPINCOUNT``), set here, before
#: numba or torch loads the one OpenMP runtime they share, unless ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT``
#: is already set. Both libraries run many short parallel regions back to back (a batch step of 1,024
#: games, each layer of a small network), and a thread that sleeps at once must be woken for the next one:
#: with ``OMP_WAIT_POLICY=PASSIVE`` a training iteration on 2 cores took ~30 % longer and the network's
#: forward twice as long. A bounded spin (a few ms of CPU after the last region, against ~8 ms at libgomp's
#: own default) keeps that speed and gives the core back soon when the process turns to other work.
OPENMP_SPINCOUNT = "100000"
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["GOMP_SPINCOUNT"] = OPENMP_SPINCOUNT

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
