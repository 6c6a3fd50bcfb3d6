"""Freed memory kept by the training commands (``ohmygoods_training.allocator``): large tensors allocated again
come from the heap without page faults, a user's own malloc setting is left alone, and the commands say
which applies (``run.json``, the benchmark's rows)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from ohmygoods_training import allocator

pytestmark = pytest.mark.training

#: a fresh interpreter: page faults of six PPO updates of one loop with the dense forward (minibatches of 4,096 rows
#: of 2,256 floats: 37 MB gathered, above glibc's largest dynamic mmap threshold of 32 MiB), after a warm-up
#: iteration
FAULTS = """
import resource, sys, torch
from ohmygoods_training import allocator
from ohmygoods_training.fast_ppo import FastPPO, PPOConfig
torch.set_num_threads(1)
print(allocator.keep_freed_memory() if sys.argv[1] == "keep" else allocator.freed_memory())
ppo = FastPPO(PPOConfig(players=2, num_envs=140, n_steps=32, minibatch=4096, hidden=32, seed=1, sparse_forward=0))
ppo.iterate()
faults = 0
for _ in range(6):
    batch = ppo.rollout.collect(ppo.cfg.n_steps)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    ppo.update(batch)
    faults += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(faults)
"""


def _faults(mode: str) -> tuple[str, int]:
    clean = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES" and not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", FAULTS, mode], capture_output=True, text=True, check=True,
                         env=clean, timeout=300)  # fmt: skip
    text, count = out.stdout.strip().splitlines()[-2:]
    return text, int(count)


@pytest.mark.skipif(allocator._glibc() is None, reason="needs glibc (Linux)")
def test_the_update_faults_far_fewer_pages_once_freed_memory_is_kept():
    """Each minibatch's gathered observations, activations and gradients are allocated again: mapped afresh
    they fault a page per 4 KiB each time; kept in the heap they are reused."""
    text, kept = _faults("keep")
    assert text == "kept (glibc: blocks up to 256 MiB from the heap, 1024 MiB of free heap kept)"
    default_text, default = _faults("default")
    assert default_text == "the C library's default"
    # mapped afresh, each update's 37 MB gathers fault 9,000 pages each (68k-177k in six updates, 1-4 gathers an
    # update as the rollout's sample count varies); kept in the heap, the heap's growth only (6k-16k)
    assert default >= 3 * 9_000, default
    assert kept * 2 < default, (kept, default)


def test_a_users_own_malloc_setting_is_left_alone(monkeypatch):
    calls: list[tuple[int, int]] = []

    class FakeLibc:
        def mallopt(self, param: int, value: int) -> int:
            calls.append((param, value))
            return 1

    monkeypatch.setattr(allocator, "_glibc", lambda: FakeLibc())
    monkeypatch.setattr(allocator, "_state", {})
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1000000")
    said = allocator.keep_freed_memory()
    assert said == "as the environment sets it (GLIBC_TUNABLES=glibc.malloc.trim_threshold=1000000)"
    monkeypatch.delenv("GLIBC_TUNABLES")
    monkeypatch.setattr(allocator, "_state", {})
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000000")
    assert allocator.keep_freed_memory() == "as the environment sets it (MALLOC_TRIM_THRESHOLD_=1000000)"
    assert calls == []  # mallopt never called
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_")
    monkeypatch.setattr(allocator, "_state", {})
    assert allocator.keep_freed_memory(64 << 20, 128 << 20).startswith("kept (glibc: blocks up to 64 MiB")
    assert calls == [(-3, 64 << 20), (-1, 128 << 20)]  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD


def test_other_c_libraries_and_refused_thresholds_say_so(monkeypatch):
    for name in ("GLIBC_TUNABLES", *allocator.MALLOC_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(allocator, "_state", {})
    monkeypatch.setattr(allocator, "_glibc", lambda: None)
    assert allocator.keep_freed_memory() == "the C library's default (not glibc)"

    class Refusing:
        def mallopt(self, param: int, value: int) -> int:
            return 0

    monkeypatch.setattr(allocator, "_glibc", lambda: Refusing())
    assert allocator.keep_freed_memory() == "glibc's default (mallopt refused the thresholds)"
    with pytest.raises(ValueError, match=r"thresholds must be in \[1, 2\*\*31\), got 0 and 5"):
        allocator.keep_freed_memory(0, 5)


def test_the_training_commands_record_how_freed_memory_is_kept(tmp_path):
    from ohmygoods_training.fast_ppo import main

    out = tmp_path / "run"
    argv = ["--players", "2", "--num-envs", "4", "--n-steps", "8", "--total-steps", "64", "--hidden", "16",
            "--eval-every", "64", "--eval-games", "2", "--eval-vs", "random", "--final-games", "2",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert json.loads((out / "run.json").read_text())["freed_memory"] == allocator.freed_memory()
