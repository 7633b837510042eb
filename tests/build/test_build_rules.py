"""The site's build rules can fail: each defect below, planted in a scratch copy, fails the build.

Each case builds a one-page scratch site with the project's own Makefile, conf.py and extension,
so the flags under test are the ones `make html` and `make doctest` really use.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.prefix)

PAGE_HEAD = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---

# Scratch

"""


def build(
    tmp_path: Path,
    page: str,
    target: str,
    more: dict[str, str] | None = None,
    opts: str = "",
    quiet: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Build a scratch site whose index page is ``page`` with ``make <target>``.

    ``more`` adds pages (name to body, each linked from the index), ``opts`` Sphinx options;
    ``quiet`` (Sphinx's ``-q``) leaves out everything but warnings and errors.
    """
    for name in ("Makefile", "conf.py", "pyproject.toml", "constraints.txt"):
        shutil.copy2(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "docs" / "_ext", tmp_path / "docs" / "_ext")
    shutil.copytree(ROOT / "docs" / "_static", tmp_path / "docs" / "_static")
    (tmp_path / "src").mkdir()
    (tmp_path / "docs" / "index.md").write_text(PAGE_HEAD + page + _toctree(more or {}))
    for name, body in (more or {}).items():
        (tmp_path / "docs" / f"{name}.md").write_text(PAGE_HEAD + body)
    # a stamp of the scratch folder's own, newer than the files copied above (copy2 keeps their
    # times): make may never rerun the install rule, which would point the project's venv at the
    # scratch folder's src
    (tmp_path / ".installed").touch()
    return make(tmp_path, target, opts, quiet)


def make(
    tmp_path: Path, target: str, opts: str = "", quiet: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``make <target>`` in the scratch site :func:`build` made (again, after a change)."""
    stamp = tmp_path / ".installed"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [
            "make",
            target,
            f"VENV={VENV}",
            f"STAMP={stamp}",
            f"SPHINXOPTS={'-q ' if quiet else ''}{opts}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def _toctree(pages: dict[str, str]) -> str:
    return "\n```{toctree}\n" + "\n".join(pages) + "\n```\n" if pages else ""


GOOD_CELL = """
```{code-cell} ipython3
print(1 + 1)
```
"""


@pytest.fixture(scope="module")
def venv_ready() -> None:
    if not (VENV / "bin" / "sphinx-build").exists():
        pytest.skip("the docs extra is not installed in this environment")


# A cell that fails stops the build at its page: each is built alone.
STOPS_THE_BUILD = [
    (
        "an unexpected exception in a cell",
        "```{code-cell} ipython3\n1 / 0\n```\n",
        "Executing notebook failed",
    ),
    (
        "a cell whose result differs between torch and ownership",
        "```{code-cell} ipython3\n:tags: [remove-cell]\n%load_ext parity\n```\n"
        "```{code-cell} ipython3\nimport torch\nprint(torch.__name__)\n```\n",
        "the engines disagree",
    ),
]
# Each of these is a build warning, which -W makes an error: one alone fails the build, so they
# are built together, one page each, and each must be reported at its own page.
WARNS = [
    (
        "a raises-exception cell that no longer raises",
        "```{code-cell} ipython3\n:tags: [raises-exception]\n:expect: ZeroDivisionError\n"
        "1 / 1\n```\n",
        "raised nothing",
    ),
    (
        "a raises-exception cell that raises something else",
        "```{code-cell} ipython3\n:tags: [raises-exception]\n:expect: ZeroDivisionError\n"
        "int('x')\n```\n",
        "raised something else",
    ),
    (
        "a raises-exception cell that does not say what it raises",
        "```{code-cell} ipython3\n:tags: [raises-exception]\n1 / 0\n```\n",
        "must say what it raises",
    ),
    (
        "output on stderr",
        "```{code-cell} ipython3\nimport sys\nprint('oops', file=sys.stderr)\n```\n",
        "stderr",
    ),
    (
        "a broken cross-reference",
        GOOD_CELL + "\nSee {py:func}`ownership.no_such_function`.\n",
        "reference target not found",
    ),
    (
        "a broken document link",
        GOOD_CELL + "\nSee {doc}`no-such-page`.\n",
        "unknown document",
    ),
    (
        "a rule whose function moved",
        "```{eval-rst}\n.. enforced-by:: ownership.core.inplace_rules.no_such_check\n```\n",
        "enforced-by: cannot import ownership.core.inplace_rules.no_such_check",
    ),
    (
        "a rule whose function no longer says what the page claims",
        "```{eval-rst}\n.. enforced-by:: ownership.core.inplace_rules.check_inplace\n"
        "   :raises: ValueError\n   :says: no such words\n   :calls: no_such_call\n```\n",
        "it raises no ValueError",
    ),
    (
        "a rule whose function no longer sets what the page claims",
        "```{eval-rst}\n.. enforced-by:: ownership.core.storage.VersionCounter.bump\n"
        "   :sets: no_such_slot\n```\n",
        "it does not set .no_such_slot",
    ),
    (
        "a rule without its layer",
        "```{eval-rst}\n.. rule:: some-rule\n```\n",
        "rule some-rule: no :layer:",
    ),
]


@pytest.mark.parametrize(("defect", "page", "says"), STOPS_THE_BUILD)
def test_a_failing_cell_fails_make_html(
    tmp_path: Path, venv_ready: None, defect: str, page: str, says: str
) -> None:
    result = build(tmp_path, page, "html")
    output = result.stdout + result.stderr
    assert result.returncode != 0, f"{defect} did not fail the build:\n{output}"
    assert says in output, output


def test_each_defect_that_warns_fails_make_html(tmp_path: Path, venv_ready: None) -> None:
    pages = {f"defect{i}": page for i, (_, page, _) in enumerate(WARNS)}
    result = build(tmp_path, GOOD_CELL, "html", pages)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    lines = output.splitlines()
    unreported = [
        defect
        for i, (defect, _, says) in enumerate(WARNS)
        if not any(f"defect{i}.md" in line and says in line for line in lines)
    ]
    assert unreported == [], f"not reported at their page: {unreported}\n{output}"
    assert "index.md" not in output, output  # the good page warns of nothing


def test_pages_executed_side_by_side_still_fail_on_a_defect(
    tmp_path: Path, venv_ready: None
) -> None:
    """Two workers execute the pages before the read; a failing page is still a failing build."""
    pages = {"second": "```{code-cell} ipython3\n1 / 0\n```\n", "third": GOOD_CELL}
    result = build(tmp_path, GOOD_CELL, "html", pages, opts="-D execution_workers=2")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Executing notebook failed" in output and "second.md" in output, output


# What the build log once showed for every page or every build, burying real warnings: the kernels'
# notice that they talk TCP, nbclient's progress lines, MyST's and MyST-NB's configuration.
NOISE = ("without encryption", "traitlets", "MdParserConfig", "NbParserConfig")


def test_pages_executed_side_by_side_build(tmp_path: Path, venv_ready: None) -> None:
    """Three pages, executed by two workers whose kernels are forked from a warm process and
    talk over Unix sockets (no TCP port two kernels could both pick); two of the pages hold the
    same code, executed once (a second execution would replace the cache record the read of the
    first may be using); the build's log (not quieted by ``-q``) shows progress and no noise."""
    transport = (
        "from ipykernel.kernelapp import IPKernelApp\n"
        "import os\n"
        "kernel = IPKernelApp.instance()\n"
        "print(12345 + 54321, kernel.transport, os.path.isabs(kernel.ip))"
    )
    pages = {"second": GOOD_CELL.replace("print(1 + 1)", transport), "third": GOOD_CELL}
    result = build(tmp_path, GOOD_CELL, "html", pages, "-D execution_workers=2", quiet=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    html = tmp_path / "_build" / "html"
    assert "66666 ipc True" in (html / "second.html").read_text(), output
    assert all(">2\n<" in (html / f"{page}.html").read_text() for page in ("index", "third"))
    assert "executed 2 notebooks on 2 workers" in output, output
    assert [line for line in output.splitlines() if any(n in line for n in NOISE)] == []
    assert result.stderr == "", result.stderr
    # pages whose text changed and whose code did not are not executed again: the cache holds
    # the notebooks the pool filed, so no pool starts and the read finds them
    for name in ("second", "third"):
        changed = tmp_path / "docs" / f"{name}.md"
        changed.write_text(changed.read_text() + "\nMore text.\n")
    again = make(tmp_path, "html", "-D execution_workers=2", quiet=False)
    output = again.stdout + again.stderr
    assert again.returncode == 0, output
    assert output.count(".md: Using cached notebook") == 2, output
    assert "Executing notebook" not in output and "workers in" not in output, output
    assert "66666 ipc True" in (html / "second.html").read_text(), output


def test_a_notebook_filed_under_another_key_than_the_read_looks_up_warns(
    tmp_path: Path, venv_ready: None
) -> None:
    """The pool's notebooks are filed in the project's cache by the build's own process; one
    filed under another key than the read computes would not be found (the page would be
    executed a second time), so filing it warns, which fails the build."""
    import logging

    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import DEFAULT_READ_DATA

    spec = importlib.util.spec_from_file_location(
        "parallel_execution", ROOT / "docs" / "_ext" / "parallel_execution.py"
    )
    assert spec is not None and spec.loader is not None
    extension = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extension)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    cache = tmp_path / "cache"
    env = SimpleNamespace(mystnb_config=SimpleNamespace(execution_cache_path=str(cache)))
    path = str(tmp_path / "page.md")
    key = get_cache(str(cache)).create_hashed_notebook(notebook)[1]
    warnings: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: warnings.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("sphinx.parallel_execution").addHandler(handler)
    try:
        for filed_key in (key, "0" * 32):
            page = extension.Page("page", path, DEFAULT_READ_DATA, filed_key)
            extension._file_executed(env, page, extension.Executed(path, 1.0, notebook, 0.5))
    finally:
        logging.getLogger("sphinx.parallel_execution").removeHandler(handler)
    assert warnings == [
        f"{path}: its executed notebook is filed under {key}, but the read looks it up under "
        + "0" * 32
    ]
    assert get_cache(str(cache)).match_cache_notebook(notebook).hashkey == key


def test_a_page_executed_by_the_read_builds_quietly(tmp_path: Path, venv_ready: None) -> None:
    """One page: no pool, the read executes it in an ordinary kernel; no noise either."""
    result = build(tmp_path, GOOD_CELL, "html", quiet=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Executed notebook" in output, output
    assert [line for line in output.splitlines() if any(n in line for n in NOISE)] == []
    assert result.stderr == "", result.stderr


def test_a_wrong_doctest_output_fails_make_doctest(tmp_path: Path, venv_ready: None) -> None:
    page = "```{doctest}\n>>> 1 + 1\n3\n```\n"
    result = build(tmp_path, page, "doctest")
    report = (tmp_path / "_build" / "doctest" / "output.txt").read_text()
    assert result.returncode != 0, result.stdout + result.stderr
    assert "1 failure in tests" in report, report


def test_a_right_doctest_passes_make_doctest_and_a_plain_fence_is_not_one(
    tmp_path: Path, venv_ready: None
) -> None:
    """One build, two pages: a right ```{doctest}``` passes (the build succeeds, its one test
    counted); a plain fence with >>> (and a wrong output) is silently not tested, which is why
    pages must use ```{doctest}```."""
    fence = "```python\n>>> 1 + 1\n3\n```\n"
    result = build(tmp_path, "```{doctest}\n>>> 1 + 1\n2\n```\n", "doctest", {"fence": fence})
    assert result.returncode == 0, result.stdout + result.stderr
    report = (tmp_path / "_build" / "doctest" / "output.txt").read_text()
    # the report has a section per page with tests: the index's one test passed, the fence's page
    # has none, and the whole build counted one test
    assert "Document: index" in report and "1 passed and 0 failed" in report, report
    assert "Document: fence" not in report, report
    assert re.search(r"Doctest summary\n=+\n +1 test\n", report), report
