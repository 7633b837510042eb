"""The pages' notebooks are executed side by side, one kernel per core (loaded by conf.py).

MyST-NB executes a page when Sphinx reads it, so a build runs its kernels one after the other
and leaves every other core idle. When the read starts, this extension hands the pages that are
about to be read to a pool of worker processes (``execution_workers``, one per core by default),
whose kernels are forked from a warm process (``warm_kernels``). Each worker executes a page
exactly as MyST-NB's ``cache`` mode would: the same reader, the same configuration, the same
jupyter-cache record. Meanwhile Sphinx reads the pages without a notebook; it reads each notebook
page once the pool has executed it, finds it in the cache and only renders it.

Nothing is relaxed. A page that fails in a worker is not cached, so the read executes it again
and fails the build with MyST-NB's own report (``nb_execution_raise_on_error``). The executed
outputs are checked when they are rendered (stderr, ``raises-exception``), whoever executed them.
Pages are dealt longest source first, so a long page does not start last and finish alone.

The read stays in the one process that holds the pool, even under ``sphinx-build -j``: Sphinx's
parallel read would fork readers that can neither wait for the pool nor report a failing page in
MyST-NB's words. ``-j`` still writes the pages side by side once the read is over.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
import time
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from jupyter_cache import get_cache
from jupyter_client.manager import AsyncKernelManager
from myst_nb.core.execute import create_client
from myst_nb.core.read import create_nb_reader
from nbclient import NotebookClient
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


class _IpcKernelManager(AsyncKernelManager):  # type: ignore[misc]
    """A page's kernel talks to its worker over Unix sockets in a folder of this build.

    Over TCP (jupyter_client's default) each side picks a free port by binding port 0 and
    closing it; the kernel binds it a moment later, so two workers starting kernels at the same
    time could pick the same port, and one kernel then fails to start ("Address already in use")
    and its page waits a minute for it. A socket's name here is the build's folder and a name no
    other kernel has, absolute, since the kernel works in its page's folder and the worker in the
    project's.
    """

    def _transport_default(self) -> str:
        return "ipc"

    def _ip_default(self) -> str:
        return os.path.join(_SOCKETS["folder"], uuid.uuid4().hex[:12])


_SOCKETS: dict[str, str] = {}  # the folder of the kernels' sockets, while the build runs
_CONFIG: dict[str, Any] = {}  # the parser settings, inherited by the forked workers
_WARM: dict[str, Any] = {}  # the warm process that forks the kernels, while the build runs


def _start_worker() -> None:
    """In each worker: a page's kernel talks over Unix sockets (:class:`_IpcKernelManager`),
    and is stopped as soon as its last cell has answered.

    nbclient has then collected every output of every cell; its default (``graceful``) asks the
    kernel to shut down and polls until it has, which adds a few tenths of a second to each page
    and nothing to what the page shows.
    """
    NotebookClient.shutdown_kernel.default_value = "immediate"
    # nbclient's own default (AsyncKernelManager) is a method of the class, which traitlets
    # looks up by this name first
    NotebookClient._kernel_manager_class_default = lambda self: _IpcKernelManager


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


def _pages_to_execute(env: BuildEnvironment, docnames: list[str]) -> list[tuple[str, str, str]]:
    """The notebook pages among ``docnames``, longest source first: name, path and the key
    jupyter-cache keeps the executed notebook under (the hash of its code, which MyST-NB's read
    looks up)."""
    cache = get_cache(env.mystnb_config.execution_cache_path)
    pages = []
    for docname in docnames:
        path = str(env.doc2path(docname))
        if not path.endswith(".md"):
            continue
        text = Path(path).read_text(encoding="utf-8")
        reader = create_nb_reader(path, env.myst_config, env.mystnb_config, text)
        if reader is not None:
            pages.append((docname, path, cache.create_hashed_notebook(reader.read(text))[1]))
    return sorted(pages, key=lambda page: -Path(page[1]).stat().st_size)


_RUN: dict[str, Any] = {}  # the pool at work: executor, futures by page, start time


def _execute_ahead(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Start executing the notebook pages among ``docnames`` in a pool of workers.

    The read goes on meanwhile: ``docnames`` is reordered so that the pages without a notebook
    are read first, then the notebook pages in the order the pool takes them up; the read of a
    notebook page waits for its execution (:func:`_wait_for_page`).
    """
    if env.mystnb_config.execution_mode != "cache":
        return
    # The read stays in this process: it may execute pages (MyST-NB reports a failing page in
    # its own words only from there), and it is where the pool is; ``-j`` would fork readers that
    # can do neither. The pages are still written side by side (see _after_read).
    _RUN["parallel"], app.parallel = app.parallel, 1
    workers = app.config.execution_workers or os.cpu_count() or 1
    pages = _pages_to_execute(env, docnames)
    if workers < 2 or len(pages) < 2:  # nothing to overlap: the read executes the page
        return
    if app.config.execution_warm_kernels and "server" not in _WARM:
        import warm_kernels  # beside this file, on the path conf.py gives the extensions

        _WARM["server"] = warm_kernels.start(Path(app.outdir).parent)
    _CONFIG.update(md=env.myst_config, nb=env.mystnb_config)
    _SOCKETS["folder"] = tempfile.mkdtemp(prefix="guide-kernels-")
    get_cache(env.mystnb_config.execution_cache_path).db.dispose()  # created once, not raced
    workers = min(workers, len(pages))
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_start_worker,
    )
    # Pages whose notebooks hold the same code share one cache record: it is executed once, as
    # a second execution would replace the record (jupyter-cache overwrites a record of the same
    # key) while the read may be using the first.
    executions: dict[str, Future[tuple[str, float, bool]]] = {}
    futures = {}
    for docname, path, key in pages:
        if key not in executions:
            executions[key] = pool.submit(_execute, path)
        futures[docname] = executions[key]
    _RUN.update(pool=pool, futures=futures, results={}, start=time.perf_counter())
    _RUN["workers"] = workers
    docnames[:] = [d for d in docnames if d not in futures] + [d for d, _, _ in pages]


def _after_read(app: Sphinx, env: BuildEnvironment) -> None:
    """The read is over: the writing may use the ``-j`` processes again."""
    if "parallel" in _RUN:
        app.parallel = _RUN.pop("parallel")


def _wait_for_page(app: Sphinx, docname: str, source: list[str]) -> None:
    """Before a notebook page is parsed, wait until the pool has executed it."""
    futures = _RUN.get("futures", {})
    if docname not in futures:
        return
    result = futures.pop(docname).result()
    _RUN["results"][result[0]] = result  # by path: a shared execution counts once
    if not result[2]:
        # the read executes a page that failed in a worker again itself, and looks up the cache
        # as it does: the pool finishes first, so no worker is writing a cache record meanwhile
        # (a record the read found before its notebook file was written raised a KeyError)
        for other in list(futures):
            done = futures.pop(other).result()
            _RUN["results"][done[0]] = done
    if futures:
        return
    _RUN.pop("pool").shutdown()
    results = list(_RUN.pop("results").values())
    failed = [path for path, _, ok in results if not ok]
    logger.info(
        f"executed {len(results)} notebooks on {_RUN['workers']} workers in "
        f"{time.perf_counter() - _RUN['start']:.1f} s "
        f"(kernel time {sum(s for _, s, _ in results):.1f} s)"
        + (f"; {len(failed)} failed, the read reports them" if failed else "")
    )
    for path, seconds, _ in sorted(results, key=lambda r: -r[1]):
        logger.verbose(f"  {seconds:5.1f} s  {Path(path).relative_to(app.srcdir)}")
    for key in ("futures", "start", "workers"):
        del _RUN[key]


def _stop(app: Sphinx, exc: Exception | None) -> None:
    """At the end of the build (even a failed one): no pool, no warm process left behind."""
    if "pool" in _RUN:
        _RUN["pool"].shutdown(cancel_futures=True)
    if "parallel" in _RUN:  # a read that failed
        app.parallel = _RUN["parallel"]
    _RUN.clear()
    if "folder" in _SOCKETS:
        shutil.rmtree(_SOCKETS.pop("folder"), ignore_errors=True)
    if "server" in _WARM:
        import warm_kernels

        warm_kernels.stop(_WARM.pop("server"))


#: How long nbclient waits, after a cell has answered, for the rest of its output (its own
#: default is 4 s); past it the page fails instead of going on without that output.
IOPUB_SECONDS = 30


def outputs_complete() -> None:
    """Every page's outputs are whole, or its execution fails (in a worker, so the read executes
    it again; in the read, with MyST-NB's report).

    nbclient, by default, waits 4 s after a cell's answer for the output still on its way, then
    goes on without it, with a warning the build does not count: on a busy machine a page could
    be cached, and shown, without a cell's output. Its two settings are class defaults of
    immutable value, which traitlets copies into each client from a table made with the class,
    so the table's entries go too.

    >>> import nbformat
    >>> outputs_complete()
    >>> client = NotebookClient(nbformat.v4.new_notebook())
    >>> client.raise_on_iopub_timeout, client.iopub_timeout
    (True, 30)
    """
    for name, value in (("raise_on_iopub_timeout", True), ("iopub_timeout", IOPUB_SECONDS)):
        getattr(NotebookClient, name).default_value = value
        NotebookClient._static_immutable_initial_values.pop(name, None)


def setup(app: Sphinx) -> dict[str, Any]:
    outputs_complete()  # the read's clients and the workers' (forked from this process)
    app.add_config_value("execution_workers", 0, "env", int)
    app.add_config_value("execution_warm_kernels", True, "env", bool)
    app.connect("env-before-read-docs", _execute_ahead)
    app.connect("source-read", _wait_for_page)
    app.connect("env-updated", _after_read)
    app.connect("build-finished", _stop)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
