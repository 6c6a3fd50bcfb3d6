"""Older name of :mod:`ohmygoods_env.framework.files` (game-agnostic machinery, moved to the framework).

Importing this name warns (``DeprecationWarning``) and gives the same module object, so
``from ohmygoods_env.files import ...`` keeps working; the project's own code imports
``ohmygoods_env.framework.files`` (``tests/test_imports.py``).
"""

import sys

from . import _moved
from .framework import files as _module

_moved(__name__, _module.__name__)
sys.modules[__name__] = _module
