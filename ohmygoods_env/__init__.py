"""ohmygoods — the Oh my Goods! card game as a fast, exact RL environment."""

from .cards import CardSet, CardTableError, load_cards
from .engine import Game, GameOverError, GameRecord, IllegalActionError
from .rules import RuleSet

__all__ = [
    "CardSet",
    "CardTableError",
    "Game",
    "GameOverError",
    "GameRecord",
    "IllegalActionError",
    "RuleSet",
    "load_cards",
]
__version__ = "0.1.0"
