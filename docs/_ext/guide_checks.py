"""The guide's build rules, as a Sphinx extension (loaded by conf.py).

- Math is typeset by a MathJax copied into the build (``_static/mathjax``): no CDN.
- The kernels that execute pages print minimal tracebacks (``ExceptionType: message``), so no page
  shows a path of the build machine, and send a cell's printed text in one piece.
- The build log is quiet, so that a real warning stands out: neither the kernels' notice that
  they talk TCP, nor nbclient's progress lines, nor MyST's configuration reach it.
- A code cell tagged ``raises-exception`` must name what it raises in ``:expect:`` and must really
  raise it: a cell that stops raising is a claim that became false, and fails the build.
- The finished site is scanned: no ``<script>``/``<link>`` that leaves the site, no absolute path of
  the build machine.
"""

from __future__ import annotations

import logging as stdlib_logging
import os
import re
import shutil
from importlib import metadata
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

# The parts of MathJax 3 that the tex-chtml component loads (the speech engine is left out).
MATHJAX_PARTS = ("tex-chtml.js", "input/tex/extensions", "output/chtml/fonts/woff-v2", "ui", "a11y")
KERNEL_CONFIG = """\
# Written by docs/_ext/guide_checks.py for the kernels that execute the guide's pages.
c.InteractiveShell.xmode = "Minimal"
c.InteractiveShell.colors = "nocolor"
# A cell's printed text reaches the page in one piece: the kernel sends its streams at the end of
# the cell and before a picture or an error, not also on a timer, whose tick could fall inside a
# line on a busy machine (MyST-NB ends each piece it merges with a line break).
import ipykernel.iostream
ipykernel.iostream.OutStream.flush_interval = 3600.0
# The pages executed side by side talk to their kernels over Unix sockets (parallel_execution's
# _IpcKernelManager); a page the read executes itself uses jupyter_client's default, TCP on
# 127.0.0.1 for this build only: ipykernel's notice that such a connection is not encrypted would
# reach the build log and bury a real warning.
import logging


class NoTcpNotice(logging.Filter):
    def filter(self, record):
        return "running over TCP without encryption" not in record.getMessage()


logging.getLogger("IPKernelApp").addFilter(NoTcpNotice())
"""


def _mathjax_source() -> Path:
    """The MathJax folder shipped by the ``sphinx-mathjax-offline`` distribution."""
    dist = metadata.distribution("sphinx-mathjax-offline")
    for file in dist.files or ():
        if file.name == "tex-chtml.js":
            return Path(str(dist.locate_file(file))).parent
    raise RuntimeError("sphinx-mathjax-offline is installed without tex-chtml.js")


def _kernel_settings(app: Sphinx) -> None:
    """Point the executing kernels at an IPython profile with minimal tracebacks."""
    ipython_dir = Path(app.outdir).parent / ".ipython"
    profile = ipython_dir / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    # Written whole, then renamed into place: `make test` builds the site and the doctests side
    # by side, both here, and a kernel must never read a half-written file.
    config = profile / "ipython_kernel_config.py"
    partial = config.with_name(f"{config.name}.{os.getpid()}")
    partial.write_text(KERNEL_CONFIG)
    os.replace(partial, config)
    os.environ["IPYTHONDIR"] = str(ipython_dir)
    # The kernels import the ``parity`` extension (docs/_ext/parity.py) with ``%load_ext parity``.
    here = str(Path(__file__).resolve().parent)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join([here, *[p for p in paths if p != here]])
    os.environ.setdefault("PYTHONWARNINGS", "default")


class _NoConfigDump(stdlib_logging.Filter):
    """Drops MyST's and MyST-NB's record of their whole configuration (a screenful each)."""

    def filter(self, record: stdlib_logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not any(type(a).__name__ in {"MdParserConfig", "NbParserConfig"} for a in args)


def _quiet_log() -> None:
    """What the build log leaves out, so that a warning stands out in it.

    - ipykernel's warning, at every kernel's start, that it runs over TCP without encryption: the
      kernels' configuration (``KERNEL_CONFIG``) leaves that one out.
    - nbclient's "Executing notebook with kernel" lines: its logger (``traitlets``) keeps its
      warnings only. (The theme's ``a11y_pygments`` sends every logger's INFO to the terminal: it
      configures the root logger when it is imported.)
    - MyST's and MyST-NB's configuration, printed whole at the start of every build.
    """
    stdlib_logging.getLogger("traitlets").setLevel(stdlib_logging.WARNING)
    for name in ("myst_parser.sphinx_ext.main", "myst_nb.sphinx_ext"):
        stdlib_logging.getLogger(f"sphinx.{name}").addFilter(_NoConfigDump())


def _copy_if_changed(src: Path, target: Path) -> None:
    """Copy a file (with its times) unless the target has its size and modification time."""
    try:
        have, want = target.stat(), src.stat()
        if have.st_size == want.st_size and have.st_mtime_ns == want.st_mtime_ns:
            return
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, target)


def _copy_mathjax(app: Sphinx, exc: Exception | None) -> None:
    """Copy MathJax's parts into the build; a file the last build copied stays as it is."""
    if exc is not None or app.builder.format != "html":
        return
    src, dest = _mathjax_source(), Path(app.outdir) / "_static" / "mathjax"
    for part in MATHJAX_PARTS:
        files = sorted(p for p in (src / part).rglob("*") if p.is_file())
        for file in files if (src / part).is_dir() else [src / part]:
            _copy_if_changed(file, dest / file.relative_to(src))


def _check_expected_errors(app: Sphinx, doctree: nodes.document) -> None:
    """Every ``raises-exception`` cell names its exception and really raised it."""
    if app.config.nb_execution_mode == "off":  # the doctest builder: cells are not executed
        return
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        meta: dict[str, Any] = cell.get("cell_metadata", {})
        tags = meta.get("tags", [])
        tracebacks = [
            n.astext() for n in cell.findall(nodes.literal_block) if "traceback" in n["classes"]
        ]
        if "raises-exception" not in tags:
            continue
        expect = meta.get("expect")
        if not expect:
            logger.warning(
                "a raises-exception cell must say what it raises, e.g. "
                ':expect: "RuntimeError: one of the variables needed"',
                location=cell,
            )
        elif not tracebacks:
            logger.warning(
                f"this cell is tagged raises-exception but raised nothing (expected {expect!r})",
                location=cell,
            )
        elif not any(expect in tb for tb in tracebacks):
            logger.warning(
                f"this cell raised something else than expected {expect!r}: {tracebacks[-1][-300:]}",
                location=cell,
            )


_EXTERNAL = re.compile(r"<(script|link)\b[^>]*\b(src|href)=\"(https?:)?//", re.I)


def _scan_site(app: Sphinx, exc: Exception | None) -> None:
    """The built pages load nothing from outside and show no path of this machine."""
    if exc is not None or app.builder.format != "html":
        return
    root = str(Path(app.confdir).resolve())
    home = os.path.expanduser("~")
    private = [root, home + "/", "site-packages", "/tmp/"]
    for page in sorted(Path(app.outdir).rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        rel = page.relative_to(app.outdir)
        for match in _EXTERNAL.finditer(text):
            logger.warning(f"{rel}: loads a resource from outside the site: {match.group(0)}")
        for needle in private:
            if needle in text:
                logger.warning(f"{rel}: shows a path of the build machine ({needle!r})")


def setup(app: Sphinx) -> dict[str, Any]:
    app.config.mathjax_path = "mathjax/tex-chtml.js"
    _quiet_log()
    app.connect("builder-inited", _kernel_settings)
    app.connect("doctree-read", _check_expected_errors)
    app.connect("build-finished", _copy_mathjax)
    app.connect("build-finished", _scan_site)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
