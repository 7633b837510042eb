"""The memory of a program at one moment: tensors as bars over the storage they view.

:func:`read_memory` reads live tensors (of torch or of ownership, by duck typing) into
engine-independent data: one :class:`StorageState` per block of memory, with the elements' values
and every named tensor that views it (tensors that share memory share one storage), each with its
version counter, its place in the autograd graph, its ``.grad``, and what backward nodes saved of
it (the version they saved it at, and whether it still matches). :func:`draw_memory` writes it as
an SVG in the style of :mod:`ownership.pictures.svg`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ownership.pictures.svg import FONT, GREY, MIN_FONT, RED, text
from ownership.pictures.walk import Saved, layout_key, shape_text, storage_key

MAX_CELLS = 12  # elements drawn per storage; the rest are counted
CELL_W = 64  # room for 8 characters (-0.00417)
CHAR_W = 6.7  # one character at MIN_FONT in a monospace font
LINE_H = 16
BAR_H = 8
PAD = 12
GAP = 18


@dataclass(frozen=True)
class SavedMark:
    """A backward node's saved slot holding this tensor (or a view of its memory)."""

    node: str
    slot: str
    saved_version: int
    version: int
    stale: bool
    view: bool  # the node saved another view of the same memory, not this very tensor

    def text(self) -> str:
        """``saved by MulBackward0.self @ v0`` (with ``, now v1 ✗`` once it no longer matches)."""
        what = "a view, " if self.view else ""
        now = f", now v{self.version} ✗" if self.stale else ""
        return f"saved by {self.node} ({what}{self.slot}) @ v{self.saved_version}{now}"


@dataclass(frozen=True)
class TensorState:
    """One named tensor: where it sits in its storage, and its autograd state."""

    name: str
    role: str  # "parameter", "buffer", "state_dict entry", or ""
    shape: str
    dtype: str
    version: int
    cells: tuple[int, ...]  # the storage elements it views (those drawn)
    requires_grad: bool
    grad_fn: str | None
    grad: str | None  # the values of .grad, or None
    saved: tuple[SavedMark, ...]

    def lines(self) -> list[str]:
        """The text of its bar: name, shape and version; graph state; .grad; saved marks."""
        role = f" ({self.role})" if self.role else ""
        head = f"{self.name}{role} · {self.shape} · version {self.version}"
        if self.grad_fn is not None:
            graph = f"grad_fn={self.grad_fn}"
        else:
            graph = "leaf, requires_grad" if self.requires_grad else "no grad"
        grad = [] if self.grad is None else [f".grad = {self.grad}"]
        return [head, graph, *grad, *(m.text() for m in self.saved)]


@dataclass(frozen=True)
class StorageState:
    """One block of memory: its element type, size, the values drawn, and who views it."""

    dtype: str
    size: int
    values: tuple[str, ...]  # "" for an element no named tensor views
    tensors: tuple[TensorState, ...]

    def lines(self) -> list[str]:
        """Every fact of the storage, one per line (compared across engines, read by tests)."""
        out = [f"storage {self.size} × {self.dtype}: [{', '.join(self.values)}]"]
        for t in self.tensors:
            out += [f"  {line}" for line in t.lines()] + [f"  cells {list(t.cells)}"]
        return out


def number(v: float) -> str:
    """A value as drawn in a cell: 3 significant digits, integers and booleans as they are.

    >>> number(0.7310585975646973), number(2.0), number(-0.00531), number(3), number(True)
    ('0.731', '2', '-0.00531', '3', 'True')
    """
    if isinstance(v, bool | int):
        return str(v)
    return f"{float(v):.3g}"


def _values(t: Any) -> list[str]:
    flat = t.detach().reshape(-1).tolist() if int(t.numel()) else []
    return [number(v) for v in flat]


def positions(t: Any) -> list[int]:
    """The storage index of each element of ``t``, in row-major order."""
    offset, shape, stride = int(t.storage_offset()), tuple(t.shape), tuple(t.stride())
    return [
        offset + sum(i * s for i, s in zip(index, stride, strict=True))
        for index in itertools.product(*(range(int(n)) for n in shape))
    ]


def _storage_size(t: Any) -> int:
    try:
        return int(t.untyped_storage().nbytes()) // int(t.element_size())
    except (AttributeError, RuntimeError, TypeError):
        return int(t.numel())


def dtype_name(t: Any) -> str:
    """The dtype as drawn: ``float32``, not ``torch.float32``."""
    return str(t.dtype).rsplit(".", 1)[-1]


def _marks(members: list[Any], saved: list[tuple[str, Saved]]) -> list[list[SavedMark]]:
    """For each tensor of one storage, the saved slots that hold it.

    A saved tensor is marked on each member that views exactly the same elements; a saved view
    that no member matches is marked, as a view, on the storage's first member.
    """
    marks: list[list[SavedMark]] = [[] for _ in members]
    key = storage_key(members[0])
    for node, s in saved:
        v = s.value
        if s.saved_version is None or s.version is None or v is None:
            continue
        if storage_key(v) != key:
            continue
        exact = [i for i, t in enumerate(members) if layout_key(t) == layout_key(v)]
        for i in exact or [0]:
            mark = SavedMark(
                node, s.slot, s.saved_version, s.version, s.state == "stale", not exact
            )
            marks[i].append(mark)
    return marks


def read_memory(
    named: Iterable[tuple[str, str, Any]], saved: Iterable[tuple[str, Saved]] = ()
) -> list[StorageState]:
    """The storages behind ``named`` tensors (``(name, role, tensor)``), in order of appearance.

    ``saved`` is what the graph's nodes saved (:attr:`.walk.GraphWalk.saved`): each saved tensor
    is marked on each named tensor that views exactly its elements (or, failing that, as a view on
    the first tensor of its storage). Reading changes nothing: no version moves, no graph is
    recorded.
    """
    saved_list = list(saved)
    groups: dict[object, list[tuple[str, str, Any]]] = {}
    for name, role, t in named:
        groups.setdefault(storage_key(t), []).append((name, role, t))
    out = []
    for members in groups.values():
        first = members[0][2]
        size = _storage_size(first)
        values = [""] * min(size, MAX_CELLS)
        tensors = []
        marks = _marks([t for _, _, t in members], saved_list)
        for (name, role, t), mark in zip(members, marks, strict=True):
            seen = positions(t)
            for p, v in zip(seen, _values(t), strict=True):
                if p < len(values):
                    values[p] = v
            grad = getattr(t, "grad", None) if t.is_leaf else None
            tensors.append(
                TensorState(
                    name=name,
                    role=role,
                    shape=shape_text(t),
                    dtype=dtype_name(t),
                    version=int(t._version),
                    cells=tuple(sorted({p for p in seen if p < MAX_CELLS})),
                    requires_grad=bool(t.requires_grad),
                    grad_fn=None if t.grad_fn is None else str(t.grad_fn.name()).rsplit("::")[-1],
                    grad=None if grad is None else "[" + ", ".join(_values(grad)) + "]",
                    saved=tuple(mark),
                )
            )
        out.append(StorageState(dtype_name(first), size, tuple(values), tuple(tensors)))
    return out


def _bar_colour(t: TensorState) -> str:
    if any(m.stale for m in t.saved):
        return "stale"
    if t.grad_fn is not None:
        return "node"
    return "leaf" if t.requires_grad else "plain"


BAR = {"stale": RED, "node": "#4a6fa5", "leaf": "#3c8d5a", "plain": "#8c8c8c"}


def draw_memory(storages: list[StorageState], label: str) -> str:
    """The storages as an SVG: per storage, each tensor's text over a bar spanning its elements,
    then the row of elements with their values. A tensor whose saved copy no longer matches is
    drawn red."""
    parts: list[str] = []
    y = float(PAD)
    width = 0.0
    for s in storages:
        left = float(PAD)
        for t in s.tensors:
            for i, line in enumerate(t.lines()):
                style = "stale" if "✗" in line else ("name" if i == 0 else "muted")
                ink = RED if style == "stale" else ("#111111" if i == 0 else "#555555")
                y += LINE_H
                parts.append(text(left, y - 4, line, ink, style, bold=i == 0, size=MIN_FONT))
                width = max(width, left + len(line) * CHAR_W)
            y += 4
            kind = _bar_colour(t)
            for a, b in _runs(t.cells):
                parts.append(
                    f'<rect class="bar {kind}" x="{left + a * CELL_W + 1:.1f}" y="{y:.1f}"'
                    f' width="{(b - a + 1) * CELL_W - 2:.1f}" height="{BAR_H}" rx="3"'
                    f' fill="{BAR[kind]}"/>'
                )
            y += BAR_H + 6
        y += 2
        for i, v in enumerate(s.values):
            x = left + i * CELL_W
            parts.append(
                f'<rect class="cell" x="{x:.1f}" y="{y:.1f}" width="{CELL_W}" height="24"'
                f' fill="#f4f4f4" stroke="{GREY}"/>'
            )
            parts.append(text(x + 5, y + 16, v, "#111111", "value", size=MIN_FONT))
        more = s.size - len(s.values)
        caption = f"storage: {s.size} × {s.dtype}" + (f" (first {len(s.values)})" if more else "")
        parts.append(text(left, y + 24 + LINE_H, caption, "#555555", "muted", size=MIN_FONT))
        width = max(width, left + len(s.values) * CELL_W, left + len(caption) * CHAR_W)
        y += 24 + LINE_H + GAP
    if not storages:
        parts.append(text(PAD, PAD + LINE_H, "no tensors yet", "#555555", "muted", size=MIN_FONT))
        width, y = 200.0, PAD + LINE_H + GAP
    w, h = width + PAD, y - GAP + PAD
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}"'
            f' viewBox="0 0 {w:.0f} {h:.0f}" class="ownership-picture" role="img"'
            f" aria-label={quoteattr(label)} font-family={quoteattr(FONT)}>",
            f"<title>{escape(label)}</title>",
            f'<rect class="bg" x="0" y="0" width="{w:.0f}" height="{h:.0f}" fill="#ffffff"/>',
            *parts,
            "</svg>",
        ]
    )


def _runs(cells: tuple[int, ...]) -> list[tuple[int, int]]:
    """Consecutive runs of cell indices, as (first, last) pairs.

    >>> _runs((0, 1, 2, 5, 7, 8))
    [(0, 2), (5, 5), (7, 8)]
    """
    out: list[tuple[int, int]] = []
    for c in cells:
        if out and out[-1][1] == c - 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out
