"""Older name of :mod:`ohmygoods_env.goofspiel.game_spec`: *Goofspiel*, moved out of the framework
into a game folder of its own (``ohmygoods_env/goofspiel/``).

Importing this name warns (``DeprecationWarning`` naming the new path) and gives that module
object itself, so ``from ohmygoods_env.framework.examples import GOOFSPIEL, Goofspiel`` keeps
working. The framework imports no game: the module is found by its name at run time.
"""

import importlib
import sys

_NEW = "ohmygoods_env.goofspiel.game_spec"
importlib.import_module("ohmygoods_env")._moved(__name__, _NEW)
sys.modules[__name__] = importlib.import_module(_NEW)
