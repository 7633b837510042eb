"""``python -m ownership.drills``: see :mod:`ownership.drills.cli`."""

import sys

from ownership.drills.cli import main

sys.exit(main())
