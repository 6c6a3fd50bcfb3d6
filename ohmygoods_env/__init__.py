"""ohmygoods — fast, exact RL environments for production-chain card games: *Oh my Goods!* and *Artificium*."""

# The games this distribution ships, each a folder that registers its spec in the framework's game
# registry and its env ids in PettingZoo's and Gymnasium's on import: Oh my Goods! (the modules of
# this package, registered by ``envs``) and Artificium (``ohmygoods/artificium-v0``).
from .artificium import game_spec as _artificium  # noqa: F401
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
