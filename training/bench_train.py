"""Training benchmark (``ohmygoods bench --train`` / ``python -m ohmygoods_training.bench_train``): where the time goes.

One run measures, for the shipped configuration and for the new default, on the same machine:

===================  ===========================================================================
row                  what is timed
===================  ===========================================================================
env only             the environment with random learner actions, no learner network: the
                     shipped ``LeagueVecEnv`` (its league opponents included, heuristic 50%), or
                     the new loop's ``BatchGames`` with every seat moving (step, observation
                     and mask of every decision into preallocated buffers), after as many
                     warm-up batch steps as one rollout has (``n_steps``), as the rollout
                     is timed after a warm-up iteration
rollout              collecting one rollout with the policy (``collect_rollouts`` / ``collect``)
update               the PPO update over that rollout (all epochs): rollout samples per second
end to end           whole iterations (rollout + update), learner decisions per second
===================  ===========================================================================

Shipped: ``MaskablePPO`` over ``LeagueVecEnv`` with train_ppo.py's settings of
``agents/checkpoints/ppo_2p.zip`` (64 envs, ``n_steps`` 128, batch 1024, 5 epochs, policy
256-256, value 128-128, league ``heuristic:0.5,snapshot:0.3,greedy:0.1,random:0.1``). New:
:class:`ohmygoods_training.fast_ppo.FastPPO` with :class:`~ohmygoods_training.fast_ppo.PPOConfig`'s defaults.
Both run with torch and numba on ``--threads`` threads (default 1; ``auto``: every usable core), as the
training loops set them, and the new loop's network on ``--device`` (``auto``: CUDA when torch sees it).
Every rate comes from the one timer of :mod:`ohmygoods_env.bench.timer` (``timed`` for the env-only
loops, ``Tally`` sections for the rollout and the update of each iteration), per wall-clock second and
per CPU-second of the process. The table's last rows say where each column ran: device, torch's threads,
precision, and how idle OpenMP threads waited (:func:`ohmygoods_env.openmp_wait`: spinning helps an idle
machine, sleeping a busy one; docs/performance.md, *OpenMP's idle threads*). ``--openmp-wait passive,spin``
runs the whole benchmark once per way of waiting, each in a fresh process (the runtime reads it when it
loads), and prints their columns side by side.

Where the time goes: the new loop's :class:`~ohmygoods_training.fast_ppo.Split` times each part of an
iteration (:data:`~ohmygoods_training.fast_ppo.PARTS`: ``env``, ``copy``, ``forward``, ``prior``,
``opponents``, ``update``; ``other`` is the rest), printed in milliseconds per iteration, wall and CPU.
``--game artificium`` runs the same rows for that game on the same loop (its training kit's defaults,
:mod:`ohmygoods_training.kits`; no MaskablePPO column). ``--overlap`` adds a column for the overlapped loop
(``ohmygoods train --overlap``: the next rollout collected in a second thread while the update runs,
:func:`_overlapped`) and a line comparing its iteration with the sequential one's.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ohmygoods_env import OPENMP_WAIT_VARIABLES, SPIN_SETTING, openmp_wait
from ohmygoods_env.bench.timer import Tally, timed

from .allocator import freed_memory, keep_freed_memory

SHIPPED_LEAGUE = "heuristic:0.5,snapshot:0.3,greedy:0.1,random:0.1"
#: the games ``--game`` measures (each on the one loop, fast_ppo)


def train_games() -> list[str]:
    """The games the one loop trains: those whose tools name a ``train`` command (``ohmygoods train --game``)."""
    from ohmygoods_env.framework.game import games_with

    return games_with("train")


def _env_only(step: Callable[[], int], env_steps: int, warmup_calls: int) -> tuple[float, float]:
    """Env steps per wall-clock second and per CPU-second over exactly ``env_steps`` calls of ``step`` (which
    returns the steps it made)."""

    def counted() -> tuple[int, int, int]:
        n = step()
        return n, n, 0

    r = timed(counted, 0.0, warmup_calls=warmup_calls, min_calls=env_steps)
    return r.agent_steps, r.cpu


def _iterations(
    iters: int, collect: Callable[[], Any], update: Callable[[Any], int], split: Any = None
) -> dict[str, Any]:
    """``iters`` rollouts, each followed by its update, timed section by section on the one timer.

    ``update(batch)`` returns the samples of that rollout; the rates are per sample (learner decision).
    With ``split`` (the loop's :class:`~ohmygoods_training.fast_ppo.Split`, cleared here), the result's
    ``split`` holds the wall-clock seconds per iteration of each part, ``other`` (the iteration's time the
    parts do not hold) and ``total``; ``split_cpu`` the same in CPU seconds of this process.
    """
    if split is not None:
        split.clear()
    roll, upd, whole = Tally(), Tally(), Tally()
    for _ in range(iters):
        with whole.section():
            with roll.section():
                batch = collect()
            with upd.section():
                n = update(batch)
        for tally in (roll, upd, whole):
            tally.add(agent_steps=n, decisions=n)
    out: dict[str, Any] = {
        "rollout": roll.rates().agent_steps,
        "update": upd.rates().agent_steps,
        "end_to_end": whole.rates().agent_steps,
        "samples": whole.agent_steps,
        # per CPU-second of this process: what a busy machine disturbs least
        "cpu_rates": {"rollout": roll.rates().cpu, "update": upd.rates().cpu, "end_to_end": whole.rates().cpu},
    }
    if split is not None:
        parts = {k: v / iters for k, v in split.seconds.items()}
        total = whole.wall / iters
        out["split"] = {**parts, "other": total - sum(parts.values()), "total": total}
        parts = {k: v / iters for k, v in split.cpu_seconds.items()}
        total = whole.cpu / iters
        out["split_cpu"] = {**parts, "other": total - sum(parts.values()), "total": total}
    return out


def _overlapped(iters: int, ppo: Any) -> dict[str, Any]:
    """``iters`` iterations of the overlapped loop (:class:`~ohmygoods_training.fast_ppo.FastPPO` with
    ``overlap``; its first iteration, which collects alone, already ran): the same keys as :func:`_iterations`.
    ``rollout`` and ``update`` are per second of the collector's and of the update's own wall time (they run at
    the same time), ``end_to_end`` per second of whole iterations; the split's parts overlap, so its ``other``
    (the iteration's time minus the parts) is negative by the time they shared."""
    split = ppo.rollout.split
    split.clear()
    whole = Tally()
    roll_s = upd_s = 0.0
    for _ in range(iters):
        with whole.section():
            info = ppo.iterate()
        n = int(info["samples"])
        whole.add(agent_steps=n, decisions=n)
        roll_s += info["rollout_s"]
        upd_s += info["update_s"]
    n = whole.agent_steps
    out: dict[str, Any] = {
        "rollout": n / roll_s,
        "update": n / upd_s,
        "end_to_end": whole.rates().agent_steps,
        "samples": n,
        "cpu_rates": {"rollout": float("nan"), "update": float("nan"), "end_to_end": whole.rates().cpu},
        "overlap": True,
    }
    parts = {k: v / iters for k, v in split.seconds.items()}
    total = whole.wall / iters
    out["split"] = {**parts, "other": total - sum(parts.values()), "total": total}
    parts = {k: v / iters for k, v in split.cpu_seconds.items()}
    out["split_cpu"] = {**parts, "other": whole.cpu / iters - sum(parts.values()), "total": whole.cpu / iters}
    return out


def _loop_rates(ppo: Any, iters: int) -> dict[str, Any]:
    """The timed iterations of the one loop after its warm-up: sequential (:func:`_iterations`, rollout then
    update) or, for a loop built with ``overlap``, :func:`_overlapped`."""
    if ppo.overlap:
        rates = _overlapped(iters, ppo)
        ppo.close()
        return rates
    split = ppo.rollout.split

    def update(batch: dict) -> int:
        with split("update"):
            ppo.update(batch)
        return int(batch["obs"].shape[0])

    return _iterations(iters, lambda: ppo.rollout.collect(ppo.cfg.n_steps), update, split)


def bench_shipped(players: int, iters: int, env_steps: int, seed: int = 0) -> dict[str, float]:
    """Steps/s of the shipped MaskablePPO configuration (see the module docstring)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from .league import LeagueVecEnv, OpponentPool

    pool = OpponentPool(SHIPPED_LEAGUE, max_snapshots=5, seed=seed)
    env = LeagueVecEnv(64, pool, players, "omg2", "margin", 0.1, "random", seed=seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=3e-4,
        n_steps=128,
        batch_size=1024,
        n_epochs=5,
        gamma=0.995,
        gae_lambda=0.95,
        ent_coef=0.01,
        policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [128, 128]}},
        seed=seed,
        device="cpu",
        verbose=0,
    )
    pool.add_snapshot(model.policy)
    # env only: random legal learner actions
    rng = np.random.default_rng(seed)
    env.reset()

    def env_step() -> int:
        m = env.action_masks()
        env.step(np.array([rng.choice(np.flatnonzero(row)) for row in m]))
        return env.num_envs

    env_only, env_cpu = _env_only(env_step, env_steps, warmup_calls=0)

    class _Nop(BaseCallback):
        def _on_step(self) -> bool:
            return True

    _, cb = model._setup_learn(iters * 128 * 64, _Nop())
    cb.on_training_start(locals(), globals())

    def collect() -> None:
        model.collect_rollouts(model.env, cb, model.rollout_buffer, model.n_steps)

    def update(_: None) -> int:
        model.train()
        return model.n_steps * env.num_envs

    rates: dict[str, Any] = _iterations(iters, collect, update)
    params = sum(p.numel() for p in model.policy.parameters())
    rates["cpu_rates"]["env_only"] = env_cpu
    return {"env_only": env_only, **rates, "params": params, **_where("cpu")}


def _where(device: Any, dtype: Any = torch.float32) -> dict[str, Any]:
    """The device, torch's threads, how idle OpenMP threads wait and how freed memory is kept, of a measurement
    (the rows' last lines)."""
    return {"device": str(device), "threads": torch.get_num_threads(), "precision": str(dtype).removeprefix("torch."),
            "openmp_wait": openmp_wait(), "freed_memory": freed_memory()}  # fmt: skip


def bench_fast(
    players: int,
    iters: int,
    env_steps: int,
    seed: int = 0,
    device: str = "cpu",
    overlap: bool = False,
    precision: str = "float32",
    pipeline: bool = False,
    league_workers: int = 0,
    **overrides: Any,
) -> dict[str, Any]:
    """Steps/s of :class:`ohmygoods_training.fast_ppo.FastPPO` (defaults unless ``overrides``) on ``device``,
    and where an iteration's time goes (``split``); ``overlap``: of the overlapped loop (:func:`_overlapped`)."""
    from ohmygoods_env import layout as L
    from ohmygoods_env.batch import BatchGames, make_rng, random_actions

    from .fast_ppo import PPOConfig

    cfg = PPOConfig(players=players, seed=seed, **overrides)
    # env only: every seat random, every decision observed into a preallocated buffer
    g = BatchGames(cfg.num_envs, players, cfg.rules, seed, reward_mode=cfg.reward)
    rng = make_rng(cfg.num_envs, seed)
    obs = np.empty((cfg.num_envs, L.OBS_DIM), np.float32)
    masks = np.empty((cfg.num_envs, L.N_ACTIONS), np.bool_)
    rows_all = np.arange(cfg.num_envs, dtype=np.int64)

    def env_step() -> int:
        live = rows_all[~g.done]
        g.observe(rows=live, out=obs[: live.size])
        np.not_equal(g.masks(copy=False)[live], 0, out=masks[: live.size])
        g.step(random_actions(g.masks(copy=False), rng)[live], rows=live)
        g.reset()
        return live.size

    return _loop_bench(cfg, env_step, env_steps, iters, device, overlap, precision, pipeline, league_workers)


def _loop_bench(
    cfg: Any,
    env_step: Callable[[], int],
    env_steps: int,
    iters: int,
    device: str,
    overlap: bool,
    precision: str = "float32",
    pipeline: bool = False,
    league_workers: int = 0,
) -> dict[str, Any]:
    """The rows of the one loop for ``cfg``: env only (``env_step``), then ``iters`` timed iterations of
    :class:`ohmygoods_training.fast_ppo.FastPPO` after a warm-up one (kernels compiled, a snapshot in the
    league, no further snapshot taken while timing)."""
    from .fast_ppo import FastPPO

    # warmed up like the loop (one rollout's batch steps before the timed ones): a process's first batch steps
    # are slower (its kernels' first calls; 25 steps of 256 games: 255k steps/s, then 1.2M), and a one-call
    # warm-up left that in the env-only rate, which understated it (up to 3x at 200 steps) and so overstated
    # every rollout / env-only ratio
    env_only, env_cpu = _env_only(env_step, env_steps, warmup_calls=cfg.n_steps)
    ppo = FastPPO(
        cfg, device=device, overlap=overlap, precision=precision, pipeline=pipeline, league_workers=league_workers
    )
    ppo.rollout.add_snapshot()
    ppo.next_snapshot = 10**12
    ppo.iterate()  # warm-up: kernels compiled, snapshots in the league

    try:
        rates: dict[str, Any] = _loop_rates(ppo, iters)
    finally:
        ppo.close()
    params = sum(p.numel() for p in ppo.net.parameters())
    rates["cpu_rates"]["env_only"] = env_cpu
    return {"env_only": env_only, **rates, "params": params, **_where(ppo.device, ppo.dtype)}


def bench_selfplay(
    game: str,
    players: int,
    iters: int,
    env_steps: int,
    seed: int = 0,
    device: str = "cpu",
    overlap: bool = False,
    precision: str = "float32",
    pipeline: bool = False,
    league_workers: int = 0,
    **overrides: Any,
) -> dict[str, Any]:
    """The same rows for another game on the one loop (:class:`ohmygoods_training.fast_ppo.FastPPO` with
    ``game``: its training kit's defaults at ``players`` unless ``overrides``): env only is the game's
    batch engine with random legal actions, every decision's observation and mask into preallocated
    buffers."""
    from .fast_ppo import PPOConfig
    from .kits import kit_of

    kit = kit_of(game)
    fields = set(PPOConfig.__dataclass_fields__)
    own = {k: v for k, v in kit.defaults.items() if k in fields}
    cfg = PPOConfig(**{**own, "game": game, "players": players, "seed": seed, **overrides})
    b = kit.engine(cfg.num_envs, players, seed, cfg)
    rng = np.random.default_rng(seed)
    obs = np.empty((b.num_games, b.obs_dim), np.float32)
    masks = np.empty((b.num_games, b.n_actions), np.bool_)

    def env_step() -> int:
        cur = b.current_player
        live = np.flatnonzero(cur >= 0)
        b.observe(np.maximum(cur, 0), out=obs)
        b.legal_mask(out=masks)
        u = rng.random(masks.shape) * masks  # a random legal action per live game
        b.step(u.argmax(1))
        if b.done.any():
            b.reset()
        return live.size

    return _loop_bench(cfg, env_step, env_steps, iters, device, overlap, precision, pipeline, league_workers)


ROWS = (("env_only", "env only (steps/s)"), ("rollout", "rollout with policy (steps/s)"),
        ("update", "update (samples/s)"), ("end_to_end", "end to end (learner steps/s)"))  # fmt: skip


def table(results: dict[str, dict[str, float]]) -> str:
    """A markdown table: one column per configuration, the last column new / shipped."""
    names = list(results)
    head = "| measure | " + " | ".join(names) + (" | ratio |" if len(names) == 2 else " |")
    lines = [head, "|" + " --- |" * (len(names) + 1 + (len(names) == 2))]
    for key, label in ROWS + (("params", "network parameters"), ("samples", "samples timed")):
        vals = [results[n][key] for n in names]
        cells = [f"{v:,.0f}" for v in vals]
        ratio = (
            f" {vals[1] / vals[0]:.1f}x |"
            if len(names) == 2 and key in dict(ROWS)
            else (" |" if len(names) == 2 else "")
        )
        lines.append(f"| {label} | " + " | ".join(cells) + " |" + ratio)
    for key, label in (("device", "device"), ("threads", "torch threads"), ("precision", "precision"),
                       ("openmp_wait", "idle OpenMP threads"), ("freed_memory", "freed memory")):  # fmt: skip
        lines.append(f"| {label} | " + " | ".join(str(results[n].get(key, "-")) for n in names) + " |"
                     + (" |" if len(names) == 2 else ""))  # fmt: skip
    return "\n".join(lines)


def split_table(name: str, r: dict[str, Any]) -> str:
    """Where one configuration's iteration goes: a markdown table of wall-clock and CPU milliseconds per
    iteration and their shares (the parts of :data:`~ohmygoods_training.fast_ppo.PARTS`, then ``other``)."""
    from .fast_ppo import PART_HELP, PARTS

    sp, cpu = r["split"], r.get("split_cpu") or {k: float("nan") for k in r["split"]}
    lines = [
        f"where the time goes: {name}, device {r['device']}, {r['threads']} torch thread(s), "
        f"{r.get('precision', 'float32')}, "
        f"{r['samples']:,.0f} samples timed, {1000 * sp['total']:,.1f} ms per iteration "
        f"({1000 * cpu['total']:,.1f} ms of CPU)",
        "",
        "| part | wall ms per iteration | share | CPU ms | share | what |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for part in (*PARTS, "other"):
        shares = [100 * d[part] / d["total"] if d["total"] > 0 else 0.0 for d in (sp, cpu)]
        lines.append(
            f"| {part} | {1000 * sp[part]:,.1f} | {shares[0]:.1f}% | {1000 * cpu[part]:,.1f} | {shares[1]:.1f}% "
            f"| {PART_HELP[part]} |"
        )
    return "\n".join(lines)


def ratio_lines(results: dict[str, dict[str, Any]]) -> list[str]:
    """The issue's two ratios of a run: each configuration's rollout against its env-only rate (per wall and
    per CPU-second), and the last configuration's end to end against the first's."""
    out = []
    for name, r in results.items():
        c = r.get("cpu_rates", {})
        line = f"{name}: rollout with policy {100 * r['rollout'] / r['env_only']:.1f}% of env only"
        if c:
            line += (
                f" ({100 * c['rollout'] / c['env_only']:.1f}% per CPU-second: rollout {c['rollout']:,.0f}, env only "
                f"{c['env_only']:,.0f}, end to end {c['end_to_end']:,.0f} samples per CPU-second)"
            )
        out.append(line)
    names = list(results)
    if len(names) == 2:
        a, b = (results[n] for n in names)
        cpu = ""
        if a.get("cpu_rates") and b.get("cpu_rates"):
            cpu = f" ({b['cpu_rates']['end_to_end'] / a['cpu_rates']['end_to_end']:.1f}x per CPU-second)"
        out.append(f"end to end: {names[1]} {b['end_to_end'] / a['end_to_end']:.1f}x {names[0]}{cpu}")
    return out


#: the column of ``--overlap``: the one loop with the next rollout collected while the update runs
OVERLAP = "overlapped (fast_ppo --overlap)"
PIPELINE = "pipelined (fast_ppo --pipeline)"


def overlap_line(seq: dict[str, Any], ovl: dict[str, Any]) -> str:
    """The overlapped loop's iteration against the sequential one's: milliseconds per iteration, the
    collector's and the update's own time (which run at the same time), and the end-to-end ratio."""
    it = 1000 * ovl["split"]["total"]
    col = sum(ovl["split"][k] for k in ("env", "copy", "forward", "prior", "opponents")) * 1000
    upd = 1000 * ovl["split"]["update"]
    return (
        f"overlapped: {it:,.1f} ms per iteration (the collector {col:,.1f} ms in its thread, the update {upd:,.1f} "
        f"ms at the same time) against {1000 * seq['split']['total']:,.1f} ms sequential: end to end "
        f"{ovl['end_to_end']:,.0f} against {seq['end_to_end']:,.0f} learner decisions/s "
        f"({ovl['end_to_end'] / seq['end_to_end']:.2f}x); rollouts are played by the network from before the "
        "update that runs beside them (one update of policy lag)"
    )


def kit_network(game: str) -> str:
    """The network kind of ``game``'s training kit."""
    from .kits import kit_of

    return kit_of(game).network


#: ``--openmp-wait`` names -> the environment of a process that waits that way (see :func:`_wait_env`)
OPENMP_WAITS: dict[str, dict[str, str]] = {
    "passive": {"OMP_WAIT_POLICY": "PASSIVE"},
    "spin": dict([SPIN_SETTING.split("=", 1)]),
}


def _wait_env(name: str) -> dict[str, str]:
    """This process's environment with idle OpenMP threads set to wait as ``name`` (one of :data:`OPENMP_WAITS`):
    the other variable removed, since libgomp lets ``GOMP_SPINCOUNT`` override the policy."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in OPENMP_WAIT_VARIABLES}
    return {**env, **OPENMP_WAITS[name]}


def _openmp_wait_arg(text: str) -> list[str]:
    """``--openmp-wait``: a comma-separated list of :data:`OPENMP_WAITS` names."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in OPENMP_WAITS]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of {', '.join(OPENMP_WAITS)}, got {text!r}")
    return names


def _without_option(argv: list[str], parser: argparse.ArgumentParser, dest: str) -> list[str]:
    """``argv`` without the option of ``dest`` and its value, however it was written (``--opt V``, ``--opt=V``,
    or a unique prefix, which argparse accepts: ``--op V``), so that a child run never sees it."""
    options = parser._option_string_actions  # option string -> action (what argparse itself looks names up in)
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        name, eq, _ = a.partition("=")
        if name.startswith("--") and len(name) > 2:
            hits = {options[name]} if name in options else {v for k, v in options.items() if k.startswith(name)}
            if parser.allow_abbrev or name in options:
                if len(hits) == 1 and next(iter(hits)).dest == dest:
                    skip = not eq and next(iter(hits)).nargs != 0
                    continue
        out.append(a)
    return out


def _compare_waits(argv: list[str], waits: list[str]) -> dict[str, dict[str, Any]]:
    """The benchmark of ``argv`` once per wait in ``waits``, each in a fresh process (libgomp reads how its
    threads wait when it loads, once per process); the columns of all runs, each name tagged with its wait."""
    import subprocess

    results: dict[str, dict[str, Any]] = {}
    for name in waits:
        cmd = [sys.executable, "-m", "ohmygoods_training.bench_train", *argv, "--json"]
        done = subprocess.run(cmd, env=_wait_env(name), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the run with --openmp-wait {name} failed: {done.stderr.strip()[-2000:]}")
        for column, r in json.loads(done.stdout).items():
            results[f"{column} [{name}]"] = r
    return results


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the tables (``--json`` for the raw numbers)."""
    from ohmygoods_env.argtypes import int_at_least

    from .fast_ppo import DEVICES, PRECISIONS, InputError, resolve_device, threads_arg

    p = argparse.ArgumentParser(
        prog="ohmygoods bench --train",
        description="Training benchmark: where the time of a training iteration goes (env, copy, forward, update).",
    )
    p.add_argument("--game", choices=train_games(), default="ohmygoods", help="the game the one loop trains")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--iters", type=int, default=2, help="timed rollout+update iterations per configuration")
    p.add_argument("--env-steps", type=int, default=200, help="batch steps of the env-only measurement")
    p.add_argument("--threads", type=threads_arg, default=1, metavar="{auto,N}", help="torch and numba threads")
    p.add_argument("--device", choices=DEVICES, default="auto", help="the learner's device (auto: cuda if present)")
    p.add_argument(
        "--precision", choices=PRECISIONS, default="float32",
        help="the new loop's compute type (ohmygoods train --precision; default float32; auto: bfloat16 where the "
        "device computes it natively, else float32)",
    )  # fmt: skip
    for flag, what in (("--num-envs", "games played side by side"), ("--n-steps", "batch steps per rollout"),
                       ("--minibatch", "samples per gradient step")):  # fmt: skip
        p.add_argument(flag, type=int_at_least(1), default=None, metavar="N",
                       help=f"the new loop's {what} (default: the game's training defaults)")  # fmt: skip
    p.add_argument(
        "--torch-threads", type=int_at_least(1), default=None, metavar="N",
        help="torch's threads alone (default: --threads): on a GPU they only sample on the host",
    )  # fmt: skip
    p.add_argument(
        "--league-workers",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help="the new loop's slow league seats in N worker processes (ohmygoods train --league-workers)",
    )
    p.add_argument("--skip-shipped", action="store_true", help="time the new default only")
    p.add_argument(
        "--overlap", action="store_true",
        help="also time the overlapped loop (ohmygoods train --overlap) beside the sequential one",
    )  # fmt: skip
    p.add_argument(
        "--pipeline", action="store_true",
        help="also time the pipelined rollout (ohmygoods train --pipeline: one table's forward in a second thread "
        "while the other table steps) beside the sequential one",
    )  # fmt: skip
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--openmp-wait", type=_openmp_wait_arg, default=None, metavar="LIST",
        help="run the benchmark once per way idle OpenMP threads wait, each in a fresh process, and print "
        "the columns side by side: passive (OMP_WAIT_POLICY=PASSIVE, the package's default), spin "
        f"({SPIN_SETTING}); e.g. passive,spin",
    )  # fmt: skip
    args = p.parse_args(argv)
    try:
        device = resolve_device(args.device)
    except InputError as exc:
        print(f"ohmygoods bench --train: error: {exc}", file=sys.stderr)
        return 2
    if args.openmp_wait:  # the same rows, once per wait, in fresh processes
        rest = _without_option(list(sys.argv[1:] if argv is None else argv), p, "openmp_wait")
        rest = _without_option(rest, p, "json")
        try:
            results = _compare_waits(rest, args.openmp_wait)
        except RuntimeError as exc:
            print(f"ohmygoods bench --train: error: {exc}", file=sys.stderr)
            return 1
        _print(results, args.json)
        return 0
    from .fast_ppo import _threads

    _threads(args.threads)  # torch's and numba's, as the training loops set them
    keep_freed_memory()  # as the training commands keep it (training/allocator.py)
    if args.torch_threads is not None:
        torch.set_num_threads(args.torch_threads)
    results: dict[str, dict[str, Any]] = {}
    slot = kit_network(args.game) == "slotnet"
    if slot:  # beside the shipped MaskablePPO loop (the slot network's game only)
        if not args.skip_shipped:
            results["shipped (MaskablePPO, league)"] = bench_shipped(args.players, args.iters, args.env_steps)
        new = "new default (fast_ppo)"
    else:
        new = f"{args.game} (fast_ppo, {kit_network(args.game)})"

    sizes = {k: getattr(args, k) for k in ("num_envs", "n_steps", "minibatch") if getattr(args, k) is not None}

    def one_loop(**mode: bool) -> dict[str, Any]:
        if slot:
            return bench_fast(
                args.players, args.iters, args.env_steps, device=device, precision=args.precision,
                league_workers=args.league_workers, **mode, **sizes,
            )  # fmt: skip
        return bench_selfplay(
            args.game, args.players, args.iters, args.env_steps, device=device, precision=args.precision,
            league_workers=args.league_workers, **mode, **sizes,
        )  # fmt: skip

    results[new] = one_loop()
    if args.overlap:
        results[OVERLAP] = one_loop(overlap=True)
    if args.pipeline:
        results[PIPELINE] = one_loop(pipeline=True)
    _print(results, args.json)
    return 0


def _print(results: dict[str, dict[str, Any]], as_json: bool) -> None:
    """The tables of a run (``as_json``: the raw numbers): the rates, the ratios, where each loop's iteration
    goes (the columns with a split), and the overlapped loop against the sequential one."""
    if as_json:
        print(json.dumps(results, indent=2))
        return
    print(table(results))
    print()
    print("\n".join(ratio_lines(results)))
    sequential = [n for n, r in results.items() if "split" in r and not n.startswith((OVERLAP, PIPELINE))]
    for name in sequential:  # the one loop's sequential column(s): one per wait with --openmp-wait
        print()
        print(split_table(name, results[name]))
    for name in sequential:
        tag = name[len(name.split(" [")[0]) :]  # " [passive]" with --openmp-wait, else ""
        if OVERLAP + tag in results:
            print()
            print(overlap_line(results[name], results[OVERLAP + tag]))


if __name__ == "__main__":
    sys.exit(main())
