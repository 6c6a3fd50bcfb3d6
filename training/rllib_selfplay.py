"""Self-play PPO on Ray RLlib over the parallel env: one shared, action-masked policy for every seat.

Runs on one machine as is, and unchanged on a Ray cluster apart from ``--address`` and
``--env-runners``::

    python -m ohmygoods_training.rllib_selfplay --players 3 --iterations 20                     # local
    python -m ohmygoods_training.rllib_selfplay --address ray://head:10001 --env-runners 32     # cluster

* Env: :func:`ohmygoods_env.envs.parallel.parallel_env` as an RLlib ``MultiAgentEnv``;
  observations become ``{"observations", "action_mask"}``, the layout RLlib's
  ``ActionMaskingTorchRLModule`` reads. Seats with nothing to decide carry the wait mask.
* Self-play: every agent maps to the one policy ``"shared"`` (every seat's decisions are
  training data); rewards are the env's final rewards (``"win"``: +1 / -1 / 0).
* Prints env steps/s (every agent step sampled, waits included) per iteration.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["SelfPlayEnv", "build_config", "main"]

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError:  # pragma: no cover - Ray is the optional [marl] extra
    MultiAgentEnv = object  # type: ignore[misc,assignment]


class SelfPlayEnv(MultiAgentEnv):  # type: ignore[misc,valid-type]
    """The parallel env with RLlib's masking layout (``env_config``: ``num_players``, ``rules``, ...)."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        from ohmygoods_env.envs.parallel import parallel_env

        self.env = parallel_env(**dict(config or {}))
        self.agents = self.possible_agents = list(self.env.possible_agents)
        inner = self.env.observation_space(self.agents[0])
        n = self.env.action_space(self.agents[0]).n
        space = spaces.Dict(
            {"action_mask": spaces.Box(0.0, 1.0, (n,), np.float32), "observations": inner["observation"]}
        )
        self.observation_spaces = dict.fromkeys(self.agents, space)
        self.action_spaces = {a: self.env.action_space(a) for a in self.agents}

    @staticmethod
    def _convert(obs: dict) -> dict:
        return {
            a: {"action_mask": o["action_mask"].astype(np.float32), "observations": o["observation"]}
            for a, o in obs.items()
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._convert(obs), infos

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        obs, rewards, terms, truncs, infos = self.env.step({a: int(x) for a, x in actions.items()})
        terms["__all__"] = all(terms.values())
        truncs["__all__"] = all(truncs.values())
        return self._convert(obs), rewards, terms, truncs, infos


def build_config(num_players: int = 2, env_runners: int = 1, train_batch: int = 4000, hidden: int = 256) -> Any:
    """The RLlib ``PPOConfig``: the env, one shared masked policy for every seat, ``env_runners`` samplers."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return (
        PPOConfig()
        # RLlib's env check steps unmasked random actions, which this env rejects (tested in tests/envs)
        .environment(SelfPlayEnv, env_config={"num_players": num_players}, disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_cpus_per_env_runner=1)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": [hidden, hidden], "head_fcnet_hiddens": [hidden]},
                    )
                }
            )
        )
        .training(train_batch_size_per_learner=train_batch, minibatch_size=min(512, train_batch), num_epochs=2)
    )


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    ap.add_argument("--env-runners", type=int, default=1)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--train-batch", type=int, default=4000)
    ap.add_argument("--hidden", type=int, default=256)
    a = ap.parse_args(argv)
    import ray

    ray.init(address=a.address, ignore_reinit_error=True, include_dashboard=False)
    algo = build_config(a.players, a.env_runners, a.train_batch, a.hidden).build_algo()
    out = []
    try:
        for i in range(a.iterations):
            t0 = time.perf_counter()
            result = algo.train()
            dt = time.perf_counter() - t0
            steps = result["env_runners"]["num_env_steps_sampled"]
            out.append({"iteration": i, "env_steps": steps, "seconds": dt, "env_steps_per_s": steps / dt})
            print(f"iteration {i}: {steps} env steps in {dt:.1f} s ({steps / dt:,.0f} steps/s)", flush=True)
    finally:
        algo.stop()
    return out


if __name__ == "__main__":
    main()
