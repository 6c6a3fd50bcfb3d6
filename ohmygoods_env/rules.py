"""Rule-set configuration: player count, edition and engine switches (RULES.md §9, §10).

A :class:`RuleSet` is frozen and validated at construction; the engine copies it into the
header of every game's state row, so a game's rules travel with its state.
"""

from __future__ import annotations

from dataclasses import dataclass

EDITIONS: tuple[str, ...] = ("omg2", "royal")
MIN_PLAYERS, MAX_PLAYERS = 2, 4
DEFAULT_MAX_ROUNDS = 60


@dataclass(frozen=True)
class RuleSet:
    """Which rules a game is played by.

    * ``num_players`` — 2, 3 or 4 (R2.2).
    * ``edition`` — ``"omg2"`` (Oh my Goods!, default) or ``"royal"`` (Royal Goods, §9).
    * ``auto_forced`` — apply decisions with exactly one legal action without asking
      (DESIGN: forced moves). Turn off to see every decision.
    * ``max_rounds`` — **Decision (R8.4):** the game also ends, and is scored by R8.3,
      after this many rounds. It guarantees termination when players never build
      (random play); real games end by R8.1 long before.
    """

    num_players: int = 2
    edition: str = "omg2"
    auto_forced: bool = True
    max_rounds: int = DEFAULT_MAX_ROUNDS

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int):
            raise TypeError(f"num_players must be an int in 2..4, got {self.num_players!r}")
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ValueError(f"num_players must be 2, 3 or 4 (R2.2), got {self.num_players}")
        if self.edition not in EDITIONS:
            raise ValueError(f"rules must be one of {list(EDITIONS)}, got {self.edition!r}")
        if not isinstance(self.auto_forced, bool):
            raise TypeError(f"auto_forced must be a bool, got {self.auto_forced!r}")
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int) or self.max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive int, got {self.max_rounds!r}")

    @property
    def royal(self) -> bool:
        """True for the Royal Goods rules (§9)."""
        return self.edition == "royal"


def make_rules(num_players: int = 2, rules: str | RuleSet = "omg2", **kwargs) -> RuleSet:
    """Build a :class:`RuleSet` from an edition name; a given :class:`RuleSet` is returned as is."""
    if isinstance(rules, RuleSet):
        return rules
    if not isinstance(rules, str):
        raise TypeError(f"rules must be a name in {list(EDITIONS)} or a RuleSet, got {rules!r}")
    return RuleSet(num_players=num_players, edition=rules, **kwargs)
