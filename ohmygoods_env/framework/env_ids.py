"""Env ids that register in PettingZoo's and Gymnasium's registries when those libraries are imported.

A package declares its games' ids here (:func:`declare_env_ids`) with ``"module:callable"``
entry points: declaring imports neither library nor the game. Where PettingZoo or Gymnasium is
imported already the ids register at once; else the library's first import registers them (a
finder on ``sys.meta_path`` wraps that one module's loader and registers right after the
library's own code has run). So ``import ohmygoods_env, pettingzoo`` then
``pettingzoo.make("aec", "ohmygoods/oh_my_goods-v2")`` works, and ``import ohmygoods_env``
alone loads neither library. Registering an id that is registered already is a no-op.

This module imports no game and no env library.
"""

from __future__ import annotations

import importlib.abc
import sys
import warnings
from dataclasses import dataclass
from typing import Any

__all__ = ["EnvIds", "declare_env_ids", "declared_env_ids"]

LIBRARIES = ("gymnasium", "pettingzoo")


@dataclass(frozen=True)
class EnvIds:
    """One game's env ids and their entry points (``"module:callable"``; None: not offered)."""

    pettingzoo_id: str | None = None
    aec: str | None = None
    parallel: str | None = None
    gym_id: str | None = None
    gym: str | None = None
    gym_vector: str | None = None


_DECLARED: list[EnvIds] = []


def declared_env_ids() -> tuple[EnvIds, ...]:
    """The ids declared so far, in order."""
    return tuple(_DECLARED)


def _register_pettingzoo(pz: Any, ids: EnvIds) -> None:
    if ids.pettingzoo_id is None or not hasattr(pz, "register"):  # PettingZoo < 1.27 has no registry
        return
    if ids.aec is not None and ids.pettingzoo_id not in pz.aec_registry:
        pz.register("aec", ids.pettingzoo_id, entry_point=ids.aec)
    if ids.parallel is not None and ids.pettingzoo_id not in pz.parallel_registry:
        pz.register("parallel", ids.pettingzoo_id, entry_point=ids.parallel)


def _register_gymnasium(gym: Any, ids: EnvIds) -> None:
    if ids.gym_id is None or ids.gym is None or ids.gym_id in gym.registry:
        return
    extra = {} if ids.gym_vector is None else {"vector_entry_point": ids.gym_vector}
    gym.register(id=ids.gym_id, entry_point=ids.gym, **extra)


_REGISTER = {"pettingzoo": _register_pettingzoo, "gymnasium": _register_gymnasium}


def _register_all(library: str) -> None:
    module = sys.modules.get(library)
    if module is None:
        return
    for ids in _DECLARED:
        try:
            _REGISTER[library](module, ids)
        except Exception as exc:  # an import of the library must never fail because of our ids
            warnings.warn(f"could not register {ids} in {library}: {exc!r}", RuntimeWarning, stacklevel=2)


class _RegisteringLoader(importlib.abc.Loader):
    """The library's own loader, and our registration right after its module has run."""

    def __init__(self, loader: Any, library: str) -> None:
        self._loader = loader
        self._library = library

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = self._loader  # the module keeps its own loader (resources, reloads)
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        _register_all(self._library)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds the env libraries with the rest of ``sys.meta_path`` and wraps their loader."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in _REGISTER:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _RegisteringLoader(spec.loader, fullname)
        return spec


_FINDER = _AfterImport()


def declare_env_ids(ids: EnvIds) -> EnvIds:
    """Register ``ids`` in each env library now if it is imported, else when it is first imported."""
    if not isinstance(ids, EnvIds):
        raise TypeError(f"ids must be an EnvIds, got {type(ids).__name__}")
    if ids not in _DECLARED:
        _DECLARED.append(ids)
    for library in LIBRARIES:
        _register_all(library)
    if any(lib not in sys.modules for lib in LIBRARIES) and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    return ids
