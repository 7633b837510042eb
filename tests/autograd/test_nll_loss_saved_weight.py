"""nll_loss saves ``total_weight`` as torch does, a 0-d tensor of the input's dtype: torch's
value, version and errors; hooks, observers and anomaly mode see it."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import ownership
from ownership.core import observers
from ownership.core.autograd.saved import SavedTensor

from support.differential import same


def _loss(t: ModuleType, dtype: str = "float32", target: Any = (0, 2, -100)) -> Any:
    x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0], [0.0, 1.0, 1.0]], dtype=getattr(t, dtype))
    x.requires_grad_(True)
    return t.nn.functional.cross_entropy(x, t.tensor(list(target))), x


def _facts(weight: Any) -> tuple[Any, ...]:
    return (
        weight.item(),
        weight.dtype,
        weight.shape,
        weight.stride(),
        weight._version,
        weight.requires_grad,
        weight.is_leaf,
        weight.grad_fn,
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("target", [(0, 2, -100), (1, 1, 0)])
def test_the_saved_weight_agrees_with_torch(dtype: str, target: Any) -> None:
    def program(t: ModuleType) -> Any:
        out, x = _loss(t, dtype, target)
        node = out.grad_fn
        weight = node._saved_total_weight
        again = node._saved_total_weight is weight
        out.backward(retain_graph=True)  # the backward does not read it
        facts = _facts(weight)
        out.backward()
        return facts, again, x.grad, _freed(node)

    same(program)


def _freed(node: Any) -> str:
    try:
        node._saved_total_weight
    except RuntimeError as e:
        return str(e)
    return "not freed"


def test_saved_tensor_hooks_see_the_weight_as_in_torch() -> None:
    def program(t: ModuleType) -> Any:
        seen: list[Any] = []

        def pack(x: Any) -> Any:
            seen.append((tuple(x.shape), x.dtype, x.tolist()))
            return x

        with t.autograd.graph.saved_tensors_hooks(pack, lambda x: x * 1):
            out, x = _loss(t)
        weight = out.grad_fn._saved_total_weight
        out.backward()
        return seen, _facts(weight), x.grad

    same(program)


def test_hooks_observers_and_anomaly_mode_see_the_weight_saved_now() -> None:
    with ownership.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        hooked, _ = _loss(ownership)
    assert type(hooked.grad_fn._saved["total_weight"]) is SavedTensor
    observed: list[Any] = []
    observers.SAVES.append(observed.append)
    try:
        watched, _ = _loss(ownership)
    finally:
        observers.SAVES.pop()
    assert observed[-1] is watched.grad_fn._saved["total_weight"]
    assert observed[-1].tensor.shape == ()
    with ownership.autograd.set_detect_anomaly(True):
        traced, _ = _loss(ownership)
    saved = traced.grad_fn._saved["total_weight"]
    assert type(saved) is SavedTensor and saved.trace is not None
