"""The anchor rows: Pgx ``connect_four``, OpenSpiel ``hearts`` and PettingZoo ``connect_four_v3``.

Their packages are the optional ``bench`` extra (``pip install -e ".[bench]"``); a missing one
gives a row marked skipped with the reason. Every row runs through :func:`.timer.timed`, like ours.
"""

from __future__ import annotations

import numpy as np

from .engine import aec_random_run
from .table import Row, measured, skipped
from .timer import timed

__all__ = ["bench_openspiel", "bench_pgx", "bench_pz_connect_four"]

_HINT = " (pip install -e '.[bench]')"


def bench_pgx(seconds: float, size: int = 1024) -> Row:
    """``jit(vmap(step))`` of Pgx ``connect_four`` on the CPU, random legal actions, finished games reset."""
    name = "Pgx connect_four (jax CPU)"
    try:
        import jax
        import jax.numpy as jnp
        import pgx
    except ImportError as exc:
        return skipped(name, size, exc, _HINT)
    env = pgx.make("connect_four")
    init = jax.jit(jax.vmap(env.init))
    step_fn = jax.jit(jax.vmap(env.step))

    @jax.jit
    def act(key, mask):
        logits = jnp.where(mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    @jax.jit
    def reset_done(key, state):
        fresh = init(jax.random.split(key, size))
        done = state.terminated | state.truncated
        return jax.tree_util.tree_map(
            lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh
        )

    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    holder = {"state": init(jax.random.split(sub, size)), "key": key}

    def step() -> tuple[int, int, int]:
        k, k1, k2 = jax.random.split(holder["key"], 3)
        s = holder["state"]
        s = step_fn(s, act(k1, s.legal_action_mask))
        finished = int((s.terminated | s.truncated).sum())
        holder["state"], holder["key"] = reset_done(k2, s), k
        return size, size, finished

    return measured(name, size, timed(step, seconds), "jit(vmap(step)), random legal actions, auto-reset")


def bench_openspiel(seconds: float) -> Row:
    """A Python loop over ``pyspiel`` ``hearts`` states; chance moves sampled, not counted."""
    name = "OpenSpiel hearts (Python loop)"
    try:
        import pyspiel
    except ImportError as exc:
        return skipped(name, 1, exc, _HINT)
    game = pyspiel.load_game("hearts")
    rng = np.random.default_rng(0)
    holder = {"state": game.new_initial_state()}

    def step() -> tuple[int, int, int]:
        s = holder["state"]
        agent = 0
        for _ in range(100):
            if s.is_terminal():
                holder["state"] = game.new_initial_state()
                return agent, agent, 1
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])
            agent += 1
        return agent, agent, 0

    return measured(name, 1, timed(step, seconds), "player decisions (chance moves not counted)")


def bench_pz_connect_four(seconds: float) -> Row:
    """PettingZoo classic ``connect_four_v3`` under the same AEC loop as our AEC env."""
    name = "PettingZoo connect_four_v3"
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:
        return skipped(name, 1, exc, _HINT)
    e = connect_four_v3.env()
    e.reset(seed=0)
    rng = np.random.default_rng(0)

    def step() -> tuple[int, int, int]:
        agent, ended = aec_random_run(e, rng)
        if ended:
            e.reset()
        return agent, agent, int(ended)

    return measured(name, 1, timed(step, seconds))
