"""Pictures of autograd graphs, drawn from live tensors of torch or of ownership.

:func:`draw_graph` walks ``grad_fn`` and ``next_functions`` from the given outputs and returns a
:class:`GraphPicture`: an SVG written by this package (a pure-Python layered layout; no graphviz,
no font file, no network), which a notebook or a MyST-NB page shows inline. The picture shows

- each backward node by its ``grad_fn.name()`` (``torch::autograd::`` dropped);
- ``AccumulateGrad`` nodes and the leaf each one accumulates into;
- the tensors each node saved, with the version they were saved at; one modified in place since
  then is drawn in red with its current version (backward through that node would raise);
- the outputs the walk started from, and each tensor passed in ``cuts`` (made by ``detach()``)
  joined to the tensor it shares memory with by a dashed red edge labelled "detach (cut)".

This package never imports torch: tensors of both engines are read by duck typing. In a page
(the last expression of a cell is shown inline)::

    y = x**3
    u = y.detach()
    z = x * u
    draw_graph(z.sum(), names={"x": x, "y": y, "u": u, "z": z}, cuts=[u], title="detach")

``names`` may be ``dict(model.named_parameters())``. A picture is a snapshot: draw it after the
in-place write you want to show, before ``backward`` frees the saved tensors.

Two more pictures: :func:`draw_counters` draws the storages under some tensors and which of them
share a version counter (``ownership.pictures.counters``); :func:`draw_curves` draws training
curves, one panel per measured quantity (``ownership.pictures.curves``).

To watch the state change instead, ``ownership.pictures.stepper.step_through(source, engines)``
runs a short program one line at a time under each engine given (they must agree) and returns a
stepper, shown as HTML: after each line, every tensor over its storage with its version counter,
``.grad`` and what backward nodes saved of it (red once its version moved on), and the graph with
its detach cuts. The core pages of the guide show one each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ownership.pictures.counters import (
    CountersPicture,
    TensorMemory,
    counter_groups_,
    draw_counters,
    read_views,
)
from ownership.pictures.curves import CurvesPicture, draw_curves
from ownership.pictures.model import Box, Edge, Figure, Line
from ownership.pictures.svg import render
from ownership.pictures.walk import build_figure

__all__ = [
    "Box",
    "CountersPicture",
    "CurvesPicture",
    "Edge",
    "Figure",
    "GraphPicture",
    "Line",
    "TensorMemory",
    "counter_groups_",
    "draw_counters",
    "draw_curves",
    "draw_graph",
    "read_views",
]


class GraphPicture:
    """A drawn graph: ``svg`` text, shown inline by Jupyter and MyST-NB, savable to a file."""

    def __init__(self, figure: Figure) -> None:
        self.figure = figure
        self.svg: str = render(figure)

    @property
    def node_names(self) -> list[str]:
        """Titles of the backward nodes (``grad_fn`` names), in discovery order."""
        return [b.title for b in self.figure.boxes.values() if b.kind in ("node", "accumulate")]

    @property
    def cut_edges(self) -> list[Edge]:
        """The edges drawn as cut by a ``detach()``."""
        return [e for e in self.figure.edges if e.kind == "cut"]

    def lines(self) -> list[str]:
        """Every text line of every box, titles included (handy in doctests)."""
        out: list[str] = []
        for b in self.figure.boxes.values():
            out += [b.title, *(line.text for line in b.lines)]
        return out

    def save(self, path: str | Path) -> Path:
        """Write the SVG to ``path`` (UTF-8) and return the path."""
        p = Path(path)
        p.write_text(self.svg, encoding="utf-8")
        return p

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        return f'<div class="ownership-graph" style="overflow-x:auto">{self.svg}</div>'

    def __repr__(self) -> str:
        return f"GraphPicture(nodes={self.node_names!r})"


def draw_graph(
    *roots: Any,
    names: Mapping[str, Any] | None = None,
    cuts: Iterable[Any] | Mapping[str, Any] = (),
    title: str | None = None,
    scalars: bool = False,
) -> GraphPicture:
    """Draw the autograd graph behind ``roots`` (tensors of torch or of ownership).

    ``names`` maps labels to tensors (leaves, intermediate results, saved tensors); ``cuts`` lists
    tensors made by ``detach()`` (a mapping also names them), each drawn with a cut edge to the
    tensor of the graph it shares memory with. ``scalars=True`` also lists saved non-tensor values
    (exponents, dims, Python scalars). The picture is a snapshot: versions are read now.

    >>> import ownership.pictures as pictures
    >>> class Leaf:
    ...     shape, dtype, _version, requires_grad, grad_fn = (3,), "float32", 0, True, None
    ...     def detach(self) -> "Leaf":
    ...         return self
    ...     def is_inference(self) -> bool:
    ...         return False
    >>> class Acc:
    ...     variable, next_functions = Leaf(), ()
    ...     def name(self) -> str:
    ...         return "torch::autograd::AccumulateGrad"
    >>> class Sig:
    ...     next_functions = ((Acc(), 0),)
    ...     def name(self) -> str:
    ...         return "SigmoidBackward0"
    >>> class Out(Leaf):
    ...     grad_fn, requires_grad = Sig(), True
    >>> pic = pictures.draw_graph(Out())
    >>> pic.node_names
    ['SigmoidBackward0', 'AccumulateGrad']
    >>> pic.svg.startswith("<svg")
    True
    """
    figure = build_figure(roots, names=names, cuts=cuts, title=title, scalars=scalars)
    return GraphPicture(figure)
