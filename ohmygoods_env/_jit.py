"""Older name of :mod:`ohmygoods_env.framework.jit` (game-agnostic machinery, moved to the framework).

Importing this name warns (``DeprecationWarning``) and gives the same module object, so
``from ohmygoods_env._jit import ...`` keeps working; the project's own code imports
``ohmygoods_env.framework.jit`` (``tests/test_imports.py``).
"""

import sys

from . import _moved
from .framework import jit as _module

_moved(__name__, _module.__name__)
sys.modules[__name__] = _module
