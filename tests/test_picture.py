"""Picture view (``render_image``, ``render_mode="rgb_array"``): size, content, hidden information,
bad input; ``Game.from_state`` and ``BatchGames.game`` that the Gymnasium env renders through."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from ohmygoods_env import Game  # noqa: E402
from ohmygoods_env import layout as L  # noqa: E402
from ohmygoods_env.batch import BatchGames  # noqa: E402
from ohmygoods_env.infostate import hidden_cards, swap_cards  # noqa: E402
from ohmygoods_env.picture import render_image  # noqa: E402


def _advance(g: Game, steps: int, seed: int) -> Game:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if g.done:
            break
        g.step(int(rng.choice(g.legal_actions())))
    return g


def test_size_depends_only_on_players_and_the_picture_has_content() -> None:
    for n in (2, 3, 4):
        g = Game(n, seed=n)
        first = render_image(g, dpi=40)
        _advance(g, 10_000, n)
        assert g.done
        last = render_image(g, dpi=40)
        assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
        assert first.shape == last.shape  # frames of one game stack into a video
        colours = np.unique(first.reshape(-1, 3), axis=0)
        assert len(colours) > 20  # text, card colours, borders: not a blank canvas
    shapes = [render_image(Game(n, seed=0), dpi=40).shape for n in (2, 3, 4)]
    assert shapes[0][1] == shapes[1][1] == shapes[2][1] and shapes[0][0] < shapes[1][0] < shapes[2][0]


def test_seat_view_ignores_hidden_information_and_the_spectator_sees_it() -> None:
    """Twin states that differ only in what seat ``me`` may not see give byte-identical pictures."""
    checked = 0
    for seed in range(6):
        g = _advance(Game(2, seed=seed), 40 + 25 * seed, seed)
        if g.done:
            continue
        me = g.current_player
        other = 1 - me
        loc = g.state[L.F_LOC : L.F_LOC + L.N_CARDS]
        theirs = [c for c in hidden_cards(g.state, me) if loc[c] == L.L_HAND + other]
        deck = [c for c in hidden_cards(g.state, me) if loc[c] == L.L_DECK]
        if not theirs or not deck:
            continue
        h = g.clone()
        swap_cards(h.state, theirs[0], deck[-1])  # an opponent's hand card for a deck card
        h.state[L.F_RNG] ^= 0x1234567
        assert h.check_invariants() == 0
        assert np.array_equal(render_image(g, viewer=me, dpi=40), render_image(h, viewer=me, dpi=40))
        # control: the change is real, and a spectator (all hands shown) sees it
        assert not np.array_equal(render_image(g, dpi=40), render_image(h, dpi=40))
        checked += 1
    assert checked >= 3


def test_rendering_changes_nothing_and_bad_input_is_named() -> None:
    g = _advance(Game(3, seed=1), 60, 1)
    before = g.state.copy()
    render_image(g, dpi=30)
    render_image(g, viewer=2, dpi=30)
    assert np.array_equal(before, g.state)
    with pytest.raises(ValueError, match=r"viewer 3 is out of range"):
        render_image(g, viewer=3)
    with pytest.raises(TypeError, match="viewer must be None or a seat"):
        render_image(g, viewer="0")
    with pytest.raises(ValueError, match=r"dpi must be an int in \[20, 300\]"):
        render_image(g, dpi=5)


def test_gymnasium_checker_passes_with_every_render_mode() -> None:
    import warnings

    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    from ohmygoods_env.envs.gym_env import ENV_ID_GYM

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        check_env(gym.make(ENV_ID_GYM, render_mode="rgb_array").unwrapped, skip_render_check=False)


def test_env_render_modes_return_pictures() -> None:
    from ohmygoods_env.envs.gym_env import OhMyGoodsEnv
    from ohmygoods_env.envs.pettingzoo_env import env

    e = env(num_players=2, render_mode="rgb_array")
    e.reset(seed=3)
    img = e.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8
    assert np.array_equal(img, render_image(e.unwrapped.game))  # the spectator view
    ge = OhMyGoodsEnv(num_players=2, learner_seat=1, render_mode="rgb_array")
    ge.reset(seed=4)
    img = ge.render()
    assert np.array_equal(img, render_image(ge.games.game(0), viewer=1))  # the learner's seat view


# ---------------------------------------------------------------------------- from_state / game(i)


def test_from_state_continues_exactly_like_the_original() -> None:
    g = _advance(Game(3, "royal", seed=7), 80, 7)
    h = Game.from_state(g.state, g.rules, g.cards, seed=g.seed)
    assert h.state is not g.state and h.actions == []
    rng = np.random.default_rng(0)
    while not g.done:
        a = int(rng.choice(g.legal_actions()))
        g.step(a)
        h.step(a)
        assert np.array_equal(g.state, h.state)


def test_from_state_rejects_malformed_or_mismatched_rows() -> None:
    g = Game(2, seed=1)
    with pytest.raises(ValueError, match=rf"integer row of shape \({L.STATE_LEN},\)"):
        Game.from_state(g.state[:-1], g.rules)
    with pytest.raises(ValueError, match="does not match the rules"):
        Game.from_state(g.state, Game(3, seed=1).rules)
    with pytest.raises(TypeError, match="rules must be a RuleSet"):
        Game.from_state(g.state, "omg2")
    bad = g.state.copy()
    bad[L.F_LOC] = 127  # a card in no place
    with pytest.raises(ValueError, match="check_invariants"):
        Game.from_state(bad, g.rules)


def test_batch_game_is_an_independent_copy() -> None:
    b = BatchGames(2, num_players=2, seed=5)
    g = b.game(1)
    assert np.array_equal(g.state, b.state[1]) and g.seed == int(b.seeds[1])
    before = b.state.copy()
    g.step(g.legal_actions()[0])
    assert np.array_equal(before, b.state)
    with pytest.raises(ValueError, match=r"game index 2 is out of range 0\.\.1"):
        b.game(2)
    with pytest.raises(TypeError, match="game index must be an int"):
        b.game(1.0)


def test_without_matplotlib_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)  # import fails
    with pytest.raises(ImportError, match="needs matplotlib: pip install matplotlib"):
        render_image(Game(2, seed=0))
