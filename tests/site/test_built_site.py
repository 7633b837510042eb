"""Checks of the built site in ``_build/html`` that need no browser.

- Nothing the site loads comes from another host: no ``<script src>``, ``<link href>``, image,
  frame or media source, CSS ``@import`` or ``url()`` that leaves the site.
- No absolute path of the build machine (the repository's folder, home folders, temp folders,
  site-packages, the virtual environment, kernel temp files) appears in any page, in the search
  index or in the pages of highlighted source.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.sitepages import ROOT, Page, load_pages

# Attributes through which a page loads something (an <a href> is a link, not a load).
LOADING = {
    "script": ("src",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "frame": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "input": ("src",),
    "image": ("href", "xlink:href"),  # SVG
    "use": ("href", "xlink:href"),  # SVG
}
EXTERNAL = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)  # http://, https://, //
CSS_EXTERNAL = re.compile(
    r"""@import\s+(?:url\()?\s*['"]?\s*(?:[a-z][a-z0-9+.-]*:)?//|url\(\s*['"]?\s*(?:[a-z][a-z0-9+.-]*:)?//""",
    re.IGNORECASE,
)
STYLE_BLOCK = re.compile(r"<style[^>]*>(.*?)</style>", re.IGNORECASE | re.DOTALL)


def _machine_paths() -> list[tuple[str, re.Pattern[str]]]:
    """What an absolute path of the build machine looks like in a page."""
    pats = [
        ("the repository's folder", re.escape(str(ROOT))),
        ("a site-packages folder", r"(?:site|dist)-packages"),
        ("the virtual environment", r"/\.venv/|\.venv/(?:bin|lib)/"),
        ("a home folder", r"(?<![\w.])/home/\w+"),
        ("a temp folder", r"(?<![\w.])/tmp/|/var/folders/"),
        ("a kernel temp file", r"ipykernel_\d+"),
        ("the system Python", r"/usr/(?:local/)?lib/python3"),
    ]
    home = str(Path.home())
    if home != "/":  # the home of whoever builds (root's on the project's machines)
        pats.append(("the home folder", r"(?<![\w.])" + re.escape(home) + "/"))
    return [(what, re.compile(p)) for what, p in pats]


def _pages() -> tuple[Page, ...]:
    return load_pages()


def test_the_site_has_pages(site: Path) -> None:
    urls = [p.url for p in _pages()]
    assert "index.html" in urls
    assert "search.html" in urls
    for p in _pages():
        assert p.title, f"{p.url} has no <title>"


def test_no_resource_from_another_host(site: Path) -> None:
    problems = []
    for p in _pages():
        for tag, attrs in p.tags:
            for attr in LOADING.get(tag, ()):
                value = attrs.get(attr, "")
                if any(EXTERNAL.match(v) for v in value.split(",")):
                    problems.append(f"{p.url}: <{tag} {attr}={value!r}>")
            style = attrs.get("style", "")
            if CSS_EXTERNAL.search(style):
                problems.append(f"{p.url}: <{tag} style={style!r}>")
        for block in STYLE_BLOCK.findall(p.html):
            for m in CSS_EXTERNAL.finditer(block):
                problems.append(f"{p.url}: <style> {block[m.start() : m.start() + 80]!r}")
    for css in sorted(site.rglob("*.css")):
        text = css.read_text(encoding="utf-8", errors="replace")
        for m in CSS_EXTERNAL.finditer(text):
            problems.append(f"{css.relative_to(site)}: {text[m.start() : m.start() + 80]!r}")
    assert not problems, "the site loads from another host:\n" + "\n".join(problems)


def _texts(site: Path) -> list[tuple[str, str]]:
    """(name, text) of every page, the search index and the page sources the site ships."""
    out = [(p.url, p.html) for p in _pages()]
    extra = [
        site / "searchindex.js",
        *sorted((site / "_sources").rglob("*")),
        *sorted((site / "_modules").rglob("*.html")),  # viewcode's pages of highlighted source
    ]
    for f in extra:
        if f.is_file():
            out.append((f.relative_to(site).as_posix(), f.read_text("utf-8", errors="replace")))
    return out


def test_no_absolute_path_of_the_build_machine(site: Path) -> None:
    problems = []
    for name, text in _texts(site):
        for what, pattern in _machine_paths():
            for m in pattern.finditer(text):
                around = text[max(0, m.start() - 60) : m.end() + 60].replace("\n", " ")
                problems.append(f"{name}: {what}: ...{around}...")
                break
    assert not problems, "build-machine paths in the site:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("snippet", "bad"),
    [
        ('<script src="https://cdn.example.org/x.js"></script>', True),
        ('<link rel="stylesheet" href="//fonts.example.org/a.css">', True),
        ('<script src="_static/x.js"></script>', False),
        ('<a href="https://pytorch.org/docs">docs</a>', False),
        ('<div style="background: url(https://x.example/a.png)"></div>', True),
    ],
)
def test_the_external_check_itself(snippet: str, bad: bool, tmp_path: Path) -> None:
    """The detector flags loads from other hosts and leaves plain links alone."""
    from support.sitepages import read_page

    f = tmp_path / "p.html"
    f.write_text(f"<html><head><title>t</title></head><body>{snippet}</body></html>")
    p = read_page(f, tmp_path)
    found = any(
        EXTERNAL.match(attrs.get(a, "")) for tag, attrs in p.tags for a in LOADING.get(tag, ())
    ) or any(CSS_EXTERNAL.search(attrs.get("style", "")) for _, attrs in p.tags)
    assert found == bad


def test_the_path_check_itself() -> None:
    """The detector finds the paths a traceback or a warning would print, and not plain prose."""
    hits = {
        text: any(p.search(text) for _, p in _machine_paths())
        for text in (
            f'File "{ROOT}/src/ownership/tensor.py", line 3',
            "/work/x/.venv/lib/python3.11/site-packages/torch/autograd/__init__.py",
            "/tmp/ipykernel_1234/3391.py:2: UserWarning",
            "make html creates the .venv folder on first use",
            "an in-place write bumps the version counter",
        )
    }
    assert list(hits.values()) == [True, True, True, False, False]


_SIGNATURE = re.compile(r'<dt class="sig sig-object py"[^>]*>(.*?)</dt>', re.DOTALL)


def test_python_signatures_are_written_light(site: Path) -> None:
    """docs/_ext/light_signatures.py: a Python signature's tokens are bare text, without Sphinx's
    two spans each (``span.pre`` in a kind span); the spans the theme styles are kept."""
    html = (site / "reference" / "api.html").read_text(encoding="utf-8")
    signatures = _SIGNATURE.findall(html)
    assert len(signatures) >= 100, f"api.html has {len(signatures)} Python signatures"
    heavy = [s[:120] for s in signatures if '<span class="pre">' in s or '<span class="n">' in s]
    assert not heavy, f"{len(heavy)} signatures still wrap each token in spans: {heavy[:2]}"
    assert all('<span class="sig-name descname">' in s for s in signatures)
    assert any('<em class="sig-param">*size: Any</em>' in s for s in signatures)
