"""``out=``: torch's out variants of the pointwise functions, the result written into a given
tensor.

``torch.mul(a, b, out=c)`` computes ``a * b`` and writes it into ``c``, which it returns. It is
an in-place write like any other (``c``'s version goes up once), in torch's order:

1. autograd refuses first: an out variant records no node, so while grad mode is on (and not
   in inference mode) no argument, ``out`` included, may require grad; then, in an
   ``allow_mutation_on_saved_tensors`` block, the saved tensors ``out`` shares are cloned;
2. the written tensor's checks (:func:`~ownership.core.inplace_rules.check_no_overlap`): no element
   of ``out`` written twice, no input overlapping it except as the very same elements;
3. the result computed, with the function's own errors (broadcasting, dtypes);
4. its dtype must cast to ``out``'s (no float into an integer ``out``, nothing into a bool
   one), or be ``out``'s exactly for the functions whose kernels cast nothing (``abs``,
   ``neg``, ``sign``, ``floor``...);
5. ``out`` resized to the result's shape when it differs (torch's ``resize_output``: a
   deprecation warning unless ``out`` had no elements; no version bump of its own);
6. the values written into ``out``'s memory, in ``out``'s own layout, cast to its dtype.

Only the functions the ops wrap with :func:`ownership.ops.out_variants.with_out` write ``out``
(the pointwise ones: arithmetic, comparisons, ``clamp``, ``maximum``, the logical and bitwise
ones, the one-tensor math), through :func:`write_out`, which
:func:`ownership.installation.install` gives them; every other signature with an ``out`` refuses
a given one (:func:`ownership.ops.out_variants.refuse_out`).

>>> import ownership
>>> c = ownership.zeros(2)
>>> ownership.mul(ownership.tensor([1.0, 2.0]), 3, out=c) is c, c, c._version
(True, tensor([3., 6.]), 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ownership.core import grad_mode, inference_mode, observers
from ownership.core.inplace_rules import check_cast, check_no_overlap, written
from ownership.core.tensor import Tensor
from ownership.core.warn_once import warn_at_user
from ownership.ops.common import refuse_out_grad
from ownership.ops.resizing import resize_impl

__all__ = ["write_out"]


def _resize_output(out: Tensor, shape: tuple[int, ...]) -> None:
    """torch's ``resize_output``: ``out`` given the result's shape, with its warning when it
    had elements (its version is bumped by the write, not here)."""
    if tuple(out._data.shape) == shape:
        return
    if out._data.size:
        warn_at_user(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out._data.shape)}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0)."
        )
    resize_impl(out, shape)


def write_out(
    name: str,
    out: Tensor,
    inputs: Sequence[Any],
    compute: Callable[[], Tensor],
    same_dtype: bool = False,
) -> Tensor:
    """The function ``name`` of ``inputs`` (its tensor arguments), computed by ``compute``,
    written into ``out`` by the module's rules; returns ``out``. ``same_dtype``: ``out`` must
    have the result's dtype exactly (a kernel that casts nothing)."""
    recording = grad_mode._state.enabled and not inference_mode._state.enabled
    if recording and (
        out.requires_grad or any(isinstance(x, Tensor) and x.requires_grad for x in inputs)
    ):
        refuse_out_grad(name)
    if observers.BEFORE_WRITES:  # e.g. allow_mutation_on_saved_tensors: saved tensors cloned
        observers.before_write(out)
    check_no_overlap(out, [x for x in inputs if isinstance(x, Tensor)])
    result = compute()
    if same_dtype and result.dtype is not out.dtype:
        raise RuntimeError(f"Found dtype {out.dtype.short} but expected {result.dtype.short}")
    check_cast(out, result.dtype)
    _resize_output(out, tuple(result._data.shape))
    np.copyto(out._data, result._data, casting="unsafe")
    written(out, name, inputs)
    return out
