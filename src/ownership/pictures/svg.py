"""Write a placed :class:`~.model.Figure` as a standalone SVG document (a string).

Only inline presentation attributes are used (no ``<style>`` element, which would leak into the
HTML page an SVG is inlined in), no external font, image or script. Marker ids carry a suffix so
several pictures can sit in one page. Every element also carries a class (the root
``ownership-picture``; ``bg``, ``name``, a line's style, ``edge``, ``legend``), so a page's style
sheet can recolour a picture for a dark theme: a CSS rule overrides a presentation attribute, and
a picture saved on its own keeps the light colours. No text is smaller than ``MIN_FONT`` px: a
picture too wide for a phone scrolls, it is never scaled down.
"""

from __future__ import annotations

import hashlib
from xml.sax.saxutils import escape, quoteattr

from ownership.pictures.model import Box, Edge, Figure
from ownership.pictures.placement import FONT_SIZE, LINE_H, PAD_X, PAD_Y, Placed, place

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
RED = "#c0392b"
GREY = "#555555"
FILL = {
    "root": ("#fff4cc", "#b7950b"),
    "node": ("#e8f0fe", "#4a6fa5"),
    "accumulate": ("#eeeeee", "#777777"),
    "leaf": ("#e6f4ea", "#3c8d5a"),
    "cut": ("#fdecea", RED),
}
INK = {"plain": "#222222", "muted": "#555555", "ok": "#1e6b3a", "stale": RED, "freed": "#8a6d3b"}
TITLE_H = 24
MIN_FONT = 11  # the smallest text drawn, in px (the legend and the lines of a box)
LEGEND = (
    "arrows: gradient flow in backward · red dashed: cut by detach() · ✗: saved tensor modified"
)


def text(
    x: float, y: float, s: str, fill: str, cls: str, bold: bool = False, size: int = FONT_SIZE
) -> str:
    """One line of text at ``(x, y)`` (its baseline), of class ``cls``, never below ``MIN_FONT``."""
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" font-family="{FONT}"'
        f' font-size="{max(size, MIN_FONT)}" fill="{fill}"{weight}>{escape(s)}</text>'
    )


def _box(box: Box, p: Placed) -> list[str]:
    fill, stroke = FILL[box.kind]
    dash = ' stroke-dasharray="5 3"' if box.kind == "cut" else ""
    rx = 12 if box.kind in ("leaf", "cut", "root") else 4
    out = [
        f'<g class="box {box.kind}"><title>{escape(box.title)}</title>',
        f'<rect x="{p.x:.1f}" y="{p.y:.1f}" width="{p.w:.1f}" height="{p.h:.1f}" rx="{rx}"'
        f' fill="{fill}" stroke="{stroke}" stroke-width="1.5"{dash}/>',
        text(p.x + PAD_X, p.y + PAD_Y + FONT_SIZE, box.title, "#111111", "name", bold=True),
    ]
    for i, line in enumerate(box.lines, start=1):
        y = p.y + PAD_Y + FONT_SIZE + i * LINE_H
        out.append(text(p.x + PAD_X, y, line.text, INK[line.style], line.style, size=MIN_FONT))
    out.append("</g>")
    return out


def _path(points: list[tuple[float, float]]) -> str:
    """A smooth path through ``points`` (top to bottom), vertical at every point."""
    (x0, y0), rest = points[0], points[1:]
    d = [f"M{x0:.1f},{y0:.1f}"]
    for x, y in rest:
        if x == x0:
            d.append(f"L{x:.1f},{y:.1f}")
        else:
            mid = (y0 + y) / 2
            d.append(f"C{x0:.1f},{mid:.1f} {x:.1f},{mid:.1f} {x:.1f},{y:.1f}")
        x0, y0 = x, y
    return " ".join(d)


def _edge(edge: Edge, a: Placed, b: Placed, via: list[Placed], uid: str) -> list[str]:
    points = [(a.cx, a.y + a.h)]
    for w in via:
        points += [(w.cx, w.y), (w.cx, w.y + w.h)]
    points.append((b.cx, b.y - 2))
    colour, extra = GREY, ""
    if edge.kind == "cut":
        colour, extra = RED, ' stroke-dasharray="7 4"'
    elif edge.kind == "leaf":
        extra = ' stroke-dasharray="2 3"'
    marker = "cut" if edge.kind == "cut" else "arrow"
    out = [
        f'<path class="edge {edge.kind}" d="{_path(points)}" fill="none" stroke="{colour}"'
        f' stroke-width="{2 if edge.kind == "cut" else 1.3}"{extra}'
        f' marker-end="url(#{marker}-UID)"/>'
    ]
    if edge.label:
        (x1, y1), (x2, y2) = points[0], points[1]
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        ink = RED if edge.kind == "cut" else GREY
        bold = edge.kind == "cut"
        cls = f"edge-label {edge.kind}"
        out.append(text(mx + 14, my + 4, edge.label, ink, cls, bold=bold, size=MIN_FONT))
        if edge.kind == "cut":  # a bar across the edge: the place where the graph is cut
            out.append(
                f'<line class="cut-bar" x1="{mx - 9:.1f}" y1="{my - 6:.1f}" x2="{mx + 9:.1f}" y2="{my + 6:.1f}"'
                f' stroke="{RED}" stroke-width="2.5"/>'
            )
    return out


def _marker(name: str, colour: str, uid: str) -> str:
    return (
        f'<marker id="{name}-{uid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9"'
        f' markerHeight="9" markerUnits="userSpaceOnUse" orient="auto">'
        f'<path class="{"arrowhead red" if name == "cut" else "arrowhead"}" d="M0,0 L10,5 L0,10 z"'
        f' fill="{colour}"/></marker>'
    )


def render(figure: Figure) -> str:
    """The figure as an SVG document, deterministic for a given figure."""
    placed, routes, width, height = place(figure)
    top = TITLE_H if figure.title else 0
    legend_w = len(LEGEND) * MIN_FONT * 0.6 + 32
    width = max(width, legend_w, 120.0)
    total_h = height + top + 22
    body: list[str] = []
    for n, e in enumerate(figure.edges):
        body += _edge(e, placed[e.src], placed[e.dst], routes.get(n, []), "UID")
    for key, box in figure.boxes.items():
        body += _box(box, placed[key])
    inner = "\n".join(body)
    uid = hashlib.sha1(inner.encode()).hexdigest()[:10]
    inner = inner.replace("-UID)", f"-{uid})")
    label = figure.title or "autograd graph"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{total_h:.0f}"'
        f' viewBox="0 0 {width:.0f} {total_h:.0f}" class="ownership-picture" role="img"'
        f" aria-label={quoteattr(label)}>",
        f"<title>{escape(label)}</title>",
        "<defs>" + _marker("arrow", GREY, uid) + _marker("cut", RED, uid) + "</defs>",
        f'<rect class="bg" x="0" y="0" width="{width:.0f}" height="{total_h:.0f}" fill="#ffffff"/>',
    ]
    if figure.title:
        parts.append(text(16, 18, figure.title, "#111111", "title", bold=True, size=FONT_SIZE + 2))
    parts.append(f'<g transform="translate(0,{top})">')
    parts.append(inner)
    parts.append("</g>")
    parts.append(text(16, total_h - 8, LEGEND, "#777777", "legend", size=MIN_FONT))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
