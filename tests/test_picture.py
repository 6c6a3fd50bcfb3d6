"""Picture view: the SVG drawing (``render_svg``, ``render_mode="svg"``, Jupyter) and the RGB image
rasterised from it (``render_image``, ``render_mode="rgb_array"``): size, content, hidden information,
bad input; ``Game.from_state`` and ``BatchGames.game`` that the Gymnasium env renders through."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env import Game
from ohmygoods_env import layout as L
from ohmygoods_env.actions import action_kind, describe
from ohmygoods_env.batch import BatchGames
from ohmygoods_env.infostate import hidden_cards, swap_cards
from ohmygoods_env.picture import move_text, render_image, render_svg, svg_size, view


def _cairo() -> None:
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError):
        pytest.skip("render_image needs cairosvg and the cairo library: pip install cairosvg")


def _advance(g: Game, steps: int, seed: int) -> Game:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if g.done:
            break
        g.step(int(rng.choice(g.legal_actions())))
    return g


def test_size_depends_only_on_players_and_the_picture_has_content() -> None:
    _cairo()
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
    _cairo()
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
    _cairo()
    g = _advance(Game(3, seed=1), 60, 1)
    before = g.state.copy()
    render_image(g, dpi=30)
    render_image(g, viewer=2, dpi=30)
    assert np.array_equal(before, g.state)
    with pytest.raises(ValueError, match=r"viewer 3 is out of range"):
        render_image(g, viewer=3)
    with pytest.raises(TypeError, match="viewer must be None, 'public' or a seat"):
        render_image(g, viewer="0")
    with pytest.raises(ValueError, match=r"dpi must be an int in \[20, 300\]"):
        render_image(g, dpi=5)


def test_gymnasium_checker_passes_with_every_render_mode() -> None:
    _cairo()
    import warnings

    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    from ohmygoods_env.envs.gym_env import ENV_ID_GYM

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        check_env(gym.make(ENV_ID_GYM, render_mode="rgb_array").unwrapped, skip_render_check=False)


def test_env_render_modes_return_pictures() -> None:
    _cairo()
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


def test_without_cairosvg_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "cairosvg", None)  # import fails
    with pytest.raises(ImportError, match="pip install cairosvg"):
        render_image(Game(2, seed=0))
    assert render_svg(Game(2, seed=0)).startswith("<svg")  # the SVG needs nothing


# ---------------------------------------------------------------------------- SVG


def _parse(svg: str):
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    return root, texts


def test_svg_is_well_formed_and_its_size_depends_only_on_the_player_count() -> None:
    for n in (2, 3, 4):
        g = Game(n, seed=n)
        first = render_svg(g)
        _advance(g, 10_000, n)
        last = render_svg(g)
        for svg in (first, last):
            root, _ = _parse(svg)
            assert (int(root.get("width")), int(root.get("height"))) == svg_size(n)
        assert "http" not in first.replace("http://www.w3.org/2000/svg", "")  # nothing from the network
        assert "<script" not in first
    assert svg_size(2)[1] < svg_size(3)[1] < svg_size(4)[1]


def test_svg_names_buildings_in_full_and_draws_their_needs() -> None:
    from ohmygoods_env.cards import B_NEED0, N_RES
    from ohmygoods_env.picture import _wrap

    g = _advance(Game(2, seed=3), 60, 0)
    _, texts = _parse(render_svg(g))
    for p in range(2):
        for b in g.buildings(p):
            lines = _wrap(g.cards.name(b), 15)
            assert " ".join(lines) == g.cards.name(b) and all(line in texts for line in lines)
        for c in g.hand(p):  # the spectator sees every hand, names in full
            assert all(line in texts for line in _wrap(g.cards.name(c), 15))
    # every building's needs are drawn: a chip per needed resource, labelled with the count
    needed = 0
    for b in g.buildings(0) + g.buildings(1):
        counts = [int(g.cards.buildings[b, B_NEED0 + r]) for r in range(N_RES)]
        needed += sum(1 for k in counts if k > 0)
    chips = [t for t in texts if t.isdigit()]
    assert needed > 0 and len(chips) >= needed


def test_svg_lists_and_marks_the_legal_moves_and_shows_the_last_move() -> None:
    g = _advance(Game(2, seed=3), 60, 0)
    rng = np.random.default_rng(1)
    naming = ("set aside", "spend hand card", "produce", "pay", "place worker", "move assistant")
    while not any(action_kind(a)[0] in naming for a in g.legal_actions()):  # a decision that names cards or slots
        g.step(int(rng.choice(g.legal_actions())))
    me = g.current_player
    svg = render_svg(g, viewer=me, last_move="player 1: produce at Bakery (slot 2)")
    _, texts = _parse(svg)
    legal = [describe(a, g) for a in g.legal_actions()]
    shown = [t.split(". ", 1)[1] for t in texts if t[:3].strip().rstrip(".").isdigit() and ". " in t]
    assert shown == legal[:16]
    assert "last move: player 1: produce at Bakery (slot 2)" in texts
    assert 'stroke="#ff7f00"' in svg  # the named cards are framed
    other = render_svg(g, viewer=1 - me)
    assert 'stroke="#ff7f00"' not in other and f"Waiting for player {me}." in _parse(other)[1]
    assert 'stroke="#ff7f00"' not in render_svg(g, viewer=me, show_legal=False)


def test_svg_seat_view_is_byte_identical_under_hidden_card_swaps() -> None:
    """R5.2 and the hidden hands: swapping cards seat ``me`` may not see changes nothing in its SVG."""
    checked = 0
    for seed in range(12):
        for n in (2, 3):
            g = _advance(Game(n, seed=seed), 30 + 17 * seed, seed)
            if g.done:
                continue
            for me in range(n):
                hidden = hidden_cards(g.state, me)
                loc = g.state[L.F_LOC : L.F_LOC + L.N_CARDS]
                theirs = [c for c in hidden if L.L_HAND <= loc[c] < L.L_HAND + n]
                deck = [c for c in hidden if loc[c] == L.L_DECK]
                if not theirs or not deck:
                    continue
                h = g.clone()
                swap_cards(h.state, theirs[0], deck[-1])
                assert h.check_invariants() == 0
                assert render_svg(g, viewer=me) == render_svg(h, viewer=me)
                assert render_svg(g) != render_svg(h)  # control: the spectator sees the swap
                checked += 1
    assert checked >= 10


def test_move_text_hides_what_the_rules_hide() -> None:
    for seed in range(50):
        g = _advance(Game(2, seed=seed), 5, seed)
        while not g.done and not (g.phase == L.PH_P2 and g.decision == L.D_ASIDE):
            g.step(int(np.random.default_rng(seed).choice(g.legal_actions())))
        if not g.done:
            break
    p = g.current_player
    a = [x for x in g.legal_actions() if "set aside to build" in describe(x, g)][0]
    assert move_text(g, a, viewer=p) == f"player {p}: {describe(a, g)}"
    assert move_text(g, a) == f"player {p}: {describe(a, g)}"
    hidden = move_text(g, a, viewer=1 - p)
    assert "phase-II choice" in hidden and g.cards.name(a - L.A_ASIDE) not in hidden


def test_jupyter_view_and_env_svg_mode() -> None:
    from ohmygoods_env.envs.gym_env import OhMyGoodsEnv
    from ohmygoods_env.envs.pettingzoo_env import env

    g = Game(2, seed=1)
    v = view(g, viewer=0)
    assert v._repr_svg_() == render_svg(g, viewer=0)
    e = env(num_players=2, render_mode="svg")
    e.reset(seed=3)
    assert e.render() == render_svg(e.unwrapped.game)
    ge = OhMyGoodsEnv(num_players=2, learner_seat=1, render_mode="svg")
    ge.reset(seed=4)
    assert ge.render() == render_svg(ge.games.game(0), viewer=1)


@pytest.mark.parametrize("rules", ["omg2", "royal"])
def test_every_hand_card_face_in_the_svg_shows_every_printed_fact(rules) -> None:
    """Walk the deck: each card id's hand-card face (hand and set-aside card) shows its name, hand-card
    resource, cost, VP, half-sun (R5.1), needs and both work modes (R7.2, R7.4), good and value (R1.3),
    chain (R7.7, R7.8) or office (R7.5); the full card text is its hover title."""
    import re
    import xml.etree.ElementTree as ET

    from ohmygoods_env import picture as P
    from ohmygoods_env.cardfacts import card_facts
    from ohmygoods_env.cards import N_BUILDING_CARDS

    game = Game(num_players=2, rules=rules, seed=0)
    cards = game.cards
    walked = 0
    for c in range(N_BUILDING_CARDS):
        d = P._Svg(200, 100)
        if card_facts(cards, c)["cost"] is None:  # a Charburner starts on the table (R2.1), never in a hand
            continue
        P._hand_card(d, game, c, 0, 0, False)
        walked += 1
        g = ET.fromstring(d.document()).find("{http://www.w3.org/2000/svg}g")
        title = g.find("{http://www.w3.org/2000/svg}title").text
        text = " | ".join(t.text for t in g.iter("{http://www.w3.org/2000/svg}text"))
        f, where = card_facts(cards, c), f"card {c}"
        assert g.get("data-card") == str(c) and title == f["text"], where
        assert re.sub(r" \| ", " ", text).startswith(f["name"]), where  # the name, wrapped in lines
        assert f"{f['resource']} \u00b7 cost {f['cost']} \u00b7 {f['vp']} VP" in text, where
        assert ("\u25d1" in text) == f["half_sun"], where
        p = f["production"]
        if p is not None:
            assert (f"needs any {p['needs_any']}" if p["needs_any"] else "needs ") in text, where
            for r, n in p["needs"].items():
                assert f"{n} {r}" in text, where
            eff, slo = p["efficient"]["resources"], p["sloppy"]["resources"]
            assert f"{eff}\u21922 / {slo}\u21921 {f['good']} ({f['value']})" in text, where
        else:
            assert (f"office: +1 {f['office']}" if f["office"] else "extra hand card") in text, where
        if f["chain"] is not None:
            ins = "+".join(i for i in [f["chain"]["hand"], *f["chain"]["goods"]] if i)
            assert f"chain: {ins} \u2192 {f['chain']['makes']}" in text, where
        else:
            assert "chain:" not in text, where
    assert walked == 94  # the deck cards (R1.1)
