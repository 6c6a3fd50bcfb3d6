"""Old import path of :mod:`ohmygoods_env.framework.files` (game-agnostic machinery, moved to the framework).

This name is the same module object, so ``from ohmygoods_env.files import ...`` keeps working.
"""

import sys

from .framework import files as _module

sys.modules[__name__] = _module
