"""The fuzzer: random straight-line programs run under torch and ownership, statement by statement.

Program ``seed`` is written by :class:`support.fuzz_statements.Generator` while it runs under torch
(each statement fits the tensors the program holds at that point), and each statement runs under
ownership right after. After every statement the two runs must agree on what the statement did
(the exception's class and message, by :func:`ownership.compare.differences`; the warnings it gave)
and on every live variable: a tensor's values, dtype, shape, strides and offset (when it has
elements), ``requires_grad``, ``is_leaf``, ``grad_fn``, the changes of ``_version``,
``is_inference()``, ``retains_grad``, its ``_base`` and which other variable's memory it shares (a
gradient's ``_version`` and ``_base`` are the engine's artefacts: ``support.gradients``), and its
``.grad`` (values, dtype, shape, strides). A module, an optimizer or a dict of tensors (a
``state_dict()``) is spread by :func:`variables` into its facts (a module's submodules' types and
``training``, its parameters', buffers' and plain tensor attributes' names, its ``state_dict``
keys; an optimizer's groups and state keys) and the tensors it holds, each compared as a variable
named by the source that reads it (``m1.fc.weight``, ``o2.state_dict()['state'][0]['step']``):
so whether a ``state_dict`` value shares a parameter's memory is a fact too. The statements come
from a writer, :class:`support.fuzz_statements.Generator` (tensor programs) or
:class:`support.fuzz_modules.ModuleGenerator` (modules and optimizers).

Values are compared under a bound that follows the computation, not one machine's luck
(:mod:`support.fuzz_bounds`): each statement runs a third time, under torch watched by a dispatch
mode that sees every ATen op (a backward's included) and keeps, per storage element, a bound on
``|torch - ownership|``. Each op amplifies its inputs' bounds by its condition (``exp`` by
``|y|``, a sum by adding its terms' bounds, ``a * b`` by ``|a| e_b + |b| e_a`` ...) and adds its
own rounding in ULPs of its terms, from the result dtype's ``eps`` (a float32 value never gets a
float64-size bound, nor the reverse); exact ops (views, copies, selections, ``+ - * /`` of exact
values) add nothing. Where the bound is 0 the values must be bitwise equal (the sign of zero
included); where it is finite, within it; where a decision (a comparison, a cast to an integer or
``bool``, ``sign``, ``floor``, ``argmax``, relu's gradient) met an input within its bound of the
decision point, the result is undetermined, as is everything computed or written from it: not
compared, while errors, shapes, dtypes, flags, versions and aliasing still are. A mask that is
undetermined makes the shape of what it selects undetermined too (a *shapeless* variable: only its
dtype and flags are compared, and a statement that reads it may raise in one engine only). The
dispatch mode makes torch run a few programs otherwise (a write into a view refused, a clone of an
inference tensor without history): once the third run raises otherwise than torch's (where
torch's did not, the reverse, or another error: a block's other line), its bounds say nothing of
torch's values, which are then not compared; the fuzzer counts such programs.

A difference stops the program; :func:`shrink` drops statements while the same kind of difference
persists at a statement of the same kind, and :func:`reproducer` prints what is left as a plain
torch program to paste into Python. ``python -m support.fuzz --seed S --count N`` (``make fuzz``)
runs programs ``S .. S+N-1`` and prints each failing program's reproducer and the distinct causes.
"""

from __future__ import annotations

import argparse
import copy
import keyword
import random
import re
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import CodeType, ModuleType
from typing import Any

import numpy as np
import pytest
import torch

import ownership
from ownership.compare import Raised, differences, facts, run

from support.differential import every_warning
from support.fuzz_bounds import Bounds
from support.fuzz_statements import NAME, Generator, Statement

ENGINES: dict[str, ModuleType] = {"torch": torch, "ownership": ownership}
ADDRESS = re.compile(r" at 0x[0-9a-f]+")
"""An object's address in a warning (a hook's ``repr``): each engine has its own objects."""
NOT_A_PROGRAM = ("NameError", "UnboundLocalError", "SyntaxError")
"""Errors that mean a shrunk program lost a statement it needs (never a difference to keep)."""


@dataclass(frozen=True)
class Difference:
    """Where a program's runs first disagree: the statement's index and every disagreement."""

    index: int
    lines: tuple[str, ...]
    kinds: frozenset[str]
    fields: tuple[tuple[str, str], ...] = ()  # (variable, field) of each differing fact


@dataclass
class Outcome:
    """A program and how its runs compare (``difference`` is ``None`` when they agree)."""

    seed: int
    statements: list[Statement]
    difference: Difference | None = None
    raised: list[bool] = field(default_factory=list)  # whether torch raised, per statement
    unhandled: set[str] = field(default_factory=set)  # ops the bounds have no rule for
    diverged: int | None = None  # the statement from which the bounds' run is not torch's

    @property
    def cause(self) -> str:
        """A key grouping differences: the failing statement's tag and what differed."""
        assert self.difference is not None
        tag = self.statements[self.difference.index].tag
        return f"{tag}: {', '.join(sorted(self.difference.kinds))}"


_CODE: dict[str, CodeType] = {}


def _code(source: str) -> CodeType:
    if source not in _CODE:
        _CODE[source] = compile(source, "<program>", "exec")
    return _CODE[source]


def _addressless(caught: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(ADDRESS.sub(" at 0x...", w) for w in caught)


def _attempt(read: Any) -> Any:
    try:
        return read()
    except Exception as exc:  # a read that raises is a fact too
        return Raised(type(exc).__name__, str(exc))


def _storage(v: Any) -> Any:
    return v.untyped_storage().data_ptr() if v.numel() else None


def _layout(v: Any) -> dict[str, Any]:
    return {
        "values": _attempt(lambda: np.array(v.detach().numpy(), copy=True)),
        "dtype": _attempt(lambda: str(v.dtype)),
        "shape": _attempt(lambda: tuple(v.shape)),
        "stride": _attempt(lambda: tuple(v.stride())) if v.numel() else None,
        "storage_offset": _attempt(v.storage_offset) if v.numel() else None,
    }


def _is_tensor(v: Any) -> bool:
    return torch.is_tensor(v) or isinstance(v, ownership.Tensor)


MODULES = (torch.nn.Module, ownership.nn.Module)
OPTIMIZERS = (torch.optim.Optimizer, ownership.optim.Optimizer)


def reach(expr: str, path: str) -> str:
    """The source that reads dotted ``path`` from ``expr`` (``m1.fc.weight``,
    ``getattr(m1, '0').bias``: a ``Sequential``'s index is a position, not its module's name)."""
    for part in path.split("."):
        if part.isidentifier() and not keyword.iskeyword(part):
            expr = f"{expr}.{part}"
        else:
            expr = f"getattr({expr}, {part!r})"
    return expr


def _module_variables(name: str, m: Any) -> dict[str, Any]:
    """A module's facts (its modules' types and modes, its parameters', buffers' and plain tensor
    attributes' names, its ``state_dict`` keys) and each tensor it holds, by the source that reads
    it."""
    out: dict[str, Any] = {}
    modules = _attempt(lambda: list(m.named_modules(remove_duplicate=False)))
    tensors: dict[str, Any] = {}
    kinds: dict[str, list[str]] = {"parameters": [], "buffers": [], "attributes": []}
    for path, sub in modules if isinstance(modules, list) else []:
        where = f"{path}." if path else ""
        for kind, held in (
            ("parameters", vars(sub).get("_parameters", {})),
            ("buffers", vars(sub).get("_buffers", {})),
            ("attributes", {k: v for k, v in vars(sub).items() if not k.startswith("_")}),
        ):
            for k, v in held.items():
                if _is_tensor(v) or (v is None and kind != "attributes"):
                    kinds[kind].append(where + k)
                if _is_tensor(v):
                    tensors[reach(name, where + k)] = v
    out[name] = {
        "modules": _attempt(lambda: [(p, type(s).__name__, s.training) for p, s in modules]),
        **kinds,
        "state_dict": _attempt(lambda: list(m.state_dict())),
    }
    return {**out, **tensors}


def _optimizer_variables(name: str, o: Any) -> dict[str, Any]:
    """An optimizer's ``state_dict()``: its groups and state keys as facts, each state tensor by
    the source that reads it."""
    state = _attempt(o.state_dict)
    if isinstance(state, Raised):
        return {name: state}
    out: dict[str, Any] = {
        name: {
            "param_groups": facts(state["param_groups"]),
            "state": {k: sorted(v) for k, v in state["state"].items()},
        }
    }
    for k, per in state["state"].items():
        for key, v in per.items():
            expr = f"{name}.state_dict()['state'][{k}][{key!r}]"
            out[expr] = v if _is_tensor(v) else facts(v)
    return out


def variables(ns: dict[str, Any]) -> dict[str, Any]:
    """A program's variables, each module's, optimizer's and dict's of tensors (a
    ``state_dict()``) spread into its facts and its tensors, named by the source that reads them
    (``m1.fc.weight``, ``r3['bias']``)."""
    out: dict[str, Any] = {}
    for name, v in ns.items():
        if not NAME.fullmatch(name):
            continue
        if isinstance(v, MODULES):
            out.update(_module_variables(name, v))
        elif isinstance(v, OPTIMIZERS):
            out.update(_optimizer_variables(name, v))
        elif isinstance(v, dict) and v and all(_is_tensor(x) for x in v.values()):
            out[name] = list(v)
            out.update({f"{name}[{k!r}]": x for k, x in v.items()})
        else:
            out[name] = v
    return out


def snapshot(held: dict[str, Any], versions: dict[str, Any]) -> dict[str, Any]:
    """Every fact of every variable ``held`` (:func:`variables`; see the module docstring).

    ``versions`` holds each variable's ``_version`` when it was bound (updated here for the new
    ones): a fresh result's own ``_version`` is torch's artefact (an op that runs above autograd,
    as ops on inference tensors do, bumps it through its internal ``out=`` calls), its changes are
    the contract.
    """
    names = {id(v): k for k, v in held.items()}
    storages: dict[Any, str] = {}
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, v in held.items():
            if not _is_tensor(v):
                out[name] = facts(v)
                continue
            key = _attempt(lambda v=v: _storage(v))
            shares = storages.setdefault(key, name) if key is not None else None
            base = _attempt(lambda v=v: v._base)
            grad = _attempt(lambda v=v: v.grad)
            out[name] = {
                **_layout(v),
                "requires_grad": _attempt(lambda v=v: v.requires_grad),
                "is_leaf": _attempt(lambda v=v: v.is_leaf),
                "grad_fn": _attempt(lambda v=v: v.grad_fn and v.grad_fn.name()),
                "version": None if _gradient(name) else _version_change(name, v, versions),
                "parameter": type(v).__name__ == "Parameter",
                "is_inference": _attempt(v.is_inference),
                "retains_grad": _attempt(lambda v=v: v.retains_grad),
                "base": _base_name(name, base, names),
                "shares_memory_with": shares,
                "grad": grad if grad is None or isinstance(grad, Raised) else _layout(grad),
            }
    return out


def read_grad_fns(ns: dict[str, Any]) -> None:
    """Read every tensor variable's ``grad_fn``, as :func:`snapshot` does after each statement, in
    a run of a program that is not compared (the bounds', a shrinking's): a view's stale
    ``grad_fn`` is remade at the read, and torch 2.13 crashes (a segmentation fault) in
    ``register_hook`` on a view whose base was written since its ``grad_fn`` was last read
    (fuzz 902208), so every run reads them where the compared runs do."""
    for k, v in ns.items():
        if NAME.fullmatch(k) and torch.is_tensor(v):
            _attempt(lambda v=v: v.grad_fn)


def _base_name(name: str, base: Any, names: dict[int, str]) -> Any:
    """The variable ``base`` is (or what reading it raised); ``None`` for a gradient, whose
    ``_base``, as its ``_version``, is the engine's artefact."""
    if _gradient(name) or base is None or isinstance(base, Raised):
        return None if _gradient(name) else base
    return names.get(id(base), "a tensor of no variable")


def _gradient(name: str) -> bool:
    """Whether variable ``name`` is a gradient (``g<n>``)."""
    return name[0] == "g" and name[1:].isdigit()


def _version_change(name: str, v: Any, versions: dict[str, Any]) -> Any:
    """How much ``v._version`` moved since ``v`` was bound to ``name`` (or what reading it raised)."""
    now = _attempt(lambda: v._version)
    bound = versions.get(name)
    if bound is None or bound[0] is not v:
        versions[name] = (v, now)
        return 0 if isinstance(now, int) else now
    if isinstance(now, Raised) or isinstance(bound[1], Raised):
        return now
    return now - bound[1]


def _agree(
    a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], bound: np.ndarray[Any, Any], signed: bool
) -> bool:
    """Whether ownership's values ``b`` agree with torch's ``a`` under ``bound``
    (:mod:`support.fuzz_bounds`): bitwise where it is 0 (NaNs agree with NaNs whatever their bits;
    the sign of zero unless not ``signed``), within it where it is finite, not compared where it is
    infinite (undetermined).

    The sign of a zero is compared unordered in what an ``amax``/``amin`` made (and what was
    computed from it; ``Statement.signed_zeros``, ``Lockstep.unsigned``): torch's kernel combines
    vector lanes, and of two equal operands ``+0.0`` and ``-0.0`` a vector max/min returns one by
    its lane position, so which zero a tie gives depends on the vector width torch picks for the
    CPU; the engine's rule (``first_zero_signs``) does not follow those lanes: on this AVX-512
    machine it gives the other zero on 259 of 737 random ``amax(0)`` results that are zeros.
    ``max()``/``min()`` (``ops.reduction.whole_extreme``) and ``max(dim)`` follow torch's lanes
    and stay compared bitwise."""
    bound = np.broadcast_to(bound, a.shape)
    known = ~np.isinf(bound)
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        return bool(np.array_equal(a[known], b[known]))
    x, y = a[known].astype(np.float64), b[known].astype(np.float64)
    e = bound[known]
    nan = np.isnan(x)
    if not np.array_equal(nan, np.isnan(y)):
        return False
    x, y, e = x[~nan], y[~nan], e[~nan]
    with np.errstate(invalid="ignore"):
        close = (x == y) | (np.abs(x - y) <= e)
    same_zero = (e > 0) | (np.signbit(x) == np.signbit(y)) | (not signed)
    return bool(np.all(close & ((x == y) | (e > 0)) & same_zero))


UNDETERMINED = np.array(np.inf)
"""The bound of values not compared (it broadcasts to any shape)."""


@dataclass(frozen=True)
class Bound:
    """What :class:`support.fuzz_bounds.Bounds` says of one torch variable: its values' bound,
    its ``.grad``'s, and whether its shape (or its gradient's) is undetermined."""

    values: np.ndarray[Any, Any] | None
    grad: np.ndarray[Any, Any] | None
    shapeless: bool = False
    grad_shapeless: bool = False


LAYOUT = ("values", "shape", "stride", "storage_offset", "shares_memory_with")
"""The facts of a variable an undetermined mask decides (a shapeless variable's)."""


def _compare_facts(
    name: str, a: dict[str, Any], b: dict[str, Any], bound: Bound, signed_zeros: bool = True
) -> list[tuple[str, str]]:
    """(field, line) for each fact of one tensor variable that differs."""
    out: list[tuple[str, str]] = []
    for key in a:
        x, y = a[key], b[key]
        if bound.shapeless and key in LAYOUT:
            continue
        if isinstance(x, dict) and isinstance(y, dict):
            inner = Bound(bound.grad, None, bound.grad_shapeless)
            out += [
                (f"{key}.{f}", line)
                for f, line in _compare_facts(f"{name}.{key}", x, y, inner, signed_zeros)
            ]
        elif isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
            if x.shape != y.shape:
                continue  # the shape's own difference says it
            e = np.zeros(x.shape) if bound.values is None else bound.values
            if not _agree(x, y, e, signed_zeros):
                lines = f"  torch:     {x!r}\n  ownership: {y!r}\n  bound:     {e!r}"
                out.append((key, f"{name}.{key}:\n{lines}"))
        elif isinstance(x, Raised) or isinstance(y, Raised):
            lines = differences(x, y, path=f"{name}.{key}")
            out += [(key, line) for line in lines]
        elif x != y:
            out.append((key, f"{name}.{key}: torch {x!r} != ownership {y!r}"))
    return out


class Lockstep:
    """Two namespaces, one per engine, advanced one statement at a time and compared."""

    def __init__(self) -> None:
        self.ns = {name: {"torch": engine, "copy": copy} for name, engine in ENGINES.items()}
        # the program run a second time under torch, watched by the bounds (a dispatch mode
        # changes some of torch's view metadata: _reshape_alias, _base in inference mode; so
        # the facts compared come from the run without it)
        self.bounds = Bounds()
        self.shadow: dict[str, Any] = {"torch": torch, "copy": copy}
        self.shadow_held: dict[str, Any] = {}  # variables(self.shadow) after the last statement
        self.unsigned: set[Any] = set()  # torch storages whose zeros' signs are CPU-dependent
        self.versions: dict[str, dict[str, Any]] = {name: {} for name in ENGINES}
        # the statement at which the shadow run raised otherwise than torch's (the dispatch mode
        # changes what some programs do: an inference tensor's clone records no history, a view
        # of a leaf refuses a write): from there on, values are not compared
        self.diverged: int | None = None

    def step(self, statement: Statement, index: int) -> tuple[Difference | None, bool]:
        """Run ``statement`` in both engines; the difference (if any) and whether torch raised."""
        tns = self.ns["torch"]
        before = {k: id(v) for k, v in tns.items()}
        # a statement that reads a variable of undetermined shape may raise in one engine only
        unsure = any(
            self.bounds.is_shapeless(v)
            for k, v in self.shadow.items()
            if k in statement.names() and torch.is_tensor(v)
        )
        code = _code(statement.source)
        runs = {name: run(self._runner(code, name), engine) for name, engine in ENGINES.items()}
        shadow_raised = self._follow(code)
        torch_raised = isinstance(runs["torch"].facts, Raised)
        if shadow_raised != (runs["torch"].facts if torch_raised else None):
            self.diverged = index if self.diverged is None else self.diverged
        self._track_zero_signs(statement, before)
        found: list[tuple[str, str, str]] = []  # (variable, field, line)
        if not unsure:
            for line in differences(runs["torch"].facts, runs["ownership"].facts, path="statement"):
                found.append(("", "raised", line))
            if _addressless(runs["torch"].warnings) != _addressless(runs["ownership"].warnings):
                line = f"warnings: torch {runs['torch'].warnings} != ownership {runs['ownership'].warnings}"
                found.append(("", "warnings", line))
        held = variables(tns)
        self.shadow_held = variables(self.shadow)
        a = snapshot(held, self.versions["torch"])
        b = snapshot(variables(self.ns["ownership"]), self.versions["ownership"])
        for name in dict.fromkeys([*a, *b]):
            if name not in a or name not in b:
                if not (unsure and name in statement.names()):
                    found.append((name, "defined", f"{name}: defined in only one engine"))
            elif _is_tensor(held[name]) and isinstance(b[name], dict):
                signed = _attempt(lambda v=held[name]: _storage(v)) not in self.unsigned
                found += [
                    (name, f, line)
                    for f, line in _compare_facts(
                        name, a[name], b[name], self._bound(name, held[name]), signed
                    )
                ]
            else:
                found += [
                    (name, "value", line) for line in differences(a[name], b[name], path=name)
                ]
        if not found:
            return None, torch_raised
        kinds = frozenset(f for _, f, _ in found)
        fields = tuple((n, f) for n, f, _ in found)
        return Difference(index, tuple(line for _, _, line in found), kinds, fields), torch_raised

    def _runner(self, code: CodeType, name: str) -> Callable[[Any], None]:
        namespace = self.ns[name]
        return lambda engine: exec(code, namespace)

    def _follow(self, code: CodeType) -> Raised | None:
        """Run the statement in the shadow namespace, under the bounds; what it raised (a block
        that raises at another line than torch's, as its refusal says, leaves other variables)."""
        raised = None
        with warnings.catch_warnings(), self.bounds:
            warnings.simplefilter("ignore")
            try:
                exec(code, self.shadow)
            except Exception as exc:
                raised = Raised(type(exc).__name__, str(exc))
        read_grad_fns(self.shadow)
        return raised

    def _shadow(self, name: str, v: Any) -> Any:
        """The shadow run's tensor for torch variable ``name`` (``None`` when it differs)."""
        s = self.shadow_held.get(name)
        if not torch.is_tensor(s) or _attempt(lambda: s.shape == v.shape) is not True:
            return None
        return s

    def _bound(self, name: str, v: Any) -> Bound:
        """What the bounds say of torch variable ``name`` (and its ``.grad``): the shadow run's;
        undetermined once the shadow run has diverged from torch's."""
        if self.diverged is not None:
            return Bound(UNDETERMINED, UNDETERMINED)
        s = self._shadow(name, v)
        if s is None:
            return Bound(None, None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a non-leaf's .grad
            grad = _attempt(lambda: s.grad)
        has_grad = torch.is_tensor(grad)

        def error(t: Any) -> Any:
            e = _attempt(lambda: self.bounds.error(t))
            return None if isinstance(e, Raised) else e

        shapeless = self.bounds.is_shapeless
        return Bound(
            error(s), error(grad) if has_grad else None, shapeless(s), has_grad and shapeless(grad)
        )

    def _track_zero_signs(self, statement: Statement, before: dict[str, int]) -> None:
        tns = self.ns["torch"]
        tensors = {k: v for k, v in tns.items() if torch.is_tensor(v)}
        read = [v for k, v in tensors.items() if k in statement.names() and before.get(k) == id(v)]
        if not statement.signed_zeros or any(
            _attempt(lambda v=v: _storage(v)) in self.unsigned for v in read
        ):
            for k, v in tensors.items():
                if k in statement.names():
                    self.unsigned.add(_attempt(lambda v=v: _storage(v)))


def replay(statements: list[Statement], seed: int = -1) -> Outcome:
    """Run fixed statements in lockstep; stop at the first difference."""
    lockstep, outcome = Lockstep(), Outcome(seed, list(statements))
    with every_warning():
        for i, s in enumerate(statements):
            outcome.difference, raised = lockstep.step(s, i)
            outcome.raised.append(raised)
            if outcome.difference is not None:
                outcome.statements = outcome.statements[: i + 1]
                break
    outcome.diverged = lockstep.diverged
    return outcome


def generate(seed: int, writer: type[Generator] = Generator) -> Outcome:
    """Write (by ``writer``) and run program ``seed``: ``writer.length`` statements (4 to 16 for
    tensor programs), stopped at the first difference."""
    rng = random.Random(seed)
    lockstep = Lockstep()
    generator = writer(rng, lockstep.ns["torch"])
    outcome = Outcome(seed, [])
    with every_warning():
        for i in range(rng.randint(*writer.length)):
            s = generator.statement()
            outcome.statements.append(s)
            outcome.difference, raised = lockstep.step(s, i)
            outcome.raised.append(raised)
            if outcome.difference is not None:
                break
    outcome.unhandled = lockstep.bounds.unhandled
    outcome.diverged = lockstep.diverged
    return outcome


def _persists(original: Outcome, candidate: Outcome) -> bool:
    d, o = candidate.difference, original.difference
    assert o is not None
    if d is None:
        return False
    return candidate.statements[d.index].tag == original.statements[o.index].tag and bool(
        d.kinds & o.kinds
    )


def _broken(candidate: list[Statement]) -> bool:
    """Whether torch raises one of :data:`NOT_A_PROGRAM` on some statement of ``candidate``."""
    ns: dict[str, Any] = {"torch": torch, "copy": copy}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in candidate:
            try:
                exec(_code(s.source), ns)
            except Exception as exc:
                if type(exc).__name__ in NOT_A_PROGRAM:
                    return True
            read_grad_fns(ns)
    return False


def shrink(outcome: Outcome) -> Outcome:
    """Drop statements (and lines of a block) while the same kind of difference persists at the
    same kind of statement."""
    best = outcome
    changed = True
    while changed:
        changed = False
        for candidate in _smaller(best.statements):
            if not candidate or _broken(candidate):
                continue
            tried = replay(candidate, outcome.seed)
            if _persists(outcome, tried):
                best, changed = tried, True
                break
    return best


def _smaller(statements: list[Statement]) -> Iterator[list[Statement]]:
    """The programs with one statement fewer, last first, then with one line fewer in a block."""
    for i in reversed(range(len(statements))):
        yield statements[:i] + statements[i + 1 :]
    for i, s in enumerate(statements):
        lines = s.source.splitlines()
        for j in range(1, len(lines)):
            source = "\n".join(lines[:j] + lines[j + 1 :])
            try:
                compile(source, "<program>", "exec")
            except SyntaxError:
                continue
            yield [
                *statements[:i],
                Statement(s.tag, source, s.signed_zeros),
                *statements[i + 1 :],
            ]


_FIELD_EXPRESSIONS = {
    "values": "{}",
    "value": "{}",
    "stride": "{}.stride()",
    "storage_offset": "{}.storage_offset()",
    "version": "{}._version",
    "is_inference": "{}.is_inference()",
    "base": "{}._base",
    "shares_memory_with": "{}.untyped_storage().data_ptr()",
}


def reproducer(outcome: Outcome) -> str:
    """The program as plain torch source: statements that raise (before the last) are caught and
    printed, and the differing facts are printed at the end."""
    d = outcome.difference
    assert d is not None
    uses_copy = any("copy." in s.source for s in outcome.statements)
    lines = ["import copy", "import torch", ""] if uses_copy else ["import torch", ""]
    last = len(outcome.statements) - 1
    for i, (s, raised) in enumerate(zip(outcome.statements, outcome.raised, strict=False)):
        if raised and i != last:
            lines += ["try:", *("    " + x for x in s.source.splitlines())]
            lines += ["except Exception as e:", "    print(type(e).__name__, e)"]
        else:
            lines += s.source.splitlines()
    shown = []
    for name, f in d.fields:
        if not name:
            continue
        top = f.split(".")[0]
        expr = "{}.grad" if top == "grad" else _FIELD_EXPRESSIONS.get(top, "{}." + top)
        shown.append(expr.format(name))
    if shown:
        lines.append(f"print({', '.join(dict.fromkeys(shown))})")
    lines += ["", "# torch and ownership differ at the last statement:"]
    lines += ["# " + x for line in d.lines for x in line.splitlines()]
    return "\n".join(lines)


def check(seed: int, writer: type[Generator] = Generator) -> None:
    """Fail (with a shrunk reproducer) when program ``seed`` (of ``writer``) runs differ."""
    outcome = generate(seed, writer)
    if outcome.difference is not None:
        small = shrink(outcome)
        raise AssertionError(f"program {seed} ({small.cause}):\n{reproducer(small)}")


def budget(seeds: Iterable[int], known: dict[int, str]) -> list[Any]:
    """A suite's seeds to parametrize with: those of ``known`` differences (seed -> cause)
    marked as strict expected failures, so that each mark goes once its cause is fixed."""
    return [
        pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=known[s])) if s in known else s
        for s in seeds
    ]


def main(
    argv: list[str] | None = None, writer: type[Generator] = Generator, prog: str = "support.fuzz"
) -> int:
    """``make fuzz``: run programs SEED .. SEED+COUNT-1 (of ``writer``), print reproducers and
    distinct causes."""
    parser = argparse.ArgumentParser(prog=f"python -m {prog}", description=main.__doc__)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    causes: dict[str, list[Outcome]] = {}
    unhandled: dict[str, int] = {}
    diverged: list[int] = []  # programs whose bounds' run left torch's (values then not compared)
    for seed in range(args.seed, args.seed + args.count):
        outcome = generate(seed, writer)
        for op in outcome.unhandled:
            unhandled.setdefault(op, seed)
        if outcome.diverged is not None:
            diverged.append(seed)
        if outcome.difference is None:
            continue
        small = shrink(outcome)
        causes.setdefault(small.cause, []).append(small)
        if not args.quiet:
            print(f"=== program {seed} ({small.cause})\n{reproducer(small)}\n", flush=True)
    failed = sum(len(v) for v in causes.values())
    elapsed = time.perf_counter() - start
    print(f"{args.count} programs (seeds {args.seed}..{args.seed + args.count - 1}), "
          f"{failed} differ ({100 * failed / max(args.count, 1):.1f}%), {elapsed:.0f} s")  # fmt: skip
    for op, seed in sorted(unhandled.items()):
        print(f"no bound rule for {op} (its results were not compared; first in program {seed})")
    if diverged:
        print(
            f"{len(diverged)} programs ran otherwise under the bounds' dispatch mode: their values "
            f"were not compared from there on (programs {', '.join(map(str, diverged[:8]))})"
        )
    for cause, outcomes in sorted(causes.items(), key=lambda kv: -len(kv[1])):
        smallest = min(outcomes, key=lambda o: len(o.statements))
        seeds = ", ".join(str(o.seed) for o in outcomes[:8])
        print(f"\n--- {len(outcomes)} x {cause} (seeds {seeds})\n{reproducer(smallest)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
