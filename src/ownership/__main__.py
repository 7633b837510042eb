"""``python -m ownership COMMAND ...``: the ``ownership`` command (see :mod:`ownership.command`)."""

import sys

from ownership.command import main

if __name__ == "__main__":  # imported (not run), it does nothing
    sys.exit(main())
