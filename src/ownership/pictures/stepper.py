"""Step through a program line by line and draw the engine's state after each line.

:func:`step_through` runs a short program one top-level statement at a time, once per engine
(``torch`` and ``ownership``, passed in by the caller: this module never imports torch), and after
each statement reads the real state of the namespace: the tensors over their storage with their
version counters, ``.grad`` and what backward nodes saved of them (``ownership.pictures.memory``),
and the autograd graph from every ``grad_fn`` with the ``detach`` cuts
(``ownership.pictures.walk``). The engines must agree on every frame (values by the rule of
:mod:`ownership.tolerance`, everything else exactly, an exception by class and message), or
:class:`AssertionError` is raised, so a page whose picture stopped being true fails to build.

The result, a :class:`Stepper`, shows as HTML in a notebook or a MyST-NB page: the program on the
left, the frames on the right as inline SVG, buttons and the ←/→ keys to step (the site's
``stepper.js``), each frame announced to screen readers, and a pause before the line that matters
that hides the next frame until the learner asks for it.
"""

from __future__ import annotations

import ast
import contextlib
import io
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ownership.compare import Raised, differences, facts
from ownership.either_engine import is_either_tensor
from ownership.pictures.memory import StorageState, TensorState, draw_memory, read_memory
from ownership.pictures.model import Figure
from ownership.pictures.stepper_html import stepper_html
from ownership.pictures.svg import render
from ownership.pictures.walk import storage_key, walk

__all__ = ["Frame", "Stepper", "named_tensors", "step_through"]


def named_tensors(namespace: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """Every tensor a program can name, as ``(name, role, tensor)``, in order of definition.

    A tensor bound to a name; a module's parameters and buffers (``net.weight``, role
    ``parameter`` or ``buffer``); the tensors in a dict (a ``state_dict``: ``sd["weight"]``), a
    list or a tuple. Names that start with ``_`` are left out.
    """
    out: list[tuple[str, str, Any]] = []
    for name, value in namespace.items():
        if name.startswith("_") or isinstance(value, type):
            continue
        if is_either_tensor(value):
            out.append((name, "", value))
        elif hasattr(value, "named_parameters") and hasattr(value, "named_buffers"):
            out += [(f"{name}.{n}", "parameter", t) for n, t in value.named_parameters()]
            out += [(f"{name}.{n}", "buffer", t) for n, t in value.named_buffers()]
        elif isinstance(value, Mapping):
            out += [(f"{name}[{k!r}]", "", t) for k, t in value.items() if is_either_tensor(t)]
        elif isinstance(value, list | tuple):
            out += [(f"{name}[{i}]", "", t) for i, t in enumerate(value) if is_either_tensor(t)]
    return out


@dataclass
class Frame:
    """The state after ``first``..``last`` (source lines, 1-based) ran; frame 0 is before any."""

    index: int
    first: int
    last: int
    memory: list[StorageState]
    graph: Figure | None
    raised: Raised | None
    printed: str
    values: dict[str, Any]  # facts of every named tensor and .grad, for the engines' agreement

    def lines(self) -> list[str]:
        """Every fact the frame draws, one per line (values included)."""
        out = [line for s in self.memory for line in s.lines()]
        if self.graph is not None:
            for box in self.graph.boxes.values():
                out += [f"graph {box.kind} {box.title}", *(f"  {x.text}" for x in box.lines)]
            out += [f"edge {e.kind} {e.label}".rstrip() for e in self.graph.edges]
        if self.printed:
            out.append(f"printed {self.printed!r}")
        if self.raised is not None:
            out.append(f"raised {self.raised.kind}: {self.raised.message}")
        return out

    def structure(self) -> list[str]:
        """:meth:`lines` without the values of storages and ``.grad`` (compared separately)."""
        return [
            line
            for line in self.lines()
            if not line.startswith("storage ") and not line.lstrip().startswith(".grad = ")
        ]

    def tensors(self) -> dict[str, TensorState]:
        """Every named tensor's state, by name."""
        return {t.name: t for s in self.memory for t in s.tensors}


def _statements(source: str) -> list[ast.stmt]:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            raise ValueError("a stepped program imports nothing: `torch` and `nn` are bound for it")
    if not tree.body:
        raise ValueError("the program is empty")
    return tree.body


def _graph(named: list[tuple[str, str, Any]]) -> tuple[Figure | None, list[Any]]:
    """The graph of every named tensor with a ``grad_fn`` and the cut of every detached alias,
    and what its nodes saved (``(node title, Saved)`` pairs)."""
    names: dict[str, Any] = {}
    for name, _, t in named:
        names.setdefault(name, t)
    tracked = [t for _, _, t in named if t.grad_fn is not None]
    graph_memory = {storage_key(t) for _, _, t in named if t.grad_fn is not None or t.requires_grad}
    cuts = {
        n: t
        for n, _, t in named
        if t.grad_fn is None and not t.requires_grad and storage_key(t) in graph_memory
    }
    if not tracked and not cuts:
        return None, []
    first = walk(tracked, names=names)  # which tracked tensors no other one leads to
    inner = {e.dst for e in first.figure.edges if first.figure.boxes[e.src].kind == "node"}
    roots = [t for t in tracked if f"n{id(t.grad_fn)}" not in inner]
    graph = walk(roots, names=names, cuts=cuts)
    return graph.figure, graph.saved


def _snapshot(index: int, stmt: ast.stmt | None, namespace: dict[str, Any]) -> Frame:
    named = named_tensors(namespace)
    figure, saved = _graph(named)
    values: dict[str, Any] = {}
    for name, _, t in named:
        values[name] = facts(t)
        grad = t.grad if t.is_leaf else None
        if grad is not None:
            values[name + ".grad"] = facts(grad)
    first = stmt.lineno if stmt is not None else 0
    last = (stmt.end_lineno or first) if stmt is not None else 0
    return Frame(index, first, last, read_memory(named, saved), figure, None, "", values)


def run_frames(source: str, engine: Any) -> list[Frame]:
    """Run ``source`` under ``engine`` (bound as ``torch``, its ``nn`` as ``nn``, seeded with
    ``manual_seed(0)``; the engine's random state is given back afterwards), one frame per
    top-level statement after a frame of the empty start. Only the last statement may raise."""
    statements = _statements(source)
    namespace: dict[str, Any] = {"torch": engine, "nn": engine.nn, "__name__": "__stepper__"}
    state = engine.get_rng_state()
    engine.manual_seed(0)  # the engines draw the same random numbers from the same seed
    try:
        frames = [_snapshot(0, None, namespace)]
        for i, stmt in enumerate(statements, start=1):
            frames.append(_step(i, stmt, namespace))
            if frames[-1].raised is not None and i != len(statements):
                raise ValueError(f"line {stmt.lineno} raised before the end: {frames[-1].raised}")
    finally:
        engine.set_rng_state(state)
    return frames


def _step(index: int, stmt: ast.stmt, namespace: dict[str, Any]) -> Frame:
    """Run one statement; its frame, with what it printed and what it raised."""
    printed = io.StringIO()
    raised = None
    with warnings.catch_warnings(), contextlib.redirect_stdout(printed):
        warnings.simplefilter("ignore")
        try:
            exec(compile(ast.Module([stmt], []), "<stepper>", "exec"), namespace)
        except Exception as exc:  # the exception is what the frame shows
            raised = Raised(type(exc).__name__, str(exc))
    frame = _snapshot(index, stmt, namespace)
    frame.raised, frame.printed = raised, printed.getvalue()
    return frame


def _agree(runs: Mapping[str, list[Frame]]) -> None:
    (base_name, base), *others = runs.items()
    problems: list[str] = []
    for name, frames in others:
        for a, b in zip(base, frames, strict=True):
            where = f"after line {a.last}" if a.index else "at the start"
            sa, sb = a.structure(), b.structure()
            if sa != sb:
                diff = [
                    f"  {base_name}: {x}\n  {name}: {y}"
                    for x, y in zip(sa, sb, strict=False)
                    if x != y
                ]
                problems.append(f"{where}: the pictures differ\n" + "\n".join(diff[:3] or [""]))
            problems += [
                f"{where}: {d}"
                for d in differences(a.values, b.values, (base_name, name), path="tensor")
            ]
    if problems:
        raise AssertionError("the engines disagree:\n" + "\n".join(problems))


def step_through(
    source: str,
    engines: Mapping[str, Any],
    *,
    pause: int | None = None,
    question: str = "",
    title: str = "the program",
) -> Stepper:
    """Run ``source`` under each engine and return its frames (the first engine's, once all agree).

    ``engines`` maps a name to an engine module (``{"torch": torch, "ownership": ownership}``);
    ``source`` uses ``torch`` and ``nn`` without importing them. ``pause`` is the number of the
    statement (1-based) whose result the learner predicts first: stepping onto it shows
    ``question`` and a button, and its frame stays hidden until the button is pressed.
    """
    runs = {name: run_frames(source, engine) for name, engine in engines.items()}
    _agree(runs)
    frames = next(iter(runs.values()))
    if pause is not None and not 1 <= pause < len(frames):
        raise ValueError(f"pause must name a statement, 1 to {len(frames) - 1}")
    return Stepper(source, frames, pause, question, title)


class Stepper:
    """A program and its frames; ``_repr_html_`` is the stepper a page shows."""

    def __init__(
        self, source: str, frames: list[Frame], pause: int | None, question: str, title: str
    ) -> None:
        self.source = source
        self.frames = frames
        self.pause = pause
        self.question = question
        self.title = title

    def code_of(self, frame: Frame) -> str:
        """The source lines of the statement that made ``frame``, on one line."""
        lines = self.source.splitlines()[frame.first - 1 : frame.last]
        return " ".join(line.strip() for line in lines)

    def status(self, frame: Frame) -> str:
        """What a screen reader hears on reaching ``frame``: the line, then what changed."""
        n = len(self.frames) - 1
        if frame.index == 0:
            return f"Step 0 of {n}: before the first line."
        before = self.frames[frame.index - 1]
        lines = f"line {frame.first}" + (f"–{frame.last}" if frame.last > frame.first else "")
        return (
            f"Step {frame.index} of {n}, {lines}: {self.code_of(frame)}. {_describe(before, frame)}"
        )

    def svgs(self, frame: Frame) -> tuple[str, str | None]:
        """The frame's memory picture and graph picture (None without a graph)."""
        label = f"{self.title}, step {frame.index}"
        memory = draw_memory(frame.memory, f"tensors and storage, {label}")
        graph = None
        if frame.graph is not None:
            frame.graph.title = None
            graph = render(frame.graph).replace(
                'aria-label="autograd graph"', f'aria-label="autograd graph, {label}"'
            )
        return memory, graph

    def _repr_html_(self) -> str:
        return stepper_html(self)

    def __repr__(self) -> str:
        return f"Stepper({len(self.frames) - 1} steps, pause={self.pause})"


def _describe(before: Frame | None, frame: Frame) -> str:
    """The changes from ``before`` to ``frame``, in words (all of ``frame`` when it is first)."""
    old = before.tensors() if before is not None else {}
    said: list[str] = []
    for name, t in frame.tensors().items():
        was = old.get(name)
        if was is None:
            said.append(f"new: {name}, version {t.version}")
            continue
        if t.version != was.version:
            said.append(f"{name}: version {was.version} → {t.version}")
        if t.grad != was.grad:
            said.append(f"{name}.grad = {t.grad}")
        if t.grad_fn != was.grad_fn:
            said.append(f"{name}: grad_fn {t.grad_fn}")
        said += [f"{name}: {m.text()}" for m in t.saved if m.stale and m not in was.saved]
    if frame.raised is not None:
        said.append(f"raised {frame.raised.kind}")
    return ("; ".join(said) or "nothing drawn changed") + "."
