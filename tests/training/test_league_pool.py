"""``--league-workers``: the heuristic's league seats answered in worker processes play the moves they play
in the process (training/league_pool.py)."""

from __future__ import annotations

import numpy as np
import pytest
from ohmygoods_training.fast_ppo import FastPPO, PPOConfig
from ohmygoods_training.league_pool import MIN_ROWS, PooledPolicy

from ohmygoods_env.batch import BatchGames, make_rng, random_actions

pytestmark = pytest.mark.training


def test_pooled_heuristic_seats_choose_what_the_heuristic_chooses_in_the_process():
    """Positions of many games at several points of play: the pooled policy's actions equal the in-process
    agent's, row for row (a call below MIN_ROWS rows stays in the process and agrees too)."""
    g = BatchGames(64, 2, "omg2", seed=3)
    rng = make_rng(64, 3)
    pooled = PooledPolicy("heuristic", seed=5, workers=2)
    try:
        for step in range(40):
            rows = np.flatnonzero(~g.done)
            if step % 8 == 0:
                want = pooled.local(g, rows)
                got = pooled(g, rows)
                assert got.dtype == np.int64 and np.array_equal(got, want)
                few = rows[: MIN_ROWS - 1]
                assert np.array_equal(pooled(g, few), pooled.local(g, few))
            g.step(random_actions(g.masks(copy=False), rng))
    finally:
        pooled.close()
    assert pooled.pool is None


def test_only_agents_that_decide_from_their_inputs_are_pooled():
    with pytest.raises(ValueError, match="'random' cannot be pooled: expected one of heuristic"):
        PooledPolicy("random", 0, 2)
    with pytest.raises(ValueError, match="workers must be >= 1, got 0"):
        PooledPolicy("heuristic", 0, 0)


@pytest.mark.parametrize("prior", ["", "heuristic"], ids=["no-prior", "heuristic-prior"])
def test_a_rollout_with_league_workers_gives_the_same_losses(prior):
    """A league with heuristic seats (and the heuristic prior): two iterations with the seats and the prior in
    two worker processes give the numbers of the in-process loop exactly."""
    cfg = {"players": 2, "num_envs": 24, "n_steps": 12, "hidden": 16, "embed": 4, "minibatch": 128,
           "league": "self:0.2,heuristic:0.8", "seed": 1, "prior": prior}  # fmt: skip
    keys = ("pg_loss", "v_loss", "entropy", "clip_frac", "samples")
    runs = []
    for workers in (0, 2):
        ppo = FastPPO(PPOConfig(**cfg), league_workers=workers)
        try:
            pooled = [a for _, a in ppo.rollout.opponents if isinstance(a, PooledPolicy)]
            if prior:
                pooled += [ppo.rollout.prior] if isinstance(ppo.rollout.prior, PooledPolicy) else []
            assert len(pooled) == (1 + bool(prior) if workers else 0)
            runs.append([tuple(info[k] for k in keys) for info in (ppo.iterate() for _ in range(2))])
        finally:
            ppo.close()
        assert all(a.pool is None for a in pooled)
    assert runs[0] == runs[1]


def test_the_pooled_prior_is_the_networks_prior():
    """The pooled prior (role ``prior``) chooses what slotnet.make_prior's heuristic chooses."""
    from ohmygoods_agents.slotnet import make_prior

    from ohmygoods_env.policy import BatchPolicy

    g = BatchGames(32, 2, "omg2", seed=4)
    rng = make_rng(32, 4)
    for _ in range(25):
        g.step(random_actions(g.masks(copy=False), rng))
    rows = np.flatnonzero(~g.done)
    pooled = PooledPolicy("heuristic", seed=99, workers=2, role="prior")  # the prior has no seed of its own
    try:
        assert np.array_equal(pooled(g, rows), BatchPolicy(make_prior("heuristic"))(g, rows))
    finally:
        pooled.close()
    with pytest.raises(ValueError, match="role must be 'league' or 'prior', got 'teacher'"):
        PooledPolicy("heuristic", 0, 1, role="teacher")
