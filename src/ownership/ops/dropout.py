"""``dropout``: each element zeroed with probability ``p``, the rest scaled by ``1 / (1 - p)``.

torch's CPU kernel, step for step: outside training, with ``p == 0`` or no elements the input
itself is returned (no new tensor, no node); ``p == 1`` multiplies by a 0-d zero; otherwise the
noise is a tensor like the input filled in place with Bernoulli(``1 - p``) draws, then divided
in place by ``1 - p`` (so its version is 2, as torch's),
and the result is ``input * noise`` (``MulBackward0``, which saves the noise) or, with
``inplace``, ``input.mul_(noise)``. The draws are torch's: ``bernoulli_(1 - p)`` on the global
generator (``ownership.random``), so a seeded dropout zeroes torch's elements.

>>> import ownership
>>> x = ownership.ones(6, requires_grad=True)
>>> dropout(x, 0.5, training=False) is x
True
>>> y = dropout(x, 0.5)
>>> y.grad_fn.name(), sorted(set(y.tolist()) - {0.0, 2.0})
('MulBackward0', [])
"""

from __future__ import annotations

from typing import Any

from ownership.core.tensor import Tensor
from ownership.ops.argument_values import tensor_arg
from ownership.ops.creation import empty_like, zeros
from ownership.ops.inplace_fills import bernoulli_


def check_probability(p: Any) -> None:
    """torch's refusal of a probability outside [0, 1] (``nn.Dropout`` and ``F.dropout``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """``input`` with each element zeroed with probability ``p`` and the rest scaled by
    ``1 / (1 - p)`` when ``training`` (torch's steps: the docstring of ``ownership.ops.dropout``);
    torch's refusals, the probability's first, then an ``input`` that is no tensor."""
    check_probability(p)
    tensor_arg("dropout", input)
    if p == 0 or not training or input._data.size == 0:
        return input
    if p == 1:
        zero = zeros((), dtype=input.dtype).zero_()  # torch's ``at::zeros``: version 1
        return input.mul_(zero) if inplace else input * zero
    noise = empty_like(input)  # torch's: the input's layout, so drawn in its memory order
    bernoulli_(noise, 1 - p)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise
