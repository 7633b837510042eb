"""The ops: each op's forward and backward side by side, one family per module.

Importing this package installs every op into :data:`ownership.op_registry.OPS`, which is how the
Tensor methods (``x + y``, ``x.sum()``, ``x.view(...)``, ``x.add_(...)``) reach them.
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
    unary,
    views,
)

for _module in (
    views,
    multi_views,
    reduction,
    arithmetic,
    unary,
    comparison,
    linalg,
    softmax,
    creation,
    inplace,
    inplace_views,
    indexing,
    statistics,
):
    _module.register()

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
    "unary",
    "views",
]
