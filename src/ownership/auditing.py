"""Who may mutate each tensor a module holds: the ownership audit.

:func:`audit` walks a module tree and returns one :class:`AuditRow` per tensor it holds, under
every name it is reachable by: registered parameters, persistent and non-persistent buffers, and
plain tensor attributes (which torch's own listings never show). Each row states who may mutate
the tensor (its *mutation rule*), and the table flags the unit's ownership mistakes with a short
reason.

It works on :class:`ownership.nn.Module` and on ``torch.nn.Module`` alike by duck typing
(``named_modules``, ``named_parameters``, ``named_buffers``, ``_non_persistent_buffers_set``,
``state_dict`` and the instance ``__dict__``), so it never imports torch.

The module is named ``auditing`` so that ``ownership.audit`` can be the function itself:
``ownership.audit(model)``.

>>> import ownership
>>> class Counted(ownership.nn.Module):
...     def __init__(self) -> None:
...         super().__init__()
...         self.linear = ownership.nn.Linear(2, 1)
...         self.register_buffer("count", ownership.zeros((), dtype=ownership.int64))
...         self.seen = ownership.zeros(())  # a plain attribute: lost by state_dict
>>> table = ownership.audit(Counted())
>>> [(row.name, row.kind, row.rule) for row in table]  # doctest: +NORMALIZE_WHITESPACE
[('count', 'buffer', "the module's forward, under no_grad"),
 ('seen', 'plain tensor attribute', 'nobody: not saved, not trained'),
 ('linear.weight', 'parameter', 'optimizer only, under no_grad'),
 ('linear.bias', 'parameter', 'optimizer only, under no_grad')]
>>> [flag.name for flag in table.flags]
['seen']
>>> print(table)  # doctest: +NORMALIZE_WHITESPACE
name           kind                    shape   requires_grad  optimizer mutates  in state_dict  mutation rule
-------------  ----------------------  ------  -------------  -----------------  -------------  -----------------------------------
count          buffer                  ()      no             no                 yes            the module's forward, under no_grad
seen           plain tensor attribute  ()      no             no                 no             nobody: not saved, not trained
linear.weight  parameter               (1, 2)  yes            yes                yes            optimizer only, under no_grad
linear.bias    parameter               (1,)    yes            yes                yes            optimizer only, under no_grad
<BLANKLINE>
flags:
  seen: tensor attribute not registered: state_dict() drops it and load_state_dict() cannot restore it; use register_buffer (persistent=False for a cache)
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ownership.either_engine import is_either_tensor

__all__ = [
    "KINDS",
    "RULE_BUFFER",
    "RULE_FROZEN",
    "RULE_OPTIMIZER",
    "RULE_UNOWNED",
    "AuditFlag",
    "AuditRow",
    "AuditTable",
    "audit",
]

#: The kinds of tensor a module can hold, in the order the audit lists them per module. The last
#: is a tensor inside a plain ``list``/``tuple``/``dict`` attribute (directly, or held by a module
#: kept there): torch never registers it.
KINDS = (
    "parameter",
    "buffer",
    "non-persistent buffer",
    "plain tensor attribute",
    "in a plain container",
)

#: A parameter that requires grad: only the optimizer writes it, in ``step()`` under no_grad.
RULE_OPTIMIZER = "optimizer only, under no_grad"
#: A buffer (persistent or not): the module updates it itself, in ``forward`` under no_grad.
RULE_BUFFER = "the module's forward, under no_grad"
#: A plain tensor attribute: nothing owns it; it is neither saved nor trained.
RULE_UNOWNED = "nobody: not saved, not trained"
#: A parameter with ``requires_grad=False``: saved with the model, but no optimizer updates it.
RULE_FROZEN = "nobody: saved, not trained"

_STATE_WORDS = frozenset(
    {"running", "count", "counts", "counter", "step", "steps", "ema", "moving", "tracked"}
)


def _looks_like_running_state(name: str) -> bool:
    """Whether a tensor's own name (the part after the last dot) reads like running state."""
    leaf = name.rsplit(".", 1)[-1].lower()
    if leaf.startswith(("num_batches", "n_seen", "num_seen")):
        return True
    return any(word in _STATE_WORDS for word in re.split(r"[_\d]+", leaf) if word)


@dataclass(frozen=True)
class AuditFlag:
    """One ownership mistake the audit found: the tensor's qualified name and why it is flagged."""

    name: str
    reason: str


@dataclass(frozen=True)
class AuditRow:
    """One tensor of a module tree under one of its qualified names.

    ``optimizer_mutates`` is true exactly when an optimizer built from ``module.parameters()``
    would update the tensor: it is among the parameters and requires grad. ``in_state_dict`` is
    true exactly when ``module.state_dict()`` has the name as a key. ``rule`` is one of
    :data:`RULE_OPTIMIZER`, :data:`RULE_BUFFER`, :data:`RULE_UNOWNED`, :data:`RULE_FROZEN`.
    ``flags`` holds the reasons this row is flagged (empty when it is not).
    """

    name: str
    kind: str
    shape: tuple[int, ...]
    requires_grad: bool
    optimizer_mutates: bool
    in_state_dict: bool
    rule: str
    flags: tuple[str, ...] = ()


_COLUMNS = (
    ("name", "name"),
    ("kind", "kind"),
    ("shape", "shape"),
    ("requires_grad", "requires_grad"),
    ("optimizer_mutates", "optimizer mutates"),
    ("in_state_dict", "in state_dict"),
    ("rule", "mutation rule"),
)


def _cell(row: AuditRow, field: str) -> str:
    value = getattr(row, field)
    if field == "shape":
        return str(tuple(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


class AuditTable(list[AuditRow]):
    """The audit's result: a list of :class:`AuditRow`, printable and renderable in a notebook.

    ``str(table)`` is an aligned text table followed by the flags; ``_repr_html_`` renders the
    same as an HTML table (Jupyter and MyST-NB call it).
    """

    @property
    def flags(self) -> list[AuditFlag]:
        """Every flag of every row, in row order."""
        return [AuditFlag(row.name, reason) for row in self for reason in row.flags]

    def row(self, name: str) -> AuditRow:
        """The row of the tensor called ``name``; ``KeyError`` if the audit has no such row."""
        for candidate in self:
            if candidate.name == name:
                return candidate
        raise KeyError(name)

    def __str__(self) -> str:
        header = [title for _, title in _COLUMNS]
        body = [[_cell(row, field) for field, _ in _COLUMNS] for row in self]
        widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

        def line(cells: list[str]) -> str:
            return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

        lines = [line(header), line(["-" * w for w in widths]), *map(line, body)]
        flags = self.flags
        if flags:
            lines += ["", "flags:"] + [f"  {f.name}: {f.reason}" for f in flags]
        else:
            lines += ["", "flags: none"]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(title)}</th>" for _, title in _COLUMNS)
        rows = []
        for row in self:
            cells = "".join(f"<td>{html.escape(_cell(row, f))}</td>" for f, _ in _COLUMNS)
            flags = "<br>".join(html.escape(reason) for reason in row.flags)
            rows.append(f"<tr>{cells}<td>{flags}</td></tr>")
        return (
            '<table class="ownership-audit">'
            f"<thead><tr>{head}<th>flags</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )


def _held_tensors(module: Any) -> list[tuple[str, str, Any]]:
    """``(qualified name, kind, tensor)`` for every name of every tensor, module by module.

    Pre-order over ``named_modules(remove_duplicate=False)`` (so a shared submodule's tensors
    appear under each of its names, as in ``state_dict``); within a module: parameters,
    buffers, then plain tensor attributes, each in registration order.
    """
    held: list[tuple[str, str, Any]] = []
    for prefix, sub in module.named_modules(remove_duplicate=False):
        dot = prefix + "." if prefix else ""
        for name, param in sub.named_parameters(recurse=False, remove_duplicate=False):
            held.append((dot + name, "parameter", param))
        non_persistent: set[str] = getattr(sub, "_non_persistent_buffers_set", set())
        for name, buf in sub.named_buffers(recurse=False, remove_duplicate=False):
            kind = "non-persistent buffer" if name in non_persistent else "buffer"
            held.append((dot + name, kind, buf))
        own = [getattr(sub, "_" + r, None) for r in ("parameters", "buffers", "modules")]
        for name, value in vars(sub).items():
            if any(value is registry for registry in own):
                continue
            if is_either_tensor(value):
                held.append((dot + name, "plain tensor attribute", value))
            else:
                held.extend(_in_plain_container(dot + name, value))
    return held


def _in_plain_container(name: str, value: Any) -> list[tuple[str, str, Any]]:
    """The tensors a plain list, tuple or dict attribute holds, directly or through a module.

    Named ``layers[0].weight`` / ``heads['a'].bias`` / ``weights[1]``; a module's tensors are
    listed as its own ``named_parameters`` and ``named_buffers`` would list them.
    """
    if isinstance(value, dict):
        entries = [(f"{name}[{key!r}]", item) for key, item in value.items()]
    elif isinstance(value, list | tuple):
        entries = [(f"{name}[{i}]", item) for i, item in enumerate(value)]
    else:
        return []
    found: list[tuple[str, str, Any]] = []
    for entry, item in entries:
        if is_either_tensor(item):
            found.append((entry, "in a plain container", item))
        elif callable(getattr(item, "named_parameters", None)):
            for sub, tensor in [*item.named_parameters(), *item.named_buffers()]:
                found.append((f"{entry}.{sub}", "in a plain container", tensor))
    return found


def _rule(kind: str, requires_grad: bool) -> str:
    if kind == "parameter":
        return RULE_OPTIMIZER if requires_grad else RULE_FROZEN
    if kind.endswith("buffer"):
        return RULE_BUFFER
    return RULE_UNOWNED


def _flags(name: str, kind: str, requires_grad: bool, others: list[str]) -> tuple[str, ...]:
    flags = []
    if kind == "parameter" and _looks_like_running_state(name):
        flags.append(
            "running statistic registered as a Parameter: it would get gradients and "
            "optimizer updates; register it with register_buffer instead"
        )
    elif kind == "parameter" and not requires_grad:
        flags.append(
            "Parameter with requires_grad=False: no optimizer updates it; if it is state "
            "rather than a frozen weight, make it a buffer"
        )
    if kind.endswith("buffer") and requires_grad:
        flags.append(
            "buffer that requires grad: it collects gradients no optimizer applies; "
            "buffers hold non-differentiated state"
        )
    if kind == "in a plain container":
        flags.append(
            "held in a plain Python list/tuple/dict attribute: not registered, so parameters(), "
            "state_dict() and the optimizer miss it (it never trains, is never saved); use "
            "nn.ModuleList / nn.ModuleDict (nn.ParameterList / nn.ParameterDict for tensors)"
        )
    if kind == "plain tensor attribute":
        flags.append(
            "tensor attribute not registered: state_dict() drops it and load_state_dict() "
            "cannot restore it; use register_buffer (persistent=False for a cache)"
        )
    if others:
        listed = ", ".join(repr(o) for o in others)
        flags.append(
            f"tied: the same tensor as {listed}; named_parameters() lists it once, "
            "state_dict() under every name, and its gradient sums every use"
        )
    return tuple(flags)


def audit(module: Any) -> AuditTable:
    """State the ownership of every tensor in ``module``'s tree (an ownership or torch module).

    One row per tensor and name, in ``state_dict`` order (module by module, pre-order;
    parameters, then buffers, then plain tensor attributes). See
    :class:`~ownership.auditing.AuditRow` for the
    columns. Flags: a Parameter with ``requires_grad=False``; a running statistic (a name like
    ``running_mean``, ``num_batches_tracked``, ``count``, ``step``, ``ema``) registered as a
    Parameter; a buffer that requires grad; a plain tensor attribute (not registered, so lost by
    ``state_dict``); a tensor in a plain list, tuple or dict attribute, directly or inside a
    module kept there (PyTorch's much-reported "layers in a Python list never train"); and a
    tensor reachable under several names (tied weights).

    Raises ``TypeError`` when ``module`` is not a module.
    """
    if not callable(getattr(module, "named_modules", None)):
        raise TypeError(
            f"audit() expects an ownership.nn.Module or a torch.nn.Module, "
            f"got {type(module).__name__}"
        )
    held = _held_tensors(module)
    # a list that merely mirrors registered modules (``self.order = [self.a, self.b]``) is fine
    registered = {id(t) for _, kind, t in held if kind != "in a plain container"}
    held = [h for h in held if h[1] != "in a plain container" or id(h[2]) not in registered]
    trained = {id(p) for p in module.parameters() if p.requires_grad}
    saved = set(module.state_dict(keep_vars=True))
    names_of: dict[int, list[str]] = defaultdict(list)
    for name, _, tensor in held:
        names_of[id(tensor)].append(name)

    table = AuditTable()
    for name, kind, tensor in held:
        requires_grad = bool(tensor.requires_grad)
        others = [n for n in names_of[id(tensor)] if n != name]
        table.append(
            AuditRow(
                name=name,
                kind=kind,
                shape=tuple(int(n) for n in tensor.shape),
                requires_grad=requires_grad,
                optimizer_mutates=id(tensor) in trained,
                in_state_dict=name in saved,
                rule=_rule(kind, requires_grad),
                flags=_flags(name, kind, requires_grad, others),
            )
        )
    return table
