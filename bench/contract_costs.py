"""What each of torch's contracts costs ownership on the chain of tiny ops, for ``bench/run.py``'s
``contracts`` section: a measurement, not a mode of the engine.

The chain's forward (:func:`cases.tiny_chain`: multiply, add, ``tanh``, subtract on 3 elements) is
timed with the engine whole, then with one contract *switched off* at a time, then with all of
them off, side by side with torch and with ``minimal_engine`` (no contract at all). Switching a
contract off replaces, for the timed step only, the one engine function that keeps it by what an
engine without that rule would do on this chain (keep a saved tensor as a plain reference,
record every op, take the left operand's dtype), and puts the engine back after the step. The
forward's values are unchanged by every switch (the chain is float32 throughout, every tensor
requires grad, nothing is written in place); its backward is not run, since the saved tensors'
checks are among what is switched off.

Each switch names the place the contract lives, so a renamed function fails this measurement
(:func:`switches` asserts every replaced attribute exists) rather than measuring nothing.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import cases  # beside this file (on the path when run.py runs, as for its other sections)

Patch = tuple[Any, str, Any]
"""``(owner, attribute, replacement)``: one attribute of the engine replaced while timed."""


@dataclass(frozen=True)
class Contract:
    """A contract of torch the engine keeps on every op of the chain, and where it lives."""

    label: str
    where: str
    patches: Callable[[ModuleType], list[Patch]]


def _everywhere(engine: ModuleType, obj: object, new: object) -> list[Patch]:
    """Every module attribute of ``engine`` that is ``obj`` (an imported name too), to ``new``."""
    prefix = engine.__name__ + "."
    found = [
        (module, name, new)
        for module_name, module in list(sys.modules.items())
        if module_name.startswith(prefix) and module is not None
        for name, value in list(vars(module).items())
        if value is obj
    ]
    assert found, f"nothing of the engine is {obj!r}"
    return found


def _quiet(engine: ModuleType) -> list[Patch]:
    """Every op of the table unwrapped from ``quiet``: numpy's own floating-point state."""
    table = engine.core.op_registry.ops
    assert table.add is not None  # the table is filled at its first lookup
    patches = []
    for name, fn in vars(table).items():
        kernel = getattr(fn, "__wrapped__", None)
        if kernel is not None and getattr(fn, "__name__", None) == kernel.__name__:
            patches.append((table, name, kernel))
    assert patches, "no quieted op in the table"
    return patches


def _lay_out(engine: ModuleType) -> list[Patch]:
    """numpy's layout for every result (row-major here, as torch's would be)."""
    return _everywhere(engine, engine.ops.common.lay_out, lambda out, *operands, **kw: None)


def _needs_grad(engine: ModuleType) -> list[Patch]:
    """Every op recorded (every operand of the chain requires grad)."""
    return _everywhere(engine, engine.ops.common.needs_grad, lambda *operands: True)


def _saved(engine: ModuleType) -> list[Patch]:
    """A saved tensor kept as a plain reference: no version, no inference check, no hook."""
    node = engine.core.autograd.node.OpNode

    def keep(self: Any, name: str, value: Any, *flags: Any, **options: Any) -> None:
        saved = self._saved
        if saved is None:
            self._saved = {name: value}
        else:
            saved[name] = value

    def keep_result(self: Any, tensor: Any) -> None:
        keep(self, "result", tensor)

    def keep_number(self: Any, name: str, number: Any, make: Any) -> None:
        keep(self, name, number)

    return [
        (node, "save", keep),
        (node, "save_result", keep_result),
        (node, "save_number", keep_number),
    ]


def _dtypes(engine: ModuleType) -> list[Patch]:
    """The left operand's dtype, no broadcast check, the number as it came."""
    binary_operands = engine.ops.common.binary_operands
    return _everywhere(engine, binary_operands, lambda a, b: (b, a.dtype))


def _shapes(engine: ModuleType) -> list[Patch]:
    """The inputs' shapes kept as they are now, none looked up as recorded by autograd."""
    arithmetic = engine.ops.arithmetic
    tensor, inputs_needed = engine.Tensor, engine.ops.common.inputs_needed

    def plain(node: Any, a: Any, b: Any) -> tuple[bool, ...]:
        is_tensor = isinstance(b, tensor)
        node.input_shapes = (a._data.shape, b._data.shape if is_tensor else ())
        node.other_number = None if is_tensor else b
        needed: tuple[bool, ...] = inputs_needed(node)
        return needed

    return _everywhere(engine, arithmetic.binary_node, plain)


def _operators(engine: ModuleType) -> list[Patch]:
    """``*``, ``+`` and ``-`` straight to their ops, with no check of the other operand's type."""
    ops = engine.core.op_registry.ops
    return [
        (engine.Tensor, "__mul__", lambda a, b: ops.mul(a, b)),
        (engine.Tensor, "__add__", lambda a, b: ops.add(a, b)),
        (engine.Tensor, "__sub__", lambda a, b: ops.sub(a, b)),
    ]


CONTRACTS = (
    Contract("torch's floating-point reports", "core.op_registry.quiet", _quiet),
    Contract("torch's result strides", "ops.common.lay_out", _lay_out),
    Contract("grad- and inference-mode checks", "ops.common.needs_grad", _needs_grad),
    Contract("saved-tensor checks", "core.autograd.saved.save_into", _saved),
    Contract("torch's type promotion", "ops.common.binary_operands", _dtypes),
    Contract("autograd's recorded shapes", "ops.arithmetic.binary_node", _shapes),
    Contract("operand type checks", "ops.tensor_operators", _operators),
)
"""The contracts switched off one at a time, each with the place it lives (under ``ownership``)."""


def switches(engine: ModuleType, contracts: tuple[Contract, ...] = CONTRACTS) -> list[Patch]:
    """The patches that switch ``contracts`` off; each replaced attribute must exist."""
    patches = [patch for contract in contracts for patch in contract.patches(engine)]
    for owner, name, _ in patches:
        assert hasattr(owner, name), f"{owner!r} has no {name}"
    return patches


@contextlib.contextmanager
def switched_off(patches: list[Patch]) -> Iterator[None]:
    """The engine with ``patches`` applied, restored after (even when the step raises)."""
    old = [(owner, name, vars(owner).get(name, _ABSENT)) for owner, name, _ in patches]
    try:
        for owner, name, new in patches:
            setattr(owner, name, new)
        yield
    finally:
        for owner, name, value in reversed(old):
            if value is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


_ABSENT = object()


def forward_step(engine: ModuleType, n_ops: int, patches: list[Patch]) -> Callable[[], Any]:
    """One forward of the chain of ``n_ops`` tiny ops in ``engine``, with ``patches`` applied
    for its duration only."""
    x = engine.tensor([0.5, -0.25, 1.0], requires_grad=True)

    def step() -> Any:
        with switched_off(patches):
            return cases.tiny_chain(x, n_ops)

    return step
