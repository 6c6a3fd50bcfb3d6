"""Our rows: random-play throughput of the batch engine, the single ``Game`` and the single-game envs.

Every row runs its loop through :func:`.timer.timed` and returns a :class:`.table.Row`. The
batched rows draw random actions with a numba kernel (``batch.random_actions``) from their own
xorshift64 words, never from the games' RNG; the single-game rows pick with numpy.
"""

from __future__ import annotations

import numpy as np

from .. import layout as L
from .table import Row, measured, skipped
from .timer import Tally, timed

__all__ = [
    "BATCH_NAMES",
    "aec_random_run",
    "bench_aec",
    "bench_batch",
    "bench_game",
    "bench_gym",
    "bench_vecenv",
    "decisions_per_game",
    "warm_up",
]

BATCH_NAMES = {
    "step": "ohmygoods BatchGames.step",
    "play_random": "ohmygoods BatchGames.play_random",
    "observe": "ohmygoods BatchGames.step + observe()",
    "observe_seats": "ohmygoods BatchGames.step + observe_seats()",
    "whole_games": "ohmygoods play_random, whole games",
}


def decisions_per_game(n: int = 1024) -> tuple[float, float]:
    """Mean (decisions, agent steps) of a 2-player game under random play, over ``n`` games."""
    from ..batch import BatchGames, make_rng

    b = BatchGames(n, seed=12345)
    rng = make_rng(n, 6789)
    agent = np.zeros(n, np.int64)
    while not b.done.all():
        agent += ~b.done
        b.play_random(rng)
    return float(b.decisions.mean()), float(agent.mean())


def bench_batch(size: int, seconds: float, mode: str = "step") -> Row:
    """``BatchGames`` at batch ``size``; ``mode`` is one of :data:`BATCH_NAMES` (see the package docstring)."""
    from ..batch import BatchGames, make_rng, random_actions

    if mode not in BATCH_NAMES:
        raise ValueError(f"bench_batch: unknown mode {mode!r}; expected one of {sorted(BATCH_NAMES)}")
    b = BatchGames(size, seed=1)
    rng = make_rng(size, 2)
    actions = np.empty(size, np.int64)
    masks = b.masks(copy=False)  # a read-only view of the live masks: valid across steps
    obs = np.empty((size * (b.num_players if mode == "observe_seats" else 1), L.OBS_DIM), np.float32)
    seat_masks = np.empty((obs.shape[0], L.N_ACTIONS), np.int8) if mode == "observe_seats" else None
    chunk = max(1, 1024 // size)  # steps per timed call, so small batches are not timed per call
    never = np.full(size, L.MAX_PLAYERS, np.int64)  # a seat that never moves: play to the end

    def step() -> tuple[int, int, int]:
        d0 = int(b.decisions.sum())
        finished = 0
        if mode == "whole_games":
            b.play_random(rng, until=never)
            b.reset()
            return 0, int(b.decisions.sum()) - d0, size
        for _ in range(chunk):
            if mode == "play_random":
                b.play_random(rng)
            else:
                b.step(random_actions(masks, rng, actions))
                if mode == "observe":
                    b.observe(out=obs)
                elif mode == "observe_seats":
                    b.observe_seats(out=obs, masks=seat_masks)
            if b.terminated.any() or b.truncated.any():
                finished += len(b.reset())  # forced moves at the start of new games count too
        return size * chunk, int(b.decisions.sum()) - d0, finished

    rates = timed(step, seconds)
    if mode == "whole_games":
        note = "each call plays every game to its end (hot caches)"
        return measured(BATCH_NAMES[mode], size, rates, note, agent_steps=False)
    if mode == "observe_seats":
        return measured(BATCH_NAMES[mode], size, rates, f"rows = games x {b.num_players} seats, obs + masks")
    return measured(BATCH_NAMES[mode], size, rates)


def bench_vecenv(size: int, seconds: float) -> Row:
    """The SB3 ``OhMyGoodsVecEnv``: masked random learner actions, random opponents inside the batch."""
    from ..batch import make_rng, random_actions

    name = "ohmygoods OhMyGoodsVecEnv (SB3)"
    try:
        from ..envs.sb3 import OhMyGoodsVecEnv
    except ImportError as exc:  # stable-baselines3 is the optional [train] extra
        return skipped(name, size, exc)
    env = OhMyGoodsVecEnv(size, seed=3)
    env.reset()
    rng = make_rng(size, 4)
    g = env.games

    def step() -> tuple[int, int, int]:
        d0 = int(g.decisions.sum())
        masks = env.action_masks().view(np.int8)
        _, _, dones, _ = env.step(random_actions(masks, rng))
        return size, int(g.decisions.sum()) - d0, int(dones.sum())

    return measured(name, size, timed(step, seconds), "learner + random opponents, obs")


def bench_game(seconds: float) -> Row:
    """A Python loop over one :class:`~ohmygoods_env.engine.Game`: ``legal_mask``, numpy pick, ``step``."""
    from ..engine import Game

    rng = np.random.default_rng(0)
    state = {"game": Game(2, seed=0), "seed": 0}

    def step() -> tuple[int, int, int]:
        g = state["game"]
        agent = 0
        d0 = int(g.state[L.F_STEPS])
        for _ in range(100):
            legal = np.flatnonzero(g.legal_mask())
            g.step(int(legal[rng.integers(legal.size)]))
            agent += 1
            if g.done:
                break
        d = int(g.state[L.F_STEPS]) - d0
        if g.done:
            state["seed"] += 1
            state["game"] = Game(2, seed=state["seed"])
            return agent, d, 1
        return agent, d, 0

    return measured("ohmygoods Game (Python loop)", 1, timed(step, seconds))


def bench_gym(seconds: float) -> Row:
    """The Gymnasium ``OhMyGoodsEnv``: ``action_masks`` / ``step``, the random opponent inside ``step``."""
    from ..envs.gym_env import OhMyGoodsEnv

    env = OhMyGoodsEnv(num_players=2)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    state = {"seed": 0}

    def step() -> tuple[int, int, int]:
        g = env.games
        d0 = int(g.decisions[0])
        agent = 0
        for _ in range(100):
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, _ = env.step(int(legal[rng.integers(legal.size)]))
            agent += 1
            if term or trunc:
                d = int(g.decisions[0]) - d0
                state["seed"] += 1
                env.reset(seed=state["seed"])
                return agent, d, 1
        return agent, int(g.decisions[0]) - d0, 0

    note = "learner steps; the random opponent moves inside step"
    return measured("ohmygoods Gymnasium OhMyGoodsEnv", 1, timed(step, seconds), note)


def aec_random_run(e: object, rng: np.random.Generator, limit: int = 100) -> tuple[int, bool]:
    """Up to ``limit`` random legal agent steps of a PettingZoo AEC env: ``last`` / ``step``,
    terminated agents stepping ``None``. The same loop times our AEC env and the anchor.
    Returns (agent steps, whether the game ended: every agent stepped out).

    The uniform draws come in one call per run (``rng.random(limit)``; draw ``u`` picks legal
    action ``floor(u * count)``), and the legal ids are the mask's ``nonzero()`` (both envs' masks
    are 1-D arrays): a call of ``Generator.integers`` per step cost about 1.0 us and
    ``np.flatnonzero`` (ravel and dispatch around the same ``nonzero``) about 0.4 us more, both the
    same for either env, so they pulled the two rows' ratio towards 1 without measuring either."""
    agent = 0
    draws = rng.random(limit)
    for i in range(limit):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            if not e.agents:
                return agent, True
            continue
        legal = obs["action_mask"].nonzero()[0]
        e.step(int(legal[int(draws[i] * legal.size)]))
        agent += 1
    return agent, False


def bench_aec(seconds: float) -> Row:
    """Our PettingZoo AEC env under :func:`aec_random_run`."""
    name = "ohmygoods PettingZoo AEC env"
    try:
        from ..envs.pettingzoo_env import env as make_aec
    except ImportError as exc:
        return skipped(name, 1, exc)
    e = make_aec(num_players=2)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    state = {"seed": 0}

    def step() -> tuple[int, int, int]:
        game = e.unwrapped.game
        d0 = int(game.state[L.F_STEPS])
        agent, ended = aec_random_run(e, rng)
        d = int(game.state[L.F_STEPS]) - d0
        if ended:
            state["seed"] += 1
            e.reset(seed=state["seed"])
        return agent, d, int(ended)

    return measured(name, 1, timed(step, seconds))


def warm_up() -> float:
    """Load (or compile) every kernel the rows use, so no row times compilation; returns seconds."""
    with Tally().section() as tally:
        _warm_up_kernels()
    return tally.wall


def _warm_up_kernels() -> None:
    from ..batch import PARALLEL_MIN, BatchGames, make_rng, random_actions
    from ..engine import Game

    for n in (1, PARALLEL_MIN):
        b = BatchGames(n, seed=0)
        rng = make_rng(n)
        b.step(random_actions(b.masks(copy=False), rng, np.empty(n, np.int64)))
        b.play_random(rng)
        b.observe()
        b.reset(np.ones(n, np.bool_))
        b.reset()
    g = Game(2, seed=0)
    g.step(int(np.flatnonzero(g.legal_mask())[0]))
    try:
        from ..envs.sb3 import OhMyGoodsVecEnv

        env = OhMyGoodsVecEnv(PARALLEL_MIN, seed=0)
        env.reset()
        env.step(random_actions(env.action_masks().view(np.int8), make_rng(PARALLEL_MIN)))
    except ImportError:
        pass
