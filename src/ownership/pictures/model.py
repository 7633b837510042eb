"""What a graph picture shows, before any layout: boxes, the lines written in them, and edges.

A :class:`Figure` is engine-independent data. :mod:`ownership.pictures.walk` builds it from live
tensors; :mod:`ownership.pictures.placement` places it; :mod:`ownership.pictures.svg` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

BoxKind = Literal["root", "node", "accumulate", "leaf", "cut"]
"""``root``: an output the picture starts from; ``node``: a backward node (``grad_fn``);
``accumulate``: an ``AccumulateGrad`` node; ``leaf``: a leaf tensor; ``cut``: a detached tensor."""

LineStyle = Literal["plain", "muted", "ok", "stale", "freed"]
"""``ok``: a saved tensor still at the version it was saved at; ``stale``: modified since it was
saved (backward through this node will raise); ``freed``: released by an earlier backward."""

EdgeKind = Literal["grad", "leaf", "cut"]
"""``grad``: gradient flows along it during backward; ``leaf``: a node uses a tensor that is not
in the graph; ``cut``: a ``detach()`` separated the two ends, so no gradient flows."""


@dataclass
class Line:
    """One line of text in a box, with how it is drawn."""

    text: str
    style: LineStyle = "plain"


@dataclass
class Box:
    """A box of the picture: a title (bold) and lines under it."""

    key: str
    kind: BoxKind
    title: str
    lines: list[Line] = field(default_factory=list)


@dataclass(frozen=True)
class Edge:
    """An arrow from ``src`` to ``dst`` (box keys), drawn in the direction gradients flow."""

    src: str
    dst: str
    kind: EdgeKind = "grad"
    label: str = ""


class Figure:
    """Boxes (in discovery order, by key) and edges of one picture, and its title."""

    def __init__(self, title: str | None = None) -> None:
        self.boxes: dict[str, Box] = {}
        self.edges: list[Edge] = []
        self.title = title

    def add(self, box: Box) -> Box:
        """Add ``box`` unless a box with its key exists; return the box kept under that key."""
        return self.boxes.setdefault(box.key, box)

    def connect(self, edge: Edge) -> None:
        """Add ``edge`` once (a repeated edge, e.g. ``x * x``, is drawn once)."""
        if edge not in self.edges:
            self.edges.append(edge)
