"""Place the boxes of a :class:`~.model.Figure`: layers top to bottom, order by barycentre.

Pure Python and deterministic. Every edge points down: a box's layer is the length of the longest
path reaching it from a box nothing points to. Within a layer, boxes are ordered by a few sweeps of
the barycentre heuristic (each box moves to the mean position of its neighbours in the layers above,
then below), which removes most edge crossings of small graphs. Text sizes are estimated for a
monospace font, so no font file is read.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ownership.pictures.model import Edge, Figure

CHAR_W = 7.2  # width of one character at FONT_SIZE in a monospace font
FONT_SIZE = 12
LINE_H = 16
PAD_X = 10
PAD_Y = 8
GAP_X = 28
GAP_Y = 56
MARGIN = 16
WAYPOINT_W = 8.0


@dataclass
class Placed:
    """A box's rectangle: top-left corner, width and height."""

    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        """Horizontal centre."""
        return self.x + self.w / 2


def box_size(title: str, lines: list[str]) -> tuple[float, float]:
    """Width and height of a box with this title and these lines."""
    longest = max([len(title) + 1, *(len(s) for s in lines)])
    return longest * CHAR_W + 2 * PAD_X, (1 + len(lines)) * LINE_H + 2 * PAD_Y


def layers(figure: Figure) -> list[list[str]]:
    """Box keys by layer (longest path from the sources), each layer in discovery order."""
    keys = list(figure.boxes)
    succ: dict[str, list[str]] = {k: [] for k in keys}
    indeg = dict.fromkeys(keys, 0)
    for e in figure.edges:
        succ[e.src].append(e.dst)
        indeg[e.dst] += 1
    level = dict.fromkeys(keys, 0)
    ready = [k for k in keys if indeg[k] == 0]
    seen = 0
    while ready:
        k = ready.pop(0)
        seen += 1
        for d in succ[k]:
            level[d] = max(level[d], level[k] + 1)
            indeg[d] -= 1
            if indeg[d] == 0:
                ready.append(d)
    if seen != len(keys):  # a cycle: cannot come from autograd, but never loop forever
        raise ValueError("the picture's edges form a cycle")
    out: list[list[str]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for k in keys:
        out[level[k]].append(k)
    return out


def _reorder(rows: list[list[str]], figure: Figure, sweeps: int = 4) -> None:
    """Barycentre sweeps: sort each layer by the mean relative position of its neighbours."""
    up: dict[str, list[str]] = {k: [] for k in figure.boxes}
    down: dict[str, list[str]] = {k: [] for k in figure.boxes}
    for e in figure.edges:
        down[e.src].append(e.dst)
        up[e.dst].append(e.src)

    def position() -> dict[str, float]:
        return {k: (i + 0.5) / len(row) for row in rows for i, k in enumerate(row)}

    for sweep in range(sweeps):
        neighbours, order = (up, range(1, len(rows))) if sweep % 2 == 0 else (down, None)
        indices = list(order) if order is not None else list(range(len(rows) - 2, -1, -1))
        for i in indices:
            pos = position()
            row = rows[i]
            keyed = []
            for j, k in enumerate(row):
                ns = [pos[n] for n in neighbours[k]]
                keyed.append((sum(ns) / len(ns) if ns else pos[k], j, k))
            rows[i] = [k for _, _, k in sorted(keyed)]


def place(figure: Figure) -> tuple[dict[str, Placed], dict[int, list[Placed]], float, float]:
    """Rectangles of every box, the waypoints of each edge, and the drawing's width and height.

    An edge that spans several layers gets a thin invisible waypoint in each layer it crosses, so
    it is routed beside the boxes of those layers instead of through them. Waypoints are returned
    by edge index (position in ``figure.edges``), top to bottom.
    """
    rows = layers(figure)
    level = {k: i for i, row in enumerate(rows) for k in row}
    sizes = {k: box_size(b.title, [line.text for line in b.lines]) for k, b in figure.boxes.items()}
    work = Figure(title=figure.title)  # the boxes plus one waypoint per crossed layer
    work.boxes = dict(figure.boxes)
    waypoints: dict[int, list[str]] = {}
    for n, e in enumerate(figure.edges):
        if level[e.dst] <= level[e.src] + 1:
            work.edges.append(e)
            continue
        chain = [f"~{n}:{i}" for i in range(level[e.src] + 1, level[e.dst])]
        waypoints[n] = chain
        for i, key in enumerate(chain):
            rows[level[e.src] + 1 + i].append(key)
            sizes[key] = (WAYPOINT_W, 0.0)
            work.boxes[key] = figure.boxes[e.src]  # any box: only the key matters to ordering
        ends = [e.src, *chain, e.dst]
        work.edges += [Edge(a, b) for a, b in itertools.pairwise(ends)]
    _reorder(rows, work)
    parents: dict[str, list[str]] = {k: [] for k in work.boxes}
    for e in work.edges:
        parents[e.dst].append(e.src)
    placed: dict[str, Placed] = {}
    y = float(MARGIN)
    for row in rows:
        height = max(sizes[k][1] for k in row)
        x = 0.0
        for k in row:  # first packed left to right, then pulled under their parents
            placed[k] = Placed(x, y, *sizes[k])
            x += sizes[k][0] + GAP_X
        _pull_under_parents(row, placed, parents)
        for k in row:
            if k.startswith("~"):  # a waypoint spans its layer's height
                placed[k].h = height
        y += height + GAP_Y
    left = min((p.x for p in placed.values()), default=0.0)
    for p in placed.values():
        p.x += MARGIN - left
    width = max((p.x + p.w for p in placed.values()), default=0.0) + MARGIN
    boxes = {k: placed[k] for k in figure.boxes}
    routes = {n: [placed[k] for k in chain] for n, chain in waypoints.items()}
    return boxes, routes, width, y - GAP_Y + MARGIN


def _pull_under_parents(
    row: list[str], placed: dict[str, Placed], parents: dict[str, list[str]]
) -> None:
    """Move each box towards the mean centre of its parents, keeping order and gaps."""
    want = []
    for k in row:
        ps = [placed[p].cx for p in parents[k] if p in placed]
        want.append(sum(ps) / len(ps) - placed[k].w / 2 if ps else placed[k].x)
    lo = list(want)  # push right so boxes do not overlap
    for i in range(1, len(row)):
        lo[i] = max(lo[i], lo[i - 1] + placed[row[i - 1]].w + GAP_X)
    hi = list(want)  # push left so boxes do not overlap
    for i in range(len(row) - 2, -1, -1):
        hi[i] = min(hi[i], hi[i + 1] - placed[row[i]].w - GAP_X)
    for i, k in enumerate(row):
        placed[k].x = (lo[i] + hi[i]) / 2
    for i in range(1, len(row)):  # the average of two valid packings can still overlap
        prev = placed[row[i - 1]]
        placed[row[i]].x = max(placed[row[i]].x, prev.x + prev.w + GAP_X)
