"""torch's ``set_history``: an op's result gets a ``grad_fn`` only if autograd can
differentiate its dtype; an integer or bool result of an op recorded on an input with a history
is refused ("Autograd not support dtype: Long")."""

from __future__ import annotations

from typing import Any

from support.differential import error_of, same


def test_an_integer_result_with_a_history_is_refused() -> None:
    """Fuzz program 339164: a write through a view gives an integer tensor a history
    (``CopySlices``); an op recorded on it refuses its integer result (torch's
    ``set_history``), a float result is recorded."""

    def program(t: Any) -> Any:
        x = t.tensor([0.0, -1.5, 2.0], requires_grad=True)
        b = t.tensor([[False, False, False], [True, True, False]])
        b.swapaxes(0, 1)[...] = x.mean()
        n = t.tensor([0, 1])
        n[:1] = x.sum()
        return [
            b.grad_fn,
            error_of(lambda: b[..., [0]]),
            error_of(lambda: n * 1),
            error_of(lambda: n.view(2, 1)),
            n * 1.5,
        ]

    same(program)
