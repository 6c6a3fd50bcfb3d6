"""``python -m ohmygoods_env`` runs the ``ohmygoods`` command (:mod:`ohmygoods_env.apps.cli`)."""

import sys

from .apps.cli import main

sys.exit(main())
