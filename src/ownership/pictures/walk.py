"""Read a live autograd graph, of torch or of ownership, into a :class:`~.model.Figure`.

Only duck typing is used, so this module imports neither engine. It relies on the surface both
engines share: ``tensor.grad_fn``, ``node.name()``, ``node.next_functions`` (tuples of
``(node or None, input_nr)``), ``AccumulateGrad.variable``, and saved tensors exposed as
``node._saved_<name>`` attributes that raise ``RuntimeError`` when the tensor was modified in place
since it was saved ("... is at version 1; expected version 0 instead ...") or was freed by an
earlier backward. ``node._raw_saved_<name>.data``, when present, gives the saved tensor without the
version check, which is how a stale saved tensor is still recognised by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ownership.either_engine import is_either_tensor
from ownership.pictures.model import Box, Edge, Figure, Line

_STALE = re.compile(r"is at version (\d+); expected version (\d+) instead")
_FREED = "backward through the graph a second time"


def unqualified_name(node: Any) -> str:
    """The node's ``name()`` without the ``torch::autograd::`` namespace.

    >>> class N:
    ...     def name(self) -> str:
    ...         return "torch::autograd::AccumulateGrad"
    >>> unqualified_name(N())
    'AccumulateGrad'
    """
    return str(node.name()).rsplit("::", 1)[-1]


def shape_text(t: Any) -> str:
    """A tensor's shape as ``[3, 2]`` (``[]`` for a 0-d tensor)."""
    return "[" + ", ".join(str(int(n)) for n in tuple(t.shape)) + "]"


def storage_key(t: Any) -> object:
    """A key equal for tensors that share memory (a view, ``detach()``, ``.data``)."""
    try:
        return ("storage", int(t.untyped_storage().data_ptr()))
    except (AttributeError, RuntimeError, TypeError):
        pass
    try:  # the storage's address: the tensor's first element's address less its offset
        return ("storage", int(t.data_ptr()) - int(t.storage_offset()) * int(t.element_size()))
    except (AttributeError, RuntimeError, TypeError):
        pass
    base = t
    while getattr(base, "_base", None) is not None:
        base = base._base
    return ("object", id(base))


def layout_key(t: Any) -> object:
    """A key equal for tensors that see exactly the same elements of the same memory."""
    try:
        return (storage_key(t), tuple(t.shape), tuple(t.stride()), int(t.storage_offset()))
    except (AttributeError, RuntimeError, TypeError):
        return ("object", id(t))


def _raw_saved(node: Any, slot: str) -> Any:
    """The saved tensor in ``slot`` without the version check, or None where not exposed.

    torch: ``node._raw_saved_<slot>.data``; ownership: ``node._saved[slot].tensor``.
    """
    try:
        return getattr(node, "_raw_saved_" + slot).data
    except (AttributeError, RuntimeError):
        pass
    saved = getattr(node, "_saved", None)
    entry = saved.get(slot) if isinstance(saved, dict) else None
    return getattr(entry, "tensor", None)


SavedState = Literal["ok", "stale", "freed", "unreadable"]


@dataclass(frozen=True)
class Saved:
    """What a backward node saved in one slot, read the way ``backward`` would unpack it.

    ``value`` is the saved object (a tensor, or a Python number), or the raw saved tensor when
    unpacking raises (None where the engine does not expose it). ``saved_version`` is the version
    written down at save time and ``version`` the tensor's version now: equal when ``state`` is
    ``"ok"``, read from the engine's own error message when ``"stale"``.
    """

    slot: str
    value: Any
    state: SavedState
    saved_version: int | None = None
    version: int | None = None


def read_saved(node: Any, slot: str) -> Saved:
    """Unpack ``node._saved_<slot>`` as ``backward`` would, and say what was found."""
    try:
        value = getattr(node, "_saved_" + slot)
    except RuntimeError as err:
        raw = _raw_saved(node, slot)
        message = str(err)
        stale = _STALE.search(message)
        if stale is not None:
            return Saved(slot, raw, "stale", int(stale.group(2)), int(stale.group(1)))
        return Saved(slot, raw, "freed" if _FREED in message else "unreadable")
    if is_either_tensor(value):
        return Saved(slot, value, "ok", int(value._version), int(value._version))
    return Saved(slot, value, "ok")


def saved_slots(node: Any) -> list[str]:
    """The names of the slots ``node`` saved something in, sorted."""
    return sorted(a[len("_saved_") :] for a in dir(node) if a.startswith("_saved_"))


class GraphWalk:
    """The walk of one picture: the :class:`Figure` built, and every saved slot read on the way.

    ``saved`` lists ``(node title, Saved)`` for each slot of each node reached, in walk order.
    """

    def __init__(self, names: Mapping[str, Any], title: str | None, scalars: bool) -> None:
        self.figure = Figure(title=title)
        self.names = {n: t for n, t in names.items() if is_either_tensor(t)}
        named = list(reversed(self.names.items()))  # the first name given wins
        self.by_id = {id(t): n for n, t in named}
        self.by_layout = {layout_key(t): n for n, t in named}
        self.by_storage = {storage_key(t): n for n, t in named if int(t.numel()) > 0}
        self.scalars = scalars
        self.keep: list[Any] = []  # keeps every visited object alive, so ids stay unique
        self.known: list[Any] = list(self.names.values())  # tensors a cut may come from
        self.consumers: list[tuple[str, Any]] = []  # (node box key, saved tensor)
        self.saved: list[tuple[str, Saved]] = []

    def name_of(self, t: Any) -> str | None:
        name = self.by_id.get(id(t))
        return name if name is not None else self.by_layout.get(layout_key(t))

    def label_of(self, t: Any) -> str:
        name = self.name_of(t)
        if name is not None:
            return name
        owner = self.by_storage.get(storage_key(t))
        if owner is not None:
            return f"view of {owner}"
        if tuple(t.shape) == () and not bool(getattr(t, "requires_grad", False)):
            return f"{float(t.item()):g}"
        return "tensor" + shape_text(t)

    def tensor_box(self, t: Any, kind: str, title: str) -> Box:
        self.keep.append(t)
        lines = [Line(f"{shape_text(t)} · version {int(t._version)}", "muted")]
        if kind == "leaf":
            lines.append(Line("leaf, requires_grad" if t.requires_grad else "leaf", "muted"))
        box = Box(f"t{id(t)}", "leaf", title, lines)
        return self.figure.add(box)

    def root(self, t: Any) -> None:
        self.known.append(t)
        name = self.name_of(t) or "output"
        node = getattr(t, "grad_fn", None)
        if node is None:
            self.tensor_box(t, "leaf", name).kind = "root"
            return
        box = self.figure.add(Box(f"t{id(t)}", "root", name))
        box.lines = [
            Line(f"{shape_text(t)} · version {int(t._version)}", "muted"),
            Line(f"grad_fn={unqualified_name(node)}", "muted"),
        ]
        self.keep.append(t)
        self.figure.connect(Edge(box.key, self.node(node)))

    def node(self, start: Any) -> str:
        """Add ``start`` and every node it reaches; return ``start``'s box key."""
        stack = [start]
        while stack:
            node = stack.pop()
            key = f"n{id(node)}"
            if key in self.figure.boxes:
                continue
            self.keep.append(node)
            variable = getattr(node, "variable", None)
            if variable is not None and is_either_tensor(variable):
                self.figure.add(Box(key, "accumulate", unqualified_name(node)))
                self.known.append(variable)
                leaf = self.tensor_box(variable, "leaf", self.name_of(variable) or "leaf")
                self.figure.connect(Edge(key, leaf.key, "grad", ".grad +="))
                continue
            box = self.figure.add(Box(key, "node", unqualified_name(node)))
            box.lines = self.saved_lines(key, node)
            for nxt, _ in tuple(getattr(node, "next_functions", ())):
                if nxt is not None:
                    self.figure.connect(Edge(key, f"n{id(nxt)}"))
                    stack.append(nxt)
        return f"n{id(start)}"

    def saved_lines(self, key: str, node: Any) -> list[Line]:
        lines: list[Line] = []
        for slot in saved_slots(node):
            saved = read_saved(node, slot)
            self.saved.append((unqualified_name(node), saved))
            if saved.state != "ok":
                lines.append(self.unreadable(key, saved))
                continue
            value = saved.value
            if is_either_tensor(value) and self.scalar_like(value):
                value = value.item()  # a wrapped Python number: torch saves it as a 0-d tensor
            if is_either_tensor(value):
                self.known.append(value)
                self.consumers.append((key, value))
                text = f"saved {slot} = {self.label_of(value)} @ v{saved.version}"
                lines.append(Line(text, "ok"))
            elif self.scalars and isinstance(value, bool | int | float):
                text = f"{value:g}" if isinstance(value, float) else repr(value)
                lines.append(Line(f"saved {slot} = {text}", "muted"))
        return lines

    def scalar_like(self, t: Any) -> bool:
        """A 0-d tensor that is no tensor of the program: not named, not tracked, not shared."""
        return (
            tuple(t.shape) == ()
            and not bool(getattr(t, "requires_grad", False))
            and self.name_of(t) is None
            and storage_key(t) not in self.by_storage
        )

    def unreadable(self, key: str, saved: Saved) -> Line:
        raw, slot = saved.value, saved.slot
        label = ""
        if raw is not None and is_either_tensor(raw):
            self.known.append(raw)
            self.consumers.append((key, raw))
            label = f" = {self.label_of(raw)}"
        if saved.state == "stale":
            text = f"saved {slot}{label} @ v{saved.saved_version}, now v{saved.version} ✗"
            return Line(text, "stale")
        if saved.state == "freed":
            return Line(f"saved {slot}: freed by backward", "freed")
        return Line(f"saved {slot}: unreadable", "freed")

    def cut(self, c: Any) -> None:
        """Draw ``c`` (a detached tensor) and a cut edge to what it was detached from."""
        self.keep.append(c)
        name = self.name_of(c) or "detached"
        box = self.figure.boxes.get(f"t{id(c)}")
        if box is None:
            box = self.tensor_box(c, "leaf", name)
            box.lines = [Line(f"{shape_text(c)} · version {int(c._version)}", "muted")]
        box.kind = "cut"
        box.lines.append(Line("requires_grad=False", "muted"))
        for consumer, saved in self.consumers:
            if saved is c or (layout_key(saved) == layout_key(c) and not saved.requires_grad):
                self.figure.connect(Edge(consumer, box.key, "leaf"))
        source = self.source_of(c)
        if source is None:
            box.lines.append(Line("detached from a tensor not drawn", "muted"))
            return
        if getattr(source, "grad_fn", None) is not None:
            target = self.node(source.grad_fn)
            if self.name_of(source) is not None:
                self.figure.boxes[target].lines.insert(0, Line(f"= {self.name_of(source)}"))
        else:
            target = self.tensor_box(source, "leaf", self.name_of(source) or "leaf").key
        self.figure.connect(Edge(box.key, target, "cut", "detach (cut)"))

    def source_of(self, c: Any) -> Any:
        key = storage_key(c)
        if int(c.numel()) == 0:
            return None
        for t in self.known:
            tracked = getattr(t, "grad_fn", None) is not None or bool(t.requires_grad)
            if t is not c and tracked and storage_key(t) == key:
                return t
        return None

    def label_outputs(self) -> None:
        """Write ``= name`` in the node that produced each named non-leaf tensor."""
        for name, t in self.names.items():
            node = getattr(t, "grad_fn", None) if is_either_tensor(t) else None
            box = self.figure.boxes.get(f"n{id(node)}") if node is not None else None
            if f"t{id(t)}" in self.figure.boxes:  # a root: its own box shows the name
                continue
            if box is not None and box.kind == "node" and Line(f"= {name}") not in box.lines:
                box.lines.insert(0, Line(f"= {name}"))


def walk(
    roots: Iterable[Any],
    names: Mapping[str, Any] | None = None,
    cuts: Iterable[Any] | Mapping[str, Any] = (),
    title: str | None = None,
    scalars: bool = False,
) -> GraphWalk:
    """Walk the graphs of ``roots``: the :class:`GraphWalk` with the figure and the saved slots.

    ``names`` labels tensors (leaves, saved tensors, outputs); ``cuts`` are tensors made by
    ``detach()``: each is drawn with a cut edge to the graph tensor it shares memory with (found
    among ``roots``, ``names``, leaves and saved tensors). A mapping for ``cuts`` also names them.
    ``scalars`` also lists saved non-tensor values (exponents, dims, Python scalars).
    """
    all_names = dict(names or {})
    cut_list = list(cuts.values()) if isinstance(cuts, Mapping) else list(cuts)
    if isinstance(cuts, Mapping):
        all_names.update(cuts)
    walker = GraphWalk(all_names, title, scalars)
    for t in roots:
        if not is_either_tensor(t):
            raise TypeError(f"draw_graph expects tensors, got {type(t).__name__}")
        walker.root(t)
    for c in cut_list:
        walker.cut(c)
    walker.label_outputs()
    return walker


def build_figure(
    roots: Iterable[Any],
    names: Mapping[str, Any] | None = None,
    cuts: Iterable[Any] | Mapping[str, Any] = (),
    title: str | None = None,
    scalars: bool = False,
) -> Figure:
    """Walk the graphs of ``roots`` and return what to draw (see :func:`walk`)."""
    return walk(roots, names=names, cuts=cuts, title=title, scalars=scalars).figure
