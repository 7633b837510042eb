"""``python -m ownership COMMAND ...``: the ``ownership`` command (see :mod:`ownership.command`)."""

import sys

from ownership.command import main

sys.exit(main())
