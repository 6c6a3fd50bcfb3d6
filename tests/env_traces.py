"""Whole-game traces of a PettingZoo env, for the determinism tests of every env (importable from any test
folder: ``tests/conftest.py`` puts ``tests/`` on ``sys.path``)."""

from __future__ import annotations

import numpy as np


def digest(x):
    """``x`` (observations, rewards, infos ...) as nested tuples that compare by value."""
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, dict):
        return tuple(sorted((str(k), digest(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return tuple(digest(v) for v in x)
    return x.item() if isinstance(x, np.generic) else x


def aec_trace(e, seed: int, games: int = 2) -> list:
    """Every step of ``games`` whole games with masked random actions: the first reset seeded, the next
    drawn by the env itself. Each entry: agent, observation and mask, reward, flags, info; a
    ``("game over", index)`` entry ends each game."""
    rng = np.random.default_rng(seed)
    trace = []
    for k in range(games):
        e.reset(seed=seed if k == 0 else None)
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            trace.append(digest((agent, obs, reward, term, trunc, info)))
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert e.agents == []  # the game was played to its end
        trace.append(("game over", len(trace)))
    return trace


def parallel_trace(e, seed: int, games: int = 2) -> list:
    """:func:`aec_trace` for a parallel env: every seat's masked random action at every step, whole games."""
    rng = np.random.default_rng(seed)
    trace = []
    for k in range(games):
        obs, infos = e.reset(seed=seed if k == 0 else None)
        trace.append(digest((obs, infos)))
        while e.agents:
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in e.agents}
            obs, rewards, terms, truncs, infos = e.step(actions)
            trace.append(digest((actions, obs, rewards, terms, truncs, infos)))
        trace.append(("game over", len(trace)))
    return trace
