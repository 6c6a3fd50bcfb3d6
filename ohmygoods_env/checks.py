"""Old import path of :mod:`ohmygoods_env.framework.checks` (game-agnostic machinery, moved to the framework).

This name is the same module object, so ``from ohmygoods_env.checks import ...`` keeps working.
"""

import sys

from .framework import checks as _module

sys.modules[__name__] = _module
