"""``copy.deepcopy`` of a tensor, torch's way.

- Only leaves may be deep-copied (torch's ``RuntimeError`` for a tensor with a history).
- The memory is copied once per storage within one ``deepcopy`` call: tensors that shared
  memory (a tensor and its views) share the copied memory, with the same strides and offsets.
  Each copy is a new leaf (no ``_base``), with its own version counter, at version 1 (torch fills
  it with ``set_``).
- ``requires_grad`` is kept, and ``.grad`` is deep-copied along.

(``Parameter`` has its own ``__deepcopy__``: a fresh Parameter over a clone, at version 0.)

>>> import copy
>>> import ownership
>>> a = ownership.arange(4.0)
>>> b, v = copy.deepcopy([a, a[1:]])
>>> v.data_ptr() == b.data_ptr() + 4, v._base is None, b._version
(True, True, 1)
"""

from __future__ import annotations

import copy
from typing import Any

from ownership import layout
from ownership.storage import Storage, VersionCounter

__all__ = ["NON_LEAF_MESSAGE", "deepcopy_tensor"]

NON_LEAF_MESSAGE = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
    "the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
)


def deepcopy_tensor(t: Any, memo: dict[int, Any]) -> Any:
    """The deep copy of tensor ``t`` (see the module docs); registered in ``memo``."""
    if id(t) in memo:
        return memo[id(t)]
    if t.grad_fn is not None:
        raise RuntimeError(NON_LEAF_MESSAGE)
    old = t._storage.buffer
    key = id(old)
    buffer = memo.get(key)
    if buffer is None:
        buffer = memo[key] = old.copy()
        memo.setdefault(id(memo), []).append(old)  # keep `old` alive so its id stays unique
    data = layout.strided(buffer, t._data.shape, t.stride(), t._offset)
    new = type(t)._plain(type(t), data, Storage(buffer, VersionCounter(1)), t._offset, t.dtype)
    new._requires_grad = t._requires_grad
    memo[id(t)] = new
    if t._grad is not None:
        new._grad = copy.deepcopy(t._grad, memo)
    return new
