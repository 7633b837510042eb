"""The ops: each op's forward and backward side by side, one family per module.

Importing this package installs every op into :data:`ownership.tensor.OPS`, which is how the
Tensor methods (``x + y``, ``x.sum()``, ``x.view(...)``, ``x.add_(...)``) reach them.
"""

from ownership.ops import (
    creation,
    indexing,
    inplace,
    linalg,
    pointwise,
    reduction,
    softmax,
    views,
)

for _module in (views, reduction, pointwise, linalg, softmax, creation, inplace, indexing):
    _module.register()

__all__ = [
    "creation",
    "indexing",
    "inplace",
    "linalg",
    "pointwise",
    "reduction",
    "softmax",
    "views",
]
