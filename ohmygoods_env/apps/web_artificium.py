"""*Artificium* in ``ohmygoods serve``: the game's part of the shared browser shell.

:class:`ArtificiumWeb` is the game's :class:`~ohmygoods_env.apps.web_shell.WebKind`, named by its
spec (``ohmygoods_env.artificium.game_spec``: ``web``): the page
``static/artificium.html``, what the page offers (``GET /api/agents``: 2-6 players and every
agent name :func:`ohmygoods_env.framework.agents.agent_names` returns for ``"artificium"`` at
run time that builds without an argument, the entry-point agents such as ``ismcts`` included,
never ``exec``: :func:`offered_agents`), and :class:`ArtWebGame`, one
game between a person and agents (or agents only, watched). The HTTP server, its origin and
token checks and its bounded reads are the shell's (:mod:`ohmygoods_env.apps.web_shell`), unchanged.

``POST /api/new`` takes ``{players, seat, opponents: [..], seed, watch, view}`` (``view``: a
seat or ``"public"``). A view (``GET /api/state``) holds only what the viewer may see (A9.2):

* ``svg``: :func:`~ohmygoods_env.artificium.picture.render_svg` from the viewer's seat (public:
  ``viewer=None``), ``text``: :func:`~ohmygoods_env.artificium.render.render_text` of the same view;
* ``choices``: the person's legal actions in words, each with the card ``type`` it names (a
  click on that card in the picture plays it when it is the only choice naming that type);
* ``since``: the moves since the person's last decision as the viewer may read them
  (:func:`move_text`: another seat's face-down choice, Mage discard and end-of-round discard
  show no card, A9.2);
* ``happened``: what was revealed since then: every seat's card at the simultaneous reveal
  (A4.2), written only once the last seat has chosen, never earlier; the start of a round;
* ``cards``: the printed facts of every card type (:func:`~.picture.table_facts`, public);
* at the end the final scores (A8.2), the winners, one plain line and the ``record``.

The agents of the simultaneous choice (A4.1) choose before the person is asked, from their own
information only (:func:`~ohmygoods_env.framework.agents.choose`); the person's card reveals
them all. A replay page of a finished game (``GET /api/replay``) is :func:`replay_html`: the
shared replay template (``static/replay.html``) with this game's pictures.
"""

from __future__ import annotations

import threading
from typing import Any

from ..artificium import layout as L
from ..artificium.engine import Game, GameRecord, describe
from ..artificium.picture import render_svg, table_facts
from ..artificium.render import render_text
from ..framework import agents as fa
from ..framework.checks import offset_seed
from .web_shell import PUBLIC, BadRequest, ReplayError, Table, buildable, replay_page, replay_seats, table_of

NAME = "artificium"
#: Actions whose card another seat may not see (A9.2): the face-down choice until the reveal, and discards.
HIDDEN_KINDS = ("choose card", "Mage discard", "round-end discard")
#: Actions that name a card type (their index in the range is the type, A9.9).
TYPE_KINDS = ("choose card", "Reconstruction card", "Mage discard", "round-end discard")


def action_range(action: int) -> tuple[str, int]:
    """The named range of ``action`` (``docs/artificium/layout.md``) and its index inside it."""
    for name, off, n in L.ACTION_RANGES:
        if off <= action < off + n:
            return name, action - off
    raise ValueError(f"action {action} is out of range 0..{L.N_ACTIONS - 1}")


def move_text(game: Game, player: int, action: int, viewer: int | None, names: list[str] | None = None) -> str:
    """``player``'s ``action`` (not applied yet) as ``viewer`` may read it (A9.2): the card of
    another seat's face-down choice or discard is not named."""
    who = names[player] if names else f"seat {player}"
    kind, _ = action_range(action)
    if player != viewer and kind in HIDDEN_KINDS:
        return f"{who}: " + ("chose a card face down" if kind == "choose card" else f"{kind}: a card")
    return f"{who}: {describe(action, game)}"


def play(game: Game, player: int, action: int, viewer: int | None, names: list[str]) -> tuple[str, list[str]]:
    """Apply ``player``'s ``action``; return its log line for ``viewer`` and what was revealed by it.

    The reveal (A4.2) is read from the state *after* the last seat has chosen: the revealed
    cards are public then, so nothing face down is ever read for a note.
    """
    text = move_text(game, player, action, viewer, names)
    choosing, rnd = game.decision == L.D_CHOOSE, game.round
    game.step_player(player, action)
    notes = []
    if choosing and game.decision != L.D_CHOOSE:
        shown = [
            f"{names[p]}: {', '.join(game.tables.card_name(c) for c in game.cards_at(L.L_REVEALED + p))}"
            for p in range(game.num_players)
            if game.cards_at(L.L_REVEALED + p)
        ]
        if shown:
            notes.append("revealed together: " + "; ".join(shown))
    if not game.done and game.round != rnd:
        notes.append(f"round {game.round} begins; first player: {names[game.first_player]}")
    if game.done:
        notes.append("game over: " + ", ".join(f"{names[p]} {s}" for p, s in enumerate(game.scores())))
    return text, notes


class ArtWebGame(Table):
    """One game of *Artificium* between a person (``seat``) and agents, or agents only (``seat`` None, watched)."""

    def __init__(
        self, players: int, seat: int | None, agents: list[str], seed: int | None = None, viewer: int | None = None
    ) -> None:
        try:
            self.game = Game(players, seed)
        except (TypeError, ValueError) as exc:
            raise BadRequest(str(exc)) from None
        self._seat_agents(seat, agents, lambda name, s: fa.make_agent(NAME, name, seed=s))
        self.viewer = seat if seat is not None else viewer
        self.since: list[str] = []
        self.happened: list[str] = []
        self.last_move: str | None = None
        self.history: list[tuple[Game, list[str], str | None]] = []
        self.hinter: Any = None
        self.lock = threading.Lock()
        if not self.watch:
            self._advance()

    def _labels(self) -> list[str]:
        return [f"seat {p} ({n})" if n != "you" else f"seat {p} (you)" for p, n in enumerate(self.names)]

    def _play(self, p: int, a: int) -> None:
        text, notes = play(self.game, p, a, self.viewer, self._labels())
        self.since.append(text)
        self.since += [f"\u25b6 {n}" for n in notes]
        self.happened = [*self.happened, *notes]
        self.last_move = text

    def _agent_move(self, p: int) -> None:
        self._play(p, fa.choose(self.agents[p], self.game, p))

    def _advance(self) -> None:
        """Agents play until the person is asked alone, or the game is over; during the simultaneous
        choice (A4.1) the other choosing seats choose first, from their own information."""
        g = self.game
        while not g.done:
            pending = g.pending_players()
            others = [q for q in pending if q != self.seat]
            if self.seat in pending and not (g.decision == L.D_CHOOSE and others):
                return
            self._agent_move(others[0])

    def _next_agent_move(self) -> None:
        self._agent_move(self.game.pending_players()[0])

    def _legal(self) -> list[int]:
        return self.game.legal_actions(self.seat)

    def _snapshot(self) -> tuple:
        return (self.game.clone(), list(self.since), self.last_move)

    def _restore(self, snapshot: tuple) -> list[str]:
        before, since, self.last_move = snapshot
        self.game.state[:] = before.state
        self.game.moves = list(before.moves)
        return since

    def _person_move(self, action: int) -> None:
        self.since, self.happened = [], []
        self._play(self.seat, action)

    def _hint_action(self) -> dict:
        """What the ``heuristic`` agent of Artificium would play for the person, from the seat's information."""
        if "heuristic" not in fa.agent_names(NAME):
            raise BadRequest(f"no hint: no 'heuristic' agent is registered for Artificium ({fa.agent_names(NAME)})")
        if self.hinter is None:
            self.hinter = fa.make_agent(NAME, "heuristic", seed=offset_seed(self.game.seed, 99))
        a = fa.choose(self.hinter, self.game, self.seat)
        return {"action": a, "text": describe(a, self.game), "explain": None, "agent": "heuristic"}

    def _replay_page(self) -> str:
        return replay_html({"record": self.game.record().to_dict(), "seats": self.names}, self.viewer)

    def _choices(self) -> list[dict]:
        g = self.game
        if g.done or self.watch or self.seat not in g.pending_players():
            return []
        out = []
        for a in g.legal_actions(self.seat):
            kind, k = action_range(a)
            out.append(
                {"action": a, "text": describe(a, g), "kind": kind, **({"type": k} if kind in TYPE_KINDS else {})}
            )
        return out

    def view(self, game_id: str) -> dict:
        g = self.game
        out = {
            "id": game_id,
            "game": NAME,
            "seat": self.seat,
            "watch": self.watch,
            "viewer": PUBLIC if self.viewer is None else self.viewer,
            "players": self.names,
            "round": g.round,
            "first_player": g.first_player,
            "pending": list(g.pending_players()),  # who has not chosen yet is public (A9.2)
            "svg": render_svg(g, self.viewer, last_move=self.last_move),
            "text": render_text(g, self.viewer),
            "cards": table_facts(g.tables),
            "since": list(self.since),
            "happened": list(self.happened),
            "done": g.done,
            "decision": None if g.done or self.watch else g.decision_name,
            "choices": self._choices(),
        }
        if g.done:
            scores, winners = g.scores(), g.winners()
            out["scores"] = [
                {"player": p, "score": s, "vp": g.vp(p), "coins": g.coins(p)} for p, s in enumerate(scores)
            ]
            out["winners"] = winners
            out["result"] = _final_line(scores, winners, self.seat)
            out["record"] = g.record().to_dict()  # the seed only now: it would tell the hidden cards
        return out


def _final_line(scores: list[int], winners: list[int], seat: int | None) -> str:
    best = max(scores)
    if seat is None:
        return (
            f"Seats {', '.join(map(str, winners))} won with {best}"
            if len(winners) > 1
            else f"Seat {winners[0]} won with {best}"
        )
    rest = max(s for p, s in enumerate(scores) if p != seat)
    if seat in winners:
        return (
            f"You shared the win {scores[seat]}\u2013{rest}"
            if len(winners) > 1
            else f"You won {scores[seat]}\u2013{rest}"
        )
    return f"You lost {scores[seat]}\u2013{best}"


class ArtificiumWeb:
    """*Artificium*'s :class:`~ohmygoods_env.apps.serve.WebKind`."""

    name = NAME
    page = "artificium.html"
    download = "artificium-replay.html"

    _agents: list[str] | None = None  # built on the first offer: every agent is made once to check it

    def offered(self) -> dict:
        if self._agents is None:
            self._agents = offered_agents()
        agents = self._agents
        return {
            "game": NAME,
            "agents": agents,
            "players": list(range(L.MIN_PLAYERS, L.MAX_PLAYERS + 1)),
            "hint": "heuristic" in agents,  # the hint is the heuristic agent's choice, where one is registered
        }

    def new_game(self, body: dict) -> ArtWebGame:
        players, seat, agents, seed, viewer = table_of(body, L.MIN_PLAYERS, L.MAX_PLAYERS, 3, "random")
        return ArtWebGame(players, seat, agents, seed, viewer)

    def record_size(self, row: dict, where: str) -> tuple[int, int]:
        record = record_of(row, where)
        return record.num_players, len(record.moves) + 1

    def replay_html(self, row: dict, viewer: int | str | None, title: str = "") -> str:
        return replay_html(row, viewer, title)

    def warm(self) -> None:
        """Nothing to tell: Artificium's engine compiles (or loads) in a moment."""


def offered_agents() -> list[str]:
    """Agent names offered on the page: every name of the framework registry for Artificium that
    builds without an argument (entry-point agents loaded on the way, the shipped network
    included); ``exec`` needs a command and ``allow_exec=True``, so it is never offered."""
    return buildable(fa.agent_names(NAME), lambda name: fa.make_agent(NAME, name, seed=0))


# ------------------------------------------------------------------------------ replay


def record_of(row: dict, where: str = "the game") -> GameRecord:
    """The :class:`~ohmygoods_env.artificium.engine.GameRecord` of a row; :class:`ReplayError` names the field."""
    d = row.get("record")
    try:
        record = GameRecord.from_dict(d)
        if not L.MIN_PLAYERS <= record.num_players <= L.MAX_PLAYERS:
            raise ValueError(f"num_players must be in {L.MIN_PLAYERS}..{L.MAX_PLAYERS}, got {record.num_players}")
    except (TypeError, ValueError, KeyError) as exc:
        raise ReplayError(f"{where}: field 'record': {exc}"[:300]) from None
    return record


def frames(record: GameRecord, viewer: int | None, names: list[str]) -> tuple[list[str], list[str], list[list[str]]]:
    """Per step: the picture of ``viewer``'s view (step 0: the deal), the move log and what was revealed."""
    game = Game(record.num_players, record.seed)
    pictures, log, notes = [render_svg(game, viewer)], [], [[]]
    for k, (p, a) in enumerate(record.moves):
        if game.done or p not in game.pending_players() or not game.legal_mask(p)[a]:
            raise ReplayError(f"field 'record.moves[{k}]': seat {p}'s action {a} is not legal at that step")
        text, new = play(game, p, a, viewer, names)
        pictures.append(render_svg(game, viewer, last_move=text))
        log.append(text)
        notes.append(new)
    return pictures, log, notes


def replay_html(row: dict, viewer: int | str | None, title: str = "") -> str:
    """The self-contained replay page of an Artificium game row (``record``, optional ``seats``) for ``viewer``
    (a seat; ``None`` or ``"public"``: the public view), on the shared template ``static/replay.html``."""
    record = record_of(row)
    n = record.num_players
    seat, names = replay_seats(row, viewer, n)
    pictures, log, notes = frames(record, seat, names)
    who = "public view (every hand hidden)" if seat is None else f"view of seat {seat}"
    heading = f"Artificium replay ({n} players, seed {record.seed}) \u2014 {who}"
    return replay_page(pictures, log, notes, heading, ", ".join(names), title)
