"""Older name of :mod:`ohmygoods_env.framework.checks` (game-agnostic machinery, moved to the framework).

Importing this name warns (``DeprecationWarning``) and gives the same module object, so
``from ohmygoods_env.checks import ...`` keeps working; the project's own code imports
``ohmygoods_env.framework.checks`` (``tests/test_imports.py``).
"""

import sys

from . import _moved
from .framework import checks as _module

_moved(__name__, _module.__name__)
sys.modules[__name__] = _module
