"""``python -m ownership.doctor``: see :mod:`ownership.doctor.cli`."""

import sys

from ownership.doctor.cli import main

sys.exit(main())
