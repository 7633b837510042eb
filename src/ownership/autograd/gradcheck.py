"""``gradcheck``: compare backward's Jacobian with central finite differences (use float64)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ownership.autograd import grad
from ownership.core.storage import is_engine_tensor


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when the analytical and numerical Jacobians differ."""


def _outputs(fn: Callable[..., Any], inputs: tuple[Any, ...]) -> list[Any]:
    out = fn(*inputs)
    return list(out) if isinstance(out, list | tuple) else [out]


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **unused: Any,
) -> bool:
    """True when backward agrees with finite differences for every output and input.

    Inputs that require grad are perturbed by ``eps`` (central differences); mismatches raise
    :class:`GradcheckError` (or return False with ``raise_exception=False``).
    """
    ins = tuple(inputs) if isinstance(inputs, list | tuple) else (inputs,)
    diff = [i for i, x in enumerate(ins) if is_engine_tensor(x) and x.requires_grad]
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )
    for i in diff:
        if any(s == 0 and n > 1 for s, n in zip(ins[i].stride(), ins[i].shape, strict=True)):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients correctly. "
                "You should call .contiguous on the input before passing it to gradcheck."
            )
    for i in diff:
        if ins[i].dtype.name != "float64":
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double precision "
                "floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    outs = _outputs(func, ins)
    for k, out in enumerate(outs):
        if not is_engine_tensor(out) or not out.dtype.is_floating_point:
            continue
        n_out = out._data.size
        analytical = {i: np.zeros((ins[i]._data.size, n_out)) for i in diff}
        if out.requires_grad:
            for j in range(n_out):
                seed = np.zeros(n_out, dtype=out._data.dtype)
                seed[j] = 1
                g = out._wrap(seed.reshape(out._data.shape), out.dtype)
                gs = grad(out, [ins[i] for i in diff], g, retain_graph=True, allow_unused=True)
                for i, gi in zip(diff, gs, strict=True):
                    if gi is not None:
                        analytical[i][:, j] = gi._data.reshape(-1)
        for i in diff:
            x = ins[i]._data
            flat = x.reshape(-1) if x.flags.c_contiguous else None
            numerical = np.zeros_like(analytical[i])
            for e in range(x.size):
                idx = np.unravel_index(e, x.shape)
                orig = x[idx].item()
                x[idx] = orig + eps
                plus = np.array(_outputs(func, ins)[k]._data, dtype=np.float64).reshape(-1)
                x[idx] = orig - eps
                minus = np.array(_outputs(func, ins)[k]._data, dtype=np.float64).reshape(-1)
                x[idx] = orig
                numerical[e, :] = (plus - minus) / (2 * eps)
            del flat
            if not np.allclose(analytical[i], numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                wrap = ins[i]._wrap
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{wrap(numerical)!r}\nanalytical:{wrap(analytical[i])!r}\n"
                )
    return True
