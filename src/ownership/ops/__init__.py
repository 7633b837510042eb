"""The ops: each op's forward and backward side by side, one family per module.

:mod:`ownership.ops.table` names every op the Tensor methods reach (``x + y``, ``x.sum()``,
``x.view(...)``, ``x.add_(...)``); :mod:`ownership.core.op_registry` fills its table from there at
the first lookup, so importing this package installs nothing.
"""

from typing import TYPE_CHECKING

from ownership.ops import (
    arithmetic,
    comparison,
    copying,
    creation,
    indexing,
    inplace,
    inplace_views,
    joining,
    linalg,
    multi_views,
    reduction,
    softmax,
    statistics,
    table,
    unary,
    views,
)

if TYPE_CHECKING:  # mypy holds every op to its one declared signature
    from ownership.core.tensor import Tensor
    from ownership.ops.op_table import OpTable

    _declared: OpTable[Tensor] = table

__all__ = [
    "arithmetic",
    "comparison",
    "copying",
    "creation",
    "indexing",
    "inplace",
    "inplace_views",
    "joining",
    "linalg",
    "multi_views",
    "reduction",
    "softmax",
    "statistics",
    "table",
    "unary",
    "views",
]
