"""``python -m ohmygoods_env`` runs the ``ohmygoods`` command."""

import sys

from .cli import main

sys.exit(main())
