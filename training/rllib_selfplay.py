"""Self-play PPO on Ray RLlib over the parallel env: one shared, action-masked policy for every seat.

Runs on one machine as is, and unchanged on a Ray cluster apart from ``--address`` and
``--env-runners``::

    python -m ohmygoods_training.rllib_selfplay --players 3 --iterations 20                     # local
    python -m ohmygoods_training.rllib_selfplay --address ray://head:10001 --env-runners 32     # cluster

It uses the pieces of the project's own loop (:mod:`ohmygoods_training.fast_ppo`) where RLlib lets it:

* Env: :func:`ohmygoods_env.envs.parallel.parallel_env` as an RLlib ``MultiAgentEnv``;
  observations become ``{"observations", "action_mask"}``, the layout RLlib's masking modules
  read. Seats with nothing to decide carry the wait mask.
* Network: ``--network slotnet`` (the default) is the loop's :class:`~ohmygoods_agents.slotnet.SlotNet`
  inside an RLlib ``TorchRLModule`` (:class:`SlotNetRLModule`: the same logits, masked, and value);
  ``--network mlp`` is RLlib's own ``ActionMaskingTorchRLModule`` MLP.
* Checkpoints: ``--init PATH`` starts the SlotNet from a checkpoint of the loop (``ohmygoods train``'s
  ``final.json``, a shipped agent's file; a network without a prior, since the prior reads the
  information state, which RLlib's env does not hand over); ``--out DIR`` writes the trained network as
  ``DIR/final.json`` + ``.safetensors`` in the loop's format: ``make_agent("ppo:DIR/final.json")``,
  ``ohmygoods evaluate``, tournaments and env opponents take it as they take the loop's.
* Self-play: every agent maps to the one policy ``"shared"`` (every seat's decisions are
  training data); rewards are the env's final rewards (``"win"``: +1 / -1 / 0).
* Prints env steps/s (every agent step sampled, waits included) per iteration.
"""

from __future__ import annotations

import argparse
import copy
import functools
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["NETWORKS", "SelfPlayEnv", "build_config", "checkpoint_net", "export", "main"]

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


#: the networks ``--network`` names: the loop's SlotNet, or RLlib's own masked MLP
NETWORKS = ("slotnet", "mlp")


@functools.cache
def _slotnet_module_class() -> type:
    """:class:`SlotNetRLModule`, defined on first use (RLlib is the optional ``[marl]`` extra)."""
    from ohmygoods_agents.slotnet import NEG, SlotNet
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule

    class SlotNetRLModule(TorchRLModule, ValueFunctionAPI):
        """The loop's :class:`~ohmygoods_agents.slotnet.SlotNet` as an RLlib module (PPO, new API stack).

        ``model_config``: ``hidden`` and ``embed`` (the SlotNet's widths), optionally ``init`` (a checkpoint
        of the loop whose weights it starts from). Observations are ``{"observations", "action_mask"}``
        (:class:`SelfPlayEnv`); illegal actions get the logit ``NEG``, as in the loop. The trunk features are
        the ``embeddings`` that ``compute_values`` reuses."""

        def setup(self) -> None:
            cfg = dict(self.model_config or {})
            if cfg.get("init"):
                self.net = checkpoint_net(cfg["init"])
            else:
                self.net = SlotNet(int(cfg.get("hidden", 128)), int(cfg.get("embed", 16)))

        def _forward(self, batch: dict, **kwargs: Any) -> dict:
            obs = batch[Columns.OBS]
            h = self.net.features(obs["observations"])
            logits = self.net.pi(h).masked_fill(obs["action_mask"] < 0.5, NEG)
            return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: h}

        def compute_values(self, batch: dict, embeddings: Any = None) -> Any:
            if embeddings is None:
                embeddings = self.net.features(batch[Columns.OBS]["observations"])
            return self.net.v(embeddings).squeeze(-1)

    return SlotNetRLModule


def __getattr__(name: str) -> Any:
    if name == "SlotNetRLModule":  # the class needs RLlib: built on first access
        return _slotnet_module_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the one refusal of ``--out`` without the loop's network
OUT_NEEDS_SLOTNET = "--out writes the loop's checkpoint format, which holds a SlotNet: use --network slotnet"


def checkpoint_net(path: str) -> Any:
    """The SlotNet of a checkpoint of the loop (``fast_ppo.save_agent``), for ``--init``: refused, in one
    line, when the network adds a prior's choice (the prior reads the information state, which the env
    RLlib samples does not hand over)."""
    from .fast_ppo import load_net

    net = load_net(path)
    if net.prior is not None:
        raise ValueError(
            f"{path}: this network adds the {net.prior} agent's choice to its logits, which needs each seat's "
            "information state; RLlib's env hands over observations only: start from a network without a prior "
            "(ohmygoods train --prior none)"
        )
    return net.train()


def build_config(
    num_players: int = 2,
    env_runners: int = 1,
    train_batch: int = 4000,
    hidden: int | None = None,
    network: str = "slotnet",
    init: str | None = None,
    embed: int = 16,
) -> Any:
    """The RLlib ``PPOConfig``: the env, one shared masked policy for every seat (``network``: the loop's
    SlotNet, ``hidden`` wide (default 128, the loop's), from ``init`` when given; or RLlib's MLP, default
    256 wide), ``env_runners`` samplers."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    if network not in NETWORKS:
        raise ValueError(f"unknown network {network!r}: expected one of {list(NETWORKS)}")
    if hidden is None:
        hidden = 256 if network == "mlp" else 128
    if network == "mlp":
        if init:
            raise ValueError("--init starts the loop's SlotNet from its checkpoint: use it with --network slotnet")
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

        spec = RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": [hidden, hidden], "head_fcnet_hiddens": [hidden]},
        )
    else:
        if init:
            checkpoint_net(init)  # a bad checkpoint fails here, in one line, not in a Ray worker
        spec = RLModuleSpec(
            module_class=_slotnet_module_class(), model_config={"hidden": hidden, "embed": embed, "init": init}
        )
    return (
        PPOConfig()
        # RLlib's env check steps unmasked random actions, which this env rejects (tested in tests/envs)
        .environment(SelfPlayEnv, env_config={"num_players": num_players}, disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_cpus_per_env_runner=1)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": spec}))
        .training(train_batch_size_per_learner=train_batch, minibatch_size=min(512, train_batch), num_epochs=2)
    )


def export(algo: Any, out: str, players: int, meta: dict[str, Any]) -> Path:
    """Write the shared policy's SlotNet as ``OUT/final.json`` + ``.safetensors``, the loop's checkpoint
    format (``fast_ppo.save_agent``): an agent for ``make_agent("ppo:OUT/final.json")``."""
    from .fast_ppo import FINAL, save_agent

    module = algo.get_module("shared")
    net = getattr(module, "net", None)
    if net is None:
        raise ValueError(OUT_NEEDS_SLOTNET)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    return save_agent(copy.deepcopy(net).cpu().eval(), folder / FINAL, meta, players=players)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    ap.add_argument("--env-runners", type=int, default=1)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--train-batch", type=int, default=4000)
    ap.add_argument("--hidden", type=int, default=None, help="width (default: slotnet 128, as the loop; mlp 256)")
    ap.add_argument("--network", choices=NETWORKS, default="slotnet",
                    help="slotnet: the loop's network (default); mlp: RLlib's masked MLP")  # fmt: skip
    ap.add_argument("--init", default=None, metavar="PATH",
                    help="start the SlotNet from this checkpoint of the loop (a network without a prior)")  # fmt: skip
    ap.add_argument("--out", default=None, metavar="DIR",
                    help="write the trained SlotNet as DIR/final.json (+ .safetensors), the agent "
                    "ppo:DIR/final.json")  # fmt: skip
    a = ap.parse_args(argv)
    try:
        config = build_config(a.players, a.env_runners, a.train_batch, a.hidden, a.network, a.init)
        if a.out and a.network != "slotnet":
            raise ValueError(OUT_NEEDS_SLOTNET)
    except (ValueError, OSError) as exc:
        ap.exit(2, f"{ap.prog}: error: {exc}\n")
    import ray

    ray.init(address=a.address, ignore_reinit_error=True, include_dashboard=False)
    algo = config.build_algo()
    out = []
    try:
        for i in range(a.iterations):
            t0 = time.perf_counter()
            result = algo.train()
            dt = time.perf_counter() - t0
            steps = result["env_runners"]["num_env_steps_sampled"]
            out.append({"iteration": i, "env_steps": steps, "seconds": dt, "env_steps_per_s": steps / dt})
            print(f"iteration {i}: {steps} env steps in {dt:.1f} s ({steps / dt:,.0f} steps/s)", flush=True)
        if a.out:
            meta = {"trained_by": "ohmygoods_training.rllib_selfplay", "command": " ".join(argv or sys.argv[1:]),
                    "iterations": a.iterations, "env_steps": int(sum(r["env_steps"] for r in out))}  # fmt: skip
            path = export(algo, a.out, a.players, meta)
            print(f"wrote {path} (the agent ppo:{path})", flush=True)
    finally:
        algo.stop()
    return out


if __name__ == "__main__":
    main()
