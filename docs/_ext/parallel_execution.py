"""The pages' notebooks are executed side by side, one kernel per core (loaded by conf.py).

MyST-NB executes a page when Sphinx reads it, so a build runs its kernels one after the other
and leaves every other core idle. When the read starts, this extension hands the pages that are
about to be read, and that the cache does not hold yet, to a pool of worker processes
(``execution_workers``, one per core by default), whose kernels are forked from a warm process
(``warm_kernels``). Each worker executes a page exactly as MyST-NB's ``cache`` mode would (the
same reader, the same configuration, the same client), into a cache of its own, and hands the
executed notebook back. Meanwhile Sphinx reads the pages without a notebook; before it reads a
notebook page, the read's process files the page's executed notebook in the project's cache, as
MyST-NB's read files one it executed itself; the read then finds it there and only renders it.

Only the read's process writes the project's cache (:func:`_file_executed`). jupyter-cache keeps
its records in one SQLite file; when the workers wrote it themselves, a read now and then (twice
in seven full test runs on a busy machine, never in a build alone) found no record of a page a
worker had just filed, and executed the page a second time. With one writer, the record a read
looks up is the one its own process filed just before.

Nothing is relaxed. A page that fails in a worker is not filed, so the read executes it again
and fails the build with MyST-NB's own report (``nb_execution_raise_on_error``). The executed
outputs are checked when they are rendered (stderr, ``raises-exception``), whoever executed them.
Pages are dealt longest source first, so a long page does not start last and finish alone.

The read stays in the one process that holds the pool, even under ``sphinx-build -j``: Sphinx's
parallel read would fork readers that can neither wait for the pool nor report a failing page in
MyST-NB's words. ``-j`` still writes the pages side by side once the read is over.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import tempfile
import time
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.cache.db import NbCacheRecord
from jupyter_client.manager import AsyncKernelManager
from myst_nb.core.execute import create_client
from myst_nb.core.read import create_nb_reader
from nbclient import NotebookClient
from nbformat import NotebookNode
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
    """In each worker: pages are executed into a cache of the worker's own, in the build's
    scratch folder; a page's kernel talks over Unix sockets (:class:`_IpcKernelManager`), and is
    stopped as soon as its last cell has answered.

    nbclient has then collected every output of every cell; its default (``graceful``) asks the
    kernel to shut down and polls until it has, which adds a few tenths of a second to each page
    and nothing to what the page shows.
    """
    NotebookClient.shutdown_kernel.default_value = "immediate"
    # nbclient's own default (AsyncKernelManager) is a method of the class, which traitlets
    # looks up by this name first
    NotebookClient._kernel_manager_class_default = lambda self: _IpcKernelManager
    own_cache = tempfile.mkdtemp(prefix="cache-", dir=_SOCKETS["folder"])
    _CONFIG["nb"] = _CONFIG["nb"].copy(execution_cache_path=own_cache)


class Executed(NamedTuple):
    """What a worker hands back for a page."""

    path: str
    seconds: float  #: the worker's time for the page, its kernel's start included
    notebook: NotebookNode | None  #: the executed notebook; None if the execution failed
    runtime: float | None  #: the cells' time, which MyST-NB's cache keeps with the notebook


def _execute(path: str) -> Executed:
    """Execute one page as MyST-NB's read would, into the worker's own cache."""
    start = time.perf_counter()
    md_config, nb_config = _CONFIG["md"], _CONFIG["nb"]
    text = Path(path).read_text(encoding="utf-8")
    reader = create_nb_reader(path, md_config, nb_config, text)
    assert reader is not None  # a notebook page (_pages_to_execute)
    notebook = reader.read(text)
    if nb_config.metadata_key in notebook.metadata:  # the page's own settings, as the read does
        overrides = dict(notebook.metadata[nb_config.metadata_key])
        overrides.pop("output_folder", None)
        nb_config = nb_config.copy(**overrides)
    try:
        with create_client(notebook, path, nb_config, _Quiet(), reader.read_fmt) as client:
            runtime = client.exec_metadata["runtime"]
            return Executed(path, time.perf_counter() - start, client.notebook, runtime)
    except Exception:  # the read executes the page again and reports why it fails
        return Executed(path, time.perf_counter() - start, None, None)


class Page(NamedTuple):
    """A notebook page to execute ahead of its read."""

    docname: str
    path: str
    read_fmt: dict[str, Any]  #: how it is read, which jupyter-cache's project records
    key: str  #: the hash of its code, under which the read looks its notebook up


def _pages_to_execute(env: BuildEnvironment, docnames: list[str]) -> list[Page]:
    """The notebook pages among ``docnames`` whose notebook the project's cache does not hold,
    longest source first."""
    cache = get_cache(env.mystnb_config.execution_cache_path)
    pages = []
    for docname in docnames:
        path = str(env.doc2path(docname))
        if not path.endswith(".md"):
            continue
        text = Path(path).read_text(encoding="utf-8")
        reader = create_nb_reader(path, env.myst_config, env.mystnb_config, text)
        if reader is None:
            continue
        key = cache.create_hashed_notebook(reader.read(text))[1]
        with contextlib.suppress(KeyError):  # held: the read finds it
            NbCacheRecord.record_from_hashkey(key, cache.db)
            continue
        pages.append(Page(docname, path, reader.read_fmt, key))
    cache.db.dispose()  # no connection of this process is open when the workers fork from it
    return sorted(pages, key=lambda page: -Path(page.path).stat().st_size)


def _file_executed(env: BuildEnvironment, page: Page, executed: Executed) -> None:
    """File a page's executed notebook in the project's cache as MyST-NB's read files one it
    executed itself (the page in the cache's project, the notebook under the hash of its code);
    the read then finds it there."""
    cache = get_cache(env.mystnb_config.execution_cache_path)
    project = cache.add_nb_to_project(page.path, read_data=page.read_fmt)
    data = {"execution_seconds": executed.runtime}
    bundle = CacheBundleIn(executed.notebook, project.uri, data=data)
    record = cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
    cache.db.dispose()
    if record.hashkey != page.key:  # the read would not find it, and would execute the page again
        logger.warning(
            f"{page.path}: its executed notebook is filed under {record.hashkey}, but the "
            f"read looks it up under {page.key}"
        )


_RUN: dict[str, Any] = {}  # the pool at work: executor, the pages and their executions, start time


def _execute_ahead(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Start executing the notebook pages among ``docnames`` in a pool of workers.

    The read goes on meanwhile: ``docnames`` is reordered so that the pages without a notebook
    to execute are read first, then the others in the order the pool takes them up; the read of
    such a page waits for its execution (:func:`_wait_for_page`).
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
    _SOCKETS["folder"] = tempfile.mkdtemp(prefix="guide-kernels-")
    if app.config.execution_warm_kernels and "server" not in _WARM:
        import warm_kernels  # beside this file, on the path conf.py gives the extensions

        # in this build's own folder of sockets: two builds side by side must not share one
        # warm process (nor its kernels' engine), and a Unix socket's path must stay short
        _WARM["server"] = warm_kernels.start(Path(_SOCKETS["folder"]))
    _CONFIG.update(md=env.myst_config, nb=env.mystnb_config)
    workers = min(workers, len(pages))
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_start_worker,
    )
    # Pages whose notebooks hold the same code share one cache record: it is executed once.
    executions: dict[str, Future[Executed]] = {}
    for page in pages:
        if page.key not in executions:
            executions[page.key] = pool.submit(_execute, page.path)
    futures = {page.docname: (page, executions[page.key]) for page in pages}
    _RUN.update(pool=pool, futures=futures, results={}, start=time.perf_counter())
    _RUN["workers"] = workers
    docnames[:] = [d for d in docnames if d not in futures] + [page.docname for page in pages]


def _after_read(app: Sphinx, env: BuildEnvironment) -> None:
    """The read is over: the writing may use the ``-j`` processes again."""
    if "parallel" in _RUN:
        app.parallel = _RUN.pop("parallel")


def _wait_for_page(app: Sphinx, docname: str, source: list[str]) -> None:
    """Before a notebook page is parsed, wait until the pool has executed it, and file its
    notebook in the project's cache (once for the pages that share it)."""
    futures = _RUN.get("futures", {})
    if docname not in futures:
        return
    page, future = futures.pop(docname)
    executed = future.result()
    if executed.notebook is not None and executed.path not in _RUN["results"]:
        _file_executed(app.env, page, executed)
    _RUN["results"][executed.path] = executed  # by path: a shared execution counts once
    if futures:
        return
    _RUN.pop("pool").shutdown()
    results = list(_RUN.pop("results").values())
    failed = [result.path for result in results if result.notebook is None]
    logger.info(
        f"executed {len(results)} notebooks on {_RUN['workers']} workers in "
        f"{time.perf_counter() - _RUN['start']:.1f} s "
        f"(kernel time {sum(result.seconds for result in results):.1f} s)"
        + (f"; {len(failed)} failed, the read reports them" if failed else "")
    )
    for result in sorted(results, key=lambda result: -result.seconds):
        logger.verbose(f"  {result.seconds:5.1f} s  {Path(result.path).relative_to(app.srcdir)}")
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
