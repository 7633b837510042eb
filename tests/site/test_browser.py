"""The built site in a real browser: headless Chromium (Debian's package) driven by Playwright.

The site is served from ``_build/html`` by a local ``http.server`` on 127.0.0.1 (a free port) and
every page is opened. Each page must: log no console error and raise no script error; load
nothing from any host but 127.0.0.1 (such requests are recorded and aborted); have every math
element typeset by the site's own MathJax (``mjx-container``, no raw ``\\(`` left); open every
sphinx-design dropdown on a click. The search page must find each query of
``site_expectations.SEARCHES`` offline. At a phone's width (375 px), on the unit's pages and the
optional pages with outputs, no output is wider than its box, the page does not scroll sideways,
and every folded part (dropdowns, folded outputs) is closed on load. Each unit page with code
links its notebook, which is served and says truthfully whether plain PyTorch is enough; the
engine's wheel is served and linked from the start page; on the engine pages each engine's
result is a tab that shows on a click. axe-core (``axe-playwright-python``) finds no serious or
critical accessibility violation on any page (at 1280 px, every dropdown opened), nor on the unit's
pages at 375 px (the optional pages at that width are checked for overflow, not by axe again: a
full axe pass is most of a page's time, its contrast rule above all). The contrast rule reads a
page once per theme, at 1280 px, and there one element of each look (same colours, font size and
weight, shadow, opacity and backgrounds behind: the same verdict; ``_MARK_CONTRAST_SAMPLES``), and
every element whose background may come from elsewhere; test_contrast_reads_every_look proves a
faint element among many of its look is still found. At 375 px it reads only the text that shows
or looks otherwise there (``_check_accessibility(narrow=True)``), and every other rule reads the
whole page again.
Screenshots for review (also at 375 px and in the dark theme) go to ``_build/screenshots/``.

Set-up: the browser is ``/usr/bin/chromium`` (``OWNERSHIP_CHROMIUM`` overrides it). When it is
missing and this runs as root with apt-get, the session installs Debian's ``chromium`` package
first; where that is impossible the tests are skipped with the reason. Playwright never downloads
a browser here (``playwright install`` is not used).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from support.site_expectations import (
    DARK_SCREENSHOTS,
    GRAPH_PAGES,
    NARROW_SCREENSHOTS,
    NARROW_WIDTH,
    NOTEBOOK_PAGES,
    OPTIONAL_PAGES,
    PAGES,
    SCREENSHOTS,
    SEARCHES,
    STEPPERS,
    THEMED_PICTURES,
    UNIT_PAGES,
    WHEEL,
    Expect,
)
from support.sitepages import SKIP_REASON, load_pages, site_dir, site_exists

CHROMIUM = os.environ.get("OWNERSHIP_CHROMIUM", "/usr/bin/chromium")
APT_PACKAGES = ("chromium",)
FLAGS = [
    "--headless",
    "--no-sandbox",  # runs as root in CI
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-default-browser-check",
    "--metrics-recording-only",
]
MATHJAX_TIMEOUT_MS = 20_000
SEARCH_TIMEOUT_MS = 20_000


def _install_chromium() -> str | None:
    """Make sure Chromium is there; return why it cannot be, or None when it is."""
    if Path(CHROMIUM).is_file():
        return None
    if os.name != "posix" or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return f"{CHROMIUM} is missing and cannot be installed here (needs root and apt-get)"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = [
        (["apt-get", "update"], 300),
        (["apt-get", "install", "-y", *APT_PACKAGES], 900),
    ]
    for cmd, timeout in steps:
        try:
            subprocess.run(cmd, env=env, timeout=timeout, check=True, capture_output=True)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as err:
            tail = getattr(err, "stderr", b"") or b""
            detail = tail.decode(errors="replace")[-300:]
            return f"`{' '.join(cmd)}` failed, so Chromium cannot be installed: {err} {detail}"
    if not Path(CHROMIUM).is_file():
        return f"apt-get installed {APT_PACKAGES} but {CHROMIUM} is still missing"
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def server(site: Path) -> Iterator[str]:
    """The site served on 127.0.0.1 at a free port; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@dataclass
class Browser:
    """One Chromium for the session, and every request it tried to send elsewhere.

    Its one tab (``page``) goes from page to page: a new tab per page cost the browser a third more
    time than the visit (a new renderer each time). ``errors`` gathers what the page being
    visited logs."""

    context: Any
    base: str
    outside: list[str] = field(default_factory=list)
    page: Any = None
    errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="session")
def browser(server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Headless Chromium with a fresh profile; requests leaving 127.0.0.1 are recorded, aborted."""
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="the Python package `playwright` is missing (it is in the `test` extra)",
    )
    # pytest-xdist's workers share the parent of their temporary folders: one installs at a time
    lock = tmp_path_factory.getbasetemp().parent / "chromium-install.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        reason = _install_chromium()
    if reason is not None:
        pytest.skip(reason)
    host_port = urlsplit(server).netloc
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
            service_workers="block",
            timeout=60_000,
        )
        state = Browser(context, server)

        def local(url: str) -> bool:
            parts = urlsplit(url)
            return parts.scheme in ("data", "blob", "about") or parts.netloc == host_port

        def refuse(route: Any) -> None:
            state.outside.append(route.request.url)
            route.abort()

        context.route(lambda url: not local(url), refuse)
        try:
            yield state
        finally:
            context.close()


@dataclass
class Opened:
    """A page opened in the browser, with what it logged."""

    page: Any
    errors: list[str]
    outside: list[str]

    def close(self) -> None:
        """Done with the page. The tab stays for the next page, unless a check failed or raised
        while it was open: then it is closed, and the next page gets a new tab."""
        if sys.exc_info()[0] is not None:
            self.page.close()


def _tab(browser: Browser) -> Any:
    """The browser's tab, as a new one would be: 1280 x 900 px, the light theme."""
    page = browser.page
    if page is not None and not page.is_closed():
        page.set_viewport_size({"width": 1280, "height": 900})
        page.emulate_media(color_scheme="light")
        return page
    page = browser.page = browser.context.new_page()

    def log(problem: str) -> None:
        browser.errors.append(problem)

    page.on("console", lambda m: log(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: log(f"script error: {e}"))
    page.on("response", lambda r: log(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    return page


def _open(browser: Browser, url: str) -> Opened:
    page = _tab(browser)
    errors = browser.errors = []
    before = len(browser.outside)
    page.goto(browser.base + url, wait_until="load", timeout=30_000)
    return Opened(page, errors, browser.outside[before:])


_MATH_STATE = """() => {
  const els = [...document.querySelectorAll('span.math, div.math')];
  const raw = els.filter(e => !e.querySelector('mjx-container'));
  const body = document.body.cloneNode(true);
  body.querySelectorAll('pre, code, script, style, .highlight, textarea').forEach(e => e.remove());
  const text = body.textContent;
  return {
    total: els.length,
    typeset: document.querySelectorAll('mjx-container').length,
    raw: raw.map(e => e.textContent.slice(0, 60)),
    rawDelimiters: ['\\\\(', '\\\\)', '\\\\[', '\\\\]'].filter(d => text.includes(d)),
  };
}"""


_HAS_MATHJAX = "() => [...document.scripts].some(s => /mathjax/i.test(s.src))"


def _wait_for_mathjax(page: Any) -> None:
    """Wait until MathJax has typeset the page (its startup promise has resolved)."""
    page.wait_for_function(
        "() => window.MathJax && MathJax.startup && MathJax.startup.promise",
        timeout=MATHJAX_TIMEOUT_MS,
    )
    page.evaluate("() => MathJax.startup.promise.then(() => true)")


def _check_math(opened: Opened, required: bool) -> list[str]:
    page = opened.page
    has_math = page.evaluate("() => document.querySelectorAll('span.math, div.math').length > 0")
    if not has_math:
        return ["the page should have math but has none"] if required else []
    if not page.evaluate(_HAS_MATHJAX):
        return ["the page has math but loads no MathJax script"]
    try:
        _wait_for_mathjax(page)
    except Exception as err:  # a Playwright timeout: MathJax never started
        return [f"MathJax did not start: {str(err).splitlines()[0]}"]
    state = page.evaluate(_MATH_STATE)
    problems = []
    if state["raw"]:
        problems.append(f"math left untypeset: {state['raw'][:5]}")
    if state["typeset"] == 0:
        problems.append("no mjx-container on a page with math")
    if state["rawDelimiters"]:
        problems.append(f"raw TeX delimiters visible: {state['rawDelimiters']}")
    return problems


_DROPDOWNS_STATE = """() => [...document.querySelectorAll('details.sd-dropdown')].map(d => {
  const body = d.querySelector(':scope > :not(summary)');
  const box = body && body.getBoundingClientRect();
  return {
    open: d.open,
    body: body !== null,
    visible: body !== null && box.width > 0 && box.height > 0
      && body.checkVisibility({visibilityProperty: true}),
  };
})"""


def _check_dropdowns(opened: Opened, minimum: int) -> list[str]:
    """Each dropdown opens on a click on its summary and then shows its content. Every closed
    one is clicked; then one read of the page (waiting up to 3 s for them all to be open) says
    which did not open, and whether the content of each open one is visible."""
    page = opened.page
    dropdowns = page.locator("details.sd-dropdown")
    count = dropdowns.count()
    problems = [] if count >= minimum else [f"{count} dropdowns, expected at least {minimum}"]
    closed = [i for i, d in enumerate(page.evaluate(_DROPDOWNS_STATE)) if not d["open"]]
    for i in closed:
        dropdowns.nth(i).locator(":scope > summary").click(timeout=5_000)
    with contextlib.suppress(Exception):  # a Playwright timeout: the state below says which
        page.wait_for_function(
            "() => [...document.querySelectorAll('details.sd-dropdown')].every(d => d.open)",
            timeout=3_000,
        )
    for i, d in enumerate(page.evaluate(_DROPDOWNS_STATE)):
        if not d["open"]:
            problems.append(f"dropdown {i} did not open on click")
        elif d["body"] and not d["visible"]:
            problems.append(f"dropdown {i} opened but its content is not visible")
    return problems


#: axe-core's impacts that fail a page (its others are "moderate" and "minor").
FAILING_IMPACTS = ("serious", "critical")
#: axe-core's colour-contrast rule: most of axe's time on a page. It runs once per page and theme
#: at 1280 px; at a phone's width it reads only what the narrow layout shows or colours differently.
CONTRAST = "color-contrast"
NARROW_CONTRAST = "data-narrow-contrast"

# Each element with text of its own: whether it shows, its colours, its font (what the contrast
# rule reads; the background is the first one behind it, an ancestor's colour or picture).
_LOOKS = """() => {
  const looks = new WeakMap();
  for (const el of document.body.querySelectorAll('*')) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const style = getComputedStyle(el);
    let behind = 'transparent';
    for (let a = el; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.backgroundImage !== 'none' || s.backgroundColor !== 'rgba(0, 0, 0, 0)') {
        behind = s.backgroundColor + ' ' + s.backgroundImage;
        break;
      }
    }
    const shown = el.checkVisibility({visibilityProperty: true, opacityProperty: true});
    looks.set(el, [shown, style.color, style.opacity, style.fontSize, style.fontWeight,
                   style.textShadow, behind].join('|'));
  }
  return looks;
}"""
_REMEMBER_LOOKS = f"() => {{ window.__wideLooks = ({_LOOKS})(); }}"
# Marks each element whose text shows now and did not show, or looked otherwise, when the looks
# were remembered; returns how many.
_MARK_CHANGED_LOOKS = f"""() => {{
  const wide = window.__wideLooks, now = ({_LOOKS})();
  let marked = 0;
  for (const el of document.body.querySelectorAll('*')) {{
    const look = now.get(el);
    if (look === undefined || !look.startsWith('true') || wide.get(el) === look) continue;
    el.setAttribute('{NARROW_CONTRAST}', '');
    marked += 1;
  }}
  return marked;
}}"""


def _remember_wide_looks(page: Any) -> None:
    """Remember how the page's text looks now, at 1280 px, for ``_check_accessibility(narrow=True)``
    after the viewport has narrowed."""
    page.evaluate(_REMEMBER_LOOKS)


# Marks one element of each look (see _MARK_CONTRAST_SAMPLES) for the contrast rule's selector.
CONTRAST_SAMPLE = "data-contrast-sample"

# The contrast rule's verdict on an element's text depends on its colour, font size and weight,
# text shadow, the opacity of it and its ancestors, and the backgrounds behind it; a page's
# thousands of text elements have few such looks. This marks, in the element that the CSS
# selector given matches (the body when null), one element per look (and per shown or not,
# disabled or not, with a letter or digit or not): the first whose box lies inside every box
# that clips it and inside the box of the first opaque background behind it. It marks every
# form field, and every element whose backgrounds may not be its ancestors' (a positioned,
# floated or transformed box or pseudo-element on the way up, or such a box over it; a positioned
# box that meets no box but its ancestors and descendants counts as in the flow), or are a
# picture or filtered. Returns [marked, text elements].
_MARK_CONTRAST_SAMPLES = f"""(within) => {{
  const ATTR = '{CONTRAST_SAMPLE}';
  document.querySelectorAll('[' + ATTR + ']').forEach(e => e.removeAttribute(ATTR));
  const root = within === null ? document.body : document.querySelector(within);
  const all = [root, ...root.querySelectorAll('*')];
  const clear = 'rgba(0, 0, 0, 0)';
  const inside = (r, b) => r.left >= b.left - 1 && r.right <= b.right + 1
    && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
  const meets = (r, b) => r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom;
  const loose = s => !['static', 'relative'].includes(s.position) || s.float !== 'none'
    || s.transform !== 'none';
  const painted = s => s.content !== 'none' && s.content !== 'normal'
    && (loose(s) || s.backgroundColor !== clear || s.backgroundImage !== 'none');
  // a loose box that meets no box but its own ancestors and descendants lies on its ancestors
  const boxes = [...document.body.querySelectorAll('*')].map(e => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && r.height > 0);
  const alone = el => {{
    const r = el.getBoundingClientRect();
    return boxes.every(([e, b]) => e.contains(el) || el.contains(e) || !meets(r, b));
  }};
  const chains = new Map();
  const chain = el => {{  // what lies behind el's text, from el up to the first opaque background
    if (el === null) return {{solo: false, bg: 'canvas', under: null, opacity: '1', clips: []}};
    let c = chains.get(el);
    if (c !== undefined) return c;
    const s = getComputedStyle(el), up = chain(el.parentElement);
    const odd = (loose(s) && !alone(el)) || s.backgroundImage !== 'none' || s.filter !== 'none'
      || s.backdropFilter !== 'none' || s.mixBlendMode !== 'normal'
      || painted(getComputedStyle(el, '::before')) || painted(getComputedStyle(el, '::after'));
    const bg = s.backgroundColor, opaque = bg.startsWith('rgb('), seeThrough = bg.startsWith('rgba(') && / 0\\)$/.test(bg);
    c = {{
      solo: up.solo || odd,
      bg: opaque ? bg : seeThrough ? up.bg : bg + ' on ' + up.bg,
      under: opaque ? el : up.under,
      opacity: s.opacity === '1' ? up.opacity : s.opacity + ' x ' + up.opacity,
      clips: (s.overflowX !== 'visible' || s.overflowY !== 'visible') && el !== document.body
        && el !== document.documentElement ? [el, ...up.clips] : up.clips,  // not the page's scroller
    }};
    chains.set(el, c);
    return c;
  }};
  const loosened = boxes.filter(([e]) => loose(getComputedStyle(e)));
  const groups = new Map();
  let texts = 0;
  const mark = el => el.setAttribute(ATTR, '');
  for (const el of all) {{
    if (el.matches('input, select, textarea')) {{ mark(el); continue; }}  // a value, not a text node
    const text = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
    if (!text) continue;
    texts += 1;
    const s = getComputedStyle(el), c = chain(el), r = el.getBoundingClientRect();
    const covered = loosened.some(([e, b]) => !e.contains(el) && meets(r, b));
    if (c.solo || covered) {{ mark(el); continue; }}
    const key = [
      el.checkVisibility({{visibilityProperty: true, opacityProperty: true}}),
      text.length > 1 && /[\\p{{L}}\\p{{N}}]/u.test(text),
      el.closest('[disabled], [aria-disabled="true"]') !== null,
      s.color, s.fontSize, s.fontWeight, s.textShadow, s.webkitTextStrokeWidth, c.opacity, c.bg,
    ].join('|');
    const group = groups.get(key) || {{found: false, rest: []}};
    groups.set(key, group);
    if (group.found) continue;
    const canvas = c.under === null || c.under === document.body;  // the root's paints it all
    const fits = [...c.clips, ...(canvas ? [] : [c.under])]
      .every(b => inside(r, b.getBoundingClientRect()));
    if (fits) {{ mark(el); group.found = true; }} else group.rest.push(el);
  }}
  for (const group of groups.values()) if (!group.found) group.rest.forEach(mark);
  return [document.querySelectorAll('[' + ATTR + ']').length, texts];
}}"""


def _axe(page: Any, within: str | None, options: dict[str, Any], contrast: str = "*") -> list[str]:
    """axe-core's serious and critical violations in ``within`` (the page when None); its
    contrast rule reads only the elements that the CSS selector ``contrast`` matches."""
    axe = pytest.importorskip(
        "axe_playwright_python.sync_playwright",
        reason="the Python package `axe-playwright-python` is missing (it is in the `test` extra)",
    )
    page.evaluate(axe.Axe().axe_script)
    page.evaluate(
        "sel => axe.configure({rules: [{id: '" + CONTRAST + "', selector: sel}]})", contrast
    )
    # only the violations are listed in full (axe-playwright-python's default)
    try:
        response = page.evaluate(
            "([context, options]) => axe.run(context === null ? document : context, options)",
            [within, {"resultTypes": ["violations"], **options}],
        )
    finally:
        page.evaluate("() => axe.reset()")
    return [
        f"axe {v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])}x, "
        f"first: {v['nodes'][0]['html'][:120]})"
        for v in response["violations"]
        if v["impact"] in FAILING_IMPACTS
    ]


def _check_accessibility(
    opened: Opened, within: str | None = None, *, narrow: bool = False
) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now (only in the element
    that the CSS selector ``within`` matches, if given).

    Every rule reads the whole page but the contrast rule, which reads one element of each look
    (``_MARK_CONTRAST_SAMPLES``: same colours, font size and weight, opacity and backgrounds
    behind it give the same verdict), and every element whose background may come from
    elsewhere. ``narrow``: the page was opened at 1280 px, where ``_remember_wide_looks`` read
    it, and has since narrowed to a phone's width, after its 1280 px axe pass in the same theme
    (elsewhere): the contrast rule then reads only the text that shows now and did not show at
    1280 px or has other colours, font or background than it had there (the mobile header, a
    panel the narrow layout colours otherwise): the rest has the contrast it had at 1280 px."""
    page = opened.page
    page.wait_for_timeout(100)  # accessibility.js marks scrolling regions after load
    if not narrow:
        page.evaluate(_MARK_CONTRAST_SAMPLES, within)
        return _axe(page, within, {}, contrast=f"[{CONTRAST_SAMPLE}]")
    problems = _axe(page, within, {"rules": {CONTRAST: {"enabled": False}}})
    if page.evaluate(_MARK_CHANGED_LOOKS):
        scope = f"[{NARROW_CONTRAST}]" if within is None else f"{within} [{NARROW_CONTRAST}]"
        problems += _axe(page, scope, {"runOnly": {"type": "rule", "values": [CONTRAST]}})
    return problems


# Marks the middle one (data-faint) of the elements that the selector matches, that show text
# of their own and that the contrast rule would not read (only others of their look); returns how
# many there are.
_MARK_MIDDLE = f"""(selector) => {{
  const all = [...document.querySelectorAll(selector)]
    .filter(e => !e.hasAttribute('{CONTRAST_SAMPLE}') && e.checkVisibility()
    && [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()));
  all[Math.floor(all.length / 2)].setAttribute('data-faint', '');
  return all.length;
}}"""


@pytest.mark.parametrize(
    ("url", "selector", "only_one"),
    [
        ("reference/api.html", "dt.sig span.sig-name", True),
        ("guide/study-1-version-counter.html", "article p", True),
        ("reference/api.html", "dt.sig em.sig-param", False),
    ],
    ids=["one-signature-name", "one-paragraph", "every-parameter"],
)
def test_contrast_reads_every_look(
    browser: Browser, url: str, selector: str, only_one: bool
) -> None:
    """The contrast rule reads one element of each look: a faint colour given to one element
    among hundreds of the same look (one it would not read otherwise), or to all of them, is
    still found."""
    opened = _open(browser, url)
    page = opened.page
    try:
        page.evaluate(_MARK_CONTRAST_SAMPLES, None)
        count = page.evaluate(_MARK_MIDDLE, selector)
        assert count >= 20, f"{url}: {count} elements match {selector!r}, too few to prove it"
        faint = "[data-faint]" if only_one else selector
        page.add_style_tag(content=f"{faint} {{ color: #d8d8d8 !important; }}")
        problems = _check_accessibility(opened)
    finally:
        opened.close()
    found = [p for p in problems if CONTRAST in p]
    assert found, f"{url}: the faint {faint!r} was not found: {problems}"
    if only_one:  # (its children may inherit the colour)
        assert "data-faint" in found[0].split("first:")[1], found
    assert problems == found, problems


def _site_urls() -> list[Any]:
    if not site_exists():
        reason = SKIP_REASON.format(path=site_dir())
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-site")]
    return [p.url for p in load_pages()]


@pytest.mark.parametrize("url", _site_urls())
def test_page_in_browser(browser: Browser, url: str) -> None:
    expect = PAGES.get(url, Expect())
    opened = _open(browser, url)
    try:
        problems = _check_math(opened, expect.math)
        problems += _check_dropdowns(opened, expect.min_dropdowns)
        text = opened.page.inner_text("body")
        problems += [f"missing text {t!r}" for t in expect.texts if t.lower() not in text.lower()]
        for sel in expect.selectors:
            if not opened.page.locator(sel).first.is_visible():
                problems.append(f"no visible element matches {sel!r}")
        problems += _check_accessibility(opened)
        problems += opened.errors
        problems += [f"request left 127.0.0.1: {u}" for u in opened.outside]
    finally:
        opened.close()
    assert not problems, f"{url}:\n" + "\n".join(problems)


@pytest.mark.parametrize("query", SEARCHES)
def test_search_finds(browser: Browser, query: str) -> None:
    opened = _open(browser, "search.html?q=" + query.replace(" ", "+"))
    page = opened.page
    try:
        hits = page.locator("#search-results ul.search li")
        try:
            hits.first.wait_for(state="attached", timeout=SEARCH_TIMEOUT_MS)
        except Exception:
            summary = page.locator("#search-results").inner_text()
            pytest.fail(f"search for {query!r} found nothing: {summary!r}")
        assert hits.count() >= 1
        assert not opened.errors, opened.errors
        assert not opened.outside, opened.outside
    finally:
        opened.close()


def test_expected_pages_exist(site: Path) -> None:
    urls = {p.url for p in load_pages()}
    missing = sorted(set(PAGES) - urls)
    assert not missing, f"expectations name pages the site does not have: {missing}"
    for name, candidates in SCREENSHOTS.items():
        assert urls & set(candidates), f"{name}: none of {candidates} is in the site"
    # test_stepper_by_buttons_and_keys leaves the light theme's whole page to the axe passes
    # of every page (1280 px) and of the unit's pages (375 px)
    assert set(STEPPERS) <= set(UNIT_PAGES), set(STEPPERS) - set(UNIT_PAGES)


def test_screenshots(browser: Browser, site: Path) -> None:
    shots = site.parent / "screenshots"  # _build/screenshots beside _build/html
    shots.mkdir(parents=True, exist_ok=True)
    urls = {p.url for p in load_pages()}
    for name, candidates in SCREENSHOTS.items():
        url = next((u for u in candidates if u in urls), None)
        if url is None:
            continue
        opened = _open(browser, url)
        try:
            if opened.page.evaluate(_HAS_MATHJAX):  # a MathJax failure is test_page's to report
                with contextlib.suppress(Exception):
                    _wait_for_mathjax(opened.page)
            target = shots / name
            opened.page.screenshot(path=str(target), full_page=True, timeout=30_000)
        finally:
            opened.close()
        assert target.stat().st_size > 10_000, f"{target} looks empty"


def test_the_browser_is_debians_chromium(browser: Browser) -> None:
    """The checks ran in Debian's Chromium, not in a browser build downloaded by a tool."""
    out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=30)
    assert "Chromium" in out.stdout, out.stdout


_TOO_WIDE = """() => {
  const bad = [];
  const main = document.querySelector('article') || document.body;
  main.querySelectorAll('div.cell_output pre, div.cell_output img, div.cell_output svg, '
                        + 'div.highlight-text pre, div.highlight-none pre, '
                        + 'div.ownership-graph, div.stepper-scroll').forEach(e => {
    if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') return;
    // a picture that keeps its size scrolls inside its box; the box must fit
    if (e.tagName.toLowerCase() === 'svg' && e.closest('div.ownership-graph, div.stepper-scroll')) return;
    if (e.closest('[hidden]')) return;
    // Python code keeps its lines and scrolls inside its own block (guide.css), outputs wrap
    if (e.tagName === 'PRE' && e.closest('div.highlight-python, div.highlight-ipython3')) return;
    const box = e.closest('div.cell_output') || e.parentElement;
    const wide = e.tagName === 'PRE'
      ? e.scrollWidth > e.clientWidth + 1
      : e.getBoundingClientRect().width > box.getBoundingClientRect().width + 1;
    if (wide) bad.push(e.tagName + ': ' + (e.textContent || e.outerHTML).trim().slice(0, 60));
  });
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    bad.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px');
  }
  return bad;
}"""


@pytest.mark.parametrize("url", [*UNIT_PAGES, *OPTIONAL_PAGES])
def test_page_at_a_phones_width(browser: Browser, url: str) -> None:
    opened = _open(browser, url)
    page = opened.page
    try:
        if url in UNIT_PAGES:
            _remember_wide_looks(page)
        page.set_viewport_size({"width": NARROW_WIDTH, "height": 800})
        page.wait_for_timeout(200)
        problems = [f"wider than its box: {w}" for w in page.evaluate(_TOO_WIDE)]
        still_open = page.evaluate(
            "() => document.querySelectorAll('article details[open]').length"
        )
        if still_open:
            problems.append(f"{still_open} folded parts are open on load")
        if url in UNIT_PAGES:  # axe at this width too on the unit's pages (every page at 1280)
            problems += _check_accessibility(opened, narrow=True)
        problems += opened.errors
    finally:
        opened.close()
    assert not problems, f"{url}:\n" + "\n".join(problems)


@pytest.mark.parametrize("url", NOTEBOOK_PAGES)
def test_notebook_offered_and_served(browser: Browser, url: str) -> None:
    opened = _open(browser, url)
    page = opened.page
    try:
        link = page.locator('p.notebook-download a[href$=".ipynb"]')
        assert link.count() == 1, f"{url} offers {link.count()} notebook links"
        href = link.first.get_attribute("href")
        assert href and href.endswith(".ipynb"), href
        here = page.url.rsplit("/", 1)[0] + "/"
        response = page.request.get(here + href)
        assert response.status == 200, f"{href}: HTTP {response.status}"
        archive = page.locator('p.notebook-download a[href$="notebooks.zip"]')
        assert archive.count() == 1, f"{url} does not link every page's notebooks (.zip)"
        zipped = page.request.get(here + str(archive.first.get_attribute("href")))
        assert zipped.status == 200 and href.rsplit("/", 1)[-1].encode() in zipped.body()
        notebook = response.json()
        code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
        assert code, f"{href} has no code cell"
        sources = "\n".join("".join(c["source"]) for c in code)
        assert "%load_ext parity" not in sources, f"{href} has the page's hidden checks"
        says_plain = "runs with plain PyTorch" in page.inner_text("p.notebook-download")
        assert says_plain == ("ownership" not in sources), (
            f"{url}: the link says plain PyTorch is {'enough' if says_plain else 'not enough'}, "
            "the notebook disagrees"
        )
    finally:
        opened.close()


def test_the_wheel_is_offered_and_served(browser: Browser) -> None:
    opened = _open(browser, "index.html")
    page = opened.page
    try:
        link = page.locator("a.wheel-download")
        assert link.count() == 1, "the start page does not link the engine's wheel"
        assert link.first.get_attribute("href") == f"_downloads/{WHEEL}"
        response = page.request.get(browser.base + f"_downloads/{WHEEL}")
        assert response.status == 200, f"the wheel is not served: HTTP {response.status}"
        assert response.body()[:2] == b"PK", "the wheel is not a zip archive"
        assert f"pip install {WHEEL}" in page.inner_text("body")
    finally:
        opened.close()


def test_narrow_and_dark_screenshots(browser: Browser, site: Path) -> None:
    shots = site.parent / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    for name, url in [*NARROW_SCREENSHOTS.items(), *DARK_SCREENSHOTS.items()]:
        opened = _open(browser, url)
        page = opened.page
        try:
            if name in NARROW_SCREENSHOTS:
                page.set_viewport_size({"width": NARROW_WIDTH, "height": 800})
            else:
                page.emulate_media(color_scheme="dark")
            if page.evaluate(_HAS_MATHJAX):
                with contextlib.suppress(Exception):
                    _wait_for_mathjax(page)
            page.screenshot(path=str(shots / name), full_page=True, timeout=30_000)
        finally:
            opened.close()
        assert (shots / name).stat().st_size > 10_000, f"{name} looks empty"


_PICTURE_LABELS = """(selector) => {
  document.querySelectorAll('article details').forEach(d => { d.open = true; });
  const svgs = [...document.querySelectorAll(selector)];
  return svgs.flatMap(svg => {
    const scale = svg.getBoundingClientRect().width / svg.width.baseVal.value;
    return [...svg.querySelectorAll('text')].map(t => {
      const [r, g, b] = getComputedStyle(t).fill.match(/[\\d.]+/g).map(Number);
      const size = parseFloat(t.getAttribute('font-size')) * scale;
      return {text: t.textContent, size, light: (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255};
    });
  });
}"""


@pytest.mark.parametrize("url", list(THEMED_PICTURES))
def test_pictures_read_at_a_phones_width_in_the_dark_theme(browser: Browser, url: str) -> None:
    """The memory and curve pictures: labels of 11 px or more at 375 px, drawn in the dark
    theme's light text colour (no picture keeps dark ink on a dark page)."""
    opened = _open(browser, url)
    page = opened.page
    try:
        page.emulate_media(color_scheme="dark")
        page.set_viewport_size({"width": NARROW_WIDTH, "height": 800})
        page.wait_for_timeout(200)
        labels = page.evaluate(_PICTURE_LABELS, THEMED_PICTURES[url])
    finally:
        opened.close()
    assert len(labels) >= 10, f"{url}: {len(labels)} labels in its pictures"
    small = [(x["text"], round(x["size"], 1)) for x in labels if x["size"] < 11]
    dark = [x["text"] for x in labels if x["light"] < 0.5]
    assert not small, f"{url}: labels below 11 px at {NARROW_WIDTH} px: {small[:5]}"
    assert not dark, f"{url}: labels in dark ink on the dark theme: {dark[:5]}"


def test_engine_tabs_switch(browser: Browser) -> None:
    """Where a page compares the engines, each engine's result is a tab, and clicking a tab shows
    it (the output is folded until the learner opens it)."""
    opened = _open(browser, "recipes/swap-engines.html")
    page = opened.page
    try:
        page.locator("details:has(div.sd-tab-set) > summary").first.click()
        tabs = page.locator("div.sd-tab-set").first
        labels = tabs.locator(":scope > label")
        assert labels.all_inner_texts() == ["torch", "ownership"]
        contents = tabs.locator(":scope > div.sd-tab-content")
        assert contents.nth(0).is_visible() and not contents.nth(1).is_visible()
        labels.nth(1).click()
        assert contents.nth(1).is_visible() and not contents.nth(0).is_visible()
    finally:
        opened.close()


@pytest.mark.parametrize("url", ["guide/focus.html", "guide/completion.html"])
def test_checklists_keep_their_ticks_in_the_browser(browser: Browser, url: str) -> None:
    """Each "☐" item is a named checkbox; a tick survives a reload (localStorage), an untick too."""
    opened = _open(browser, url)
    page = opened.page
    try:
        boxes = page.locator("p.checklist-item input.checklist-box")
        assert boxes.count() == 4, f"{url}: {boxes.count()} checkboxes, the unit has 4 items"
        assert all(boxes.nth(i).get_attribute("aria-label") for i in range(4))
        assert "\u2610" not in page.inner_text("article")
        boxes.nth(1).check()
        page.reload(wait_until="load")
        boxes = page.locator("p.checklist-item input.checklist-box")
        assert [boxes.nth(i).is_checked() for i in range(4)] == [False, True, False, False]
        boxes.nth(1).uncheck()
        page.reload(wait_until="load")
        assert not page.locator("p.checklist-item input.checklist-box").nth(1).is_checked()
        assert not opened.errors, opened.errors
    finally:
        opened.close()


# Resolves once the page has not scrolled for three animation frames. Focusing an element
# scrolls it into view, smoothly under the theme's ``scroll-behavior: smooth``; a click
# computed while the page still moves can land beside its button.
_SCROLL_SETTLED = """() => new Promise(resolve => {
  let last = null, still = 0;
  const tick = () => {
    const y = window.scrollY;
    still = y === last ? still + 1 : 0;
    last = y;
    if (still >= 3) { resolve(true); } else { requestAnimationFrame(tick); }
  };
  requestAnimationFrame(tick);
})"""

_STEPPER_STATE = """root => {
  const frames = [...root.querySelectorAll('.stepper-frame')];
  const predict = root.querySelector('.stepper-predict');
  return {
    shown: frames.filter(f => !f.hidden).map(f => Number(f.dataset.frame)),
    frames: frames.length,
    waiting: predict !== null && !predict.hidden,
    status: root.querySelector('.stepper-status').textContent,
    ran: [...root.querySelectorAll('.stepper-line.stepper-ran')].map(l => Number(l.dataset.line)),
    nextDisabled: root.querySelector('.stepper-next').getAttribute('aria-disabled'),
    pageWidth: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  };
}"""

_PICTURES = """(root) => {
  const lum = c => {
    const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  const out = {panels: [], pictures: []};
  for (const el of root.querySelectorAll('div.ownership-stepper, div.stepper-predict, pre.stepper-code')) {
    const style = getComputedStyle(el);
    out.panels.push({cls: el.className, bg: lum(style.backgroundColor)});
  }
  for (const svg of root.querySelectorAll('svg.ownership-picture')) {
    if (svg.closest('[hidden]')) continue;
    const bg = svg.querySelector('rect.bg');
    const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize));
    const drawn = svg.getBoundingClientRect().width;
    out.pictures.push({
      bg: lum(getComputedStyle(bg).fill),
      scale: drawn / svg.width.baseVal.value,
      smallest: Math.min(...sizes),
    });
  }
  return out;
}"""


STEPPER = "div.ownership-stepper"


def _open_as(browser: Browser, url: str, width: int, dark: bool) -> Opened:
    """The page opened at ``width`` px, in the dark theme (the system's preference) or not."""
    opened = _open(browser, url)
    if dark:
        opened.page.emulate_media(color_scheme="dark")
    if width < 1280:
        _remember_wide_looks(opened.page)
    opened.page.set_viewport_size({"width": width, "height": 900})
    opened.page.wait_for_timeout(200)
    return opened


def _check_pictures(page: Any, root: str, dark: bool) -> list[str]:
    """Pictures are drawn at their own size (no label below 11 px) in the theme's colours."""
    state = page.evaluate(_PICTURES, page.locator(root).first.element_handle())
    problems = []
    for p in state["pictures"]:
        if abs(p["scale"] - 1) > 0.01:
            problems.append(f"a picture is scaled by {p['scale']:.2f}")
        if p["smallest"] < 11:
            problems.append(f"a picture has text of {p['smallest']} px")
        if dark and p["bg"] > 0.3:
            problems.append(f"a picture has a light background in the dark theme ({p['bg']:.2f})")
    for panel in state["panels"]:
        if dark and panel["bg"] > 0.3:
            problems.append(
                f"{panel['cls']} is a light panel in the dark theme ({panel['bg']:.2f})"
            )
    return problems


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("width", [1280, NARROW_WIDTH])
@pytest.mark.parametrize("url", list(STEPPERS))
def test_stepper_by_buttons_and_keys(browser: Browser, url: str, width: int, dark: bool) -> None:
    """The page's stepper: Next/Back and ←/→ step one frame (the page does not turn), the status
    line announces each step, the frame after the pause stays hidden until "Reveal", no frame
    makes the page scroll sideways, the pictures keep their size and the theme's colours, and
    axe-core finds no serious or critical violation, paused or not.

    axe reads the whole page once, paused, in the dark theme only: in the light theme the page
    is axe's in test_page_in_browser (1280 px) and test_page_at_a_phones_width (375 px; every
    stepper is on a unit page, test_expected_pages_exist checks it). Elsewhere it reads the
    stepper alone, the one part of the page that stepping changes."""
    opened = _open_as(browser, url, width, dark)
    page = opened.page
    try:
        root = page.locator(STEPPER)
        assert root.count() == 1, f"{url} has {root.count()} steppers"

        def state() -> dict[str, Any]:
            return page.evaluate(_STEPPER_STATE, root.element_handle())

        pause = STEPPERS[url]
        first = state()
        last = first["frames"] - 1
        assert first["shown"] == [0] and first["status"].startswith(f"Step 0 of {last}")
        assert root.get_attribute("aria-label") and root.locator("[aria-live]").count() == 1
        for name in ("Previous step", "Next step"):
            assert page.get_by_role("button", name=name).count() == 1
        page.get_by_role("button", name="Next step").click()
        assert state()["shown"] == [1] and state()["status"].startswith(f"Step 1 of {last}")
        page.get_by_role("button", name="Previous step").click()
        assert state()["shown"] == [0]
        root.focus()
        seen = []
        for _ in range(pause - 1):
            page.keyboard.press("ArrowRight")
            seen.append(state())
        assert page.url.endswith(url), "→ turned the page instead of stepping"
        assert [s["shown"] for s in seen] == [[k] for k in range(1, pause)]
        page.keyboard.press("ArrowRight")  # onto the paused line: predict first
        paused = state()
        assert paused["waiting"] and paused["shown"] == [pause - 1], paused
        assert paused["nextDisabled"] == "true" and paused["status"].startswith("Predict")
        problems = _check_accessibility(
            opened, within=None if dark else STEPPER, narrow=dark and width < 1280
        )
        page.keyboard.press("ArrowRight")  # no way past it but the reveal button
        assert state()["waiting"] and state()["shown"] == [pause - 1]
        reveal = page.get_by_role("button", name=re.compile("Reveal the state"))
        assert reveal.evaluate("b => b === document.activeElement"), "→ did not focus Reveal"
        page.evaluate(_SCROLL_SETTLED)  # the focus scrolled the button into view
        reveal.click()
        revealed = state()
        assert revealed["shown"] == [pause] and not revealed["waiting"]
        assert revealed["status"].startswith(f"Step {pause} of {last}")
        problems += _check_pictures(page, STEPPER, dark)
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowRight")
        assert state()["shown"] == [pause], "a revealed frame is hidden again"
        for _ in range(last - pause):
            page.get_by_role("button", name="Next step").click()
            seen.append(state())
        end = state()
        assert end["shown"] == [last] and end["nextDisabled"] == "true"
        assert len(end["ran"]) >= 1
        problems += [
            f"the page scrolls sideways: {s['pageWidth']} px at {s['viewport']} px"
            for s in [*seen, paused, revealed]
            if s["pageWidth"] > s["viewport"] + 1
        ]
        problems += _check_accessibility(opened, within=STEPPER)
        problems += opened.errors
        problems += [f"request left 127.0.0.1: {u}" for u in opened.outside]
    finally:
        opened.close()
    assert not problems, f"{url} at {width} px:\n" + "\n".join(problems)


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("url", GRAPH_PAGES)
def test_graph_pictures_keep_their_size_and_the_theme(
    browser: Browser, url: str, dark: bool
) -> None:
    """At a phone's width a graph picture scrolls inside its box instead of shrinking (no label
    below 11 px), and in the dark theme it is drawn on the page's dark background."""
    opened = _open_as(browser, url, NARROW_WIDTH, dark)
    page = opened.page
    try:
        graphs = page.locator("article div.cell_output div.ownership-graph")
        assert graphs.count() >= 1, f"{url} shows no graph picture"
        problems = _check_pictures(page, "article", dark)
        problems += [f"wider than its box: {w}" for w in page.evaluate(_TOO_WIDE)]
        wide = page.evaluate(
            "() => [...document.querySelectorAll('article div.ownership-graph')]"
            ".some(d => d.scrollWidth > d.clientWidth + 1)"
        )
        assert wide, "no graph picture is wider than a phone: the check would prove nothing"
        problems += opened.errors
    finally:
        opened.close()
    assert not problems, f"{url}:\n" + "\n".join(problems)
