"""Sphinx configuration for the ownership study guide (sources in docs/, build in _build/).

Build with ``make html`` (warnings are errors) and ``make doctest``; see the Makefile.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

project = "ownership"
author = "The ownership authors"
copyright = "2026, the ownership authors"
release = "0.1.0"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",  # a [source] link on every documented object, to its highlighted code
    "sphinx_autodoc_typehints",
    "sphinx_design",
    "sphinx_copybutton",
    "guide_checks",  # docs/_ext: offline MathJax, executed-cell checks, quiet kernels
    "downloads",  # docs/_ext: a notebook per guide page, and the engine's wheel
    "parallel_execution",  # docs/_ext: the pages' notebooks executed side by side, one per core
    "rule_map",  # docs/_ext: the enforced-by directive of reference/rules.md
    "tour",  # docs/_ext: explain/tour.md's stops, each rule's deciding functions measured
    "viewcode_freshness",  # docs/_ext: viewcode finds a module's file without importing it
    "shared_navigation",  # docs/_ext: the navigation tree from titles only, once per folder off it
    "quick_exit",  # docs/_ext: the process ends without the collector walking the heap
    "accessibility",  # docs/_ext: levelled captions, scrolling regions the keyboard can reach
    "learner_scripts",  # docs/_ext: a doctor's corpus script shown as the learner writes it
    "light_signatures",  # docs/_ext: API signatures' tokens without their two spans each
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "_ext", "_static/README.md"]
templates_path: list[str] = []
html_static_path = ["docs/_static"]

# Warnings are errors (-W in the Makefile) and every cross-reference must resolve.
nitpicky = True
# The build is offline: no intersphinx. Names outside the project have no inventory to link to;
# they are listed here rather than fetched.
nitpick_ignore_regex = [
    (
        r"py:(class|obj|data|exc)",
        r"(numpy|np|torch|typing|collections|types|contextlib|pathlib|builtins|weakref)(\..*)?",
    ),
    (
        r"py:(class|obj|data|exc)",
        r"(NDArray|ArrayLike|DTypeLike|Any|Callable|Iterator|Iterable|"
        r"Sequence|Mapping|MutableMapping|Self|TypeVar|Generic|Literal|Optional|Union)(\[.*\])?",
    ),
    (
        r"py:(class|obj|exc)",
        r"(int|float|bool|str|bytes|object|tuple|list|dict|set|frozenset|"
        r"type|complex|slice|range|None|NoneType|Ellipsis|EllipsisType|ellipsis|Exception|"
        r"RuntimeError|ValueError|TypeError|KeyError|IndexError|AttributeError|Warning|"
        r"UserWarning|NamedTuple|OrderedDict|defaultdict|BaseException)",
    ),
    # Builtin constants, and the engine's private helpers (named with a leading underscore).
    (r"py:(data|obj)", r"(Ellipsis|NotImplemented|True|False)"),
    (r"py:(class|obj|func|meth)", r"ownership(\.\w+)*\._\w+"),
]

# --- MyST and MyST-NB -------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3

# Executed pages are cached by jupyter-cache. The cache keys only on a page's code, so the folder
# is keyed on the engine's source as well: any change under src/ starts a fresh cache. So does a
# change to the doctor's corpus, whose scripts a recipe runs (docs/_ext/learner_scripts.py).
_src_hash = hashlib.sha256(
    b"".join(p.read_bytes() for p in sorted((ROOT / "src").rglob("*.py")))
    + b"".join(p.read_bytes() for p in sorted((ROOT / "docs" / "_ext").rglob("*.py")))
    + b"".join(p.read_bytes() for p in sorted((ROOT / "tests" / "doctor" / "scripts").glob("*.py")))
).hexdigest()[:16]
nb_execution_mode = "cache"
nb_execution_cache_path = str(ROOT / "_build" / ".jupyter_cache" / _src_hash)
nb_execution_raise_on_error = True  # an unexpected exception in a cell fails the build
nb_execution_show_tb = True  # ... and the build log shows which cell and why
nb_execution_timeout = 120  # seconds per cell
nb_execution_allow_errors = False  # only cells tagged raises-exception may raise
nb_merge_streams = True
nb_code_prompt_show = "Show the {type}"  # a folded output: "Show the output"
nb_code_prompt_hide = "Hide the {type}"
nb_output_stderr = "warn"  # anything on stderr is a build warning, so (with -W) an error
nb_ipywidgets_js: dict[str, dict[str, str]] = {}  # no CDN scripts
nb_execution_excludepatterns: list[str] = []

# --- API reference ----------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}
autodoc_typehints = "signature"
typehints_use_signature = True
typehints_use_signature_return = True
always_document_param_types = False
typehints_document_rtype = False  # the signature already shows it
typehints_fully_qualified = False

# --- doctest ------------------------------------------------------------------------------
doctest_global_setup = """
import numpy as np
import torch
import ownership
"""
doctest_test_doctest_blocks = ""  # only explicit doctest blocks/directives are tests

# --- HTML ---------------------------------------------------------------------------------
html_theme = "furo"
html_title = "Unit 1.7 · Aliasing, mutation and module ownership"
html_short_title = "Unit 1.7"
html_favicon = "docs/_static/favicon.svg"
html_css_files = ["guide.css"]
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_theme_options = {"navigation_with_keys": True}
copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True

# The kernels that execute the pages read their IPython settings from here (see guide_checks).
os.environ.setdefault("OWNERSHIP_DOCS_ROOT", str(ROOT))
