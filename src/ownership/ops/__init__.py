"""The ops: each op's forward and backward side by side, one family per module.

Importing this package installs every op into :data:`ownership.op_registry.OPS`, which is how the
Tensor methods (``x + y``, ``x.sum()``, ``x.view(...)``, ``x.add_(...)``) reach them.
"""

from ownership.op_registry import OPS, quiet
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
    copying,
    joining,
    inplace,
    inplace_views,
    indexing,
    statistics,
):
    _module.register()
for _name, _fn in OPS.items():  # every method call passes through numpy's quiet mode
    OPS[_name] = quiet(_fn)

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
    "unary",
    "views",
]
