"""BatchGames: same games as ``Game`` step by step, seeds, resets, illegal actions, kernels."""

from __future__ import annotations

import numpy as np
import pytest
from reference_obs import OBSERVE_CASES, reference_observations

from ohmygoods_env import layout as L
from ohmygoods_env.batch import (
    PARALLEL_MIN,
    BatchGames,
    episode_seed,
    make_rng,
    nth_legal,
    random_actions,
)
from ohmygoods_env.engine import Game, IllegalActionError

CONFIGS = [(2, "omg2"), (3, "omg2"), (4, "omg2"), (2, "royal"), (4, "royal")]


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _assert_same(b: BatchGames, i: int, game: Game, mode: str = "win") -> None:
    """Game ``i`` of the batch equals ``game``: state, current player, mask, observation."""
    np.testing.assert_array_equal(b.state[i], game.state)
    np.testing.assert_array_equal(b.masks()[i], game.legal_mask())
    if game.done:
        assert b.terminated[i] and b.current_player[i] == -1
        return
    assert b.current_player[i] == game.current_player
    np.testing.assert_array_equal(b.observe(rows=[i])[0], game.observe(game.current_player))
    for p in range(game.num_players):
        np.testing.assert_array_equal(b.observe(players=[p], rows=[i])[0], game.observe(p))


@pytest.mark.parametrize(("num_games", "num_players", "rules", "options"), OBSERVE_CASES)
def test_observe_writes_the_bytes_of_core_observe(num_games: int, num_players: int, rules: str, options: dict) -> None:
    """``BatchGames.observe`` (``core.observe_seat`` from the card set's tables) is ``core.observe`` byte for
    byte: every seat, the player to act (-1), subsets of rows, every phase, finished games (hidden information:
    tests/engine/test_hidden_info.py holds ``core.observe`` to the rules)."""
    g = BatchGames(num_games, num_players, rules, seed=num_players + 20, **options)
    rng = make_rng(num_games, seed=6)
    games = np.arange(num_games)
    phases = set()
    for t in range(800):  # games of 3 and 4 players end after 400 to 700 steps
        g.step(random_actions(g.masks(copy=False), rng))
        if t % 7 == 0 or g.done.any():
            for p in range(-1, num_players):
                seats = np.full(num_games, p)
                obs = g.observe(seats)
                assert np.array_equal(obs.view(np.uint32), reference_observations(g, seats, games).view(np.uint32)), t
            rows = games[t % 2 :: 2]  # every other game, into a buffer of the caller's
            out = np.full((rows.size, L.OBS_DIM), np.nan, np.float32)
            g.observe(rows=rows, out=out)
            expected = reference_observations(g, np.full(rows.size, -1), rows)
            assert np.array_equal(out.view(np.uint32), expected.view(np.uint32)), t
            phases.update(g.state[:, L.F_PH].tolist())
        g.reset()
    assert {L.PH_P2, L.PH_P4, L.PH_OVER} <= phases


@pytest.mark.parametrize(("num_players", "rules"), CONFIGS)
def test_batch_plays_the_same_games_as_game(num_players: int, rules: str) -> None:
    n, seed = 3, 11
    b = BatchGames(n, num_players, rules, seed=seed, reward_mode="score")
    games = [Game(num_players, rules, seed=episode_seed(seed, i, 0)) for i in range(n)]
    rng = np.random.default_rng(num_players)
    for i in range(n):
        assert b.seeds[i] == episode_seed(seed, i, 0) == b.episode_seed(i)
        _assert_same(b, i, games[i])
    steps = 0
    while not all(g.done for g in games):
        actions = np.array([_pick(b.masks()[i], rng) if not games[i].done else 0 for i in range(n)])
        rewards, terminated, truncated = b.step(actions)
        steps += 1
        for i, g in enumerate(games):
            if g.done:
                assert rewards[i].sum() == 0  # ended earlier: no reward twice
                continue
            before = int(g.state[L.F_STEPS])
            g.step(int(actions[i]))
            _assert_same(b, i, g)
            assert not truncated[i]
            assert terminated[i] == g.done
            if g.done:
                np.testing.assert_array_equal(rewards[i], g.rewards("score"))
            else:
                assert not rewards[i].any()
            assert int(g.state[L.F_STEPS]) > before
    assert steps > 50
    assert b.decisions.sum() == sum(int(g.state[L.F_STEPS]) for g in games)


def test_reset_starts_the_next_episode_of_each_finished_slot() -> None:
    b = BatchGames(4, seed=5)
    rng = make_rng(4, 1)
    first_two = np.array([0, 1])
    while not b.terminated[:2].all():
        b.step(random_actions(b.masks()[:2], rng), rows=first_two)
    done = b.done.copy()
    rows = b.reset()
    np.testing.assert_array_equal(rows, np.flatnonzero(done))
    for i in range(4):
        e = 1 if done[i] else 0
        assert b.episode[i] == e
        assert b.seeds[i] == episode_seed(5, i, e)
        if done[i]:
            _assert_same(b, i, Game(2, seed=episode_seed(5, i, 1)))
    assert not b.done[rows].any()
    # an explicit mask restarts running games too; seed= restarts everything at episode 0
    b.reset(np.array([False, False, False, True]))
    assert b.episode[3] == 1
    b.reset(seed=9)
    assert (b.episode == 0).all()
    for i in range(4):
        _assert_same(b, i, Game(2, seed=episode_seed(9, i, 0)))


def test_a_game_depends_only_on_its_seed_not_on_batch_size_or_position() -> None:
    seeds = np.array([3, 2**64 - 7, 2**62, 12345], np.uint64)
    big = BatchGames(PARALLEL_MIN + 6, seed=0)  # multi-threaded kernels
    rows = np.array([0, 17, PARALLEL_MIN + 5, 40])
    big.start(rows, seeds)
    small = [BatchGames(1) for _ in seeds]
    for s, sb in zip(seeds, small, strict=True):
        sb.start(np.array([0]), np.array([s]))
    rng = make_rng(big.num_games, 3)
    for _ in range(300):
        acts = random_actions(big.masks(), rng)
        big.step(acts)
        for j, sb in enumerate(small):
            sb.step(acts[rows[j] : rows[j] + 1])
    for j, sb in enumerate(small):
        np.testing.assert_array_equal(big.state[rows[j]], sb.state[0])
        np.testing.assert_array_equal(big.masks()[rows[j]], sb.masks()[0])


def test_batch_seeds_are_game_seeds() -> None:
    b = BatchGames(8, seed=0)
    seeds = [0, 1, 2**64 - 1, 7, 2**31, 2**63 - 1, 2**63, 123456789012345]
    b.start(np.arange(8), seeds)
    for i, s in enumerate(seeds):
        assert b.state[i].tobytes() == Game(2, seed=s).state.tobytes()
        assert b.seed_of(i) == s and b.game(i).seed == s
    assert episode_seed(1, 0, 0) != episode_seed(1, 0, 1) != episode_seed(1, 1, 0)
    assert 0 <= episode_seed(2**64 - 5, 3, 2) < 2**63


def test_step_on_a_subset_of_rows_leaves_the_others() -> None:
    b = BatchGames(3, seed=2)
    before = b.state.copy()
    a = np.flatnonzero(b.masks()[1])[0]
    b.step(np.array([a]), rows=np.array([1]))
    np.testing.assert_array_equal(b.state[[0, 2]], before[[0, 2]])
    assert (b.state[1] != before[1]).any()


def test_raise_mode_checks_the_whole_batch_first() -> None:
    b = BatchGames(5, seed=4)
    legal = [int(np.flatnonzero(m)[0]) for m in b.masks()]
    illegal = int(np.flatnonzero(b.masks()[3] == 0)[0])
    actions = np.array(legal)
    actions[3] = illegal
    b.rewards[:] = 7.0  # not even the last step's rewards change
    state, masks = b.state.copy(), b.masks()
    dec = L.DECISION_NAMES[int(b.state[3, L.F_DEC])]
    with pytest.raises(IllegalActionError, match=rf"game 3: action {illegal} .*'{dec}'") as info:
        b.step(actions)
    assert isinstance(info.value, ValueError)
    np.testing.assert_array_equal(b.state, state)  # no game changed, not even the legal ones
    np.testing.assert_array_equal(b.masks(), masks)
    assert (b.rewards == 7.0).all() and not b.done.any()
    actions[3] = L.N_ACTIONS
    with pytest.raises(ValueError, match=f"game 3: action {L.N_ACTIONS} is out of range"):
        b.step(actions)
    with pytest.raises(ValueError, match="expected 5 actions"):
        b.step(actions[:4])
    with pytest.raises(TypeError):
        b.step(np.array([0.5] * 5))
    np.testing.assert_array_equal(b.state, state)


def test_penalty_mode_ends_the_offending_game_only() -> None:
    b = BatchGames(4, 3, seed=4, illegal="penalty", penalty=-2.0)
    cur = int(b.current_player[1])
    actions = np.array([int(np.flatnonzero(m)[0]) for m in b.masks()])
    actions[1] = int(np.flatnonzero(b.masks()[1] == 0)[0])
    untouched = b.state[1].copy()
    rewards, terminated, truncated = b.step(actions)
    assert terminated.tolist() == [False, True, False, False]
    assert b.penalised.tolist() == [False, True, False, False]
    expected = np.full(3, 1.0, np.float32)
    expected[cur] = -2.0
    np.testing.assert_array_equal(rewards[1], expected)
    assert rewards[1].sum() == 0
    np.testing.assert_array_equal(b.state[1], untouched)  # the engine state is left as it was
    assert b.current_player[1] == -1 and not b.masks()[1].any()
    # later actions for the finished game are ignored; reset brings it back
    rewards, terminated, _ = b.step(np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in b.masks()]))
    assert not rewards[1].any() and terminated[1]
    b.reset()
    assert not b.penalised.any() and not b.done.any()


def test_max_steps_truncates() -> None:
    b = BatchGames(2, seed=1, max_steps=20)
    rng = make_rng(2, 0)
    for _ in range(20):
        _, terminated, truncated = b.step(random_actions(b.masks(), rng))
        if truncated.all():
            break
    assert truncated.all() and not terminated.any()
    assert (b.state[:, L.F_STEPS] >= 20).all()
    assert (b.current_player == -1).all()


def test_play_random_until_a_seat_and_single_steps() -> None:
    b = BatchGames(6, 3, seed=8)
    rng = make_rng(6, 8)
    until = np.array([0, 1, 2, 0, 1, 2])
    b.play_random(rng, until=until)
    live = ~b.done
    assert (b.current_player[live] == until[live]).all()
    steps = b.state[:, L.F_STEPS].copy()
    b.play_random(rng)  # no ``until``: one action per game
    assert ((b.state[:, L.F_STEPS] > steps) | b.done).all()
    # to the end: every game finishes and is scored
    total = np.zeros((6, 3), np.float32)
    while not b.done.all():
        rewards, _, _ = b.play_random(rng, until=np.full(6, -1))
        total += rewards
    assert b.terminated.all()
    assert ((total == 1) | (total == -1) | (total == 0)).all()


def test_manual_forced_moves_match_game() -> None:
    b = BatchGames(2, 2, seed=3, auto_forced=False)
    games = [Game(2, seed=episode_seed(3, i, 0), auto_forced=False) for i in range(2)]
    rng = np.random.default_rng(0)
    for _ in range(200):
        acts = np.array([_pick(b.masks()[i], rng) for i in range(2)])
        b.step(acts)
        for i, g in enumerate(games):
            g.step(int(acts[i]))
            _assert_same(b, i, g)


def test_random_actions_are_legal_and_reproducible() -> None:
    b = BatchGames(PARALLEL_MIN, seed=0)
    m = b.masks()
    a1 = random_actions(m, make_rng(PARALLEL_MIN, 5))
    a2 = random_actions(m, make_rng(PARALLEL_MIN, 5))
    np.testing.assert_array_equal(a1, a2)
    assert m[np.arange(PARALLEL_MIN), a1].all()
    assert random_actions(np.zeros((1, L.N_ACTIONS), np.int8), make_rng(1))[0] == -1


def test_nth_legal_at_any_alignment_and_odd_masks() -> None:
    rng = np.random.default_rng(0)
    buf = np.zeros(L.N_ACTIONS + 16, np.int8)
    for _ in range(500):
        off = int(rng.integers(0, 8))
        m = buf[off : off + L.N_ACTIONS]
        m[:] = 0
        idx = np.sort(rng.choice(L.N_ACTIONS, int(rng.integers(1, 40)), replace=False))
        m[idx] = rng.integers(1, 128, idx.size)
        for k in range(idx.size):
            assert nth_legal(m, k) == idx[k]
        assert nth_legal(m, idx.size) == -1
    odd = np.zeros((1, L.N_ACTIONS), np.int8)
    odd[0, [5, 300]] = [3, -1]  # not 0/1: still one of the non-zero entries
    assert random_actions(odd, make_rng(1))[0] in (5, 300)


def test_masks_view_is_read_only_and_memory_is_reported() -> None:
    b = BatchGames(2)
    view = b.masks(copy=False)
    with pytest.raises(ValueError):
        view[0, 0] = 1
    assert b.memory_per_game >= L.STATE_LEN * 4 + L.N_ACTIONS


@pytest.mark.parametrize("rows", [np.array([3], np.int64), np.array([-1], np.int64), [0, 2], np.array([2], np.int32)])
def test_bad_rows_are_rejected_and_change_nothing(rows: object) -> None:
    b = BatchGames(2, seed=4)
    before = b.state.copy()
    with pytest.raises(ValueError, match=r"row index out of range 0\.\.1"):
        b.step(np.zeros(len(rows), np.int64), rows=rows)
    with pytest.raises(ValueError, match=r"row index out of range 0\.\.1"):
        b.observe(rows=rows)
    np.testing.assert_array_equal(before, b.state)
    with pytest.raises(TypeError, match="rows must be a 1-D int array"):
        b.observe(rows=np.array([[0]], np.int64))


def test_constructor_checks() -> None:
    with pytest.raises(ValueError):
        BatchGames(0)
    with pytest.raises(ValueError):
        BatchGames(2, illegal="ignore")
    with pytest.raises(ValueError):
        BatchGames(2, reward_mode="points")
    with pytest.raises(ValueError):
        BatchGames(2, num_players=5)


def test_bench_runs_and_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    from ohmygoods_env.apps.bench import main

    assert main(["--quick", "--seconds", "0.01", "--sizes", "1,4", "--no-compile"]) == 0
    out = capsys.readouterr().out
    for text in (
        "agent steps/s",
        "decisions/s",
        "ohmygoods BatchGames.step",
        "ohmygoods Game (Python loop)",
        "Pgx connect_four",
        "OpenSpiel hearts",
        "memory per game",
        "machine:",
        "batched engine >= 1,000,000 decisions/s",
        "AEC env >= 10x PettingZoo connect_four_v3",
        f"state of one game <= 4 KiB: {L.STATE_LEN * 4:,} B",
    ):
        assert text in out


def test_bench_targets_are_judged_on_the_rows_of_the_run() -> None:
    from ohmygoods_env.bench.table import Row
    from ohmygoods_env.bench.targets import target_lines

    rows = [
        Row("ohmygoods BatchGames.step", "1024", 900_000.0, 1_200_000.0, 10.0),
        Row("ohmygoods PettingZoo AEC env", "1", 40_000.0, 60_000.0, 1.0),
        Row("Pgx connect_four (jax CPU)", "1024", 1_500_000.0, 1_500_000.0, 1.0),
        Row("PettingZoo connect_four_v3", "1", 5_000.0, 5_000.0, 1.0),
    ]
    lines = target_lines(rows, 2764)
    assert "best 1,200,000 at B=1024" in lines[0] and lines[0].endswith("-> met")
    assert "0.80x" in lines[1] and lines[1].endswith("NOT met")  # below 2x Pgx: said so
    assert "= 8.0x" in lines[2] and lines[2].endswith("NOT met")  # agent steps count (40,000), not decisions
    assert lines[3].endswith("-> met")
    lines = target_lines(rows[:2], 2764)
    assert "not measured" in lines[1] and "not measured" in lines[2]


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_copied_batch_behaves_like_the_original(how: str) -> None:
    """#9.2: a copy taken mid-game plays on exactly like the original, end flags and rewards included."""
    import copy
    import pickle

    a = BatchGames(6, seed=3, max_steps=400)
    rng = make_rng(6, 9)
    for _ in range(40):
        a.step(random_actions(a.masks(), rng))
    b = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](a)
    assert b.terminated.base is b._flags and not np.shares_memory(b._flags, a._flags)
    assert not np.shares_memory(b.state, a.state)
    rng_b = rng.copy()
    ended = 0
    while not a.done.all():
        acts = random_actions(a.masks(), rng)
        assert np.array_equal(acts, random_actions(b.masks(), rng_b))
        ra, ta, ua = a.step(acts)
        rb, tb, ub = b.step(acts)
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb) and np.array_equal(ua, ub)
        ended += int(ra.any())
    assert ended > 0 and b.done.all()
    for k in ("state", "terminated", "truncated", "penalised", "decisions", "seeds", "episode"):
        assert np.array_equal(getattr(a, k), getattr(b, k)), k
    assert np.array_equal(a.masks(), b.masks())


@pytest.mark.parametrize("bad", ["3", None, 2**70, [1.5], ["3"]])
def test_step_bad_actions_are_named_and_change_nothing(bad) -> None:
    """#9.6: a non-integer or huge action gives a TypeError/ValueError naming it; no game changes."""
    b = BatchGames(1, seed=4)
    before = b.state.copy()
    with pytest.raises((TypeError, ValueError)) as info:
        b.step(bad if isinstance(bad, list) else [bad])
    msg = str(info.value)
    assert "action" in msg and (repr(bad) in msg or "out of range" in msg), msg
    assert np.array_equal(b.state, before)
    with pytest.raises((TypeError, ValueError), match="action"):
        b.step(bad)  # not even one per game
    assert np.array_equal(b.state, before)


@pytest.mark.parametrize("seed", [1.5, "x", True])
def test_batch_seed_must_be_an_int(seed) -> None:  # None: a fresh seed (tests/envs/test_seeds_and_values.py)
    with pytest.raises(TypeError, match=f"seed must be an int.*{seed!r}"):
        BatchGames(2, seed=seed)
    assert BatchGames(2, seed=np.int64(7)).base_seed == 7


def test_batch_bad_max_steps_observe_and_play_random() -> None:
    with pytest.raises(ValueError, match="max_steps must be a positive int or None, got '5'"):
        BatchGames(2, max_steps="5")
    b = BatchGames(3, seed=1)
    before = b.state.copy()
    with pytest.raises(ValueError, match=r"players must be seats in 0..1 or -1.*-5"):
        b.observe(players=[-5, 0, 0])
    with pytest.raises(TypeError, match="rng must be a 1-D uint64 array .*make_rng"):
        b.play_random([1, 2, 3])
    assert np.array_equal(b.state, before)
    assert BatchGames(2, num_players=np.int64(3)).num_players == 3


def test_batch_and_game_share_one_illegal_action_message() -> None:
    """One message (engine.illegal_action_message) for Game.step and BatchGames.step."""
    b = BatchGames(2, seed=6)
    g = b.game(1)
    bad = int(np.flatnonzero(b.masks()[1] == 0)[0])
    with pytest.raises(IllegalActionError) as game_err:
        g.step(bad)
    acts = np.array([int(np.flatnonzero(b.masks()[0])[0]), bad])
    with pytest.raises(IllegalActionError) as batch_err:
        b.step(acts)
    assert str(batch_err.value) == f"game 1: {game_err.value}"
