"""Joining tensors: ``stack`` along a new dimension and ``cat`` along an existing one, each a
new tensor whose dtype promotes every input's, with a backward that splits the gradient back.

>>> import ownership
>>> a, b = ownership.ones(2), ownership.zeros(2, dtype=ownership.int64)
>>> ownership.stack([a, b]).shape, ownership.cat([a, b]).dtype
(torch.Size([2, 2]), torch.float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ownership import dtypes
from ownership import signatures as sig
from ownership._tensor import Tensor
from ownership.argument_checks import as_saved
from ownership.arguments import Parser
from ownership.autograd.node import Grads, OpNode, Saved
from ownership.dtypes import dtype as DType
from ownership.ops import checks
from ownership.ops.common import needs_grad, record, wrap


def _join_arguments(
    spec: Parser, args: tuple[Any, ...], kwargs: dict[str, Any], stacking: bool
) -> tuple[list[Tensor], int, DType, dict[str, Any]]:
    """The tensors, the checked dim and the result's dtype of a join (every input's dtype promoted
    together: torch's rule), and the node's saved values (``dim`` as given)."""
    a = spec.parse(args, kwargs)[1]
    ts = list(a["tensors"])
    d = checks.join(ts, a["dim"], stacking=stacking)
    dt = ts[0].dtype
    for x in ts[1:]:
        dt = dtypes.promote_types(dt, x.dtype)
    return ts, d, dt, {"dim": as_saved(a["dim"])}


def stack(*args: Any, **kwargs: Any) -> Tensor:
    """Join along a new dim (``StackBackward0``): ``stack(tensors, dim=0)``."""
    ts, d, dt, saved = _join_arguments(sig.FN_STACK, args, kwargs, stacking=True)
    out = wrap(np.stack([x._data for x in ts], axis=d), dt)
    if needs_grad(*ts):
        record(out, "StackBackward0", ts, lambda node, s, g: g[0].unbind(d), saved)
    return out


def cat(*args: Any, **kwargs: Any) -> Tensor:
    """Join along an existing dim (``CatBackward0``): ``cat(tensors, dim=0)``."""
    ts, d, dt, saved = _join_arguments(sig.FN_CAT, args, kwargs, stacking=False)
    joined = [x._data for x in ts if x._data.shape != (0,)] or [ts[0]._data]
    out = wrap(np.concatenate(joined, axis=d), dt)
    if needs_grad(*ts):
        sizes = [None if x._data.shape == (0,) else x._data.shape[d] for x in ts]

        def bw(node: OpNode, s: Saved, g: Grads) -> Any:
            out_g, start = [], 0
            for n in sizes:
                if n is None:  # a skipped 1-D empty input (torch's legacy rule)
                    out_g.append(g[0].new_zeros(0))
                    continue
                out_g.append(g[0].narrow(d, start, n))
                start += n
            return tuple(out_g)

        record(out, "CatBackward0", ts, bw, saved)
    return out
