"""The build's process ends without the collector walking its whole heap (loaded by conf.py).

When ``sphinx-build`` returns, Python's shutdown runs the cyclic garbage collector over every
object the build left: Sphinx, docutils, the environment, the engine and its modules. Nothing
is written then, and on this site that walk takes most of a second, a third of a rebuild with
nothing to do. Once the build is over (``build-finished``, run after every other handler), the
objects alive are moved out of the collector's reach (:func:`gc.freeze`): the shutdown frees
them as it would (reference counts, exit handlers, files closed), without walking them first.
Objects made after that point are collected as usual; the frozen ones stay until the process
ends, which ``sphinx-build`` does right after the build.
"""

from __future__ import annotations

import gc
from typing import Any

from sphinx.application import Sphinx


def _freeze(app: Sphinx, exc: Exception | None) -> None:
    """The build is over: keep what is alive out of the collector's way until the exit."""
    gc.freeze()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("build-finished", _freeze, priority=900)  # after every other handler
    return {"parallel_read_safe": True, "parallel_write_safe": True}
