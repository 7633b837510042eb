"""Compile the bytecode of what the checks import, once, right after ``.venv`` is installed.

The Makefile installs ``.venv`` with ``pip install --no-compile``: pip's compiling of every module
of every package (torch's thousands, sympy's, ...) was about two thirds of the install's CPU time,
and the checks import a fraction of them. Python compiles a module when it first imports it and
keeps the bytecode in ``__pycache__``, unless ``PYTHONDONTWRITEBYTECODE`` is set (as in some
sessions): then each process (every pytest worker, every page's kernel) would compile torch's
modules again. So this script imports, with the writing of bytecode switched on, what the checks
and the site's build import; whatever else a process imports later is compiled then (and kept,
where bytecode may be written).

Run by the Makefile's install rule with ``.venv``'s Python; standard library only.
"""

from __future__ import annotations

import importlib
import sys

# What `make test`'s stages import beyond the standard library: the engine and torch, the test
# runner and its plugins, the site's build (Sphinx, the extensions of conf.py, the theme, the
# pages' kernels) and the browser checks. A name that is not installed is passed over.
MODULES = (
    "numpy",
    "torch",
    "ownership",
    "ownership.doctor",
    "ownership.grade",
    "ownership.audit_command",
    "ownership.command",
    "ownership.drills",
    "ownership.pictures",
    "pytest",
    "xdist",
    "hypothesis",
    "sybil",
    "sphinx.cmd.build",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "sphinx.builders.html",
    "myst_nb",
    "myst_parser",
    "sphinx_autodoc_typehints",
    "sphinx_design",
    "sphinx_copybutton",
    "furo",
    "nbclient",
    "jupyter_cache",
    "ipykernel.kernelapp",
    "playwright.sync_api",
    "axe_playwright_python.sync_playwright",
    "bs4",
)


def main() -> int:
    """Import each module with bytecode writing on; say which could not be imported."""
    sys.dont_write_bytecode = False
    missing = []
    for name in MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        print(f"warm_bytecode: not installed, not compiled: {' '.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
