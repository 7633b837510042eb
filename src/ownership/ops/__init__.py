"""The ops: each op's forward and backward side by side, one family per module.

:mod:`ownership.ops.table` names every op the Tensor methods reach (``x + y``, ``x.sum()``,
``x.view(...)``, ``x.add_(...)``); :mod:`ownership.op_registry` fills its table from there at
the first lookup, so importing this package installs nothing.
"""

from ownership.ops import (
    arithmetic,
    comparison,
    creation,
    indexing,
    inplace,
    inplace_views,
    linalg,
    multi_views,
    reduction,
    softmax,
    statistics,
    table,
    unary,
    views,
)

__all__ = [
    "arithmetic",
    "comparison",
    "creation",
    "indexing",
    "inplace",
    "inplace_views",
    "linalg",
    "multi_views",
    "reduction",
    "softmax",
    "statistics",
    "table",
    "unary",
    "views",
]
