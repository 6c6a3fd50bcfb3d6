"""Older name of :mod:`ohmygoods_env.framework.stats` (the project's one statistics module).

Importing this name warns (``DeprecationWarning``) and gives the same module object, so
``from ohmygoods_env.stats import wilson`` keeps working; the project's own code imports
``ohmygoods_env.framework.stats`` (``tests/test_imports.py``).
"""

import sys

from . import _moved
from .framework import stats as _module

_moved(__name__, _module.__name__)
sys.modules[__name__] = _module
