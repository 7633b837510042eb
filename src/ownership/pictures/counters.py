"""A picture of memory: the storages under some tensors, the elements each tensor sees, and which
tensors share a version counter.

Everything drawn is read from live tensors of either engine (duck typing, as in
:mod:`ownership.pictures.walk`): the storage a tensor lives in (:func:`storage_key`), the storage
elements it sees (from ``storage_offset()``, ``shape`` and ``stride()``), their values and its
``_version``. Neither engine exposes *which* counter a tensor reads, so :func:`counter_groups_`
measures it: it writes through each tensor in turn and sees whose version moves.

The SVG draws its text and lines in ``currentColor`` on a transparent ground, so an inlined
picture takes the page's text colour (legible in a light and a dark theme); its size is fixed in
pixels (text never below 11 px) and it is narrow enough for a phone's width.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ownership.either_engine import is_either_tensor
from ownership.pictures.memory import dtype_name, positions
from ownership.pictures.walk import storage_key

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
FONT_SIZE = 12
SMALL = 11  # the smallest text drawn
CHAR_W = 7.3  # width of one character at FONT_SIZE (monospace)
CELL_W, CELL_H, ROW_H = 38, 22, 30
MARGIN = 8
#: One colour per version counter (readable on white and on a dark ground), with a letter each.
COUNTER_COLOURS = ("#3b82c4", "#d9822b", "#2e9e62", "#9467bd", "#c4455c", "#7f7f7f")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class TensorMemory:
    """What one named tensor sees of memory, read at one moment."""

    name: str
    storage: object  # equal for tensors over the same storage (see ``storage_key``)
    elements: tuple[int, ...]  # the storage elements it sees, in its own (row-major) order
    values: tuple[float, ...]  # their values, in the same order
    version: int  # ``_version`` when read
    dtype: str


def read_views(names: Mapping[str, Any]) -> list[TensorMemory]:
    """Read, without changing anything, what each named tensor sees of memory."""
    out = []
    for name, t in names.items():
        if not is_either_tensor(t):
            raise TypeError(f"read_views expects tensors, got {type(t).__name__} for {name!r}")
        values = tuple(float(v) for v in t.detach().reshape(-1).tolist())
        elements = tuple(positions(t))
        out.append(
            TensorMemory(name, storage_key(t), elements, values, int(t._version), dtype_name(t))
        )
    return out


def counter_groups_(names: Mapping[str, Any]) -> list[list[str]]:
    """Which of the named tensors share a version counter, measured by writing in place.

    The first tensor of each group not yet found is written through a ``detach()`` alias
    (``copy_`` of its own values: nothing changes but the counter); the tensors whose
    ``_version`` moved share its counter. Every counter ends one higher: read the versions first
    (:func:`read_views`), and probe tensors that no backward still needs.

    >>> import ownership as torch
    >>> base = torch.zeros(3)
    >>> counter_groups_({"base": base, "view": base[1:], "data": base.data, "copy": base.clone()})
    [['base', 'view'], ['data'], ['copy']]
    """
    groups: list[list[str]] = []
    placed: set[str] = set()
    for name, t in names.items():
        if name in placed:
            continue
        before = {n: int(u._version) for n, u in names.items()}
        alias = t.detach()
        alias.copy_(alias.clone())
        group = [n for n, u in names.items() if int(u._version) != before[n]]
        placed.update(group)
        groups.append(group)
    return groups


class CountersPicture:
    """A drawn memory picture: ``svg`` text, shown inline by Jupyter and MyST-NB."""

    def __init__(self, tensors: list[TensorMemory], counters: Sequence[Sequence[str]], title: str):
        self.tensors = tensors
        self.counters = [list(g) for g in counters]
        self.title = title
        self.svg: str = _render(tensors, self.counters, title)

    def counter_of(self, name: str) -> str:
        """The letter of the counter ``name`` reads (``A`` for the first group, ...)."""
        for letter, group in zip(LETTERS, self.counters, strict=False):
            if name in group:
                return letter
        raise KeyError(name)

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        return f'<div class="ownership-memory" style="overflow-x:auto">{self.svg}</div>'

    def __repr__(self) -> str:
        return f"CountersPicture(counters={self.counters!r})"


def draw_counters(
    tensors: Mapping[str, Any] | Sequence[TensorMemory],
    counters: Sequence[Sequence[str]],
    title: str = "memory",
) -> CountersPicture:
    """Draw the storages under some tensors and which of them share a version counter.

    ``tensors`` names live tensors (read now) or is what :func:`read_views` read earlier;
    ``counters`` groups the names by version counter, as :func:`counter_groups_` measures it.
    Probing moves the counters, so read first: ``draw_counters(read_views(t), counter_groups_(t))``
    (Python evaluates the arguments left to right).

    >>> import ownership as torch
    >>> base = torch.zeros(2)
    >>> scene = {"base": base, "data": base.data}
    >>> pic = draw_counters(read_views(scene), counter_groups_(scene), title="two counters")
    >>> pic.counter_of("data"), [t.version for t in pic.tensors], base._version
    ('B', [0, 0], 1)
    """
    read = read_views(tensors) if isinstance(tensors, Mapping) else list(tensors)
    listed = [n for g in counters for n in g]
    if sorted(listed) != sorted(t.name for t in read):
        raise ValueError(f"counters must group each name once: {listed}")
    return CountersPicture(read, counters, title)


def _text(x: float, y: float, s: str, size: int = FONT_SIZE, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size}"'
        f' fill="currentColor"{extra}>{escape(s)}</text>'
    )


def _number(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e4 else f"{v:.0e}"


def _render(tensors: list[TensorMemory], counters: list[list[str]], title: str) -> str:
    colour = {
        n: COUNTER_COLOURS[i % len(COUNTER_COLOURS)] for i, g in enumerate(counters) for n in g
    }
    letter = {n: LETTERS[i % len(LETTERS)] for i, g in enumerate(counters) for n in g}
    storages: dict[object, list[TensorMemory]] = {}
    for t in tensors:
        storages.setdefault(t.storage, []).append(t)
    label_w = max(len(t.name) for t in tensors) * CHAR_W + 12
    cells = max(max(t.elements, default=-1) + 1 for t in tensors)
    x0 = MARGIN + label_w
    right = x0 + cells * CELL_W + 10
    width = right + 7 * CHAR_W + MARGIN
    body: list[str] = [_text(MARGIN, 18, title, FONT_SIZE + 1, font_weight="bold")]
    y = 34
    for number, members in enumerate(storages.values(), start=1):
        seen: dict[int, float] = {}
        for t in members:
            seen.update(zip(t.elements, t.values, strict=True))
        body.append(_text(MARGIN, y + 12, f"storage {number} · {members[0].dtype} · values", SMALL))
        y += 18
        for i in range(cells):
            x = x0 + i * CELL_W
            body.append(
                f'<rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H}" fill="none"'
                ' stroke="currentColor" stroke-width="1"/>'
            )
            shown = _number(seen[i]) if i in seen else "·"
            body.append(_text(x + (CELL_W - 2) / 2, y + 15, shown, text_anchor="middle"))
        y += CELL_H + 8
        for t in members:
            c = colour[t.name]
            body.append(_text(MARGIN, y + 15, t.name, font_weight="bold"))
            for i in sorted(set(t.elements)):
                body.append(
                    f'<rect x="{x0 + i * CELL_W}" y="{y + 3}" width="{CELL_W - 2}"'
                    f' height="{CELL_H - 6}" rx="3" fill="{c}" fill-opacity="0.55"'
                    f' stroke="{c}" stroke-width="1.5"/>'
                )
            body.append(
                f'<rect x="{right}" y="{y + 2}" width="{7 * CHAR_W:.1f}" height="{CELL_H - 4}"'
                f' rx="9" fill="{c}" fill-opacity="0.25" stroke="{c}" stroke-width="1.5"/>'
            )
            badge = f"{letter[t.name]} v{t.version}"
            body.append(_text(right + 3.5 * CHAR_W, y + 15, badge, text_anchor="middle"))
            y += ROW_H
        y += 8
    legend = [
        "coloured cells: the elements a tensor sees",
        "A v3: counter A, at version 3; one letter",
        "and colour = one counter, shared",
    ]
    for line in legend:
        body.append(_text(MARGIN, y + 10, line, SMALL))
        y += 15
    height = y + MARGIN
    return (
        "\n".join(
            [
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}"'
                f' viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label={quoteattr(title)}'
                ' style="max-width:none">',
                f"<title>{escape(title)}</title>",
                *body,
                "</svg>",
            ]
        )
        + "\n"
    )
