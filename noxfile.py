"""nox sessions for the project's checks, usable in any CI: `nox` runs them all, `nox -s NAME` one.

Every install passes `-c constraints.txt`, so torch is always 2.13.0 (CPU). nox gives each session
its own virtual environment; the sessions are marked reuse_venv so that a second `nox` run reuses
them instead of installing the stack (about 1.3 GB with torch) again. Only `tests`, `doctest` and
`docs` need torch; `lint` and `typecheck` install no torch at all.
"""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "doctest", "docs"]
nox.options.reuse_venv = "yes"

PYTHON = "3.11"
CONSTRAINTS = ("-c", "constraints.txt")
SPHINX = ("-W", "--keep-going", "-n", "-c", ".")


@nox.session(python=PYTHON, reuse_venv=True)
def lint(session: nox.Session) -> None:
    """ruff: lint and format check."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON, reuse_venv=True)
def typecheck(session: nox.Session) -> None:
    """mypy, strict on src/ (the engine needs only numpy)."""
    session.install(*CONSTRAINTS, "-e", ".", "mypy>=1.10")
    session.run("mypy")


@nox.session(python=PYTHON, reuse_venv=True)
def tests(session: nox.Session) -> None:
    """pytest: unit and differential tests, docstring doctests, the Markdown doctests."""
    session.install(*CONSTRAINTS, "-e", ".[test,docs]")
    session.run("python", "-m", "pytest", "--ignore=tests/site", *session.posargs)


@nox.session(python=PYTHON, reuse_venv=True)
def doctest(session: nox.Session) -> None:
    """The Sphinx doctest builder over the pages and the API reference."""
    session.install(*CONSTRAINTS, "-e", ".[test,docs]")
    session.run(
        "sphinx-build", "-b", "doctest", "-d", "_build/doctrees-doctest", *SPHINX,
        "-D", "nb_execution_mode=off", "-D", "suppress_warnings=myst-nb.lexer",
        "docs", "_build/doctest",
    )  # fmt: skip


@nox.session(python=PYTHON, reuse_venv=True)
def docs(session: nox.Session) -> None:
    """A from-scratch, warning-free HTML build, then the checks of the built site."""
    session.install(*CONSTRAINTS, "-e", ".[test,docs]")
    session.run("rm", "-rf", "_build/html", "_build/doctrees-html", external=True)
    session.run(
        "sphinx-build", "-b", "html", "-d", "_build/doctrees-html", *SPHINX, "docs", "_build/html"
    )
    session.run("python", "-m", "pytest", "tests/site", *session.posargs)


@nox.session(python=PYTHON, reuse_venv=True, default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks: ownership against torch and plain numpy, side by side in one process."""
    session.install(*CONSTRAINTS, "-e", ".[test]")
    session.run("python", "bench/run.py", *session.posargs)
