"""League seats of a slow Python agent, and the network prior, answered in worker processes (``--league-workers N``).

When the heuristic decided in Python (about 100 us a decision), its seats in a training rollout of thousands
of games on a GPU machine cost more than the engine, all of it holding the interpreter lock that the update's
thread needs to launch its kernels. It is compiled now, and its kernel runs a batch's rows on numba's threads
(``ohmygoods_agents._heuristic_kernels.DECIDE_ROWS``), so the processes rarely pay (docs/training.md).
:class:`PooledPolicy` answers the seats on other cores: the main process reads what the agent reads (masks,
and the redacted information states or observations it needs) and sends the rows in chunks to worker
processes, each with its own copy of the agent. The network prior (``--prior heuristic``:
the heuristic's choice for every learner decision, a network input) is the same agent and is pooled the same
way (``role="prior"``).

Only agents whose choice is a function of their seed and the inputs of the decision are pooled
(:data:`POOLABLE`): a pooled seat then plays exactly the moves it plays in the process
(tests/training/test_league_pool.py), so ``--league-workers`` changes the speed only. Agents that draw
from a random stream of their own (``random``, the searches) would draw in another order and stay in the
process.

Workers start with ``spawn`` (a parent holding CUDA or numba threads must not fork): like any program that
uses multiprocessing that way, a script that trains with ``--league-workers`` keeps its work under
``if __name__ == "__main__":`` (the ``ohmygoods`` commands do).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np

#: league entries whose agents decide as a function of (seed, information state, mask): pooled seats play
#: the same moves as in-process ones
POOLABLE: tuple[str, ...] = ("heuristic",)

#: a call with fewer rows than this is answered in the process (sending it costs more than it saves)
MIN_ROWS = 8

_AGENT: Any = None  # a worker's own agent


def _agent(name: str, seed: int, role: str) -> Any:
    """The agent of a pooled policy: the league entry ``name``, or (``role`` ``prior``) the network prior."""
    from ohmygoods_env.policy import BatchPolicy

    if role == "prior":
        from ohmygoods_agents.slotnet import make_prior

        return BatchPolicy(make_prior(name))
    from .league_spec import opponent_agent

    return BatchPolicy(opponent_agent(name, seed))


def _start_worker(name: str, seed: int, role: str) -> None:
    global _AGENT
    import numba

    numba.set_num_threads(1)
    _AGENT = _agent(name, seed, role)


def _act(observations: np.ndarray | None, masks: np.ndarray, infos: np.ndarray | None) -> np.ndarray:
    from ohmygoods_env.policy import no_observations

    obs = no_observations(masks.shape[0]) if observations is None else observations  # None: the agent reads none
    return _AGENT.act(obs, masks, infos)


class PooledPolicy:
    """The league agent ``name`` (a :data:`POOLABLE` entry; ``role="prior"``: the network prior ``name``) as a
    policy ``(games, rows) -> actions`` whose decisions run in ``workers`` processes (started with ``spawn``,
    so a CUDA parent is safe); calls of fewer than :data:`MIN_ROWS` rows run in this process. :meth:`close`
    stops the workers."""

    def __init__(self, name: str, seed: int, workers: int, role: str = "league") -> None:
        if role not in ("league", "prior"):
            raise ValueError(f"role must be 'league' or 'prior', got {role!r}")
        if role == "league" and name not in POOLABLE:
            raise ValueError(f"league entry {name!r} cannot be pooled: expected one of {', '.join(POOLABLE)}")
        if int(workers) < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.name, self.workers, self.role = name, int(workers), role
        self.local = _agent(name, int(seed), role)  # the prior is the deterministic heuristic (slotnet.make_prior)
        ctx = multiprocessing.get_context("spawn")
        self.pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            self.workers, mp_context=ctx, initializer=_start_worker, initargs=(name, int(seed), role)
        )

    def __call__(self, games: Any, rows: np.ndarray) -> np.ndarray:
        from ohmygoods_env.policy import info_states_of

        n = int(rows.shape[0])
        if n < MIN_ROWS or self.pool is None:
            return self.local(games, rows)
        obs = games.observe(rows=rows) if self.local.needs_observation else None
        infos = info_states_of(games.state, rows) if self.local.needs_info_state else None
        masks = games.masks(copy=False)[rows]
        chunks = min(self.workers, -(-n // (MIN_ROWS // 2)))
        cuts = np.linspace(0, n, chunks + 1).astype(np.int64)
        jobs = [
            self.pool.submit(
                _act,
                None if obs is None else obs[a:b],
                np.ascontiguousarray(masks[a:b]),
                None if infos is None else infos[a:b],
            )
            for a, b in zip(cuts[:-1], cuts[1:], strict=True)
        ]
        try:
            return np.concatenate([j.result() for j in jobs]).astype(np.int64, copy=False)
        except BrokenProcessPool as exc:
            raise RuntimeError(
                f"--league-workers: a worker process of the {self.name} seats died ({exc}); workers start with "
                "spawn, which imports the main script again: a script that trains needs the "
                "'if __name__ == \"__main__\":' guard (expected a guarded script, or --league-workers 0)"
            ) from None

    def close(self) -> None:
        """Stop the worker processes (the policy answers in this process from then on)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None

    def __getstate__(self) -> dict[str, Any]:  # a deep copy or pickle keeps the in-process agent only
        return {"name": self.name, "workers": self.workers, "role": self.role, "local": self.local, "pool": None}
