"""``torch.empty_strided``: a new leaf with exactly the strides asked, over a storage just large
enough for them; everything but the (uninitialised) values is compared, and torch's errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same

LAYOUTS = {
    "transposed": ((2, 3), (1, 2)),
    "row-major": ((2, 3), (3, 1)),
    "gaps": ((3,), (2,)),
    "broadcast": ((2, 3), (0, 0)),
    "scalar": ((), ()),
    "empty": ((2, 0), (1, 2)),
    "channels last": ((1, 2, 3, 4), (24, 1, 8, 2)),
}


def facts(e: Any) -> Any:
    """What an uninitialised tensor shows besides its values."""
    return (
        e.shape,
        e.stride(),
        e.dtype,
        e.untyped_storage().size(),
        e.storage_offset(),
        e.is_contiguous(),
        e.requires_grad,
        e.is_leaf,
        e._version,
        e._base is None,
    )


@pytest.mark.parametrize("layout", LAYOUTS, ids=list(LAYOUTS))
def test_empty_strided_lays_out_as_asked(layout: str) -> None:
    size, stride = LAYOUTS[layout]

    def program(t: ModuleType) -> Any:
        plain = t.empty_strided(size, stride)
        wide = t.empty_strided(list(size), stride, dtype=t.float64, requires_grad=True)
        ints = t.empty_strided(size, stride, dtype=t.int64, device="cpu")
        return facts(plain), facts(wide), facts(ints)

    same(program)


ERRORS = {
    "fewer strides": lambda t: t.empty_strided((2, 3), (1,)),
    "negative stride": lambda t: t.empty_strided((2, 3), (-1, 1)),
    "negative size": lambda t: t.empty_strided((-2, 3), (1, 1)),
    "float size": lambda t: t.empty_strided(2.0, (1,)),
    "out": lambda t: t.empty_strided((2,), (1,), out=t.ones(2)),
    "int requires grad": lambda t: t.empty_strided((2,), (1,), dtype=t.int64, requires_grad=True),
    "pinned": lambda t: t.empty_strided((2,), (1,), pin_memory=True),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_empty_strided_errors(case: str) -> None:
    same(ERRORS[case])
