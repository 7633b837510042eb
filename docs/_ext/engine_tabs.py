"""An IPython extension: a side-by-side run of both engines is shown as tabs, not columns.

The engine pages run a program under PyTorch and under ownership with
:func:`ownership.compare.side_by_side`, which asserts that the two agree. On a page, two equal
columns halve the width of every output; after ``%load_ext engine_tabs`` (in a hidden cell) the
result is one tab per engine, in the markup of sphinx-design's tab sets (pure CSS, no script),
headed by a mark that the engines agree.
"""

from __future__ import annotations

import html
import itertools
from typing import Any

_IDS = itertools.count()
_PRE = "margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:0.85em"


def as_tabs(result: Any) -> str:
    """The HTML of one :class:`ownership.compare.SideBySide`: a tab per engine."""
    from ownership.compare import render

    group = next(_IDS)
    parts = ['<p class="engines-agree">✓ the same in both engines</p>', '<div class="sd-tab-set">']
    for i, name in enumerate(result.names):
        tab = f"engine-tab-{group}-{i}"
        checked = ' checked="checked"' if i == 0 else ""
        parts += [
            f'<input{checked} id="{tab}" name="engine-tabs-{group}" type="radio">',
            f'<label class="sd-tab-label" for="{tab}">{html.escape(name)}</label>',
            f'<div class="sd-tab-content"><pre style="{_PRE}">'
            f"{html.escape(_text(result, name, render))}</pre></div>",
        ]
    parts.append("</div>")
    return "\n".join(parts)


def _text(result: Any, name: str, render: Any) -> str:
    warnings = "".join(f"\n{w}" for w in result.runs[name].warnings)
    return str(render(result[name])) + warnings


def load_ipython_extension(ip: Any) -> None:
    """Show every ``SideBySide`` as tabs from now on."""
    formatter = ip.display_formatter.formatters["text/html"]
    formatter.for_type_by_name("ownership.compare", "SideBySide", as_tabs)
