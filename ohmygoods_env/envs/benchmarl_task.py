"""BenchMARL tasks over the parallel env: 2, 3 or 4 players, action masks, the privileged state for critics.

Needs the ``benchmarl`` extra (``pip install "ohmygoods[benchmarl]"``; BenchMARL 1.5 pins
``torchrl<0.12``, which the ``marl`` extra's TorchRL does not satisfy, so keep it in its own
venv: ``docs/marl.md``, *BenchMARL*)::

    from benchmarl.algorithms import MappoConfig
    from benchmarl.experiment import Experiment, ExperimentConfig
    from benchmarl.models.mlp import MlpConfig
    from ohmygoods_env.envs.benchmarl_task import OhMyGoodsTask

    task = OhMyGoodsTask.PLAYERS_3.get_task()  # or get_task(config={"rules": "royal", "reward": "margin"})
    Experiment(task=task, algorithm_config=MappoConfig.get_from_yaml(), model_config=MlpConfig.get_from_yaml(),
               critic_model_config=MlpConfig.get_from_yaml(), seed=0, config=ExperimentConfig.get_from_yaml()).run()

Each task wraps :func:`ohmygoods_env.envs.parallel.parallel_env` in TorchRL's ``PettingZooWrapper``
(``use_mask=True``: a seat with nothing to decide has the one-action ``A_WAIT`` mask). All seats
form one group ``player`` (every observation is from its own seat, so one shared policy fits);
``state`` is the privileged full state for a centralised critic (MAPPO), never part of a seat's
observation. The config is the env's keyword arguments (``num_players``, ``rules``, ``reward``,
rule options) plus ``max_steps``, the rollout limit BenchMARL needs (a game takes a few hundred
steps; the round cap R8.4 bounds it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from benchmarl.environments.common import Task, _read_yaml_config
    from benchmarl.environments.pettingzoo.common import PettingZooClass
    from torchrl.envs import EnvBase
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
except ImportError as e:  # pragma: no cover - depends on the optional extra
    raise ImportError(
        f"ohmygoods_env.envs.benchmarl_task needs BenchMARL ({e}): pip install 'ohmygoods[benchmarl]' "
        "in a venv of its own (its torchrl pin clashes with the marl extra; see docs/marl.md)"
    ) from e

from .parallel import parallel_env

#: rollout limit of a task; a 4-player game with the 60-round cap stays far below it
DEFAULT_MAX_STEPS = 4000
DEFAULT_CONFIG: dict[str, Any] = {"rules": "omg2", "reward": "win", "max_steps": DEFAULT_MAX_STEPS}


class OhMyGoodsTaskClass(PettingZooClass):
    """A BenchMARL task class for the parallel env (the spec methods are PettingZoo's, the env is ours)."""

    def get_env_fun(
        self, num_envs: int, continuous_actions: bool, seed: int | None, device: Any
    ) -> Callable[[], EnvBase]:
        if continuous_actions:
            raise ValueError("Oh my Goods! has discrete actions only: use an algorithm with discrete actions")
        env_kwargs = {k: v for k, v in self.config.items() if k != "max_steps"}
        parallel_env(**env_kwargs)  # bad arguments fail here, with the env's own message, before any worker starts
        return lambda: PettingZooWrapper(
            parallel_env(**env_kwargs),
            use_mask=True,
            categorical_actions=True,
            return_state=True,
            seed=seed,
            device=device,
        )

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def has_state(self) -> bool:
        return True

    def has_render(self, env: EnvBase) -> bool:
        return False

    def max_steps(self, env: EnvBase) -> int:
        return int(self.config.get("max_steps", DEFAULT_MAX_STEPS))

    @staticmethod
    def env_name() -> str:
        return "ohmygoods"


class OhMyGoodsTask(Task):
    """The tasks: ``PLAYERS_2``, ``PLAYERS_3``, ``PLAYERS_4`` (``get_task(config=...)`` overrides the defaults)."""

    PLAYERS_2 = None
    PLAYERS_3 = None
    PLAYERS_4 = None

    @staticmethod
    def associated_class() -> type[OhMyGoodsTaskClass]:
        return OhMyGoodsTaskClass

    def default_config(self) -> dict[str, Any]:
        """This task's configuration without overrides (its player count, ``omg2``, win/loss rewards)."""
        return {"num_players": int(self.name.rsplit("_", 1)[1]), **DEFAULT_CONFIG}

    def get_task(self, config: dict[str, Any] | None = None) -> OhMyGoodsTaskClass:
        """The task class with the defaults updated by ``config`` (BenchMARL reads no yaml file for these tasks)."""
        merged = {**self.default_config(), **(config or {})}
        return self.associated_class()(name=self.name, config=merged)

    def get_from_yaml(self, path: str | None = None) -> OhMyGoodsTaskClass:
        """Without ``path`` the defaults (these tasks ship no yaml file); with one, BenchMARL's loader."""
        return self.get_task(None if path is None else _read_yaml_config(path))


__all__ = ["DEFAULT_CONFIG", "DEFAULT_MAX_STEPS", "OhMyGoodsTask", "OhMyGoodsTaskClass"]
