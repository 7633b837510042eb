"""``python -m ownership.grade``: see :mod:`ownership.grade.cli`."""

import sys

from ownership.grade.cli import main

sys.exit(main())
