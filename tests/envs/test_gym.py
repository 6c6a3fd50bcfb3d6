"""Single-agent Gymnasium env: check_env, registration, opponents, seeding, illegal actions."""

from __future__ import annotations

import importlib
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import ohmygoods_env.envs
from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game, IllegalActionError
from ohmygoods_env.envs.gym_env import ENV_ID_GYM, LearnerConfig, LearnerGames, OhMyGoodsEnv, obs_high
from ohmygoods_env.policy import RandomAgent


def _first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _last_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def _play(env: OhMyGoodsEnv, rng: np.random.Generator, max_steps: int = 5000) -> tuple[float, dict, int]:
    for n in range(1, max_steps):
        obs, r, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            return r, info, n
        assert r == 0.0
        assert info["action_mask"].any()
    raise AssertionError("game did not end")


@pytest.mark.parametrize(("num_players", "rules", "seat"), [(2, "omg2", 0), (3, "royal", "random"), (4, "omg2", 3)])
def test_check_env_passes(num_players: int, rules: str, seat: int | str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        warnings.filterwarnings("ignore", message=".*alternative render modes.*")
        check_env(OhMyGoodsEnv(num_players=num_players, rules=rules, learner_seat=seat))


def test_registered_and_registration_is_idempotent() -> None:
    assert ENV_ID_GYM == "ohmygoods/OhMyGoods-v2" and ENV_ID_GYM in gym.registry
    importlib.reload(ohmygoods_env.envs)  # must not register twice (gymnasium would warn)
    env = gym.make(ENV_ID_GYM, num_players=3, learner_seat=1)
    check_env(env.unwrapped)
    obs, info = env.reset(seed=4)
    assert obs.shape == (L.OBS_DIM,) and info["seat"] == 1
    assert env.unwrapped.games.current_player[0] == 1


def test_learner_moves_only_at_its_seat_and_sees_its_own_view() -> None:
    env = OhMyGoodsEnv(num_players=3, learner_seat="random", opponents=_first_legal)
    rng = np.random.default_rng(0)
    seats = set()
    for ep in range(6):
        obs, info = env.reset(seed=ep)
        seats.add(info["seat"])
        game = Game(3, seed=int(env.games.seeds[0]))  # the env knows it; info never shows it
        while not game.done and game.current_player != info["seat"]:
            game.step(_first_legal(None, game.legal_mask()))
        np.testing.assert_array_equal(obs, game.observe(info["seat"]))
        for _ in range(40):
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            np.testing.assert_array_equal(env.action_masks(), game.legal_mask().astype(bool))
            obs, r, terminated, truncated, info = env.step(a)
            game.step(a)
            while not game.done and game.current_player != info["seat"]:
                game.step(_first_legal(None, game.legal_mask()))
            np.testing.assert_array_equal(env.games.state[0], game.state)
            np.testing.assert_array_equal(obs, game.observe(info["seat"]))
            if terminated:
                assert r == game.rewards()[info["seat"]]
                break
    assert len(seats) > 1


def test_reset_seed_is_deterministic_and_game_seed_option() -> None:
    env = OhMyGoodsEnv(num_players=2, learner_seat="random")
    o1, i1 = env.reset(seed=7)
    s1 = env.games.state.copy()
    o2, i2 = env.reset(seed=7)
    np.testing.assert_array_equal(o1, o2)
    np.testing.assert_array_equal(s1, env.games.state)
    first = int(env.games.seeds[0])
    env.reset(seed=8)
    assert int(env.games.seeds[0]) != first
    env.reset(options={"game_seed": first})
    np.testing.assert_array_equal(s1, env.games.state)


def test_full_episodes_with_random_opponents() -> None:
    env = OhMyGoodsEnv(num_players=2, reward="margin")
    rng = np.random.default_rng(1)
    for ep in range(3):
        env.reset(seed=ep)
        r, info, _ = _play(env, rng)
        assert r == info["rewards"][env.seat]
        assert info["rewards"].sum() == 0 and not info["illegal_action"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_illegal_action_penalty_by_default_and_raise_on_request() -> None:
    env = OhMyGoodsEnv(num_players=3)
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, r, terminated, truncated, info = env.step(bad)
    assert terminated and r == -1.0 and info["illegal_action"]
    np.testing.assert_array_equal(info["rewards"], np.roll([-1.0, 0.5, 0.5], env.seat))
    env = OhMyGoodsEnv(num_players=2, illegal="raise")
    env.reset(seed=0)
    state = env.games.state.copy()
    with pytest.raises(IllegalActionError, match=f"game 0: action {bad}"):
        env.step(bad)
    np.testing.assert_array_equal(state, env.games.state)


class _ActOnly:
    def __init__(self) -> None:
        self.calls = 0

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        self.calls += 1
        assert observation.shape == (L.OBS_DIM,) and observation.dtype == np.float32
        return _last_legal(observation, mask)


class _Batched:
    def __init__(self) -> None:
        self.sizes: list[int] = []

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise AssertionError("act_batch should be used")

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.shape == (masks.shape[0], L.OBS_DIM) and masks.dtype == np.int8
        self.sizes.append(masks.shape[0])
        return np.array([_first_legal(o, m) for o, m in zip(observations, masks, strict=True)])


def test_opponent_protocol_callable_act_and_act_batch() -> None:
    act_only, batched = _ActOnly(), _Batched()
    lg = LearnerGames(5, LearnerConfig(3, opponents=[act_only, batched], learner_seat=0, illegal="raise"), seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert (lg.games.current_player[~lg.done] == 0).all()
        masks = lg.masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        lg.step(acts)
        lg.reset()
    assert act_only.calls > 0 and max(batched.sizes) > 1
    # each opponent is asked at its own seat (seat after the learner's first), seeing its own view
    holder: list[LearnerGames] = []

    def at(rel: int):
        def policy(obs: np.ndarray, mask: np.ndarray) -> int:
            if not holder:  # moves before the learner's first turn, while the batch is built
                return _first_legal(obs, mask)
            lg2 = holder[0]
            cur = int(lg2.games.state[0, L.F_CUR])
            assert cur == (int(lg2.seat[0]) + rel) % 3
            np.testing.assert_array_equal(obs, lg2.games.observe(players=[cur], rows=[0])[0])
            np.testing.assert_array_equal(mask, lg2.games.masks()[0])
            calls[rel] += 1
            return _first_legal(obs, mask)

        return policy

    calls = {1: 0, 2: 0}
    holder.append(LearnerGames(1, LearnerConfig(3, opponents=[at(1), at(2)], learner_seat=2, illegal="raise"), seed=2))
    lg2 = holder[0]
    for _ in range(30):
        if lg2.done[0]:
            break
        lg2.step(np.array([np.flatnonzero(lg2.masks()[0])[0]]))
    assert calls[1] > 0 and calls[2] > 0


def test_random_opponent() -> None:
    opp = RandomAgent(seed=3)
    g = Game(2, seed=0)
    mask = g.legal_mask()
    assert mask[opp.act(np.zeros(L.OBS_DIM, np.float32), mask)] == 1
    masks = np.stack([mask] * 100)
    acts = opp.act_batch(np.zeros((100, L.OBS_DIM), np.float32), masks)
    assert masks[np.arange(100), acts].all()
    assert len(set(acts.tolist())) > 1 or mask.sum() == 1
    opp.seed(3)
    np.testing.assert_array_equal(opp.act_batch(None, masks[:5]), RandomAgent(3).act_batch(None, masks[:5]))


def test_arguments_are_checked_and_bounds_hold() -> None:
    with pytest.raises(ValueError):
        OhMyGoodsEnv(learner_seat=2)
    with pytest.raises(ValueError):
        OhMyGoodsEnv(num_players=3, opponents=[_first_legal])
    with pytest.raises(ValueError):
        OhMyGoodsEnv(render_mode="human")
    env = OhMyGoodsEnv(render_mode="ansi")
    env.reset(seed=0)
    assert "learner is seat 0" in env.render()
    assert obs_high() >= 20 and obs_high(max_rounds=1000) == 50


def test_ansi_render_of_a_finished_game_names_scores_and_winners() -> None:
    env = OhMyGoodsEnv(num_players=3, opponents="random", render_mode="ansi")
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    line = env.render()
    game = env.unwrapped._lg.games.game(0)
    assert "game over" in line and "player -1" not in line and "to decide" not in line
    for p, (score, coins) in enumerate(game.scores()):
        assert f"seat {p} {score} ({coins} coins)" in line
    assert line.split("won by ")[1].startswith(" and ".join(f"seat {p}" for p in game.winners()))


def test_batch_policy_passes_each_opponent_what_it_asks_for() -> None:
    """BatchPolicy: observations of the acting seat (or zeros when not needed), masks, and the
    redacted information state — never the true state — for opponents that read it."""
    from ohmygoods_env.batch import BatchGames
    from ohmygoods_env.infostate import redact
    from ohmygoods_env.policy import BatchPolicy

    b = BatchGames(4, num_players=3, seed=8)
    rng = np.random.default_rng(0)
    for _ in range(30):  # somewhere mid-game
        b.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in b.masks()]))
    rows = np.array([0, 2, 3], np.int64)
    seen: dict[str, object] = {}

    class Spy:
        def __init__(self, needs_obs: bool, needs_info: bool) -> None:
            self.needs_observation, self.needs_info_state = needs_obs, needs_info

        def act_batch(self, obs, masks, infos=None):
            seen.update(obs=np.array(obs), masks=np.array(masks), infos=None if infos is None else np.array(infos))
            return [int(np.flatnonzero(m)[0]) for m in masks]

    acts = BatchPolicy(Spy(True, True))(b, rows)
    assert acts.dtype == np.int64 and acts.shape == (3,)
    np.testing.assert_array_equal(seen["obs"], b.observe(rows=rows))
    np.testing.assert_array_equal(seen["masks"], b.masks()[rows])
    for j, i in enumerate(rows):
        expected = np.zeros(L.STATE_LEN, np.int32)
        redact(b.state[i], int(b.state[i, L.F_CUR]), expected)
        np.testing.assert_array_equal(seen["infos"][j], expected)
        assert seen["infos"][j][L.F_RNG] == 0 and not np.array_equal(seen["infos"][j], b.state[i])
    BatchPolicy(Spy(False, False))(b, rows)
    assert not seen["obs"].any() and seen["obs"].shape == (3, L.OBS_DIM) and seen["infos"] is None
    calls = []
    plain = BatchPolicy(lambda o, m: calls.append(o.shape) or int(np.flatnonzero(m)[-1]))  # a bare callable
    np.testing.assert_array_equal(plain(b, rows), [int(np.flatnonzero(m)[-1]) for m in b.masks()[rows]])
    assert calls == [(L.OBS_DIM,)] * 3


# ------------------------------------------------------------------ nothing in info rebuilds the deal


def test_info_holds_no_game_seed_and_nothing_hidden() -> None:
    """Info keys are a fixed public set; ``episode`` counts games from the seeded reset and is the
    same for different seeds; no info value is the game seed; info is identical under swaps of
    cards hidden from the learner."""
    import copy

    from ohmygoods_env.infostate import hidden_cards, swap_cards

    public = {"action_mask", "seat", "episode", "rewards", "illegal_action"}
    a, b = OhMyGoodsEnv(num_players=3), OhMyGoodsEnv(num_players=3)
    _, ia = a.reset(seed=1)
    _, ib = b.reset(seed=2)
    assert ia["episode"] == ib["episode"] == 0 and int(a.games.seeds[0]) != int(b.games.seeds[0])
    assert a.reset()[1]["episode"] == 1 and a.reset(seed=1)[1]["episode"] == 0
    rng = np.random.default_rng(4)
    swaps = 0
    for ep in range(4):
        _, info = a.reset(seed=10 + ep)
        seed = int(a.games.seeds[0])
        for step in range(400):
            assert set(info) <= public
            values = [v for v in info.values() if np.ndim(v) == 0]
            assert seed not in values and (seed & 0xFFFFFFFF) not in values
            if step % 25 == 5:
                me = a.seat
                hidden = hidden_cards(a.games.state[0], me)
                if len(hidden) >= 2:
                    twin = copy.deepcopy(a)
                    for _ in range(50):  # two cards in the same place (one hand) swap to the same row
                        c1, c2 = rng.choice(hidden, 2, replace=False)
                        swap_cards(twin.games.state[0], int(c1), int(c2))
                        if not np.array_equal(twin.games.state[0], a.games.state[0]):
                            break
                    assert not np.array_equal(twin.games.state[0], a.games.state[0])
                    mine, theirs = a._info(), twin._info()
                    assert mine.keys() == theirs.keys()
                    for k in mine:
                        np.testing.assert_array_equal(mine[k], theirs[k])
                    swaps += 1
            _, _, te, tr, info = a.step(int(rng.choice(np.flatnonzero(a.action_masks()))))
            if te or tr:
                assert set(info) <= public
                break
    assert swaps >= 8


# ------------------------------------------------------------------ copies and pickles


def _finish(env: OhMyGoodsEnv, actions_seed: int) -> list:
    """Play ``env`` to the end with a fixed action stream; the trace of everything it returns."""
    rng = np.random.default_rng(actions_seed)
    trace = []
    for _ in range(5000):
        mask = env.action_masks()
        obs, r, te, tr, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        trace.append((obs, r, te, tr, info["action_mask"], info["seat"], info["episode"], mask))
        if te or tr:
            trace.append(tuple(info["rewards"]))
            return trace
    raise AssertionError("game did not end")


@pytest.mark.parametrize("opponents", [None, "heuristic", ["greedy", "random"]])
def test_copy_and_pickle_play_on_exactly_like_the_original(opponents) -> None:
    import copy
    import pickle

    import ohmygoods_agents  # noqa: F401  (registers the agent names)

    env = OhMyGoodsEnv(num_players=3, opponents=opponents, learner_seat="random")
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(30):  # mid-game
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    want = _finish(env, 9)
    assert want[-2][2] is True  # the original ended (terminated) with final rewards
    for c in copies:
        got = _finish(c, 9)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            for x, y in zip(g, w, strict=True):
                np.testing.assert_array_equal(x, y)


# ------------------------------------------------------------------ bad actions


@pytest.mark.parametrize(
    ("action", "error", "match"),
    [
        ("3", TypeError, r"int action id in 0\.\.\d+.*str"),
        (None, TypeError, r"int action id in 0\.\.\d+.*NoneType"),
        (2**70, ValueError, r"out of range: expected an int action id in 0\.\.\d+"),
        (-1, ValueError, "out of range"),
        (L.N_ACTIONS, ValueError, "out of range"),
        (True, TypeError, "bool"),
        (1.0, TypeError, "float"),
        (np.array([1, 2]), TypeError, "ndarray"),
    ],
)
def test_step_with_something_that_is_not_an_action_id(action, error, match) -> None:
    env = OhMyGoodsEnv(num_players=2)
    env.reset(seed=3)
    before = env.games.state.copy()
    mask = env.action_masks().copy()
    with pytest.raises(error, match=match):
        env.step(action)
    np.testing.assert_array_equal(env.games.state, before)
    np.testing.assert_array_equal(env.action_masks(), mask)
    _, _, te, _, _ = env.step(np.int64(np.flatnonzero(mask)[0]))  # still plays on
    assert not te


# ------------------------------------------------------------------ opponents by name, the registry


def test_opponents_by_name_and_spec() -> None:
    import ohmygoods_agents  # noqa: F401  (registers the agent names)
    from ohmygoods_agents.checkpoint import PolicyAgent
    from ohmygoods_agents.heuristic import HeuristicAgent
    from ohmygoods_agents.mcts import MCTSAgent

    env = OhMyGoodsEnv(num_players=2, opponents="heuristic")
    assert isinstance(env.opponents[0], HeuristicAgent)
    env = OhMyGoodsEnv(num_players=3, opponents=["mcts", "ppo"])
    assert isinstance(env.opponents[0], MCTSAgent) and isinstance(env.opponents[1], PolicyAgent)
    assert env.opponents[1].name == "ppo"
    with pytest.raises(ValueError, match="unknown agent 'alphago'"):
        OhMyGoodsEnv(num_players=2, opponents="alphago")
    # the heuristic plays from its redacted information state; the game goes to the end
    env = gym.make(ENV_ID_GYM, num_players=2, opponents="heuristic").unwrapped
    env.reset(seed=0)
    _, info, _ = _play(env, np.random.default_rng(0))
    assert set(info["rewards"]) <= {-1.0, 0.0, 1.0}


def _declared_entry_points():
    """The entry points of the agents group ``ohmygoods.game_agents`` declared in pyproject.toml."""
    from importlib import metadata
    from pathlib import Path

    import tomllib

    root = Path(__file__).resolve().parents[2]
    table = tomllib.loads((root / "pyproject.toml").read_text())["project"]["entry-points"]["ohmygoods.game_agents"]
    return [metadata.EntryPoint(name=k, value=v, group="ohmygoods.game_agents") for k, v in table.items()]


def test_env_names_resolve_through_entry_points(monkeypatch) -> None:
    """With the names not registered, the envs find them through the entry point group, as an
    installed package declares it (pyproject.toml); the real declared entry points all load."""
    from ohmygoods_env import policy
    from ohmygoods_env.framework import agents as fa

    declared = _declared_entry_points()
    assert {ep.name for ep in declared} >= {f"ohmygoods.{n}" for n in ("greedy", "heuristic", "mcts", "ppo", "sb3")}
    only_random = {"*": dict(fa._REGISTRY["*"]), "ohmygoods": {"random": fa._REGISTRY["ohmygoods"]["random"]}}
    monkeypatch.setattr(fa, "_REGISTRY", {k: dict(v) for k, v in only_random.items()})
    real, ours = fa.metadata.entry_points, (fa.ENTRY_POINT_GROUP, policy.ENTRY_POINT_GROUP)

    def entry_points(declared: list, **kw):  # the agent groups as declared; any other group (numba's) as installed
        return [e for e in declared if e.group == kw["group"]] if kw.get("group") in ours else real(**kw)

    monkeypatch.setattr(fa.metadata, "entry_points", lambda **kw: entry_points(declared, **kw))
    assert "heuristic" in policy.agent_names()
    env = OhMyGoodsEnv(num_players=2, opponents="heuristic")
    assert type(env.opponents[0]).__name__ == "HeuristicAgent"
    for ep in declared:
        assert callable(ep.load())
    monkeypatch.setattr(fa.metadata, "entry_points", lambda **kw: entry_points([], **kw))
    monkeypatch.setattr(fa, "_REGISTRY", {k: dict(v) for k, v in only_random.items()})
    with pytest.raises(ValueError, match="ohmygoods.game_agents"):
        OhMyGoodsEnv(num_players=2, opponents="heuristic")


def test_installed_entry_points_match_pyproject() -> None:
    from importlib import metadata

    installed = {ep.name: ep.value for ep in metadata.entry_points(group="ohmygoods.game_agents")}
    if "ohmygoods.heuristic" not in installed:
        pytest.skip(
            "the installed distribution predates the ohmygoods.game_agents entry points (reinstall: pip install -e .)"
        )
    assert installed == {ep.name: ep.value for ep in _declared_entry_points()}


def test_envs_do_not_import_the_agents_package() -> None:
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, ohmygoods_env.envs, ohmygoods_env.envs.vector, ohmygoods_env.policy; "
        "from ohmygoods_env.envs.gym_env import OhMyGoodsEnv; OhMyGoodsEnv(num_players=2).reset(seed=0); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ohmygoods_agents', 'ohmygoods_training')))"
    )
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# ------------------------------------------------------------------ env ids, solo


def test_v0_and_v1_ids_fail_naming_v2() -> None:
    """Layout v2 added the rounds left (R10.4): the earlier ids fail, naming the current one."""
    assert ENV_ID_GYM == "ohmygoods/OhMyGoods-v2"
    for old in ("ohmygoods/OhMyGoods-v0", "ohmygoods/OhMyGoods-v1"):
        with pytest.raises(gym.error.Error, match="ohmygoods/OhMyGoods-v2"):
            gym.make(old)
        with pytest.raises(gym.error.Error, match="ohmygoods/OhMyGoods-v2"):
            gym.make_vec(old, num_envs=2)


def test_solo_game_without_opponents() -> None:
    env = OhMyGoodsEnv(num_players=1)
    assert env.opponents == []
    with pytest.raises(ValueError, match="one opponent per other seat, 0 at num_players=1, got 1"):
        OhMyGoodsEnv(num_players=1, opponents=["random"])
    check_env(OhMyGoodsEnv(num_players=1))
    _, info = env.reset(seed=0)
    assert info["seat"] == 0
    r, info, n = _play(env, np.random.default_rng(1))
    assert n > 20 and info["rewards"].shape == (1,) and r == info["rewards"][0]
