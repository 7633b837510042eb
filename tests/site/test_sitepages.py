"""The page loader the site checks are built on (runs without a built site)."""

from __future__ import annotations

from pathlib import Path

from support.sitepages import read_page

HTML = """<!doctype html><html><head><title>Traps - ownership</title>
<script>var x = "not text";</script><style>p { color: red }</style></head>
<body><h1>Traps<a class="headerlink" href="#traps" title="Link">#</a></h1>
<p>The <em>version counter</em> counts.</p>
<span class="math notranslate nohighlight">\\(u\\)</span>
<details class="sd-sphinx-override sd-dropdown sd-card"><summary>Answer</summary>
<div class="sd-summary-content">42</div></details>
<svg><title>graph</title><text>MulBackward0</text></svg>
</body></html>"""


def test_read_page(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    f = tmp_path / "guide" / "traps.html"
    f.write_text(HTML, encoding="utf-8")
    p = read_page(f, tmp_path)
    assert p.url == "guide/traps.html"
    assert p.title == "Traps - ownership"
    assert p.h1 == "Traps"
    assert "The version counter counts." in p.text
    assert "not text" not in p.text and "color" not in p.text
    assert "MulBackward0" in p.text  # an inline SVG picture's labels are page text
    assert p.has_math
    assert p.dropdowns == 1
    assert p.has_class("div", "sd-summary-content")
