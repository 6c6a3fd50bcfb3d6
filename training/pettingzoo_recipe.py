"""PettingZoo's SB3 action-masking recipe, applied unchanged to ``ohmygoods_env.env()``.

This follows the pattern of PettingZoo's tutorial *"SB3: Action Masked PPO for Chess /
Connect Four"*: a wrapper that is both a ``pettingzoo.utils.BaseWrapper`` and a
``gymnasium.Env`` turns the AEC env into a single-agent env (one model plays every seat,
self-play), ``observe`` strips the action mask from the ``Dict`` observation,
sb3-contrib's ``ActionMasker`` feeds the mask to ``MaskablePPO``. Nothing in it is specific
to Oh my Goods!; the env only has to follow the PettingZoo conventions
(``Dict(observation, action_mask)``, equal spaces for all agents).

``python -m ohmygoods_training.pettingzoo_recipe [--steps 4096] [--games 20]`` trains and then
evaluates the model (second seat) against random legal moves (first seat).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import gymnasium as gym
import numpy as np
import pettingzoo.utils
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):
    """A PettingZoo AEC env as a Gymnasium env for SB3 with action masking (all agents share one policy)."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed, options)
        # SB3 wants attributes, not per-agent functions; the mask leaves the observation space
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Observation of the next agent to act; reward, termination, truncation and info of the one that acted."""
        acting = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            self._cumulative_rewards[acting],
            self.terminations[acting],
            self.truncations[acting],
            self.infos[acting],
        )

    def observe(self, agent: str) -> np.ndarray:
        return super().observe(agent)["observation"]

    def action_mask(self) -> np.ndarray:
        return super().observe(self.agent_selection)["action_mask"]


def mask_fn(env: Any) -> np.ndarray:
    return env.action_mask()


def train_action_mask(env_fn: Any, steps: int = 4096, seed: int = 0, **env_kwargs: Any) -> MaskablePPO:
    """Train one MaskablePPO model that plays every seat (the tutorial's ``train_action_mask``)."""
    env = SB3ActionMaskWrapper(env_fn(**env_kwargs))
    env.reset(seed=seed)  # defines the spaces
    env = ActionMasker(env, mask_fn)
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=1024, batch_size=256, verbose=0, device="cpu")
    model.set_random_seed(seed)
    model.learn(total_timesteps=steps)
    env.close()
    return model


def eval_action_mask(env_fn: Any, model: MaskablePPO, num_games: int = 20, **env_kwargs: Any) -> dict[str, Any]:
    """The model (second seat) against random legal moves (first seat), as in the tutorial's evaluation."""
    env = env_fn(**env_kwargs)
    first, second = env.possible_agents[0], env.possible_agents[1]
    wins = {a: 0 for a in env.possible_agents}
    ties = 0
    for i in range(num_games):
        env.reset(seed=i)
        env.action_space(first).seed(i)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            observation, action_mask = obs.values()
            if termination or truncation:
                if len(set(env.rewards.values())) == 1:
                    ties += 1
                else:
                    wins[max(env.rewards, key=env.rewards.get)] += 1
                break
            if agent == first:
                act = env.action_space(agent).sample(action_mask)
            else:
                act = int(model.predict(observation, action_masks=action_mask, deterministic=True)[0])
            env.step(act)
    env.close()
    return {"games": num_games, "wins": wins, "ties": ties, "model_win_rate": (wins[second] + 0.5 * ties) / num_games}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ohmygoods_training.pettingzoo_recipe", description=__doc__.split("\n")[0]
    )
    p.add_argument("--steps", type=int, default=4096)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    import ohmygoods_env

    model = train_action_mask(ohmygoods_env.env, steps=args.steps, seed=args.seed)
    print(eval_action_mask(ohmygoods_env.env, model, num_games=args.games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
