"""What the site offers for download, built with the site (loaded by conf.py).

- Each page of the guide, the related topics and the recipes that has code gets a notebook,
  ``_downloads/notebooks/<page>.ipynb``, made from the page's own source: the cells whose code a
  reader never sees (``remove-cell``, ``remove-input``: the engine checks and the pictures) are
  left out, MyST roles become plain text, MyST directives become Markdown that Jupyter shows
  (:mod:`notebook_markdown`: a dropdown is a folded ``<details>``, an admonition a blockquote, a
  ``literalinclude`` the included code), and each doctest in the text is followed by a cell that
  runs it (folded in Jupyter when its doctest is inside a dropdown, tagged ``raises-exception``
  when it expects a traceback, so "Run All" goes to the end). The link at the top of the page
  says whether the notebook needs more than PyTorch; ``_downloads/notebooks.zip`` holds them all.
- The engine itself, as a wheel, ``_downloads/ownership-<release>-py3-none-any.whl``, built from
  ``src/`` without the network (``pip wheel --no-deps --no-build-isolation``).
- Beside each command of the tools (``ownership grade ...``), the ``{tools-install}`` box says
  where the command comes from: the wheel's link and the ``pip install`` line
  (:class:`ToolsInstall`; in a page's notebook, the same words in Markdown).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import nbformat
from docutils import nodes
from myst_nb.core.read import read_myst_markdown_notebook
from notebook_markdown import plain_markdown
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

NOTEBOOK_DIR = "_downloads/notebooks"
NOTEBOOK_ARCHIVE = "_downloads/notebooks.zip"
NOTEBOOK_FOLDERS = ("guide/", "related/", "recipes/")  # the pages that get a notebook
NOTEBOOK_DATA = ".npz"  # data a page's code reads from its folder: beside the notebooks in the zip
_ROLE = re.compile(r"\{(?:term|doc|ref|py:\w+)\}`([^`<]*?)\s*(?:<[^>]*>)?`")
_HIDDEN = ("remove-cell", "remove-input")  # proof machinery and pictures: not for the notebook
_DOCTEST = re.compile(r"```\{doctest\}\n(.*?)```", re.S)
_TOOLS_INSTALL = re.compile(r"```\{tools-install\}[ \t]*\n```")
TOOLS_INSTALL_CLASS = "install-tools"  # the box's class in the HTML (tests/site checks it)
TOOLS_INSTALL_TITLE = "Get the tools"


def wheel_name(release: str) -> str:
    """The file name of the engine's wheel for ``release``."""
    return f"ownership-{release}-py3-none-any.whl"


def _install_words(link: str) -> str:
    """The box's sentence, with ``link`` (HTML or Markdown) standing for the wheel's link."""
    return (
        f"The `ownership` command comes with the engine: download {link} and install it next "
        "to PyTorch (from the folder you downloaded it to):"
    )


class ToolsInstall(SphinxDirective):
    """``{tools-install}``: the box beside a command of the tools: the link to the engine's
    wheel, built with the site, and the ``pip install`` line that installs it."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        name = wheel_name(self.config.release)
        up = "../" * self.env.docname.count("/")
        link = (
            f'<a class="wheel-download" href="{up}_downloads/{name}" download>'
            f"the ownership wheel (<code>{name}</code>)</a>"
        )
        words = _install_words(link).replace("`ownership`", "<code>ownership</code>")
        box = nodes.admonition(classes=[TOOLS_INSTALL_CLASS])
        box += nodes.title("", TOOLS_INSTALL_TITLE)
        box += nodes.raw("", f"<p>{words}</p>", format="html")
        pip = f"pip install {name}"
        box += nodes.literal_block(pip, pip, language="bash")
        return [box]


def _install_markdown(release: str) -> str:
    """The box in a notebook: the same words in Markdown, the wheel linked beside the notebook
    (``_downloads/notebooks/`` in the site, the wheel in ``_downloads/``)."""
    name = wheel_name(release)
    words = _install_words(f"[the ownership wheel (`{name}`)](../{name})")
    return f"**{TOOLS_INSTALL_TITLE}.** {words}\n\n```bash\npip install {name}\n```"


def _is_notebook_page(path: Path) -> bool:
    return path.suffix == ".md" and "file_format: mystnb" in path.read_text(encoding="utf-8")[:300]


def _doctest_cell(block: str, folded: bool) -> nbformat.NotebookNode | None:
    """A code cell that runs a doctest's statements (None if it has none)."""
    code = [ln[4:] for ln in block.splitlines() if ln.startswith((">>> ", "... "))]
    if not code:
        return None
    cell = nbformat.v4.new_code_cell("\n".join(code))
    if "Traceback (most recent call last)" in block:
        cell.metadata["tags"] = ["raises-exception"]
    if folded:  # an answer: Jupyter folds its code and output until asked
        cell.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
    return cell


def notebook_for(
    source: str, release: str = "", folder: Path | None = None
) -> nbformat.NotebookNode:
    """The downloadable notebook of one page: what the reader sees, runnable with PyTorch.

    ``release`` names the engine's wheel in the page's ``{tools-install}`` boxes (the site's
    release; without it, the wheel of this source tree's ``pyproject.toml``); ``folder`` is the
    page's folder, where its ``literalinclude`` files are."""
    release = release or _project_release()
    notebook = read_myst_markdown_notebook(source)
    cells = []
    for cell in notebook.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type == "code":
            text = cell.source
            if any(t in tags for t in _HIDDEN) or text.lstrip().startswith("%"):
                continue
            for key in ("expect", "mystnb"):
                cell.metadata.pop(key, None)
            cells.append(cell)
        else:
            text = _ROLE.sub(r"\1", cell.source)
            text = _TOOLS_INSTALL.sub(lambda m: _install_markdown(release), text)
            cell.source = plain_markdown(text, folder)
            cells.append(cell)
            folded = "{dropdown}" in text  # a doctest in the text becomes a cell to run
            for block in _DOCTEST.findall(text):
                if block.startswith(":hide:"):  # the site's own check: not the reader's
                    continue
                run = _doctest_cell(block, folded)
                if run is not None:
                    cells.append(run)
    code = [c.source for c in cells if c.cell_type == "code"]
    if code and not any("import torch" in c for c in code):  # the doctests' own set-up
        cells.insert(1, nbformat.v4.new_code_cell("import torch"))
    notebook.cells = cells
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    return notebook


def _project_release() -> str:
    """The version in the ``pyproject.toml`` next to ``docs/`` (the release conf.py also names)."""
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])


def _needs_ownership(notebook: nbformat.NotebookNode) -> bool:
    return any(c.cell_type == "code" and "ownership" in c.source for c in notebook.cells)


def _has_code(notebook: nbformat.NotebookNode) -> bool:
    return any(c.cell_type == "code" for c in notebook.cells)


def _add_link(app: Sphinx, doctree: nodes.document) -> None:
    """Put the notebook link under the title of each guide page that has code."""
    docname = app.env.docname
    if not docname.startswith(NOTEBOOK_FOLDERS):
        return
    path = Path(app.env.doc2path(docname))
    if not _is_notebook_page(path):
        return
    notebook = notebook_for(path.read_text(encoding="utf-8"), folder=path.parent)
    if not _has_code(notebook):
        return
    name = docname.rsplit("/", 1)[-1]
    runs = (
        "needs PyTorch and the ownership wheel (see the start page)"
        if _needs_ownership(notebook)
        else "runs with plain PyTorch"
    )
    html = (
        f'<p class="notebook-download"><a href="../{NOTEBOOK_DIR}/{name}.ipynb" download>'
        f"Download this page as a notebook (.ipynb)</a> · {runs} · "
        f'<a href="../{NOTEBOOK_ARCHIVE}" download>every page\'s notebook (.zip)</a></p>'
    )
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    title = next(iter(section.findall(nodes.title)))
    section.insert(section.index(title) + 1, nodes.raw("", html, format="html"))


def _write_notebooks(app: Sphinx, exc: Exception | None) -> None:
    """Write the notebook of each guide page that has code; a page that did not change since
    the last build (nor this file, which makes its notebook) keeps its notebook, or its lack of
    one, as it is."""
    if exc is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / NOTEBOOK_DIR
    out.mkdir(parents=True, exist_ok=True)
    stamps_file = Path(app.doctreedir) / "notebooks.json"  # what each notebook was made from
    try:
        old = json.loads(stamps_file.read_text())
        old_written, old_without = dict(old["written"]), dict(old["without code"])
    except (OSError, ValueError, KeyError, TypeError):
        old_written, old_without = {}, {}
    maker = Path(__file__).read_bytes()
    written: dict[str, str] = {}  # notebook name -> the stamp of what made it
    without: dict[str, str] = {}  # the same for the pages that have no code, so no notebook
    for docname in sorted(app.env.found_docs):
        if not docname.startswith(NOTEBOOK_FOLDERS):
            continue
        path = Path(app.env.doc2path(docname))
        if not _is_notebook_page(path):
            continue
        source = path.read_text(encoding="utf-8")
        target = out / f"{docname.rsplit('/', 1)[-1]}.ipynb"
        release = app.config.release
        stamp = hashlib.sha256(maker + release.encode() + source.encode()).hexdigest()
        if old_written.get(target.name) == stamp and target.is_file():
            written[target.name] = stamp
            continue
        if old_without.get(target.name) == stamp:
            without[target.name] = stamp
            continue
        if target.name in written or target.name in without:
            raise ExtensionError(f"two pages would write the notebook {target.name}")
        notebook = notebook_for(source, release, path.parent)
        if _has_code(notebook):
            nbformat.validate(notebook)
            nbformat.write(notebook, target)
            written[target.name] = stamp
        else:
            without[target.name] = stamp
    for stale in out.glob("*.ipynb"):  # no notebook of a page that has none any more
        if stale.name not in written:
            stale.unlink()
    stamps = {"written": written, "without code": without}
    stamps_file.write_text(json.dumps(stamps, indent=1, sort_keys=True))
    data = sorted(
        p
        for folder in NOTEBOOK_FOLDERS
        for p in (Path(app.srcdir) / folder).glob(f"*{NOTEBOOK_DATA}")
    )
    _write_archive([*sorted(out.glob("*.ipynb")), *data], Path(app.outdir) / NOTEBOOK_ARCHIVE)


def _write_archive(files: list[Path], target: Path) -> None:
    """``files`` (the notebooks and the data they read) in one zip, side by side, the same bytes
    for the same files."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in files:
            info = zipfile.ZipInfo(f"ownership-notebooks/{file.name}", (2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, file.read_bytes())


_WHEEL_FILES = ("pyproject.toml", "README.md", "LICENSE")
_WHEEL_IGNORE = shutil.ignore_patterns("*.egg-info", "__pycache__")


def _wheel_inputs_digest(root: Path) -> str:
    """A hash of every file the wheel is built from (names and contents)."""
    digest = hashlib.sha256()
    files = [root / name for name in _WHEEL_FILES if (root / name).is_file()]
    files += [
        p
        for p in sorted((root / "src").rglob("*"))
        if p.is_file() and not any(part.endswith((".egg-info", "__pycache__")) for part in p.parts)
    ]
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


_WHEEL: dict[str, Any] = {}  # the wheel being built while the site builds


def _start_wheel(app: Sphinx) -> None:
    """Start building the engine's wheel, unless the same sources built it already; the build
    runs beside the site's (``pip wheel`` in its own process) and :func:`_finish_wheel` waits."""
    if app.builder.format != "html":
        return
    root = Path(app.confdir)
    if not (root / "src" / "ownership" / "__init__.py").is_file():  # a site without the engine
        return
    target = Path(app.outdir) / "_downloads" / wheel_name(app.config.release)
    stamp = Path(app.doctreedir) / "ownership-wheel.sha256"  # what the wheel was built from
    digest = _wheel_inputs_digest(root)
    if target.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return  # the same sources make the same wheel: nothing to rebuild
    tmp = Path(tempfile.mkdtemp(prefix="ownership-wheel-"))
    tree = tmp / "ownership"
    tree.mkdir()
    for name in _WHEEL_FILES:
        if (root / name).is_file():
            shutil.copy2(root / name, tree / name)
    shutil.copytree(root / "src", tree / "src", ignore=_WHEEL_IGNORE)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "-w",
        str(tmp / "dist"),
        str(tree),
    ]
    pip = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _WHEEL.update(pip=pip, tmp=tmp, target=target, stamp=stamp, digest=digest)


def _finish_wheel(app: Sphinx, exc: Exception | None) -> None:
    """Wait for the wheel; put it in ``_downloads`` (a failed site build drops it)."""
    if "pip" not in _WHEEL:
        return
    run = dict(_WHEEL)
    _WHEEL.clear()
    pip: subprocess.Popen[str] = run["pip"]
    tmp: Path = run["tmp"]
    try:
        if exc is not None:
            pip.kill()
            pip.communicate()
            return
        _, stderr = pip.communicate()
        built = list((tmp / "dist").glob("ownership-*.whl"))
        if pip.returncode != 0 or len(built) != 1:
            raise ExtensionError(f"the engine's wheel could not be built: {stderr[-500:]}")
        target: Path = run["target"]
        if built[0].name != target.name:
            raise ExtensionError(f"the wheel is {built[0].name}, the pages link {target.name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)
        run["stamp"].write_text(run["digest"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("tools-install", ToolsInstall)
    app.connect("doctree-read", _add_link)
    app.connect("build-finished", _write_notebooks)
    app.connect("builder-inited", _start_wheel)
    app.connect("build-finished", _finish_wheel)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
