"""The older name of :mod:`ohmygoods_env.framework.stats` (the project's one statistics module), kept so
that ``from ohmygoods_env.stats import wilson`` goes on working."""

from .framework.stats import *  # noqa: F403
from .framework.stats import __all__  # noqa: F401
