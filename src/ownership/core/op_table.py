"""The type of the ops core calls: :class:`CoreOps`, one typed signature per op, in the tensor layer.

The Tensor's methods written in core (its view properties) and its graph reach
these ops through :data:`ownership.core.op_registry.ops`, each module naming the table's type as
it takes it (``ops: CoreOps[Tensor] = op_registry.ops``). The implementations are listed in
:mod:`ownership.ops.table`, which mypy checks against the whole table,
:class:`ownership.ops.op_table.OpTable`, an extension of this one. A method that calls an op with
arguments its signature does not take, or an implementation that drifts from its signature, is a
type error. The protocol is generic in the tensor type so that this module needs no import of the
Tensor.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

TensorT = TypeVar("TensorT")

__all__ = ["CoreOps", "TensorT"]


class CoreOps(Protocol[TensorT]):
    """The ops core calls, by the name the table gives them (``ops.getitem(self, key)``); the
    others are :class:`ownership.ops.op_table.OpTable`'s."""

    def empty(
        self, *size: Any, dtype: Any = ..., device: Any = ..., requires_grad: bool = ...
    ) -> TensorT: ...
    def getitem(self, t: TensorT, key: Any) -> TensorT: ...
    def mT(self, t: TensorT) -> TensorT: ...
    def T(self, t: TensorT) -> TensorT: ...
    def zeros_like(
        self, t: TensorT, *, dtype: Any = ..., requires_grad: bool = ..., **options: Any
    ) -> TensorT: ...
