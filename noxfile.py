"""nox sessions for the project's checks, usable in any CI: `nox` runs them all, `nox -s NAME` one.

Every install passes `-c constraints.txt`, the lock of every package (`make lock` refreshes it), so
torch is always 2.13.0 (CPU) and every other package the version CI tested. nox gives each session
its own virtual environment; the sessions are marked reuse_venv so that a second `nox` run reuses
them instead of installing the stack (about 1.3 GB with torch) again. Only `tests`, `tests-baseline`,
`doctest` and `docs` need torch; `lint` and `typecheck` install no torch at all.
"""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "tests-baseline", "doctest", "docs"]
nox.options.reuse_venv = "yes"

PYTHON = "3.11"
CONSTRAINTS = ("-c", "constraints.txt")
SPHINX = ("-W", "--keep-going", "-n", "-c", ".")
# pytest on every core (pytest-xdist), as `make pytest`.
PARALLEL = ("-n", "auto")


def install(session: nox.Session, *args: str) -> None:
    """Install from the lock: pip and the build requirements first, then ``args`` (a local package
    is built without isolation, so with the locked setuptools and wheel)."""
    session.install(*CONSTRAINTS, "pip", "setuptools", "wheel")
    session.install(*CONSTRAINTS, "--no-build-isolation", *args)


@nox.session(python=PYTHON, reuse_venv=True)
def lint(session: nox.Session) -> None:
    """ruff: lint and format check."""
    install(session, "ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON, reuse_venv=True)
def typecheck(session: nox.Session) -> None:
    """mypy, strict on src/ (the engine needs only numpy)."""
    install(session, "-e", ".", "mypy")
    session.run("mypy")


@nox.session(python=PYTHON, reuse_venv=True)
def tests(session: nox.Session) -> None:
    """pytest: unit and differential tests, docstring doctests, the Markdown doctests."""
    install(session, "-e", ".[test,docs]")
    session.run("python", "-m", "pytest", *PARALLEL, "--ignore=tests/site", *session.posargs)


@nox.session(name="tests-baseline", python=PYTHON, reuse_venv=True)
def tests_baseline(session: nox.Session) -> None:
    """The numerically sensitive suites again, numpy and torch on baseline SIMD kernels.

    numpy without every dispatchable feature this CPU has, torch at ATEN_CPU_CAPABILITY=default;
    tests/support/kernels.py names the features and the suites; pytest's header shows what is in
    force.
    """
    install(session, "-e", ".[test,docs]")
    names = session.run("python", "tests/support/kernels.py", silent=True)
    suites = str(session.run("python", "tests/support/kernels.py", "--suites", silent=True))
    env = {"NPY_DISABLE_CPU_FEATURES": str(names).strip(), "ATEN_CPU_CAPABILITY": "default"}
    session.run("python", "-m", "pytest", *PARALLEL, *suites.split(), *session.posargs, env=env)


@nox.session(python=PYTHON, reuse_venv=True)
def doctest(session: nox.Session) -> None:
    """The Sphinx doctest builder over the pages and the API reference."""
    install(session, "-e", ".[test,docs]")
    session.run(
        "sphinx-build", "-b", "doctest", "-d", "_build/doctrees-doctest", *SPHINX,
        "-D", "nb_execution_mode=off", "-D", "suppress_warnings=myst-nb.lexer",
        "docs", "_build/doctest",
    )  # fmt: skip


@nox.session(python=PYTHON, reuse_venv=True)
def docs(session: nox.Session) -> None:
    """A from-scratch, warning-free HTML build, then the checks of the built site."""
    install(session, "-e", ".[test,docs]")
    session.run("rm", "-rf", "_build/html", "_build/doctrees-html", external=True)
    session.run(
        "sphinx-build", "-b", "html", "-d", "_build/doctrees-html", *SPHINX, "docs", "_build/html"
    )
    session.run("python", "-m", "pytest", *PARALLEL, "tests/site", *session.posargs)


@nox.session(python=PYTHON, reuse_venv=True, default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks: ownership against torch and plain numpy, side by side in one process."""
    install(session, "-e", ".[test]")
    session.run("python", "bench/run.py", *session.posargs)


@nox.session(python=PYTHON, reuse_venv=True, default=False)
def fuzz(session: nox.Session) -> None:
    """Random programs under torch and ownership (`nox -s fuzz -- --seed 1000 --count 500`): each
    failing program printed as a shrunk torch program, then the distinct causes."""
    install(session, "-e", ".[test]")
    session.run("python", "-m", "support.fuzz", *session.posargs, env={"PYTHONPATH": "tests"})
