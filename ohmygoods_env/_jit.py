"""Old import path of :mod:`ohmygoods_env.framework.jit` (the registry of cached numba kernels).

The registry is game-agnostic machinery and lives in the framework; this name stays the same
module object, so ``from ohmygoods_env import _jit`` and ``ohmygoods_env._jit.REPORT`` keep working.
"""

import sys

from .framework import jit as _jit

sys.modules[__name__] = _jit
