"""The checks of ``sgd_step(model, loss_fn, x, y, lr) -> float``.

Each seeded case (:func:`~ownership.grade.cases.sgd_cases`) is run twice: by the learner, and
by the reference step on an identical copy (zero the gradients, forward, loss, backward, then
``p -= lr * p.grad`` under no_grad). The learner's update ``d = p_before - p_after`` (all
parameters together) is then fitted as ``c * G`` for the two gradients a step could have used:
this batch's ``g`` and, when stale gradients were planted, ``g + stale`` (``no-zero-grad``).
``c`` must be ``lr`` (``wrong-sign``, ``wrong-lr``); no change at all is ``zero-after-backward``
(the gradients were emptied) or ``rebinds-parameter`` (they were not); a right update that left
every parameter's ``_version`` alone went through ``.data``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.grade.cases import SgdCase, sgd_cases
from ownership.grade.learner import call

__all__ = ["check_sgd"]

_FIT = 1e-3  # relative residual of a fit, and relative error of the rate (float32 arithmetic)


def _flat(tensors: list[Any]) -> NDArray[np.float64]:
    return np.concatenate([np.asarray(t.detach().numpy(), np.float64).ravel() for t in tensors])


def _reference(case: SgdCase, engine: Any) -> tuple[list[Any], float]:
    """This batch's gradients and loss, from the reference step on the case's copy."""
    model = case.model
    model.zero_grad(set_to_none=True)
    loss = case.loss_fn(model(case.x), case.y)
    loss.backward()
    grads = [p.grad.detach().clone() for p in model.parameters()]
    return grads, float(loss.item())


def _fit(d: NDArray[np.float64], g: NDArray[np.float64]) -> tuple[float, float]:
    """``(c, residual)`` of the least-squares fit ``d ≈ c * g``; residual relative to ``|d|``."""
    c = float(d @ g / (g @ g))
    return c, float(np.linalg.norm(d - c * g)) / max(float(np.linalg.norm(d)), 1e-30)


def _judge_update(
    case: SgdCase, before: dict[str, Any], grads: list[Any], stale: list[Any] | None
) -> set[str]:
    codes: set[str] = set()
    now = dict(case.model.named_parameters())
    if list(now) != list(before) or any(now[n] is not before[n]["p"] for n in before):
        codes.add("rebinds-parameter")
    if any(p.grad_fn is not None for p in now.values()):
        codes.add("tracked-update")
    if codes:
        return codes
    d = _flat([before[n]["value"] for n in before]) - _flat(list(now.values()))
    if not np.any(d):
        emptied = all(p.grad is None or not bool(p.grad.any()) for p in now.values())
        return codes | {"zero-after-backward" if emptied else "rebinds-parameter"}
    candidates = [(_flat(grads), "")]
    if stale is not None:
        candidates.append((_flat(grads) + _flat(stale), "no-zero-grad"))
    (c, residual), code = min(((_fit(d, g), code) for g, code in candidates), key=lambda f: f[0][1])
    if residual > _FIT:
        return codes | {"wrong-update"}
    codes |= {code} - {""}
    if c < 0:
        codes.add("wrong-sign")
    if abs(abs(c) - case.lr) > _FIT * case.lr:
        codes.add("wrong-lr")
    if all(p._version == before[n]["version"] for n, p in now.items()):
        codes.add("data-update")
    return codes


def _judge_loss(result: Any, loss: float, engine: Any) -> set[str]:
    if result is None or (isinstance(result, engine.Tensor) and result.requires_grad):
        return {"loss-not-returned"}
    try:
        value = float(result)
    except (TypeError, ValueError, RuntimeError):
        return {"loss-not-returned"}
    return set() if abs(value - loss) <= 1e-4 * max(1.0, abs(loss)) else {"wrong-loss"}


def check_sgd(function: Callable[..., Any], path: Path, engine: Any, seed: int) -> list[str]:
    """The codes of ``function``'s problems over the seeded steps (empty: it passed)."""
    codes: set[str] = set()
    references = sgd_cases(engine, seed)
    for case, twin in zip(sgd_cases(engine, seed), references, strict=True):
        model = case.model
        before = {
            n: {"p": p, "value": p.detach().clone(), "version": p._version}
            for n, p in model.named_parameters()
        }
        stale = [p.grad.detach().clone() for p in model.parameters()] if case.stale else None
        buffer = model.scale.detach().clone(), model.scale._version
        grads, loss = _reference(twin, engine)
        try:
            result = call(function, path, model, case.loss_fn, case.x, case.y, case.lr)
        finally:
            engine.set_grad_enabled(True)  # a learner's set_grad_enabled(False) must not leak
        codes |= _judge_update(case, before, grads, stale)
        scale = model._buffers.get("scale")
        if scale is None or scale._version != buffer[1] or not bool((scale == buffer[0]).all()):
            codes.add("updates-buffers")
        codes |= _judge_loss(result, loss, engine)
    return sorted(codes)
