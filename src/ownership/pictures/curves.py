"""Training curves as small SVG panels: one panel per measured quantity, one line per run.

A few hundred lines of numbers do not need a plotting library. Each panel is a standalone SVG of
fixed pixel size (text never below 11 px, narrow enough for a phone), drawn in ``currentColor`` on
a transparent ground, so it takes the page's text colour in a light and a dark theme. Runs are
told apart by colour *and* by dash pattern. In HTML the panels wrap: side by side on a wide
screen, one under the other on a narrow one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
SMALL = 11
W, H = 320, 190
LEFT, RIGHT, TOP, BOTTOM = 46, 10, 26, 30
#: (colour, dash pattern) of each run, in order.
STYLES = (
    ("#3b82c4", ""),
    ("#d62f45", "7 4"),
    ("#2e9e62", "2 3"),
    ("#d9822b", "10 3 2 3"),
    ("#9467bd", "4 2"),
)


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    """Three to six round values in ``[lo, hi]`` (powers of ten on a log axis).

    >>> _ticks(0.0, 1.0, False)
    [0.0, 0.5, 1.0]
    >>> _ticks(0.01, 5.0, True)
    [0.01, 0.1, 1.0]
    """
    if log:
        first, last = math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9)
        every = max(1, math.ceil((last - first + 1) / 5))
        return [10.0**k for k in range(first, last + 1, every)]
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / 3
    unit = 10 ** math.floor(math.log10(raw))
    step = next(m * unit for m in (1, 2, 2.5, 5, 10) if m * unit >= raw)
    start = math.ceil(lo / step - 1e-9) * step
    count = math.floor((hi - start) / step + 1e-9) + 1
    return [round(start + i * step, 12) for i in range(count)]


def _label(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1e4 or abs(v) < 1e-3:
        mantissa, exponent = f"{v:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{v:g}"


def _text(x: float, y: float, s: str, size: int = SMALL, anchor: str = "start") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size}"'
        f' fill="currentColor" text-anchor="{anchor}">{escape(s)}</text>'
    )


def panel_svg(title: str, runs: Mapping[str, Sequence[float]], log: bool = False) -> str:
    """One panel: ``runs`` maps a run's label to its values, one per step (a log axis when
    ``log``; values at or below 0 are drawn at the axis' floor)."""
    series = {k: [float(v) for v in vs] for k, vs in runs.items()}
    every = [v for vs in series.values() for v in vs if math.isfinite(v) and (v > 0 or not log)]
    lo, hi = (min(every), max(every)) if every else (1.0, 10.0)
    zero = log and any(v <= 0 for vs in series.values() for v in vs)
    if log:  # a value at or below 0 is drawn a decade below the smallest positive one, as "0"
        lo = max(lo, hi * 1e-8)
        lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
        lo = lo / 10 if zero else lo
    else:
        pad = (hi - lo) * 0.05 or abs(hi) * 0.05 or 1.0
        lo, hi = lo - pad, hi + pad

    def sy(v: float) -> float:
        if log:
            v = math.log10(max(v, lo))
            a, b = math.log10(lo), math.log10(hi)
        else:
            a, b = lo, hi
        return TOP + (H - TOP - BOTTOM) * (1 - (v - a) / (b - a))

    steps = max(len(vs) for vs in series.values())

    def sx(i: int) -> float:
        return LEFT + (W - LEFT - RIGHT) * i / max(steps - 1, 1)

    out = [_text(LEFT, 16, title, 12)]
    out.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{W - LEFT - RIGHT}" height="{H - TOP - BOTTOM}"'
        ' fill="none" stroke="currentColor" stroke-opacity="0.5"/>'
    )
    for t in _ticks(lo, hi, log):
        y = sy(t)
        shown = "0" if zero and t == lo else _label(t)
        out.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{W - RIGHT}" y2="{y:.1f}" stroke="currentColor"'
            ' stroke-opacity="0.15"/>'
        )
        out.append(_text(LEFT - 4, y + 4, shown, anchor="end"))
    for i in [1.0, *(t for t in _ticks(1, steps, False) if t > 1)]:
        out.append(_text(sx(int(i) - 1), H - BOTTOM + 14, f"{int(i)}", anchor="middle"))
    out.append(_text((LEFT + W - RIGHT) / 2, H - 3, "step", anchor="middle"))
    for (label, vs), (colour, dash) in zip(series.items(), STYLES, strict=False):
        points = " ".join(f"{sx(i):.1f},{sy(v):.1f}" for i, v in enumerate(vs) if math.isfinite(v))
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"'
            f"{dashes}><title>{escape(label)}</title></polyline>"
        )
    return _svg(W, H, title, out)


def legend_svg(labels: Sequence[str]) -> str:
    """The runs' line styles, two to a row."""
    out = []
    for n, (label, (colour, dash)) in enumerate(zip(labels, STYLES, strict=False)):
        x, y = 8 + (n % 2) * 160, 14 + (n // 2) * 18
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<line x1="{x}" y1="{y - 4}" x2="{x + 30}" y2="{y - 4}" stroke="{colour}"'
            f' stroke-width="2.5"{dashes}/>'
        )
        out.append(_text(x + 36, y, label, 12))
    return _svg(W, 8 + 18 * ((len(labels) + 1) // 2), "legend", out)


def _svg(width: int, height: int, label: str, body: list[str]) -> str:
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
            f' viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(label)}'
            ' style="max-width:none">',
            f"<title>{escape(label)}</title>",
            *body,
            "</svg>",
        ]
    )


class CurvesPicture:
    """Panels of training curves; shown inline by Jupyter and MyST-NB as wrapping SVGs."""

    def __init__(
        self,
        runs: Mapping[str, Mapping[str, Sequence[float]]],
        panels: Sequence[tuple[str, str, bool]],
    ) -> None:
        self.labels = list(runs)
        self.panels = [
            panel_svg(title, {label: runs[label][key] for label in runs}, log)
            for key, title, log in panels
        ]
        self.legend = legend_svg(self.labels)

    def _repr_html_(self) -> str:
        cells = "".join(f'<div style="overflow-x:auto">{svg}</div>' for svg in self.panels)
        return (
            f'<div class="ownership-curves"><div style="overflow-x:auto">{self.legend}</div>'
            f'<div style="display:flex;flex-wrap:wrap;gap:8px 24px">{cells}</div></div>'
        )

    def __repr__(self) -> str:
        return f"CurvesPicture(runs={self.labels!r}, panels={len(self.panels)})"


def draw_curves(
    runs: Mapping[str, Mapping[str, Sequence[float]]], panels: Sequence[tuple[str, str, bool]]
) -> CurvesPicture:
    """One panel per ``(key, title, log)`` in ``panels``, one line per run: ``runs`` maps a run's
    label to its measurements (``key`` to one value per step).

    >>> pic = draw_curves({"a": {"loss": [1.0, 0.5]}, "b": {"loss": [1.0, 0.8]}},
    ...                   [("loss", "loss", True)])
    >>> pic, pic.panels[0].count("<polyline")
    (CurvesPicture(runs=['a', 'b'], panels=1), 2)
    """
    return CurvesPicture(runs, panels)
