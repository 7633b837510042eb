"""Run the ```{doctest}``` blocks of the Markdown pages under pytest too (Sybil).

The namespace matches ``doctest_global_setup`` in conf.py, so a block passes under ``make doctest``
exactly when it passes here.
"""

from __future__ import annotations

import doctest
from typing import Any

from sybil import Sybil
from sybil.parsers.myst import DocTestDirectiveParser


def _setup(namespace: dict[str, Any]) -> None:
    exec("import numpy as np\nimport torch\nimport ownership", namespace)


pytest_collect_file = Sybil(
    parsers=[DocTestDirectiveParser(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)],
    patterns=["*.md"],
    setup=_setup,
).pytest()

# The recipes' example scripts are programs to run (some raise on purpose), not modules to import.
collect_ignore_glob = ["recipes/find_the_line_files/*.py"]
