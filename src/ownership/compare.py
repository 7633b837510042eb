"""Run one program under several engines, side by side, and insist that they agree.

A *program* is a function of one argument, an engine (the ``torch`` module, the ``ownership``
module, or anything with the same names), that returns anything made of tensors, numbers, strings,
``None``, dtypes, ``grad_fn`` nodes, tuples, lists and dicts. :func:`side_by_side` runs it once per
engine and reduces each result to plain comparable *facts* (:func:`facts`):

- a tensor: its values (a numpy copy), dtype name, shape, ``requires_grad``, ``is_leaf``,
  ``grad_fn`` name, ``_version`` and whether it is a ``Parameter`` (:class:`TensorFacts`);
- a raised exception: its class name and exact message (:class:`Raised`);
- a warning emitted while the program ran: its category, its message and where it points, a
  line of the program's own file or the library (kept in :class:`Run`);
- tuples, lists, dicts: the same container of facts; Python scalars, strings, ``None``: themselves.

Two runs agree when every fact is equal, except that floating-point values agree by the rule of
:mod:`ownership.tolerance` (from their dtype, the magnitude of the whole tensor and the
computation), so that the verdict does not depend on which SIMD kernels a CPU offers.
If any two engines disagree, :func:`side_by_side` raises ``AssertionError`` listing every
difference (so a page that stopped being true fails to build); otherwise it returns a
:class:`SideBySide`, shown as a two-column table (HTML in a notebook, text elsewhere). The test
suite's ``same`` uses the same rules: :func:`run` per engine, then :func:`insist_agree`.

This module never imports torch: the caller passes the engines.

>>> import ownership
>>> from ownership.compare import side_by_side
>>> def program(engine):
...     x = engine.tensor([0.0, 1.0], requires_grad=True)
...     h = x.sigmoid()
...     h.mul_(2)
...     return h
>>> print(side_by_side(program, engines={"a": ownership, "b": ownership}))
a                                                            | b
------------------------------------------------------------ | ---...
tensor([1.0000, 1.4621], grad_fn=<MulBackward0>)  _version=1 | tensor([1.0000, 1.4621], grad_fn=<MulBackward0>)  _version=1
>>> side_by_side(lambda e: e.tensor([1.0]).add_(1)._version, a=ownership, b=ownership)["a"]
1
"""

from __future__ import annotations

import html
import re
import textwrap
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.either_engine import is_either_tensor
from ownership.printing import tensor_repr
from ownership.tolerance import DEFAULT, Tolerance

__all__ = [
    "Named",
    "Program",
    "Raised",
    "Run",
    "SideBySide",
    "TensorFacts",
    "Tolerance",
    "differences",
    "facts",
    "insist_agree",
    "run",
    "side_by_side",
]

Program = Callable[[Any], Any]
"""A function of one engine module (``torch`` or ``ownership``) returning what to compare."""

_DEFAULT_DTYPES = ("float32", "int64", "bool")
# torch appends where in its C++ source a warning was raised; that is no fact of the program.
_INTERNAL = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")
_TENSOR_FIELDS = (
    "dtype",
    "shape",
    "requires_grad",
    "is_leaf",
    "grad_fn",
    "version",
    "is_parameter",
)
_WIDTH = 60  # a text column wraps here
_PRE_STYLE = "margin:0;padding:0.4em;white-space:pre-wrap;overflow-wrap:break-word;font-size:0.8em"


@dataclass(frozen=True)
class Raised:
    """What a program raised: the exception's class name and its exact message."""

    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


@dataclass(frozen=True, eq=False)
class TensorFacts:
    """Everything about a tensor that two engines must agree on."""

    values: NDArray[Any]
    dtype: str
    shape: tuple[int, ...]
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    version: int | None  # None: an inference tensor, which has no version counter
    is_parameter: bool = False

    def __str__(self) -> str:
        floating = self.values.dtype.kind in "fc"
        dtype = None if self.dtype in _DEFAULT_DTYPES else f"dtype=torch.{self.dtype}"
        grad = (
            f"grad_fn=<{self.grad_fn}>"
            if self.grad_fn
            else ("requires_grad=True" if self.requires_grad else None)
        )
        text = tensor_repr(self.values, floating, dtype, grad)
        if self.is_parameter:
            text = "Parameter containing:\n" + text
        extra = "no version counter" if self.version is None else f"_version={self.version}"
        if self.is_leaf != (self.grad_fn is None):
            extra += f", is_leaf={self.is_leaf}"
        joined = f"{text}  {extra}"
        return joined if "\n" not in text and len(joined) <= _WIDTH else f"{text}\n{extra}"


@dataclass(frozen=True)
class Named:
    """A dtype or a ``grad_fn`` node, kept by name: prints as ``torch.float32`` or
    ``<MulBackward0>``."""

    text: str

    def __repr__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Run:
    """One engine's run of a program: the facts of its result (or :class:`Raised`), the object
    it returned (``None`` if it raised) and the warnings it emitted (``"Category: message"``)."""

    facts: Any
    returned: Any = None
    warnings: tuple[str, ...] = field(default=())


def _is_node(obj: Any) -> bool:
    return callable(getattr(obj, "name", None)) and hasattr(obj, "next_functions")


def _dtype_name(dtype: Any) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def facts(obj: Any) -> Any:
    """Plain comparable data for ``obj`` (see the module docstring for the rules).

    >>> facts({"n": (1, 2.5, None), "s": "text"})
    {'n': (1, 2.5, None), 's': 'text'}
    """
    if is_either_tensor(obj):
        values = np.array(obj.detach().numpy(), copy=True)
        return TensorFacts(
            values=values,
            dtype=_dtype_name(obj.dtype),
            shape=tuple(int(n) for n in obj.shape),
            requires_grad=bool(obj.requires_grad),
            is_leaf=bool(obj.is_leaf),
            grad_fn=None if obj.grad_fn is None else str(obj.grad_fn.name()),
            version=None if obj.is_inference() else int(obj._version),
            is_parameter=type(obj).__name__ == "Parameter",
        )
    if isinstance(obj, tuple):  # torch.Size and named tuples included
        return tuple(facts(o) for o in obj)
    if isinstance(obj, list):
        return [facts(o) for o in obj]
    if isinstance(obj, dict):
        return {k: facts(v) for k, v in obj.items()}
    if _is_node(obj):
        return Named(f"<{obj.name()}>")
    if isinstance(obj, np.ndarray):
        return np.array(obj, copy=True)
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        return obj
    if type(obj).__name__ == "dtype":
        return Named(f"torch.{_dtype_name(obj)}")
    return repr(obj)  # another engine object (a device, a Size-like ...): compare its repr


def run(program: Program, engine: Any) -> Run:
    """Run ``program(engine)``; an exception becomes a :class:`Raised` result, warnings are kept.

    >>> run(lambda e: 1 / 0, None).facts
    Raised(kind='ZeroDivisionError', message='division by zero')
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            returned = program(engine)
            result = Run(facts(returned), returned)
        except Exception as exc:  # the exception is the result being compared
            result = Run(Raised(type(exc).__name__, str(exc)))
    code = getattr(program, "__code__", None)
    home = None if code is None else code.co_filename
    seen = tuple(
        dict.fromkeys(
            f"{w.category.__name__}: {_INTERNAL.sub('', str(w.message))}{_where(w, home)}"
            for w in caught
        )
    )
    return Run(result.facts, result.returned, seen)


def _where(caught: warnings.WarningMessage, home: str | None) -> str:
    """Where a warning points, as a learner sees it: a line of the program's own file (torch's
    C++ warnings name the user's line), or `` (in the library)`` for any other file (a warning
    torch gives from its Python code names torch's file; the engine's, its own)."""
    if home is not None and caught.filename == home:
        return f" (at line {caught.lineno})"
    return " (in the library)"


def _messages_differ(a: Raised, b: Raised, message: str | None) -> bool:
    if message == "equal":
        return a.message != b.message
    if message is None:
        return False
    return not (re.search(message, a.message) and re.search(message, b.message))


def differences(
    a: Any,
    b: Any,
    names: tuple[str, str] = ("torch", "ownership"),
    *,
    tolerance: Tolerance = DEFAULT,
    message: str | None = "equal",
    path: str = "result",
) -> list[str]:
    """Every way two facts (from :func:`facts`) disagree, one line each; empty when they agree.

    Floating-point values (``a`` is the expected side) agree by ``tolerance``'s rule (see
    :mod:`ownership.tolerance`: from their dtype, the whole tensor's magnitude and the
    computation); integers exactly. ``message`` says how exception messages are compared:
    ``"equal"``, a regular expression both must match, or ``None`` (class only).

    >>> differences(facts([1, 2.0]), facts([1, 2.5]), ("a", "b"))
    ['result[1]: a 2.0 != b 2.5']
    """
    n1, n2 = names
    if isinstance(a, TensorFacts) and isinstance(b, TensorFacts):
        out = [
            f"{path}.{f}: {n1} {getattr(a, f)!r} != {n2} {getattr(b, f)!r}"
            for f in _TENSOR_FIELDS
            if getattr(a, f) != getattr(b, f)
        ]
        if a.shape == b.shape and not tolerance.allows(a.values, b.values):
            out.append(f"{path}.values:\n  {n1}: {a.values!r}\n  {n2}: {b.values!r}")
        return out
    if isinstance(a, Raised) and isinstance(b, Raised):
        if a.kind != b.kind or _messages_differ(a, b, message):
            return [f"{path}: {n1} raised {a}\n  {n2} raised {b}"]
        return []
    if type(a) is not type(b):
        return [f"{path}: {n1} {_short(a)} != {n2} {_short(b)}"]
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: {n1} has {len(a)} items, {n2} has {len(b)}"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in differences(
                x, y, names, tolerance=tolerance, message=message, path=f"{path}[{i}]"
            )
        ]
    if isinstance(a, dict):
        if list(a) != list(b):
            return [f"{path}: keys {n1} {list(a)} != {n2} {list(b)}"]
        return [
            d
            for k in a
            for d in differences(
                a[k], b[k], names, tolerance=tolerance, message=message, path=f"{path}[{k!r}]"
            )
        ]
    if isinstance(a, np.ndarray):
        same = a.shape == b.shape and tolerance.allows(a, b)
        return [] if same else [f"{path}: {n1} {a!r} != {n2} {b!r}"]
    if isinstance(a, float):
        same = tolerance.allows(a, b)
        return [] if same else [f"{path}: {n1} {a!r} != {n2} {b!r}"]
    return [] if a == b else [f"{path}: {n1} {a!r} != {n2} {b!r}"]


def _short(obj: Any) -> str:
    if isinstance(obj, (Raised, TensorFacts)):
        return f"raised {obj}" if isinstance(obj, Raised) else "a tensor"
    return f"{type(obj).__name__} {obj!r}"


def render(obj: Any) -> str:
    """The text shown for one engine's facts: tensors like torch's ``repr`` plus ``_version``,
    errors as ``"RuntimeError: ..."``, strings without quotes, dicts one item per line, floats
    to 6 significant digits.

    >>> print(render({"before": 0, "after": (1, "ok", 0.1 + 0.2)}))
    before: 0
    after: (1, 'ok', 0.3)
    """
    if isinstance(obj, (TensorFacts, Raised, str)):
        return str(obj)
    if isinstance(obj, dict):
        return "\n".join(_labelled(f"{k}: ", render(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)) and any(isinstance(o, TensorFacts) for o in obj):
        return "\n".join(_labelled(f"[{i}] ", render(v)) for i, v in enumerate(obj))
    return _plain(obj)


def _plain(obj: Any) -> str:
    """``repr`` of plain data, with floats cut to 6 significant digits (they agree within the
    tolerance)."""
    if isinstance(obj, float):
        return f"{obj:.6g}"
    if isinstance(obj, np.ndarray):
        return np.array2string(obj, separator=", ", precision=6)
    if isinstance(obj, list):
        return "[" + ", ".join(_plain(o) for o in obj) + "]"
    if isinstance(obj, tuple):
        inner = ", ".join(_plain(o) for o in obj)
        return f"({inner},)" if len(obj) == 1 else f"({inner})"
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{k!r}: {_plain(v)}" for k, v in obj.items()) + "}"
    return repr(obj)


def _labelled(label: str, text: str) -> str:
    pad = "\n" + " " * len(label)
    return label + pad.join(text.splitlines())


def _wrapped(text: str) -> list[str]:
    """The lines of ``text``, each cut into pieces of at most ``_WIDTH`` characters."""
    out: list[str] = []
    for line in text.splitlines() or [""]:
        indent = len(line) - len(line.lstrip(" "))
        pieces = textwrap.wrap(line, _WIDTH, subsequent_indent=" " * (indent + 2))
        out += pieces or [line]
    return out


class SideBySide:
    """The agreeing runs of one program: ``result[name]`` is an engine's facts, ``runs[name]``
    its :class:`Run` (with the object it ``returned``); printed as two columns."""

    def __init__(self, runs: Mapping[str, Run]) -> None:
        self.runs: dict[str, Run] = dict(runs)

    def __getitem__(self, name: str) -> Any:
        return self.runs[name].facts

    @property
    def names(self) -> list[str]:
        """The engines' names, in the order they ran."""
        return list(self.runs)

    @property
    def first(self) -> Any:
        """The first engine's facts (all engines agree on them)."""
        return next(iter(self.runs.values())).facts

    def returned(self, name: str) -> Any:
        """What ``program(engine)`` returned for the engine called ``name``."""
        return self.runs[name].returned

    def _cells(self, name: str) -> str:
        run_ = self.runs[name]
        text = render(run_.facts)
        return text + "".join(f"\n{w}" for w in run_.warnings)

    def __str__(self) -> str:
        columns = [[n, *_wrapped(self._cells(n))] for n in self.names]
        width = max(len(line) for col in columns[:-1] for line in col)
        height = max(len(c) for c in columns)
        rows = []
        for i in range(height):
            cells = [c[i] if i < len(c) else "" for c in columns]
            rows.append(" | ".join(c.ljust(width) for c in cells[:-1]) + " | " + cells[-1])
            if i == 0:
                rows.append(" | ".join(["-" * width] * len(columns)))
        return "\n".join(r.rstrip() for r in rows)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        width = f"{100 // len(self.names)}%"
        head = "".join(
            f'<th style="text-align:left;width:{width}">{html.escape(n)}</th>' for n in self.names
        )
        cells = "".join(
            f'<td style="vertical-align:top"><pre style="{_PRE_STYLE}">'
            f"{html.escape(self._cells(n))}</pre></td>"
            for n in self.names
        )
        return (
            '<table class="ownership-compare" style="table-layout:fixed;width:100%">'
            f"<thead><tr>{head}</tr></thead><tbody><tr>{cells}</tr></tbody></table>"
        )


def side_by_side(
    program: Program,
    engines: Mapping[str, Any] | None = None,
    *,
    tolerance: Tolerance = DEFAULT,
    message: str | None = "equal",
    compare_warnings: bool = True,
    **named: Any,
) -> SideBySide:
    """Run ``program`` under each engine and return the runs, or raise if any two disagree.

    Engines are given as a mapping (``engines={"torch": torch, "ownership": ownership}``) or as
    keywords (``torch=torch, ownership=ownership``), and run in that order. Every engine is
    compared with the first one; ``AssertionError`` lists all differences (values, dtype, shape,
    ``requires_grad``, ``is_leaf``, ``grad_fn``, ``_version``, Parameter-ness, scalars,
    containers, exception class and message, and emitted warnings unless
    ``compare_warnings=False``); floating-point values by ``tolerance``'s rule (see
    :func:`differences`). Warnings never reach stderr: they are caught and shown.
    """
    chosen = {**(engines or {}), **named}
    for name, engine in named.items():  # a number is an option misspelt, never an engine
        if isinstance(engine, (int, float)):
            raise TypeError(f"side_by_side() got an unexpected keyword argument {name!r}")
    if len(chosen) < 2:
        raise ValueError("side_by_side needs at least two engines")
    runs = {name: run(program, engine) for name, engine in chosen.items()}
    insist_agree(runs, tolerance=tolerance, message=message, compare_warnings=compare_warnings)
    return SideBySide(runs)


def insist_agree(
    runs: Mapping[str, Run],
    *,
    tolerance: Tolerance = DEFAULT,
    message: str | None = "equal",
    compare_warnings: bool = True,
) -> None:
    """Raise ``AssertionError`` listing every way the named runs disagree with the first one: their
    facts (by :func:`differences`), then their warnings unless ``compare_warnings=False``.

    >>> insist_agree({"a": run(lambda e: 1, None), "b": run(lambda e: 2, None)})
    Traceback (most recent call last):
    AssertionError: the engines disagree:
    result: a 1 != b 2
    """
    (base_name, base), *others = runs.items()
    problems: list[str] = []
    for name, other in others:
        problems += differences(
            base.facts,
            other.facts,
            (base_name, name),
            tolerance=tolerance,
            message=message,
        )
        if compare_warnings and base.warnings != other.warnings:
            problems.append(f"warnings: {base_name} {base.warnings} != {name} {other.warnings}")
    if problems:
        raise AssertionError("the engines disagree:\n" + "\n".join(problems))
