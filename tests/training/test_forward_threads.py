"""Small inference forwards on one torch thread (``ohmygoods_agents.policy_agents.forward_threads``): the count
chosen from the rows, restored after, and the same results as on every thread, so the training loop's rollout,
the league's snapshot seats and the Gumbel search's evaluations play the same moves."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ohmygoods_agents import policy_agents
from ohmygoods_agents.policy_agents import ROWS_PER_THREAD, SlotNetAgent, forward_threads
from ohmygoods_agents.slotnet import SlotNet
from ohmygoods_training.fast_ppo import FastPPO, PPOConfig

from ohmygoods_env.batch import BatchGames, make_rng, random_actions

pytestmark = pytest.mark.training


@pytest.fixture
def two_threads():
    """torch on 2 threads in this test (the training tests' conftest sets one), restored after."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def _observations(n: int, seed: int = 1) -> torch.Tensor:
    g = BatchGames(n, 2, seed=seed)
    rng = make_rng(n, seed)
    for _ in range(30):  # mid-game rows: hands, discards, buildings
        g.step(random_actions(g.masks(copy=False), rng))
        g.reset()
    return torch.from_numpy(g.observe().copy())


@pytest.mark.parametrize(
    ("have", "rows", "want"),
    [(2, 1, 1), (2, ROWS_PER_THREAD - 1, 1), (2, 2 * ROWS_PER_THREAD, 2), (2, 100 * ROWS_PER_THREAD, 2),
     (1, 10 * ROWS_PER_THREAD, 1), (3, 2 * ROWS_PER_THREAD + 1, 2), (2, 0, 1)],
)  # fmt: skip
def test_one_thread_per_rows_per_thread_rows_and_the_count_restored(have, rows, want):
    before = torch.get_num_threads()
    torch.set_num_threads(have)
    try:
        with forward_threads(rows) as used:
            assert used == want == torch.get_num_threads()
        assert torch.get_num_threads() == have
        with pytest.raises(RuntimeError, match="inside"), forward_threads(rows):
            raise RuntimeError("inside")
        assert torch.get_num_threads() == have  # restored after an error too
    finally:
        torch.set_num_threads(before)


def test_a_device_other_than_the_cpu_keeps_the_threads(two_threads):
    with forward_threads(1, "cuda") as used:  # naming a device needs no GPU
        assert used == 2 == torch.get_num_threads()
    with forward_threads(1, torch.device("cpu")) as used:
        assert used == 1 == torch.get_num_threads()


@pytest.mark.parametrize("rows", [1, 4, 64, 237, 600])
def test_the_slot_network_gives_the_same_bits_on_one_thread_and_on_several(rows, two_threads):
    """The premise of the rule: a forward's result does not depend on the thread count, so choosing fewer threads
    for a small batch changes no logit, value or sampled move."""
    torch.manual_seed(0)
    net = SlotNet().eval()
    x = _observations(600)[:rows]
    out = {}
    for n in (1, 2, 4):
        torch.set_num_threads(n)
        with torch.inference_mode():
            h = net.features(x, seats=2)
            out[n] = (net.pi(h), net.v(h))
    for n in (2, 4):
        assert torch.equal(out[1][0], out[n][0]) and torch.equal(out[1][1], out[n][1]), n


def test_a_policy_agent_answers_on_one_thread_and_restores_the_count(two_threads, monkeypatch):
    torch.manual_seed(0)
    net = SlotNet().eval()
    seen: list[int] = []
    inner = net.features

    def spy(x, seats=None):
        seen.append(torch.get_num_threads())
        return inner(x, seats)

    monkeypatch.setattr(net, "features", spy)
    g = BatchGames(4, 2, seed=0)
    agent = SlotNetAgent(net, deterministic=False, seed=5)
    a = agent.act_batch(g.observe(), g.legal_mask())
    assert seen == [1] and torch.get_num_threads() == 2
    assert g.legal_mask()[np.arange(4), a].all()


def _collect(rows_per_thread: int, monkeypatch, rounds: int = 2) -> list[dict]:
    monkeypatch.setattr(policy_agents, "ROWS_PER_THREAD", rows_per_thread)
    cfg = PPOConfig(players=2, num_envs=48, n_steps=6, minibatch=128, snapshot_every=10**9, seed=7,
                    league="self:0.5,snapshot:0.4,random:0.1")  # fmt: skip
    ppo = FastPPO(cfg)
    ppo.rollout.add_snapshot()
    try:
        return [{k: v.clone() for k, v in ppo.rollout.collect(cfg.n_steps).items()} for _ in range(rounds)]
    finally:
        ppo.close()


def test_the_rollout_is_the_same_sample_for_sample_on_one_forward_thread_or_two(two_threads, monkeypatch):
    """The training loop's rollout (the learner's forwards, the snapshot seats, the bootstrap values) with every
    forward on both threads and with each on one: the same samples, log-probabilities and values."""
    both = _collect(1, monkeypatch)  # every forward of one row or more on 2 threads
    one = _collect(10**9, monkeypatch)  # every forward on one thread
    for a, b in zip(both, one, strict=True):
        assert a.keys() == b.keys()
        for key in a:
            assert torch.equal(a[key], b[key]), key
