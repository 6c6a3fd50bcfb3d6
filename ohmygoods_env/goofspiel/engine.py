"""*Goofspiel* with a prize row, 2-6 players: the forward model of the library's third game.

A :class:`~ohmygoods_env.framework.game.ForwardModel` in pure Python; its spec is
:data:`ohmygoods_env.goofspiel.game_spec.GOOFSPIEL`. It has both kinds of decision the
machinery must handle (a pick by one seat, a simultaneous bid):

Rules (``K = num_cards``, default 3)
-----------------------------------
* Each player holds bid cards ``1 .. K``. The prize deck holds prizes ``1 .. K + 1``,
  shuffled (its order is hidden); two prizes lie face up in the prize row.
* ``K`` rounds. **Pick** (one seat): the round's leader (seat ``round % num_players``)
  picks a prize of the row. **Bid** (simultaneous): every player chooses a bid card face
  down; when all have chosen, the bids are revealed, the unique highest bid takes the
  prize, a tied highest bid leaves it to nobody (it is discarded); the bid cards are spent
  and the picked place of the row is refilled from the deck.
* Score: the sum of prizes won. Most points win, ties share.

Actions: ``0 .. K-1`` bid the card ``a + 1``; ``K`` and ``K + 1`` pick row place 0 or 1.

Observation (from the seat's view, seats rotated so the viewer is first; all in [0, 1]):
own hand (K) | own face-down bid (K) | per seat: hand at the start of the round (K), score /
total prizes, has bid, is leader | row (2 x (K + 1) one-hot) | prizes still in the deck
(K + 1) | round / K | phase pick, phase bid | the viewer is to act. Hidden: the deck order
and others' face-down bids. ``determinize`` re-shuffles the deck and re-draws the face-down
bids of the others from their hands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..framework.checks import check_seed, seed_or_fresh
from ..framework.game import (
    GameOverError,
    IllegalActionError,
    JointStepMixin,
    check_action,
    check_player,
    illegal_message,
)

__all__ = ["Goofspiel", "GoofspielRecord", "describe", "obs_size", "render_text"]

NAME = "goofspiel"
TITLE = "Goofspiel"
MIN_PLAYERS, MAX_PLAYERS = 2, 6
REWARD_MODES = ("win", "score", "margin")
_PICK, _BID, _OVER = 0, 1, 2
_PHASES = ("pick", "bid", "over")


def obs_size(num_players: int, num_cards: int = 3) -> int:
    """Length of a Goofspiel observation."""
    k = num_cards
    return 2 * k + num_players * (k + 3) + 2 * (k + 1) + (k + 1) + 4


@dataclass
class GoofspielRecord:
    """Everything needed to replay a game: players, cards, seed and the actions in the order ``step``
    applied them (a simultaneous bid as its seats' ``step`` calls)."""

    num_players: int
    num_cards: int
    seed: int
    actions: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The record as JSON data in the framework's step-record form (``game``, ``num_players``, ``seed``,
        ``options``, ``actions``), which the generic replay page reads."""
        return {
            "game": NAME,
            "num_players": self.num_players,
            "seed": self.seed,
            "options": {"num_cards": self.num_cards},
            "actions": list(self.actions),
        }

    @classmethod
    def from_dict(cls, d: object) -> GoofspielRecord:
        """The record of :meth:`to_dict`; ``ValueError`` / ``TypeError`` name the bad field."""
        if not isinstance(d, dict) or d.get("game") != NAME:
            raise ValueError(f"not a Goofspiel game record: expected a dict with game={NAME!r}")
        options = d.get("options", {})
        if not isinstance(options, dict) or set(options) - {"num_cards"}:
            raise ValueError(f"field 'options' must be {{'num_cards': K}}, got {options!r:.60}")
        actions = d.get("actions")
        if not isinstance(actions, list) or not all(_is_int(a) for a in actions):
            raise TypeError(f"field 'actions' must be a list of action ids, got {actions!r:.60}")
        num_players, num_cards = d.get("num_players"), options.get("num_cards", 3)
        if not _is_int(num_players) or not _is_int(num_cards):
            raise TypeError(f"fields 'num_players' and 'options.num_cards' must be ints, got {num_players!r:.20}")
        return cls(int(num_players), int(num_cards), check_seed(d.get("seed")), [int(a) for a in actions])


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_num_players(num_players: object) -> int:
    """``num_players`` as an int in ``2..6`` (``TypeError`` / ``ValueError``, the spec's words)."""
    if not _is_int(num_players):
        raise TypeError(
            f"num_players must be an int in {MIN_PLAYERS}..{MAX_PLAYERS} for {TITLE}, "
            f"got {type(num_players).__name__} {num_players!r}"
        )
    n = int(num_players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"num_players must be in {MIN_PLAYERS}..{MAX_PLAYERS} for {TITLE}, got {n}")
    return n


class Goofspiel(JointStepMixin):
    """Goofspiel with a prize row (see the module docstring): a :class:`~.game.ForwardModel`."""

    def __init__(self, num_players: int = 2, seed: int | None = None, num_cards: int = 3) -> None:
        self.num_players = check_num_players(num_players)
        if isinstance(num_cards, bool) or not isinstance(num_cards, (int, np.integer)) or not 2 <= num_cards <= 13:
            raise ValueError(f"num_cards must be an int in 2..13, got {num_cards!r}")
        k = self.num_cards = int(num_cards)
        self.num_actions = k + 2
        self.obs_size = obs_size(self.num_players, k)
        self._seed = seed_or_fresh(seed)
        deck = np.random.default_rng(self._seed).permutation(k + 1) + 1
        self.deck = [int(v) for v in deck]  # top is last
        self.row = [self.deck.pop(), self.deck.pop()]
        self.hands = np.ones((self.num_players, k), np.int8)
        self.bids = np.full(self.num_players, -1, np.int64)
        self.score = np.zeros(self.num_players, np.int64)
        self.round, self.phase, self.picked = 0, _PICK, -1
        self.actions: list[int] = []

    # ------------------------------------------------------------------ queries
    @property
    def seed(self) -> int:
        return self._seed

    @property
    def leader(self) -> int:
        return self.round % self.num_players

    @property
    def done(self) -> bool:
        return self.phase == _OVER

    def pending_players(self) -> tuple[int, ...]:
        if self.phase == _PICK:
            return (self.leader,)
        if self.phase == _BID:
            return tuple(int(p) for p in np.flatnonzero(self.bids < 0))
        return ()

    @property
    def current_player(self) -> int:
        pending = self.pending_players()
        return pending[0] if pending else -1

    def legal_mask(self, player: int | None = None) -> np.ndarray:
        p = self.current_player if player is None else check_player(player, self.num_players)
        mask = np.zeros(self.num_actions, np.int8)
        if p < 0 or p not in self.pending_players():
            return mask
        if self.phase == _PICK:
            for i, v in enumerate(self.row):
                mask[self.num_cards + i] = v > 0
        else:
            mask[: self.num_cards] = self.hands[p]
        return mask

    def observe(self, player: int) -> np.ndarray:
        me = check_player(player, self.num_players)
        k, n = self.num_cards, self.num_players
        total = (k + 1) * (k + 2) // 2
        parts: list[Any] = [self.hands[me], np.eye(k)[self.bids[me]] if self.bids[me] >= 0 else np.zeros(k)]
        for i in range(n):
            q = (me + i) % n
            start_hand = self.hands[q].copy()
            if self.bids[q] >= 0:
                start_hand[self.bids[q]] = 1  # a face-down bid is still a card in hand for the others
            parts += [start_hand, [self.score[q] / total, self.bids[q] >= 0, q == self.leader]]
        for v in self.row:
            parts.append(np.eye(k + 1)[v - 1] if v > 0 else np.zeros(k + 1))
        in_deck = np.zeros(k + 1)
        in_deck[np.asarray(self.deck, np.int64) - 1] = 1
        acting = me in self.pending_players()
        parts += [in_deck, [self.round / k, self.phase == _PICK, self.phase == _BID, acting]]
        return np.concatenate([np.asarray(x, np.float32).ravel() for x in parts]).astype(np.float32)

    def scores(self) -> list[int]:
        return [int(s) for s in self.score]

    def winners(self) -> list[int]:
        return [int(p) for p in np.flatnonzero(self.score == self.score.max())]

    def rewards(self, mode: str = "win") -> np.ndarray:
        if mode not in REWARD_MODES:
            raise ValueError(f"reward mode must be one of {list(REWARD_MODES)} for {TITLE}, got {mode!r}")
        out = np.zeros(self.num_players, np.float32)
        if not self.done:
            return out
        if mode == "score":
            return self.score.astype(np.float32)
        if mode == "margin":
            for p in range(self.num_players):
                others = np.delete(self.score, p)
                out[p] = self.score[p] - (others.max() if others.size else 0)
            return out
        win = self.winners()
        if len(win) == self.num_players:
            return out
        out[:] = -1.0
        out[win] = 1.0
        return out

    # ------------------------------------------------------------------ acting
    def step(self, action: int) -> None:
        a = check_action(action, self.num_actions)
        if self.done:
            raise GameOverError(f"the game is over; no action (got {a}) can be applied")
        p = self.current_player
        if not self.legal_mask(p)[a]:
            raise IllegalActionError(illegal_message(self, p, a) + f" ({_PHASES[self.phase]})")
        self.actions.append(a)
        if self.phase == _PICK:
            self.picked, self.phase = a - self.num_cards, _BID
            return
        self.bids[p] = a
        if (self.bids >= 0).all():
            self._reveal()

    def _reveal(self) -> None:
        bids = self.bids
        top = bids.max()
        if np.count_nonzero(bids == top) == 1:
            self.score[int(np.argmax(bids))] += self.row[self.picked]
        self.hands[np.arange(self.num_players), bids] = 0
        self.row[self.picked] = self.deck.pop() if self.deck else 0
        self.bids[:] = -1
        self.round += 1
        self.phase = _OVER if self.round == self.num_cards else _PICK

    # ------------------------------------------------------------------ forward model
    def clone(self) -> Goofspiel:
        g = object.__new__(Goofspiel)
        g.__dict__.update(self.__dict__)
        g.deck, g.row, g.actions = list(self.deck), list(self.row), list(self.actions)
        g.hands, g.bids, g.score = self.hands.copy(), self.bids.copy(), self.score.copy()
        return g

    def determinize(self, player: int, seed: int) -> Goofspiel:
        """A world ``player`` cannot tell from this one: deck re-shuffled, others' face-down bids re-drawn."""
        me = check_player(player, self.num_players)
        rng = np.random.default_rng(check_seed(seed))
        g = self.clone()
        g.deck = [int(v) for v in rng.permutation(g.deck)]
        for q in range(self.num_players):
            if q != me and g.bids[q] >= 0:
                g.bids[q] = rng.choice(np.flatnonzero(g.hands[q]))
        g.actions = []  # the world's history is not this game's (its record replays from here only)
        return g

    def record(self) -> GoofspielRecord:
        return GoofspielRecord(self.num_players, self.num_cards, self._seed, list(self.actions))

    @classmethod
    def replay(cls, record: GoofspielRecord | dict) -> Goofspiel:
        """The game of ``record`` (a :class:`GoofspielRecord` or its :meth:`~GoofspielRecord.to_dict`), replayed."""
        if isinstance(record, dict):
            record = GoofspielRecord.from_dict(record)
        g = cls(record.num_players, seed=record.seed, num_cards=record.num_cards)
        for a in record.actions:
            g.step(a)
        return g


def describe(action: int, game: Goofspiel | None = None) -> str:
    """Words for an action (``num_cards`` of ``game``, default 3)."""
    k = game.num_cards if game is not None else 3
    a = check_action(action, k + 2)
    return f"bid {a + 1}" if a < k else f"pick the prize at row place {a - k}"


def render_text(game: Goofspiel, player: int | None = None) -> str:
    """The position as text: the spectator's view (``None``) or a seat's (others' bids hidden)."""
    shown = min(game.round + 1, game.num_cards)  # the last round stays shown once the game is over
    lines = [f"Goofspiel, round {shown}/{game.num_cards}, {_PHASES[game.phase]}, row {game.row}"]
    for q in range(game.num_players):
        bid = game.bids[q]
        shown = "-" if bid < 0 else (str(bid + 1) if player is None or player == q else "face down")
        cards = [int(i) + 1 for i in np.flatnonzero(game.hands[q])]
        lines.append(f"player {q}: score {game.score[q]}, hand {cards}, bid {shown}")
    return "\n".join(lines)
