"""``ohmygoods bench``: random-play throughput of the engine and the envs next to the anchors.

Everything is measured in one run on this machine and printed as one table:

==========================================  ==================================================
row                                         what one timed iteration does
==========================================  ==================================================
``BatchGames.step``, B = 1 ... 16384        a numba kernel draws one random legal action per
                                            game from the masks (own xorshift64 words, not the
                                            games' RNG), ``step`` applies them (checked, forced
                                            moves auto-applied), finished games are reset
``BatchGames.play_random``                  the same, with the random choice made inside the
                                            step kernel (no checks, no Python per action)
``play_random, whole games``                each call plays every game of the batch to its end
                                            inside the kernel: a game's state stays in cache
                                            for its whole course (the engine's ceiling)
``BatchGames.step + observe()``             the ``step`` row plus every game's observation
``OhMyGoodsVecEnv`` (SB3)                   learner step with masked random actions, random
                                            opponents inside the batch, observations, resets
``Game`` loop                               Python loop over one game: ``legal_mask``, numpy
                                            random choice, ``step``
Gymnasium ``OhMyGoodsEnv``                  ``action_masks`` / ``step`` loop of the single-agent
                                            env; the random opponent moves inside ``step``
PettingZoo AEC (``envs.pettingzoo_env``)    ``agent_iter`` / ``last`` / ``step`` loop
Pgx ``connect_four`` B=1024 (CPU)           ``jit(vmap(step))`` with random legal actions
OpenSpiel ``hearts``                        Python loop over ``pyspiel`` states
PettingZoo classic ``connect_four_v3``      ``agent_iter`` loop
==========================================  ==================================================

Counting: a *decision* is one applied action, forced moves (auto-applied, exactly one legal
action) included; an *agent step* is one action chosen by a caller. The anchors have no
forced moves, so both columns are equal there. Games/s counts finished games; for our rows,
whose timed window may be shorter than a game, it is decisions/s divided by the mean number
of decisions of a random 2-player game (measured first, over 1024 games played out).

``dec/CPU-s`` divides decisions by the CPU time this process used (all its threads): when
other work shares the machine, wall-clock rates fall and this column shows by how much.

Anchors that are not installed (``pip install -e ".[bench]"``: Pgx with jax, OpenSpiel, and
pygame-ce for PettingZoo's ``connect_four_v3``) are listed as skipped with the reason. The compile row starts Python
twice in a subprocess with an empty numba cache directory (cold: everything compiles)
and again with the filled one (warm), timing import, set-up and a first step.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import layout as L
from .common import parser, positive_float

SIZES = (1, 16, 256, 1024, 4096, 16384)


@dataclass
class Row:
    name: str
    batch: str
    agent_steps: float | None = None
    decisions: float | None = None
    games: float | None = None
    note: str = ""
    cpu: float | None = None  # decisions per CPU-second of this process


def _timed(step: Callable[[], tuple[int, int, int]], seconds: float) -> tuple[float, float, float, float]:
    """Run ``step`` (returns agent steps, decisions, finished games) for ``seconds``.

    Returns rates per wall-clock second, and decisions per CPU-second of this process (all
    threads): on a busy machine the wall-clock rate drops while the CPU-time rate does not.
    """
    step()  # warm-up (caches, first-call dispatch)
    agent = dec = games = 0
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    while True:
        a, d, g = step()
        agent, dec, games, n = agent + a, dec + d, games + g, n + 1
        dt = time.perf_counter() - t0
        if dt >= seconds and n >= 3:
            cpu = max(time.process_time() - c0, 1e-9)
            return agent / dt, dec / dt, games / dt, dec / cpu


# ===================================================================== our rows


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
    from ..batch import BatchGames, make_rng, random_actions

    b = BatchGames(size, seed=1)
    rng = make_rng(size, 2)
    actions = np.empty(size, np.int64)
    masks = b.masks(copy=False)  # a read-only view of the live masks: valid across steps
    obs = np.empty((size, L.OBS_DIM), np.float32)
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
            if b.terminated.any() or b.truncated.any():
                finished += len(b.reset())  # forced moves at the start of new games count too
        return size * chunk, int(b.decisions.sum()) - d0, finished

    a, d, g, cpu = _timed(step, seconds)
    name = {
        "step": "ohmygoods BatchGames.step",
        "play_random": "ohmygoods BatchGames.play_random",
        "observe": "ohmygoods BatchGames.step + observe()",
        "whole_games": "ohmygoods play_random, whole games",
    }[mode]
    if mode == "whole_games":
        return Row(name, str(size), None, d, g, "each call plays every game to its end (hot caches)", cpu)
    return Row(name, str(size), a, d, g, cpu=cpu)


def bench_vecenv(size: int, seconds: float) -> Row:
    from ..batch import make_rng, random_actions

    try:
        from ..envs.sb3 import OhMyGoodsVecEnv
    except ImportError as exc:  # stable-baselines3 is the optional [train] extra
        return Row("ohmygoods OhMyGoodsVecEnv (SB3)", str(size), note=f"skipped: {exc}")
    env = OhMyGoodsVecEnv(size, seed=3)
    env.reset()
    rng = make_rng(size, 4)
    g = env.games

    def step() -> tuple[int, int, int]:
        d0 = int(g.decisions.sum())
        masks = env.action_masks().view(np.int8)
        _, _, dones, _ = env.step(random_actions(masks, rng))
        return size, int(g.decisions.sum()) - d0, int(dones.sum())

    a, d, n, cpu = _timed(step, seconds)
    return Row("ohmygoods OhMyGoodsVecEnv (SB3)", str(size), a, d, n, "learner + random opponents, obs", cpu)


def bench_multiagent(size: int, seconds: float) -> list[Row]:
    """The all-seats front ends (:mod:`ohmygoods_env.envs.bench_marl`): ``SeatVecEnv`` (one row per
    game x seat, the SuperSuit convention) and ``BatchEnv`` (Pgx style), ``size`` games each."""
    from ..envs import bench_marl

    out = []
    for fn, name, note in (
        (bench_marl.bench_seat_vec_env, "ohmygoods SeatVecEnv (all seats)", "rows = games x 2 seats, obs + masks"),
        (bench_marl.bench_batch_env, "ohmygoods BatchEnv (Pgx style)", "acting seat's obs, masks, autoreset"),
    ):
        r = fn(size, 2, seconds)  # one agent step per game per call; games/s filled in by main
        out.append(Row(name, str(size), r["calls_per_s"] * size, r["decisions_per_s"], None, note))
    return out


def bench_game(seconds: float) -> Row:
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

    a, d, n, cpu = _timed(step, seconds)
    return Row("ohmygoods Game (Python loop)", "1", a, d, n, cpu=cpu)


def bench_gym(seconds: float) -> Row:
    from ..envs.gym_env import OhMyGoodsEnv

    name = "ohmygoods Gymnasium OhMyGoodsEnv"
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

    a, d, n, cpu = _timed(step, seconds)
    return Row(name, "1", a, d, n, "learner steps; the random opponent moves inside step", cpu)


def _aec_random_run(e: object, rng: np.random.Generator, limit: int = 100) -> tuple[int, bool]:
    """Up to ``limit`` random legal agent steps of a PettingZoo AEC env: ``last`` / ``step``,
    terminated agents stepping ``None``. The same loop times our AEC env and the anchor.
    Returns (agent steps, whether the game ended: every agent stepped out)."""
    agent = 0
    for _ in range(limit):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            if not e.agents:
                return agent, True
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(legal.size)]))
        agent += 1
    return agent, False


def bench_aec(seconds: float) -> Row:
    name = "ohmygoods PettingZoo AEC env"
    try:
        from ..envs.pettingzoo_env import env as make_aec
    except ImportError as exc:
        return Row(name, "1", note=f"skipped: {exc}")
    e = make_aec(num_players=2)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    state = {"seed": 0}

    def step() -> tuple[int, int, int]:
        game = e.unwrapped.game
        d0 = int(game.state[L.F_STEPS])
        agent, ended = _aec_random_run(e, rng)
        d = int(game.state[L.F_STEPS]) - d0
        if ended:
            state["seed"] += 1
            e.reset(seed=state["seed"])
        return agent, d, int(ended)

    a, d, n, cpu = _timed(step, seconds)
    return Row(name, "1", a, d, n, cpu=cpu)


# ===================================================================== anchors


def bench_pgx(seconds: float, size: int = 1024) -> Row:
    name = "Pgx connect_four (jax CPU)"
    try:
        import jax
        import jax.numpy as jnp
        import pgx
    except ImportError as exc:
        return Row(name, str(size), note=f"skipped: {exc} (pip install -e '.[bench]')")
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

    a, d, n, cpu = _timed(step, seconds)
    return Row(name, str(size), a, d, n, "jit(vmap(step)), random legal actions, auto-reset", cpu)


def bench_openspiel(seconds: float) -> Row:
    name = "OpenSpiel hearts (Python loop)"
    try:
        import pyspiel
    except ImportError as exc:
        return Row(name, "1", note=f"skipped: {exc} (pip install -e '.[bench]')")
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

    a, d, n, cpu = _timed(step, seconds)
    return Row(name, "1", a, d, n, "player decisions (chance moves not counted)", cpu)


def bench_pz_connect_four(seconds: float) -> Row:
    name = "PettingZoo connect_four_v3"
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:
        return Row(name, "1", note=f"skipped: {exc} (pip install -e '.[bench]')")
    e = connect_four_v3.env()
    e.reset(seed=0)
    rng = np.random.default_rng(0)

    def step() -> tuple[int, int, int]:
        agent, ended = _aec_random_run(e, rng)
        if ended:
            e.reset()
        return agent, agent, int(ended)

    a, d, n, cpu = _timed(step, seconds)
    return Row(name, "1", a, d, n, cpu=cpu)


# ===================================================================== compile time and machine


def warm_up() -> float:
    """Load (or compile) every kernel the rows use, so no row times compilation; returns seconds."""
    from ..batch import PARALLEL_MIN, BatchGames, make_rng, random_actions
    from ..engine import Game

    t = time.perf_counter()
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
    return time.perf_counter() - t


_COMPILE_SNIPPET = """
import time
t0 = time.perf_counter()
import numpy as np
from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.engine import Game
t1 = time.perf_counter()
for n in (2, 128):  # serial and multi-threaded kernels
    b = BatchGames(n, seed=0)
    b.step(random_actions(b.masks(), make_rng(n)))
    b.observe()
g = Game(2, seed=0)
g.step(int(np.flatnonzero(g.legal_mask())[0]))
g.observe(0)
print(f"{t1 - t0:.3f} {time.perf_counter() - t0:.3f}")
"""


def compile_times(cold: bool) -> tuple[float | None, float | None, str]:
    """(cold seconds, warm seconds, note): import + first steps in fresh interpreters."""
    with tempfile.TemporaryDirectory(prefix="omg-numba-") as cache:
        envvars = dict(os.environ, NUMBA_CACHE_DIR=cache)

        def run() -> float:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=envvars, check=True, capture_output=True)
            return time.perf_counter() - t

        try:
            c = run() if cold else None
            w = run() if cold else None
        except (subprocess.CalledProcessError, OSError) as exc:
            return None, None, f"failed: {exc}"
    if not cold:
        return None, None, "cold/warm compile skipped (--quick or --no-compile)"
    return c, w, "fresh interpreter: import + first batch step, observe and Game step"


def machine_info() -> str:
    import numba

    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = f", load average {os.getloadavg()[0]:.2f}"
    except OSError:
        load = ""
    return (
        f"{cpu}, {os.cpu_count()} logical cores, numba {numba.__version__} with {numba.get_num_threads()} threads, "
        f"numpy {np.__version__}, Python {platform.python_version()} on {platform.system()}{load}"
    )


# ===================================================================== report


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:,.1f}"


def format_table(rows: list[Row]) -> str:
    head = (
        f"{'engine / env':<38} {'batch':>6} {'agent steps/s':>14} {'decisions/s':>13} {'games/s':>9} "
        f"{'dec/CPU-s':>11}  note"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r.name:<38} {r.batch:>6} {_fmt(r.agent_steps):>14} {_fmt(r.decisions):>13} {_fmt(r.games):>9} "
            f"{_fmt(r.cpu):>11}  {r.note}"
        )
    return "\n".join(lines)


def target_lines(rows: list[Row], mem_per_game: int) -> list[str]:
    """One line per target of the issue, each judged on the rows of this run only."""

    def find(name: str, batch: str | None = None) -> Row | None:
        for r in rows:
            if r.name == name and (batch is None or r.batch == batch) and r.decisions:
                return r
        return None

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    out = []
    batch_rows = [r for r in rows if r.name == "ohmygoods BatchGames.step" and r.decisions]
    if batch_rows:
        best = max(batch_rows, key=lambda r: r.decisions or 0)
        out.append(
            f"batched engine >= 1,000,000 decisions/s: best {_fmt(best.decisions)} at B={best.batch} "
            f"({_fmt(best.agent_steps)} agent steps/s) -> {verdict((best.decisions or 0) >= 1e6)}"
        )
    pgx = find("Pgx connect_four (jax CPU)")
    ours = find("ohmygoods BatchGames.step", pgx.batch) if pgx else None
    if pgx and ours:
        ratio = (ours.decisions or 0) / (pgx.decisions or 1)
        out.append(
            f"faster than Pgx connect_four at B={pgx.batch}: {_fmt(ours.decisions)} vs {_fmt(pgx.decisions)} "
            f"decisions/s = {ratio:.2f}x ({(ours.agent_steps or 0) / (pgx.agent_steps or 1):.2f}x in agent steps) "
            f"-> {verdict(ratio > 1)}"
        )
    else:
        out.append("faster than Pgx connect_four: not measured (Pgx row skipped, or no batch of the same size)")
    aec = find("ohmygoods PettingZoo AEC env")
    if aec:
        pz = find("PettingZoo connect_four_v3")
        vs = f"; PettingZoo connect_four_v3 {_fmt(pz.agent_steps)}" if pz else ""
        out.append(
            f"AEC env >= 50,000 steps/s: {_fmt(aec.agent_steps)} agent steps/s ({_fmt(aec.decisions)} decisions/s)"
            f"{vs} -> {verdict((aec.agent_steps or 0) >= 5e4)}"
        )
    seat = find("ohmygoods SeatVecEnv (all seats)")
    obs = find("ohmygoods BatchGames.step + observe()", seat.batch) if seat else None
    if seat and obs:
        share = (seat.decisions or 0) / (obs.decisions or 1)
        out.append(
            f"all-seats SeatVecEnv >= 50 % of step + observe() at B={seat.batch}: {_fmt(seat.decisions)} vs "
            f"{_fmt(obs.decisions)} decisions/s = {100 * share:.0f} % -> {verdict(share >= 0.5)}"
        )
    out.append(
        f"state of one game <= 4 KiB: {L.STATE_LEN * 4:,} B ({mem_per_game:,} B with mask and bookkeeping) -> "
        f"{verdict(L.STATE_LEN * 4 <= 4096)}"
    )
    return out


def train_bench(argv: list[str]) -> int:
    """``ohmygoods bench --train``: the training benchmark, ``ohmygoods_training.bench_train.main(argv)``."""
    try:
        from ohmygoods_training import bench_train
    except ImportError as exc:  # torch / sb3 missing: the optional 'train' extra
        print(f"ohmygoods bench --train needs the 'train' extra: pip install -e '.[train]' ({exc})", file=sys.stderr)
        return 2
    return int(bench_train.main(argv) or 0)


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected batch sizes as positive integers, e.g. 1,256,4096; got {text!r}")
    return sizes


def _parser():
    ap = parser("ohmygoods bench", __doc__.split("\n")[0])
    ap.add_argument("--train", action="store_true", help="the training benchmark instead (options after --train)")
    ap.add_argument("--quick", action="store_true", help="short timings, no cold-compile measurement")
    ap.add_argument(
        "--seconds", type=positive_float, default=None, help="seconds per row (default: 2, with --quick 0.3)"
    )
    ap.add_argument("--sizes", type=_sizes, default=SIZES, help="comma-separated batch sizes of the BatchGames rows")
    ap.add_argument("--no-compile", action="store_true", help="skip the cold/warm compile measurement")
    ap.add_argument("--no-anchors", action="store_true", help="skip Pgx, OpenSpiel and PettingZoo classic")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods bench``; ``--train ...`` hands the rest to the training benchmark."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--train"]:
        return train_bench(argv[1:])
    ap = _parser()
    args = ap.parse_args(argv)
    if args.train:
        return train_bench([a for a in argv if a != "--train"])
    seconds = args.seconds if args.seconds is not None else (0.3 if args.quick else 2.0)
    sizes = args.sizes

    print("ohmygoods bench: random play, steps per second (higher is better)")
    print(f"machine: {machine_info()}")
    print("note: other processes on this machine disturb the figures; repeat runs to compare\n")

    cold, warm, note = compile_times(cold=not (args.quick or args.no_compile))
    print(f"warm-up in this process (load cached kernels): {warm_up():.1f} s")
    per_game, agent_per_game = decisions_per_game()
    print(
        f"a random 2-player game: {per_game:.0f} decisions ({agent_per_game:.0f} agent steps, the rest forced moves)\n"
    )

    rows: list[Row] = []
    for size in sizes:
        rows.append(bench_batch(size, seconds))
    big = max(sizes)
    mid = min(max(sizes), 1024)
    rows.append(bench_batch(big, seconds, mode="play_random"))
    rows.append(bench_batch(min(max(sizes), 256), seconds, mode="whole_games"))
    rows.append(bench_batch(mid, seconds, mode="observe"))
    rows.extend(bench_multiagent(mid, seconds))
    rows.append(bench_vecenv(min(max(sizes), 256), seconds))
    rows.append(bench_game(seconds))
    rows.append(bench_gym(seconds))
    rows.append(bench_aec(seconds))
    if not args.no_anchors:
        rows.append(bench_pgx(seconds))
        rows.append(bench_openspiel(seconds))
        rows.append(bench_pz_connect_four(seconds))
    for r in rows:
        if r.name.startswith("ohmygoods") and r.decisions:
            r.games = r.decisions / per_game
    print(format_table(rows))

    from ..batch import BatchGames

    mem = BatchGames(1).memory_per_game
    print(
        f"\nmemory per game: {mem:,} bytes in BatchGames (state {L.STATE_LEN * 4:,} + mask {L.N_ACTIONS:,} "
        f"+ bookkeeping); an observation adds {L.OBS_DIM * 4:,} bytes"
    )
    if cold is not None:
        print(f"first-use compile time: cold cache {cold:.1f} s, warm cache {warm:.1f} s ({note})")
    else:
        print(f"first-use compile time: {note}")
    print("\ntargets (figures of this run):")
    for line in target_lines(rows, mem):
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
