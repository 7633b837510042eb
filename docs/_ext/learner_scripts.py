"""The doctor's corpus scripts as a learner writes them (loaded by conf.py).

``docs/recipes/find-the-line.md`` shows the doctor at work on scripts of its test corpus
(``tests/doctor/scripts/bug_<name>.py``). Each of those opens with what the corpus needs and a
learner's file does not have: the header comments that declare the expected findings
(``tests/support/doctor_corpus.py`` reads them), a docstring, and the switch that runs the
script under either engine (``DOCTOR_ENGINE``). :func:`learner_copy` drops them and keeps one
``import torch``; everything below the switch is the script's own code, line for line, so a line
of the copy is the corpus's line moved up by the lines dropped (:func:`lines_dropped`).

- ``{learner-script} <name>.py`` shows the copy of ``bug_<name>.py``, with its line numbers and
  its name as the caption; in a page's notebook it is a code block with the same text
  (:mod:`notebook_markdown`).
- A page's hidden cells write the same copy to run it: ``learner_copy("<name>.py")``.

``tests/doctor/test_corpus.py`` runs each copy under the doctor: the findings the corpus header
declares, at the copy's lines.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.directives.code import container_wrapper
from sphinx.util.docutils import SphinxDirective

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "doctor" / "scripts"
PREFIX = "bug_"  # a corpus script that a page shows is a buggy one: bug_<name>.py
SWITCH = (
    'if os.environ.get("DOCTOR_ENGINE") == "ownership":\n'
    "    import ownership as torch\n"
    "else:\n"
    "    import torch\n"
)


def corpus_path(name: str) -> Path:
    """The corpus script whose copy a learner sees as ``name``."""
    return CORPUS / f"{PREFIX}{name}"


def learner_copy(name: str) -> str:
    """The text of ``bug_<name>.py`` as a learner writes it: no header comments, no docstring,
    ``import torch`` in place of the engine switch (and of the ``import os`` it needs)."""
    path = corpus_path(name)
    text = path.read_text(encoding="utf-8")
    first = next(iter(ast.parse(text).body), None)
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)):
        raise ValueError(f"{path.name} has no docstring under its header")
    code = "".join(text.splitlines(keepends=True)[first.end_lineno or 0 :]).lstrip("\n")
    if SWITCH not in code or "import os\n" not in code:
        raise ValueError(f"{path.name} does not choose its engine with the corpus's switch")
    code = code.replace(SWITCH, "import torch\n", 1)
    if code.startswith("import os\n\n"):  # os alone above the switch
        code = code[len("import os\n\n") :]
    else:  # other imports above it: they stay, os goes
        code = code.replace("import os\n", "", 1)
    if re.search(r"\bos\.", code):
        raise ValueError(f"{path.name} uses os beyond the switch: its copy would not run")
    return code


def lines_dropped(name: str) -> int:
    """How many lines the copy of ``bug_<name>.py`` has fewer than the script: the copy's line
    ``n`` is the script's line ``n + lines_dropped(name)`` (for every line below the switch)."""
    script = corpus_path(name).read_text(encoding="utf-8")
    return len(script.splitlines()) - len(learner_copy(name).splitlines())


class LearnerScript(SphinxDirective):
    """``{learner-script} <name>.py``: the copy of ``bug_<name>.py``, numbered, captioned
    ``<name>.py`` (as ``literalinclude`` with ``:linenos:`` and ``:caption:`` shows a file)."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        path = corpus_path(name)
        self.env.note_dependency(str(path))  # the page is read again when the script changes
        text = learner_copy(name)
        block = nodes.literal_block(text, text, source=str(path), language="python")
        block["linenos"] = True
        block["highlight_args"] = {}
        self.set_source_info(block)
        return [container_wrapper(self, block, name)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("learner-script", LearnerScript)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
