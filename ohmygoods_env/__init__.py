"""ohmygoods — the Oh my Goods! card game as a fast, exact RL environment."""

from .cards import CardSet, CardTableError, load_cards
from .engine import Game, GameOverError, GameRecord, IllegalActionError
from .envs import ENV_ID, env, make, raw_env
from .rules import RuleSet

__all__ = [
    "CardSet",
    "CardTableError",
    "ENV_ID",
    "Game",
    "GameOverError",
    "GameRecord",
    "IllegalActionError",
    "RuleSet",
    "env",
    "load_cards",
    "make",
    "raw_env",
]
__version__ = "0.1.0"
