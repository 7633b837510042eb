"""The pages' notebooks are executed side by side, one kernel per core (loaded by conf.py).

MyST-NB executes a page when Sphinx reads it, so a build runs its kernels one after the other
and leaves every other core idle. Before the read starts, this extension hands the pages that
are about to be read to a pool of worker processes (``execution_workers``, one per core by
default). Each worker executes a page exactly as MyST-NB's ``cache`` mode would: the same reader,
the same configuration, the same jupyter-cache record. The read then finds every page in the
cache and only renders it.

Nothing is relaxed. A page that fails in a worker is not cached, so the read executes it again
and fails the build with MyST-NB's own report (``nb_execution_raise_on_error``). The executed
outputs are checked when they are rendered (stderr, ``raises-exception``), whoever executed them.
Pages are dealt longest source first, so a long page does not start last and finish alone.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import warm_kernels
from jupyter_cache import get_cache
from myst_nb.core.execute import create_client
from myst_nb.core.read import create_nb_reader
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

logger = logging.getLogger(__name__)


class _Quiet:
    """A MyST-NB logger that drops the workers' progress lines (the read reports each page)."""

    def debug(self, *args: Any, **kwargs: Any) -> None:
        """Drop."""

    def info(self, *args: Any, **kwargs: Any) -> None:
        """Drop."""

    def warning(self, *args: Any, **kwargs: Any) -> None:
        """Drop: a failure is reported by the read, which executes the page again."""


_CONFIG: dict[str, Any] = {}  # the parser settings, inherited by the forked workers
_WARM: dict[str, Any] = {}  # the warm process that forks the kernels, while the build runs


def _execute(path: str) -> tuple[str, float, bool]:
    """Execute one page into the cache, as MyST-NB's read would; return whether it succeeded."""
    start = time.perf_counter()
    md_config, nb_config = _CONFIG["md"], _CONFIG["nb"]
    text = Path(path).read_text(encoding="utf-8")
    reader = create_nb_reader(path, md_config, nb_config, text)
    if reader is None:
        return path, 0.0, True
    notebook = reader.read(text)
    if nb_config.metadata_key in notebook.metadata:  # the page's own settings, as the read does
        overrides = dict(notebook.metadata[nb_config.metadata_key])
        overrides.pop("output_folder", None)
        nb_config = nb_config.copy(**overrides)
    try:
        with create_client(notebook, path, nb_config, _Quiet(), reader.read_fmt):
            pass
    except Exception:  # the read executes the page again and reports why it fails
        return path, time.perf_counter() - start, False
    return path, time.perf_counter() - start, True


def _pages_to_execute(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> list[str]:
    pages = []
    for docname in docnames:
        path = str(env.doc2path(docname))
        if not path.endswith(".md"):
            continue
        text = Path(path).read_text(encoding="utf-8")
        if create_nb_reader(path, env.myst_config, env.mystnb_config, text) is not None:
            pages.append(path)
    return sorted(pages, key=lambda p: -Path(p).stat().st_size)


def _execute_ahead(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Fill the execution cache for ``docnames`` with a pool of workers, before the read."""
    if env.mystnb_config.execution_mode != "cache":
        return
    workers = app.config.execution_workers or os.cpu_count() or 1
    pages = _pages_to_execute(app, env, docnames)
    if workers < 2 or len(pages) < 2:  # nothing to overlap: the read executes the page
        return
    start = time.perf_counter()
    if app.config.execution_warm_kernels and "server" not in _WARM:
        _WARM["server"] = warm_kernels.start(Path(app.outdir).parent)
    _CONFIG.update(md=env.myst_config, nb=env.mystnb_config)
    get_cache(env.mystnb_config.execution_cache_path).db.dispose()  # created once, not raced
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(workers, len(pages)), mp_context=context) as pool:
        results = list(pool.map(_execute, pages))
    failed = [path for path, _, ok in results if not ok]
    logger.info(
        f"executed {len(pages)} notebooks on {min(workers, len(pages))} workers in "
        f"{time.perf_counter() - start:.1f} s (kernel time {sum(s for _, s, _ in results):.1f} s)"
        + (f"; {len(failed)} failed, the read reports them" if failed else "")
    )


def _stop_warm(app: Sphinx, exc: Exception | None) -> None:
    if "server" in _WARM:
        warm_kernels.stop(_WARM.pop("server"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("execution_workers", 0, "env", int)
    app.add_config_value("execution_warm_kernels", True, "env", bool)
    app.connect("build-finished", _stop_warm)
    app.connect("env-before-read-docs", _execute_ahead)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
