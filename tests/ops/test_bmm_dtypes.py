"""bmm refuses a bool ``self`` before it compares dtypes, and an empty product takes ``mat2``'s.

torch's CPU kernel returns at once for an empty result, or with zeros for an empty inner
dimension, of ``mat2``'s dtype (its meta function's ``batch2.options()``), whatever ``self``'s;
otherwise it dispatches on ``self``'s dtype (``"bmm" not implemented for 'Bool'``) and only then
finds ``mat2`` of another (``expected scalar type Float but found Bool``). matmul reaches bmm for
batches of different ranks or layouts (the fuzzer's seeds 385138, 387671, 393861).
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

DTYPES = ["bool", "int64", "float32", "float64"]
SHAPES = [
    ((2, 1, 3), (2, 3, 2)),
    ((0, 1, 3), (0, 3, 2)),
    ((2, 0, 3), (2, 3, 2)),
    ((2, 1, 0), (2, 0, 2)),
    ((2, 1, 3), (2, 3, 0)),
]


@pytest.mark.parametrize(("a_shape", "b_shape"), SHAPES, ids=str)
@pytest.mark.parametrize("b_dtype", DTYPES)
@pytest.mark.parametrize("a_dtype", DTYPES)
def test_bmm_of_two_dtypes(a_dtype: str, b_dtype: str, a_shape: Any, b_shape: Any) -> None:
    def program(t: Any) -> Any:
        a = t.ones(a_shape, dtype=getattr(t, a_dtype))
        b = t.ones(b_shape, dtype=getattr(t, b_dtype))
        return t.bmm(a, b)

    same(program)


def test_matmul_of_a_bool_batch_by_a_float_matrix() -> None:
    """Seed 393861: a bool batch of a layout matmul cannot fold, times a float matrix's ``mT``."""

    def program(t: Any) -> Any:
        t1 = t.arange(3.0).view(1, 3)
        t2 = t.tensor([[[False, True, False]], [[True, False, True]]])
        return t2[None].swapaxes(0, 1) @ t1.mT

    same(program)
