"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_``, torch's way, in place.

torch takes its "foreach" path for CPU tensors, so the writes are the foreach ones:
``clip_grad_norm_`` multiplies every gradient in place once (even when the coefficient is 1);
``clip_grad_value_`` clamps from below, then from above: two writes, two version bumps (one
``clamp_`` when asked for no foreach).

>>> import ownership
>>> p = ownership.nn.Parameter(ownership.tensor([3.0, 4.0]))
>>> p.grad = ownership.tensor([3.0, 4.0])
>>> clip_grad_norm_([p], max_norm=1.0), p.grad, p.grad._version
(tensor(5.), tensor([0.6000, 0.8000]), 1)
"""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable

from ownership.core.grad_mode import no_grad
from ownership.core.tensor import Tensor
from ownership.ops.creation import tensor
from ownership.ops.joining import stack
from ownership.ops.statistics import vector_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]

Tensors = Tensor | Iterable[Tensor]


def get_total_norm(
    tensors: Tensors,
    norm_type: float | str = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The p-norm of the per-tensor p-norms (as if all were one vector), a 0-d tensor: each
    tensor's norm in its dtype, stacked (promoted) and normed again, as torch's.

    Raises torch's ``RuntimeError`` when it is not finite and ``error_if_nonfinite``, and the
    ``_foreach_norm``'s refusal of an infinity norm of an empty tensor (``foreach`` not
    ``False``; else ``linalg.vector_norm``'s, which the ``-inf`` norm always gives).
    """
    items = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    p = float(norm_type)
    if not items:
        return tensor(0.0)
    if p == math.inf and foreach is not False and any(t.numel() == 0 for t in items):
        raise RuntimeError(
            "_foreach_norm cannot compute the infinity norm on an empty tensor because the "
            "operation does not have an identity"
        )
    with no_grad():
        total = vector_norm(stack([vector_norm(t, p, None, False) for t in items]), p, None, False)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {p} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite "
            "norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grad_norm_(
    parameters: Tensors,
    max_norm: float,
    norm_type: float | str = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale every ``.grad`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``.

    Returns the total norm before clipping (see :func:`get_total_norm`; the scaling is
    :func:`clip_grads_with_norm_`'s). Each gradient is
    written once (its version goes up by one) even when nothing needs clipping. An empty
    generator warns, as in torch.
    """
    if isinstance(parameters, Tensor):
        params = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        params = list(parameters)
        if is_generator and not params:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=2,
            )
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grads_with_norm_(
    parameters: Tensors, max_norm: float, total_norm: Tensor, foreach: bool | None = None
) -> None:
    """Scale every ``.grad`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``, a norm
    computed before (:func:`clip_grad_norm_` with :func:`get_total_norm`'s result).

    ``max_norm`` is converted to a float even when no parameter has a gradient (torch's
    ``ValueError`` for one that is no number).
    """
    params = [parameters] if isinstance(parameters, Tensor) else parameters
    grads = [p.grad for p in params if p.grad is not None]
    limit = float(max_norm)
    if grads:
        with no_grad():
            coef = (limit / (total_norm + 1e-6)).clamp(max=1.0)
            for g in grads:
                g.mul_(coef)


def clip_grad_value_(parameters: Tensors, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every ``.grad`` in place into ``[-clip_value, clip_value]``: from below, then from
    above (two writes each), or in one ``clamp_`` when ``foreach`` is ``False``.

    Raises torch's ``RuntimeError`` (its check that a list to group by dtype is not empty) when
    no parameter has a gradient.
    """
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    value = float(clip_value)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        raise RuntimeError(
            "Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this "
            "error message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    with no_grad():
        for g in grads:
            if foreach is False:
                g.clamp_(min=-value, max=value)
            else:
                g.clamp_(min=-value)
                g.clamp_(max=value)
