"""The gradient of ``cross_entropy``/``nll_loss`` has +0.0 where torch's kernel writes nothing.

torch zero-fills the input gradient and writes only the target entries, so the rows of ignored
targets (and the non-target entries of ``nll_loss``) are +0.0, never -0.0. Values compare equal
either way, so the tests compare ``np.signbit`` of the gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

from support.differential import same

LOGITS = np.random.RandomState(0).randn(4, 3).astype(np.float32)


def _signs(grad) -> list[list[bool]]:
    return np.signbit(grad.detach().numpy()).tolist()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_ignored_rows_get_positive_zero(reduction: str) -> None:
    def program(t):
        logits = t.tensor(LOGITS, requires_grad=True)
        target = t.tensor([0, -100, 2, -100])
        loss = t.nn.functional.cross_entropy(logits, target, reduction=reduction)
        (grad,) = t.autograd.grad(loss.sum(), logits)
        return [grad, _signs(grad)]

    same(program)


def test_nll_loss_non_target_entries_get_positive_zero() -> None:
    def program(t):
        logp = t.tensor(LOGITS, requires_grad=True)
        target = t.tensor([0, -100, 2, 1])
        loss = t.nn.functional.nll_loss(logp, target, reduction="none")
        (grad,) = t.autograd.grad(loss, logp, t.tensor([1.0, -2.0, -3.0, 4.0]))
        return [grad, _signs(grad)]

    same(program)
