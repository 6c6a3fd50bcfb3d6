"""Rule-set configuration: player count, edition and engine switches (docs/rules.md §9, §10).

A :class:`RuleSet` is frozen and validated at construction; the engine copies it into the
header of every game's state row, so a game's rules travel with its state.
"""

from __future__ import annotations

from dataclasses import dataclass

from .framework.checks import check_flag

EDITIONS: tuple[str, ...] = ("omg2", "royal")
MIN_PLAYERS, MAX_PLAYERS = 1, 4
DEFAULT_MAX_ROUNDS = 60
#: The largest round cap a state row can hold (its words are int32).
MAX_ROUNDS_LIMIT = 2**31 - 1
#: Rounds of a solo game (R10.4); see :class:`RuleSet` ``solo_rounds`` for the reasoning.
DEFAULT_SOLO_ROUNDS = 12


@dataclass(frozen=True)
class RuleSet:
    """Which rules a game is played by.

    * ``num_players`` — 2, 3 or 4 (R2.2), or 1 for solo play (R10.3: 2 assistants on
      display, base rules, a score attack: every reward mode gives the score, over
      ``solo_rounds`` rounds).
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
    * ``solo_rounds`` — **Decision (R10.4):** a solo game lasts this many rounds, as a
      *Longsdale* chapter lasts as many rounds as it has event cards (000:238); an 8th
      building still ends it earlier (R8.1). Every seat observes the rounds left. Ignored
      with 2-4 players; ``max_rounds`` still caps it. The default, 12, is a real game's
      length with room to spare: games of 2-4 heuristic players end after 8.3-8.7 rounds on
      average, and the heuristic and greedy players reach 8 buildings within 12 solo rounds
      in 999 of 1,000 deals, so the race to R8.1 fits, while a player who never builds the
      8th building has only 12 rounds to score in (docs/rules.md, R10.4).
    """

    num_players: int = 2
    edition: str = "omg2"
    auto_forced: bool = True
    max_rounds: int = DEFAULT_MAX_ROUNDS
    keep_one: bool = False
    two_for_one: bool = False
    solo_rounds: int = DEFAULT_SOLO_ROUNDS

    def __post_init__(self) -> None:
        import numpy as np  # numpy integers are accepted wherever ints are

        for name in ("num_players", "max_rounds", "solo_rounds"):
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
        if isinstance(self.solo_rounds, bool) or not isinstance(self.solo_rounds, int):
            raise TypeError(f"solo_rounds must be a positive int (R10.4), got {self.solo_rounds!r}")
        if not 1 <= self.solo_rounds <= MAX_ROUNDS_LIMIT:
            raise ValueError(
                f"solo_rounds must be a positive int of at most {MAX_ROUNDS_LIMIT} (R10.4), got {self.solo_rounds}"
            )
        if self.keep_one and self.edition == "royal":
            raise ValueError("keep_one (R10.1) needs omg2: royal has no discarding of the hand in phase I (R9.1)")

    @property
    def royal(self) -> bool:
        """True for the Royal Goods rules (§9)."""
        return self.edition == "royal"

    @property
    def round_limit(self) -> int:
        """Rounds after which the game ends if R8.1 has not ended it: ``solo_rounds`` in solo
        (R10.4; ``max_rounds`` still caps it), else the ``max_rounds`` cap (R8.4)."""
        return min(self.solo_rounds, self.max_rounds) if self.num_players == 1 else self.max_rounds

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
