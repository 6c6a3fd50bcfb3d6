"""One AEC and one parallel env for every game: *Oh my Goods!*'s envs are the framework's, shaped by its spec's hooks.

* The registered ids ``ohmygoods/oh_my_goods-v2`` build the framework's classes
  (:class:`GameAECEnv`, :class:`GameParallelEnv`); the game's ``raw_env`` and
  ``OhMyGoodsParallelEnv`` hold no step, observe or reset logic of their own.
* A game without hooks (*Goofspiel*, *Artificium*) gets the generic infos (``to_act``,
  ``winner``), no ``state()`` and the text render modes; *Oh my Goods!* gets its own keys,
  ``state()``, pictures and the engine's error words, from the same classes.
* The AEC env's mid-game info update (only the seat that acted and the seat to act get new
  dicts) gives every game the infos a full rebuild gives, and never changes a dict handed out.
"""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest

import ohmygoods_env  # noqa: F401  (declares the games and registers the ids)
from ohmygoods_env import layout as L
from ohmygoods_env.envs import ENV_ID, OhMyGoodsParallelEnv, make, raw_env
from ohmygoods_env.framework.env_hooks import GENERIC_INFO_KEYS
from ohmygoods_env.framework.envs import GameAECEnv, GameParallelEnv, aec_env, parallel_env
from ohmygoods_env.framework.envs.common import seat_infos
from ohmygoods_env.framework.game import IllegalActionError, game_spec
from ohmygoods_env.game_spec import INFO_KEYS


def test_the_registered_ids_build_the_framework_envs() -> None:
    aec = pettingzoo.make("aec", ENV_ID, num_players=3)
    par = pettingzoo.make("parallel", ENV_ID, num_players=3)
    assert isinstance(aec.unwrapped, GameAECEnv) and isinstance(par, GameParallelEnv)
    assert isinstance(make(ENV_ID).unwrapped, GameAECEnv) and isinstance(make(ENV_ID, parallel=True), GameParallelEnv)
    assert aec.unwrapped.setup.spec is par.setup.spec is game_spec("ohmygoods")
    # the game's names translate the argument spelling only: no second step/observe/reset/info logic
    for cls in (raw_env, OhMyGoodsParallelEnv):
        own = set(vars(cls)) & {"step", "observe", "reset", "last", "state", "render", "_infos", "_check", "_apply"}
        assert not own, (cls.__name__, sorted(own))


@pytest.mark.parametrize(("game", "n"), [("goofspiel", 3), ("artificium", 3), ("ohmygoods", 3)])
def test_each_game_gets_its_spec_s_infos_state_and_render_modes(game: str, n: int) -> None:
    keys = INFO_KEYS if game == "ohmygoods" else GENERIC_INFO_KEYS
    aec = aec_env(game, num_players=n)
    aec.reset(seed=1)
    par = parallel_env(game, num_players=n)
    _, infos = par.reset(seed=1)
    for got in (aec.infos, infos):
        assert set(got) == set(aec.possible_agents) and all(tuple(i) == keys for i in got.values())
    pictures = {"rgb_array", "svg"} if game == "ohmygoods" else set()
    for env in (aec.unwrapped, par):
        assert set(env.metadata["render_modes"]) == {"human", "ansi"} | pictures
        if game == "ohmygoods":
            assert env.metadata["name"] == f"oh_my_goods_v{L.LAYOUT_VERSION}" and env.metadata["render_fps"] == 2
            assert env.state_space.contains(env.state())
        else:
            assert not hasattr(env, "state_space") and "render_fps" not in env.metadata
            with pytest.raises(NotImplementedError, match="declares no global state"):
                env.state()


@pytest.mark.parametrize(("game", "n"), [("goofspiel", 3), ("artificium", 4), ("ohmygoods", 2)])
def test_mid_game_info_updates_equal_a_full_rebuild_and_keep_old_dicts(game: str, n: int) -> None:
    env = GameAECEnv(game, num_players=n)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    hooks = env.setup.hooks
    held = []
    steps = 0
    while env.agents:
        m = env._model
        acting = (m.current_player,) if m.current_player >= 0 else ()
        assert env.infos == seat_infos(m, env.agents, env.agent_name_mapping, acting, hooks.info), steps
        obs, _, term, trunc, info = env.last()
        held.append((info, dict(info)))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps > 10 and all(info == copy for info, copy in held)


@pytest.mark.parametrize("game", ["goofspiel", "ohmygoods"])
def test_error_words_are_the_engine_s_where_the_model_checks_its_actions(game: str) -> None:
    env = GameAECEnv(game, num_players=2)
    env.reset(seed=2)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError) as err:
        env.step(illegal)
    with pytest.raises(ValueError, match="out of range") as out:
        env.step(10**6)
    if game == "ohmygoods":  # Game.step's words: the action described, the player and the decision
        decision = env.game.game.decision_name
        assert f"is illegal for player {env.agent_name_mapping[agent]} in decision '{decision}'" in str(err.value)
        assert str(out.value).endswith(f"({agent}, decision '{decision}')")
    else:  # the framework's check against the mask
        assert str(err.value).endswith(f"({agent})") and str(out.value).endswith(f"({agent})")


def _counting(fn, calls: list[int]):
    def counted(*args):
        calls[0] += 1
        return fn(*args)

    return counted


@pytest.mark.parametrize("n", [1, 2, 4])
def test_the_stepper_steps_and_observes_in_one_call_with_the_same_trace(n: int) -> None:
    """With the spec's ``stepper`` (EnvHooks) a mid-game step is one call that also observes the seat to act:
    ``last()`` then asks no observe kernel, except after a reset and for the dead steps at the end. Every
    step's observation, mask, reward, flags and info equal those of the same env without the stepper."""
    traces = []
    for with_stepper in (True, False):
        env = GameAECEnv("ohmygoods", num_players=n)
        steps, observes = [0], [0]
        make = env._make_stepper if with_stepper else None
        env._make_stepper = (
            None if make is None else (lambda model, make=make, steps=steps: _counting(make(model), steps))
        )
        env._fused = _counting(env._fused, observes)
        env.reset(seed=11)
        rng = np.random.default_rng(11)
        trace = []
        while env.agents:
            obs, reward, term, trunc, info = env.last()
            trace.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc, info))
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        moves = sum(1 for t in trace if not (t[3] or t[4]))
        assert moves > 40
        if with_stepper:
            assert (steps[0], observes[0]) == (moves, 1 + n)  # the first seat's, each dead step's
        else:
            assert (steps[0], observes[0]) == (0, len(trace))
        traces.append(trace)
    assert traces[0] == traces[1]


def test_order_enforcing_keeps_its_checks_once_the_env_steps_itself() -> None:
    """After a reset the wrapper's ``last`` and ``step`` are the env's own; its ``agent_iter`` still refuses
    two agents without a step between them, and a step with no agent left still warns."""
    env = make(ENV_ID, num_players=2)
    env.reset(seed=3)
    agents = iter(env.agent_iter())
    first = next(agents)
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert next(agents) == env.agent_selection and first in env.possible_agents
