"""Phase-II payments stay secret until the reveal (R5.2, R5.3): views, information states, the browser.

The twins: player 0 (first in turn order) owns two assistants and has two *shown* flours
(fed into a chain from its hand, R3.2, R7.7) on its Mill and two coal on its Charburner. In
phase II it moves no assistant, or moves one or both and pays with the shown flour or the
coal, in different orders. Until the reveal every seat that did not choose must see the
same thing in every view, and its information state must be the same position, with the
shown flour where the seat last saw it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from ohmygoods_env import core
from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game
from ohmygoods_env.picture import move_text, render_svg
from ohmygoods_env.policy import info_state_of
from ohmygoods_env.render import render_text
from ohmygoods_env.scenario import Scenario

SAWMILL, SAWMILL_2, MILL, MILL_2, CATTLE_RANCH = 0, 1, 26, 27, 69
MOVE_1_TO_2 = L.A_MOVE + 1 * L.MAX_SLOTS + 2
MOVE_3_TO_0 = L.A_MOVE + 3 * L.MAX_SLOTS + 0
MOVE_1_TO_0 = L.A_MOVE + 1 * L.MAX_SLOTS + 0
MOVE_3_TO_2 = L.A_MOVE + 3 * L.MAX_SLOTS + 2
PAY_COAL, PAY_FLOUR = L.A_PAY + 0, L.A_PAY + 2

#: player 0's explicit phase-II decisions in each twin (the rest of its turn: the first legal action)
PLANS = {
    "keeps its assistants": [L.A_MOVES_DONE],
    "pays the shown flour, then coal": [MOVE_1_TO_2, PAY_FLOUR, MOVE_3_TO_0, PAY_COAL, PAY_COAL],
    "pays coal, then the shown flour": [MOVE_1_TO_0, PAY_COAL, PAY_COAL, MOVE_3_TO_2, PAY_FLOUR],
    "moves once, pays the shown flour": [MOVE_1_TO_0, PAY_FLOUR, L.A_MOVES_DONE],
    "moves once, pays coal": [MOVE_1_TO_0, PAY_COAL, PAY_COAL, L.A_MOVES_DONE],
}


def _show(g: Game, cards: list[int]) -> None:
    for c in cards:  # as if fed into a chain from the hand (R3.2, R7.7)
        g.state[L.F_SHOWN + c // 16] |= 1 << (c % 16)


def _on(g: Game, p: int, slot: int) -> list[int]:
    loc = g.state[L.F_LOC : L.F_LOC + L.N_CARDS]
    return [int(c) for c in np.flatnonzero(loc == L.L_GOODS + p * L.MAX_SLOTS + slot)]


def start(players: int = 3) -> Game:
    """Phase II of the twins, player 0 to choose; the flours on its Mill (slot 2) are shown."""
    sc = (
        Scenario(players, auto_forced=False)
        .buildings(0, [SAWMILL, MILL, CATTLE_RANCH])
        .goods(0, [2, 0, 2, 0])  # 2 coal on the Charburner, 2 flour (2 coins each) on the Mill
        .assistant(0, 1, display=0)
        .assistant(0, 3, display=1)
        .hand(0, [40, 41])
        .buildings(1, [SAWMILL_2, MILL_2])
        .goods(1, [2, 0, 2])
        .assistant(1, 1, display=2)
        .hand(1, [42, 43])
    )
    g = sc.build("phase2")
    _show(g, _on(g, 0, 2))
    coal = _on(g, 0, 0)
    if max(coal) < min(_on(g, 0, 2)):  # make the card-id order differ from the slot order
        from ohmygoods_env.infostate import swap_cards

        swap_cards(g.state, coal[0], 93)
    assert g.check_invariants() == 0 and g.current_player == 0
    return g


def finish_turn(g: Game, plan: list[int]) -> None:
    """Player 0 plays ``plan``, then the first legal action until its phase-II turn ends."""
    p = g.current_player
    for a in plan:
        g.step(a)
    while g.current_player == p and g.phase == L.PH_P2:
        g.step(g.legal_actions()[-1] if L.A_ASIDE_NONE in g.legal_actions() else g.legal_actions()[0])


def twins(players: int = 3) -> dict[str, Game]:
    out = {}
    for name, plan in PLANS.items():
        g = start(players)
        finish_turn(g, plan)
        assert g.phase == L.PH_P2 and g.current_player == 1, name
        out[name] = g
    return out


def _distinct(values: dict[str, object]) -> int:
    return len({json.dumps(v, sort_keys=True) if not isinstance(v, (str, bytes)) else v for v in values.values()})


def test_the_twins_differ_in_the_hidden_payment() -> None:
    """Control: the true states differ, and a shown flour is in the escrow in some twins only."""
    games = twins()
    assert len({g.state.tobytes() for g in games.values()}) == len(games)
    escrow_shown = {
        name: sorted(c for c in range(L.N_CARDS) if g.state[L.F_LOC + c] == L.L_ESCROW and core.is_shown(g.state, c))
        for name, g in games.items()
    }
    assert escrow_shown["keeps its assistants"] == [] and escrow_shown["pays the shown flour, then coal"] != []
    # the spectator sees the difference
    assert _distinct({n: render_text(g) for n, g in games.items()}) == len(games)


@pytest.mark.parametrize("seat", [1, 2])
def test_r5_2_seat_text_and_svg_views_are_byte_identical_until_the_reveal(seat: int) -> None:
    """Issue 26: paying for an assistant move with a shown good changed "goods shown when fed into a
    chain" and the SVG's "N shown" before the reveal."""
    games = twins()
    assert _distinct({n: render_text(g, seat) for n, g in games.items()}) == 1
    assert _distinct({n: render_svg(g, seat, last_move="x") for n, g in games.items()}) == 1
    text = render_text(games["pays the shown flour, then coal"], seat)
    assert text.count("on slot 2") == 2  # both shown flours, where the seat saw them


def test_r5_2_information_states_are_identical_and_the_shown_good_is_where_it_was_seen() -> None:
    """Issue 26: ``redact`` put a shown good paid into the escrow back on a slot chosen by card-id
    order; the information state differed between twins and placed the card wrongly."""
    games = twins()
    flours = _on(start(), 0, 2)
    for seat in (1, 2):
        infos = {name: info_state_of(g.state, seat) for name, g in games.items()}
        assert _distinct({n: i.tolist() for n, i in infos.items()}) == 1
        info = next(iter(infos.values()))
        assert all(info[L.F_LOC + c] == L.L_GOODS + 2 for c in flours)  # player 0's Mill
        assert not np.any(info[L.F_LOC : L.F_LOC + L.N_CARDS] == L.L_ESCROW)
        assert core.check_invariants(info, games["keeps its assistants"].cards.buildings) == 0


def test_own_payment_stays_in_the_escrow_of_the_payers_information_state() -> None:
    """The payer's own shown good stays in the escrow in its information state, whatever the next
    seat pays; goods the next seat paid go back to its buildings."""
    flours = _on(start(), 0, 2)
    seen = []
    for plan_1 in ([L.A_MOVES_DONE], [L.A_MOVE + 1 * L.MAX_SLOTS + 2, PAY_COAL, PAY_COAL]):
        g = start()
        finish_turn(g, PLANS["pays the shown flour, then coal"])
        finish_turn(g, plan_1)
        assert g.current_player == 2 and g.phase == L.PH_P2
        info = info_state_of(g.state, 0)
        paid = [c for c in flours if g.state[L.F_LOC + c] == L.L_ESCROW]
        assert len(paid) == 1 and info[L.F_LOC + paid[0]] == L.L_ESCROW
        assert core.check_invariants(info, g.cards.buildings) == 0
        seen.append(info)
    assert np.array_equal(*seen)


def test_determinized_worlds_keep_the_escrow_with_its_buildings() -> None:
    """A world sampled from an information state keeps every escrow card's building and passes the
    invariants (the escrow's building travels with the place when hidden cards are dealt)."""
    from ohmygoods_env.infostate import determinize

    g = start()
    finish_turn(g, PLANS["pays coal, then the shown flour"])
    finish_turn(g, [L.A_MOVE + 1 * L.MAX_SLOTS + 2, PAY_COAL, PAY_COAL])
    info = info_state_of(g.state, 0)
    for word in (1, 7, 12345):
        w = np.empty_like(info)
        determinize(info, g.cards.buildings, 0, word, w)
        assert core.check_invariants(w, g.cards.buildings) == 0
        src = sorted(int(w[L.F_PAID_FROM + c]) for c in range(L.N_CARDS) if w[L.F_LOC + c] == L.L_ESCROW)
        own = [int(g.state[L.F_PAID_FROM + c]) for c in range(L.N_CARDS) if g.state[L.F_LOC + c] == L.L_ESCROW]
        assert src == sorted(x for x in own if (x - 1) // L.MAX_SLOTS == 0)  # seat 0's own payments


def test_the_reveal_discards_the_escrow_and_forgets_where_it_came_from() -> None:
    g = start()
    finish_turn(g, PLANS["pays the shown flour, then coal"])
    while g.phase == L.PH_P2:
        finish_turn(g, [])
    assert not np.any(g.state[L.F_LOC : L.F_LOC + L.N_CARDS] == L.L_ESCROW)
    assert not np.any(g.state[L.F_PAID_FROM : L.F_PAID_FROM + L.N_CARDS])
    assert g.check_invariants() == 0


class _Scripted:
    """An opponent that plays a fixed list, then the first legal action (set-aside: none)."""

    def __init__(self, plan: list[int]) -> None:
        self.plan = list(plan)

    def act(self, obs, mask, info=None) -> int:
        legal = np.flatnonzero(mask)
        if self.plan:
            return self.plan.pop(0)
        return int(L.A_ASIDE_NONE if mask[L.A_ASIDE_NONE] else legal[0])


def _web_view(plan: list[int]) -> dict:
    from ohmygoods_env.apps.serve import WebGame

    web = WebGame.__new__(WebGame)
    web.game, web.seat, web.names = start(), 1, ["scripted", "you", "scripted"]
    web.agents = [_Scripted(plan), None, _Scripted([])]
    web.since, web.last_move = [], None
    import threading

    web.lock = threading.Lock()
    web._advance()
    return web.view("g")


def test_browser_view_and_its_since_list_are_identical_until_the_reveal() -> None:
    """Issue 26: the browser's "since your last decision" list had one line per hidden decision, so it
    told how many assistant moves and payments an opponent made. Now: one line per seat."""
    views = {name: _web_view(plan) for name, plan in PLANS.items()}
    assert _distinct(views) == 1
    since = next(iter(views.values()))["since"]
    assert len(since) == 1 and since[0].startswith("player 0 (scripted)") and "phase-II choice" in since[0]


def test_replay_frames_of_a_seat_are_identical_until_the_reveal() -> None:
    """The seat's pictures after each of player 0's hidden decisions (what a seat-view replay stores,
    ``replay.frames``) are the same in every twin: one picture while player 0 chooses, then one
    when the seat is to act."""
    frames = {}
    for name, plan in PLANS.items():
        g = start()
        pictures: list[str] = []
        actions = list(plan)
        while g.current_player == 0 and g.phase == L.PH_P2:
            legal = g.legal_actions()
            a = actions.pop(0) if actions else (L.A_ASIDE_NONE if L.A_ASIDE_NONE in legal else legal[0])
            text = move_text(g, a, 1)
            g.step(a)
            picture = render_svg(g, 1, last_move=text)
            if not pictures or pictures[-1] != picture:
                pictures.append(picture)
        frames[name] = pictures
    assert _distinct(frames) == 1
    assert len(next(iter(frames.values()))) <= 2


def test_a_log_of_moves_has_one_line_per_run_of_hidden_choices() -> None:
    """``picture.log_move`` (the browser's list and ``ohmygoods play``'s): the other seats get one line
    for player 0's whole phase-II turn, in every twin; the spectator gets every decision."""
    from ohmygoods_env.picture import log_move

    for name, plan in PLANS.items():
        g = start()
        logs: dict[int | None, list[str]] = {1: [], 2: [], None: []}
        actions = list(plan)
        decisions = 0
        while g.current_player == 0 and g.phase == L.PH_P2:
            legal = g.legal_actions()
            a = actions.pop(0) if actions else (L.A_ASIDE_NONE if L.A_ASIDE_NONE in legal else legal[0])
            for viewer, log in logs.items():
                log_move(log, g, a, viewer, "scripted")
            g.step(a)
            decisions += 1
        assert logs[1] == logs[2] == ["player 0 (scripted) made a phase-II choice (revealed at sunset, R5.2)"], name
        assert len(logs[None]) == decisions >= 3, name


def test_opponents_assistants_stay_where_the_seat_saw_them() -> None:
    """The information state (and so the seat's views) keeps each opponent's assistants on the slots
    where they stood at the start of phase II, whatever the opponent moved; it used to hand them out
    in display order, a position the seat knew to be false."""
    sc = (
        Scenario(2, auto_forced=False)
        .buildings(0, [SAWMILL, MILL, CATTLE_RANCH])
        .goods(0, [2, 0, 2, 0])
        .assistant(0, 1, display=1)  # display order differs from slot order
        .assistant(0, 3, display=0)
        .hand(0, [40])
        .hand(1, [41])
    )
    g = sc.build("phase2")
    before = g.state[L.F_ASLOT : L.F_ASLOT + L.MAX_SLOTS].copy()
    assert np.array_equal(info_state_of(g.state, 1)[L.F_ASLOT : L.F_ASLOT + L.MAX_SLOTS], before)
    finish_turn(g, [MOVE_1_TO_2, PAY_COAL, PAY_COAL])
    assert g.current_player == 1
    info = info_state_of(g.state, 1)
    assert np.array_equal(info[L.F_ASLOT : L.F_ASLOT + L.MAX_SLOTS], before)
    k = int(before[1])  # the assistant the seat saw on player 0's Sawmill (slot 1)
    label = f"{int(g.state[L.F_A_CARD + k]) + 1}{'AB'[int(g.state[L.F_A_SIDE + k])]}"
    sawmill = next(line for line in render_text(g, 1).splitlines() if line.startswith("    1    "))
    assert sawmill.endswith(f"assistant {label}")  # named where the seat saw it


def _record_twins(count: int):
    """Records of dealt games that differ only in one seat's phase-II choice (keep the assistant, or
    move it and pay), each ending when the next seat is to choose; yields (record, record, next seat)."""
    made = 0
    for seed in range(80):
        g = Game(3, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.done and g.round < 10:
            legal = g.legal_actions()
            if g.decision == L.D_MOVE and g.state[L.F_TURN] + 1 < g.num_players and len(legal) > 1:
                break
            g.step(int(rng.choice(legal)))
        else:
            continue
        mover = g.current_player
        h = g.clone()
        g.step(L.A_MOVES_DONE)
        h.step(next(a for a in h.legal_actions() if a != L.A_MOVES_DONE))
        for x in (g, h):
            while x.current_player == mover and x.phase == L.PH_P2:
                x.step(x.legal_actions()[0])
        if g.phase != L.PH_P2 or g.current_player != h.current_player:
            continue
        yield g.record(), h.record(), g.current_player
        made += 1
        if made >= count:
            return


def test_replay_pages_of_the_next_seat_are_identical_until_the_reveal() -> None:
    """Issue 26: a seat-view replay had one step (picture and log line) per hidden decision of an
    opponent, so the page told how many moves and payments it made. A run is now one step."""
    from ohmygoods_env.apps.replay import frames

    lengths = []
    for keep, move, seat in _record_twins(6):
        assert keep.actions != move.actions
        assert frames(keep, seat) == frames(move, seat)
        lengths.append(len(move.actions) - len(keep.actions))
    assert len(lengths) >= 4 and any(lengths)  # control: some runs differ in length
