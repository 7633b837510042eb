"""The type of the ops core calls: :class:`CoreOps`, one typed signature per op, in the tensor layer.

Core takes the op table as ``ops: CoreOps[Tensor] = op_registry.ops``; the whole table,
:class:`ownership.ops.op_table.OpTable`, extends it. Generic in the tensor type: no Tensor import.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

TensorT = TypeVar("TensorT")

__all__ = ["CoreOps", "TensorT"]


class CoreOps(Protocol[TensorT]):
    """The ops core calls, by their table names; the others are ``OpTable``'s."""

    def empty(
        self, *size: Any, dtype: Any = ..., device: Any = ..., requires_grad: bool = ...
    ) -> TensorT: ...
    def getitem(self, t: TensorT, key: Any) -> TensorT: ...
    def mT(self, t: TensorT) -> TensorT: ...
    def T(self, t: TensorT) -> TensorT: ...
    def zeros_like(
        self, t: TensorT, *, dtype: Any = ..., requires_grad: bool = ..., **options: Any
    ) -> TensorT: ...
