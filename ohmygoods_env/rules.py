"""Rule-set configuration: player count, edition and engine switches (docs/rules.md §9, §10).

A :class:`RuleSet` is frozen and validated at construction; the engine copies it into the
header of every game's state row, so a game's rules travel with its state.
"""

from __future__ import annotations

from dataclasses import dataclass

from .checks import check_flag

EDITIONS: tuple[str, ...] = ("omg2", "royal")
MIN_PLAYERS, MAX_PLAYERS = 1, 4
DEFAULT_MAX_ROUNDS = 60
#: The largest round cap a state row can hold (its words are int32).
MAX_ROUNDS_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class RuleSet:
    """Which rules a game is played by.

    * ``num_players`` — 2, 3 or 4 (R2.2), or 1 for solo play (R10.3: 2 assistants on
      display, base rules, a score attack: every reward mode gives the score).
    * ``edition`` — ``"omg2"`` (Oh my Goods!, default) or ``"royal"`` (Royal Goods, §9).
    * ``auto_forced`` — apply decisions with exactly one legal action without asking
      (DESIGN: forced moves). Turn off to see every decision.
    * ``max_rounds`` — **Decision (R8.4):** the game also ends, and is scored by R8.3,
      after this many rounds (``1..MAX_ROUNDS_LIMIT``). It guarantees termination when
      players never build (random play); real games end by R8.1 long before.
    * ``keep_one`` — variant R10.1 (off by default): discarding the hand in phase I may keep
      one card (``omg2`` only: ``royal`` has no discarding of the hand, R9.1, and refuses it;
      actions ``A_KEEP_ONE + card``).
    * ``two_for_one`` — variant R10.2 (off by default): in phase IV two hand cards of any
      resource stand in for one missing resource.
    """

    num_players: int = 2
    edition: str = "omg2"
    auto_forced: bool = True
    max_rounds: int = DEFAULT_MAX_ROUNDS
    keep_one: bool = False
    two_for_one: bool = False

    def __post_init__(self) -> None:
        import numpy as np  # numpy integers are accepted wherever ints are

        for name in ("num_players", "max_rounds"):
            v = getattr(self, name)
            if isinstance(v, np.integer) and not isinstance(v, np.bool_):
                object.__setattr__(self, name, int(v))
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int):
            raise TypeError(f"num_players must be an int in 1..4, got {self.num_players!r}")
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ValueError(f"num_players must be 1 (solo, R10.3), 2, 3 or 4 (R2.2), got {self.num_players}")
        if self.edition not in EDITIONS:
            raise ValueError(f"rules must be one of {list(EDITIONS)}, got {self.edition!r}")
        for name in ("auto_forced", "keep_one", "two_for_one"):
            object.__setattr__(self, name, check_flag(getattr(self, name), name))
        rounds = f"max_rounds must be a positive int of at most {MAX_ROUNDS_LIMIT} (what a state row holds)"
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int):
            raise TypeError(f"{rounds}, got {self.max_rounds!r}")
        if not 1 <= self.max_rounds <= MAX_ROUNDS_LIMIT:
            raise ValueError(f"{rounds}, got {self.max_rounds}")
        if self.keep_one and self.edition == "royal":
            raise ValueError("keep_one (R10.1) needs omg2: royal has no discarding of the hand in phase I (R9.1)")

    @property
    def royal(self) -> bool:
        """True for the Royal Goods rules (§9)."""
        return self.edition == "royal"

    @property
    def edition_bits(self) -> int:
        """The engine's edition word: bit 0 royal, bit 1 keep one (R10.1), bit 2 two for one (R10.2)."""
        return int(self.royal) | int(self.keep_one) << 1 | int(self.two_for_one) << 2


def make_rules(num_players: int = 2, rules: str | RuleSet = "omg2", **kwargs) -> RuleSet:
    """Build a :class:`RuleSet` from an edition name; a given :class:`RuleSet` is returned as is."""
    if isinstance(rules, RuleSet):
        return rules
    if not isinstance(rules, str):
        raise TypeError(f"rules must be a name in {list(EDITIONS)} or a RuleSet, got {rules!r}")
    return RuleSet(num_players=num_players, edition=rules, **kwargs)
