"""The learner envs' one frozen config, and one spelling per option in every env."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import warnings

import numpy as np
import pytest

from ohmygoods_env.cards import default_cards
from ohmygoods_env.envs import OhMyGoodsParallelEnv, parallel_env, raw_env
from ohmygoods_env.envs.batched import BatchEnv
from ohmygoods_env.envs.gym_env import OhMyGoodsEnv
from ohmygoods_env.envs.learner import DEPRECATED_OPTIONS, LearnerConfig, LearnerGames
from ohmygoods_env.envs.vector import OhMyGoodsVectorEnv

#: each learner env and the LearnerGames it plays
LEARNER_ENVS = {
    "gymnasium": (lambda **kw: OhMyGoodsEnv(**kw), lambda env: env.learner_games),
    "vector": (lambda **kw: OhMyGoodsVectorEnv(2, **kw), lambda env: env.learner_games),
}
#: every env with a final reward, built with ``reward=`` (the one spelling)
EVERY_ENV = {
    "aec": lambda **kw: raw_env(**kw),
    "parallel": lambda **kw: parallel_env(**kw),
    "batched": lambda **kw: BatchEnv(2, seed=0, **kw),
}
try:  # stable-baselines3 is an optional extra
    from ohmygoods_env.envs.sb3 import OhMyGoodsVecEnv
    from ohmygoods_env.envs.seat_vec import SeatVecEnv
except ImportError:  # pragma: no cover - without the sb3 extra
    OhMyGoodsVecEnv = SeatVecEnv = None
else:
    LEARNER_ENVS["sb3"] = (lambda **kw: OhMyGoodsVecEnv(2, seed=0, **kw), lambda env: env.learner_games)
    EVERY_ENV["seat_vec"] = lambda **kw: SeatVecEnv(2, seed=0, **kw)
EVERY_ENV.update({name: make for name, (make, _) in LEARNER_ENVS.items()})


def _reward_mode(env) -> str:
    """The reward mode the env's games end with (the batch's, the AEC/parallel env's)."""
    games = getattr(env, "games", None)
    return games.reward_mode if games is not None else env.reward_mode


def test_config_is_frozen_and_copies() -> None:
    cfg = LearnerConfig(3, opponents=["random", "random"], reward="margin", rule_options={"max_rounds": 5})
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.reward = "score"  # type: ignore[misc]
    assert cfg.opponents == ("random", "random")  # a list is taken as a tuple: nothing inside can change
    assert cfg.rule_options == (("max_rounds", 5),)
    assert pickle.loads(pickle.dumps(cfg)) == cfg == copy.deepcopy(cfg)
    changed = cfg.replace(reward="score", auto_forced=False)
    assert (changed.reward, dict(changed.rule_options)) == ("score", {"max_rounds": 5, "auto_forced": False})
    assert cfg.reward == "margin"  # replace made a copy


@pytest.mark.parametrize("name", sorted(LEARNER_ENVS))
def test_every_learner_env_forwards_the_one_config(name: str) -> None:
    make, games_of = LEARNER_ENVS[name]
    cfg = LearnerConfig(3, opponents="random", learner_seat="random", reward="margin", rule_options={"max_rounds": 6})
    env = make(config=cfg)
    assert env.config is cfg and games_of(env).config is cfg
    lg = games_of(env)
    g = lg.games
    assert (lg.num_players, g.reward_mode, g.rules.max_rounds, g.illegal) == (3, "margin", 6, "penalty")
    # the same options by name make an equal config, and the same games
    by_name = make(num_players=3, opponents="random", learner_seat="random", reward="margin", max_rounds=6)
    assert by_name.config == cfg
    np.testing.assert_array_equal(games_of(by_name).games.state, lg.games.state)


def test_positional_options_keep_the_old_order() -> None:
    """Positional options fill the fields in the adapters' old order: num_players, rules, opponents,
    learner_seat, reward, illegal, penalty, max_steps, cards."""
    env = OhMyGoodsEnv(3, "royal", None, 2, "score", "raise", -2.0, 50)
    assert env.config == LearnerConfig(3, "royal", None, 2, "score", "raise", -2.0, 50)
    assert (env.games.rules.num_players, env.games.reward_mode, env.games.illegal, env.games.penalty) == (
        3,
        "score",
        "raise",
        -2.0,
    )
    assert OhMyGoodsVectorEnv(2, 4).config.num_players == 4
    assert OhMyGoodsVectorEnv(2, LearnerConfig(num_players=3)).config.num_players == 3  # a config positionally


@pytest.mark.parametrize("name", sorted(EVERY_ENV))
def test_reward_is_spelled_reward_in_every_env(name: str) -> None:
    env = EVERY_ENV[name](reward="score")
    assert _reward_mode(env) == "score"
    with pytest.raises(ValueError, match=r"reward must be one of \['win', 'score', 'margin'\], got 'points'"):
        EVERY_ENV[name](reward="points")


@pytest.mark.parametrize("name", sorted(LEARNER_ENVS))
def test_reward_mode_still_works_with_a_deprecation_warning(name: str) -> None:
    make, games_of = LEARNER_ENVS[name]
    with pytest.warns(DeprecationWarning, match=r"reward_mode= is deprecated: use reward="):
        env = make(reward_mode="margin")
    assert env.config.reward == "margin" and games_of(env).games.reward_mode == "margin"
    with pytest.raises(TypeError, match="reward= only"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        make(reward="win", reward_mode="margin")


def test_the_deprecation_points_at_the_caller() -> None:
    with pytest.warns(DeprecationWarning) as caught:
        OhMyGoodsEnv(reward_mode="score")
    assert caught[0].filename == __file__


def test_bad_configs_are_refused_naming_the_option() -> None:
    with pytest.raises(ValueError, match="reward must be one of"):
        LearnerConfig(reward="points")
    with pytest.raises(ValueError, match="learner_seat must be an int seat or 'random', got 'left'"):
        LearnerConfig(learner_seat="left")
    with pytest.raises(TypeError, match="rule_options must map option names"):
        LearnerConfig(rule_options=[(1, 2)])
    with pytest.raises(TypeError, match="config must be a LearnerConfig"):
        LearnerGames(2, config={"num_players": 3})
    with pytest.raises(TypeError, match="config must be a LearnerConfig"):
        OhMyGoodsEnv(config={"num_players": 3})
    with pytest.raises(TypeError, match="num_players given twice"):
        OhMyGoodsEnv(3, num_players=2)
    with pytest.raises(TypeError, match="at most 9 positional options"):
        OhMyGoodsEnv(2, "omg2", None, 0, "win", "penalty", -1.0, None, None, "extra")


@pytest.mark.parametrize("name", sorted(EVERY_ENV))
def test_cards_is_spelled_cards_in_every_env(name: str) -> None:
    """``cards=`` reaches the games of every env, the PettingZoo envs' reset games included."""
    cards = copy.deepcopy(default_cards())  # the shipped tables, as an object of their own
    env = EVERY_ENV[name](cards=cards)
    if hasattr(env, "possible_agents"):
        env.reset(seed=3)
        assert env.game.cards is cards
    else:
        assert env.games.cards is cards


def test_no_env_signature_uses_a_deprecated_spelling() -> None:
    classes = [raw_env, OhMyGoodsParallelEnv, BatchEnv, OhMyGoodsEnv, OhMyGoodsVectorEnv, LearnerConfig]
    if OhMyGoodsVecEnv is not None:
        classes += [OhMyGoodsVecEnv, SeatVecEnv]
    for cls in classes:
        names = set(inspect.signature(cls).parameters)
        assert not names & set(DEPRECATED_OPTIONS), (cls.__name__, sorted(names & set(DEPRECATED_OPTIONS)))
        assert "reward" in names or {"args", "options"} <= names, cls.__name__
