"""maximum, minimum and clamp by a tensor meet ``0.0`` and ``-0.0`` as torch's CPU loop does.

torch's vector loop (blocks of two vectors: 16 float32 or 8 float64 elements on x86) answers the
second operand at such a tie (``_mm256_max_ps``), its scalar loop (the tail of a row, a row that
is not vectorised) the first (``std::max``): ``torch.maximum(tensor([-0.]), tensor([0.]))`` is
``-0.``, but in a block of 16 it is ``0.``. The programs return ``1 / y``, the sign of each zero
as the sign of an infinity, over lengths that reach the vector blocks and their tail, contiguous,
transposed, strided and broadcast operands.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

OPS: dict[str, Any] = {
    "maximum": lambda t, x, y: t.maximum(x, y),
    "minimum": lambda t, x, y: t.minimum(x, y),
    "max of two": lambda t, x, y: t.max(x, y),
    "min method": lambda t, x, y: x.min(y),
    "clamp_min": lambda t, x, y: t.clamp_min(x, y),
    "clamp_max": lambda t, x, y: x.clamp_max(y),
    "clamp min=": lambda t, x, y: t.clamp(x, min=y),
    "clamp both": lambda t, x, y: t.clamp(x, y, -y),
    "clamp_ both": lambda t, x, y: x.clone().clamp_(-y, y),
    "clamp_min_": lambda t, x, y: x.clone().clamp_min_(y),
}

LAYOUTS: dict[str, Any] = {
    "contiguous": lambda x, y: (x, y),
    "swapped": lambda x, y: (y, x),
    "transposed": lambda x, y: (x.reshape(4, -1).t(), y.reshape(4, -1).t()),
    "strided": lambda x, y: (x[::2], y[::2]),
    "rows": lambda x, y: (x.reshape(4, -1)[:, 1:], y.reshape(4, -1)[:, 1:]),
    "broadcast row": lambda x, y: (x.reshape(4, -1), y.reshape(4, -1)[0]),
    "broadcast number": lambda x, y: (x, y[1:2]),
}


@pytest.mark.parametrize("length", [3, 4, 9, 17])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("arrange", LAYOUTS.values(), ids=LAYOUTS.keys())
@pytest.mark.parametrize("op", OPS.values(), ids=OPS.keys())
def test_a_tie_of_two_zeros_takes_torchs_sign(
    op: Any, arrange: Any, dtype: str, length: int
) -> None:
    def program(t: Any) -> Any:
        dt = getattr(t, dtype)
        signs = t.tensor([-1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 2.0], dtype=dt).repeat(length)
        x = signs[: 4 * length] * 0.0
        y = -signs[1 : 4 * length + 1] * 0.0
        x[3] = float("nan")
        y[5] = 1.5
        a, b = arrange(x, y)
        out = op(t, a, b)
        return [out, 1 / out]

    same(program)


def test_the_fuzzers_program() -> None:
    """Seed 504287: three elements, all in the scalar loop: the first operand's ``-0.``."""

    def program(t: Any) -> Any:
        t1 = t.zeros((3,), requires_grad=True)
        t2 = t.tensor([1.0, -0.0, -0.0], requires_grad=True)
        t7 = t.maximum(t2.masked_fill(t2 > 0, 1.5).floor(), t1)
        return [t7, 1 / t7]

    same(program)


def test_a_zero_dimensional_tie() -> None:
    same(
        lambda t: [
            1 / t.maximum(t.tensor(-0.0), t.tensor(0.0)),
            1 / t.clamp(t.tensor(-0.0), t.tensor(0.0)),
        ]
    )
