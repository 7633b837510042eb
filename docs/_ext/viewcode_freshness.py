"""viewcode decides whether a module's page is up to date without importing the module.

``sphinx.ext.viewcode`` writes a page of highlighted source for each documented module only
when the module's file is newer than its page. To find that file it imports the module, so a
build with nothing to write still imports the whole engine (most of the time such a build
takes). The file is found here the way the import system would find it, asking the finders of
``sys.meta_path`` for each package along the dotted name, without running any of them; when
that finds no Python file, viewcode's own lookup decides. Which pages are written, and what
they say, does not change (the page's code comes from the environment, not from this lookup).
"""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.ext import viewcode


def module_file(modname: str) -> Path | None:
    """The ``.py`` file ``import modname`` would run, found without importing anything."""
    module = sys.modules.get(modname)
    if module is not None:
        found = getattr(module, "__file__", None)
        return Path(found) if found and found.endswith(".py") else None
    path: list[str] | None = None
    spec: ModuleSpec | None = None
    parts = modname.split(".")
    for cut in range(1, len(parts) + 1):
        name = ".".join(parts[:cut])
        spec = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is not None and (spec := find(name, path)) is not None:
                break
        if spec is None:
            return None
        path = list(spec.submodule_search_locations or [])
    origin = spec.origin if spec is not None else None
    return Path(origin) if origin and origin.endswith(".py") else None


_VIEWCODE_LOOKUP = viewcode.get_module_filename


def _module_filename(app: Sphinx, modname: str) -> Any:
    """viewcode's lookup, without the import when the file can be found without it."""
    if app.events.emit_firstresult("viewcode-find-source", modname):
        return None  # as viewcode: a module whose source an extension gives is always written
    found = module_file(modname)
    return found if found is not None else _VIEWCODE_LOOKUP(app, modname)


def setup(app: Sphinx) -> dict[str, Any]:
    viewcode.get_module_filename = _module_filename  # read by should_generate_module_page
    return {"parallel_read_safe": True, "parallel_write_safe": True}
