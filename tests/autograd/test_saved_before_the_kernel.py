"""An out-of-place op packs what it saves before its own kernel checks its arguments.

torch's autograd kernel of an op that records makes the node and saves what the backward needs
(a pack hook runs) before it calls the op's kernel, whose checks (a dim out of range or repeated,
shapes that do not multiply, a reduction of an empty tensor without a dim, a dtype its kernel
has no form for) come after; an integer result is refused last, as the node is attached
(``set_history``). ``ownership.ops.common.run_op`` states that order once for every op; these
programs are the reductions, scans, norms and products that follow it.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

PROGRAMS: dict[str, Any] = {
    "addmm of shapes that do not multiply": lambda t, x: t.addmm(t.zeros(3), x, t.ones(5, 3)),
    "amax of an empty tensor without a dim": lambda t, x: x[:0].amax(),
    "amax over a dim out of range": lambda t, x: x.amax(5),
    "amin over an empty dim": lambda t, x: x[:0].amin(0),
    "logsumexp over no dims": lambda t, x: x.logsumexp(()),
    "logsumexp over a repeated dim": lambda t, x: x.logsumexp((1, 1)),
    "nansum into an integer dtype": lambda t, x: x.nansum(dtype=t.int64),
    "nansum over a dim out of range": lambda t, x: x.nansum(5),
    "prod over a dim out of range": lambda t, x: x.prod(5),
    "cumprod over a dim out of range": lambda t, x: x.cumprod(5),
    "cumprod into an integer dtype": lambda t, x: x.cumprod(1, dtype=t.int64),
    "cumprod into bool": lambda t, x: x.cumprod(1, dtype=t.bool),
    "std over a dim out of range": lambda t, x: x.std(5),
    "std over a repeated dim": lambda t, x: x.std((1, 1)),
    "std_mean over a dim out of range": lambda t, x: t.std_mean(x, 5),
    "norm over a dim out of range": lambda t, x: x.norm(dim=5),
    "inf norm of an empty tensor": lambda t, x: x[:0].norm(float("inf")),
    # recorded: what each saves, in its order
    "std_mean": lambda t, x: t.std_mean(x, 1),
    "batch_norm in training": lambda t, x: t.nn.functional.batch_norm(
        x, t.zeros(4), t.ones(4), training=True
    ),
    "sort": lambda t, x: x.sort(1),
    "mse_loss": lambda t, x: t.nn.functional.mse_loss(x, t.ones(3, 4)),
}


@pytest.mark.parametrize("program", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_a_pack_hook_runs_before_the_kernels_checks(program: Any) -> None:
    def run(t: Any) -> Any:
        packed: list[Any] = []

        def pack(v: Any) -> Any:
            packed.append(list(v.shape))
            return v

        x = t.tensor(
            [[0.5, -1.0, 2.0, 0.0], [1.5, 3.0, -0.5, 1.0], [2.0, -2.0, 0.5, -1.5]],
            requires_grad=True,
        )
        with t.autograd.graph.saved_tensors_hooks(pack, lambda v: v):
            try:
                program(t, x)
            except (RuntimeError, IndexError, NotImplementedError) as e:
                return [packed, type(e).__name__, str(e)]
        return packed

    same(run)


def test_an_integer_tensors_dtype_is_refused_before_its_dim() -> None:
    """``var`` of an integer tensor over a dim out of range: the kernel's dtype check first."""
    same(lambda t: t.ones(3, dtype=t.int64).var(5))
