"""``t[key] = value`` with an advanced key is torch's ``index_put_``: the value loses its leading
size-1 dims (as for any assignment), then must expand to the indexing result (``is_expandable_to``:
never the other way, as numpy's broadcasting would allow)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

# (shape of the written tensor, key, the value's shape)
SHAPES: dict[str, tuple[tuple[int, ...], Any, tuple[int, ...]]] = {
    "larger than the result": ((4,), [0], (2,)),
    "larger, after a leading one": ((4,), [0], (1, 2)),
    "leading ones dropped": ((4,), [0, 1], (1, 1, 2)),
    "a trailing one is no leading one": ((4,), [0, 1], (2, 1)),
    "a size-1 dim expands": ((2, 2), [0, 1], (2, 1)),
    "too long for the result": ((2, 2), [0, 1], (3,)),
    "named without its leading one": ((2, 2), ([0, 1], [1, 1]), (1, 3)),
    "through a slice": ((2, 2), (slice(1, None), [0, 1]), (1, 1, 3)),
    "through a slice, expanded": ((2, 3), (slice(1, None), [0, 2]), (1, 1, 1)),
    "a mask": ((2, 2), "mask", (2, 2)),
    "a mask, too large": ((2, 2), "mask", (3,)),
}


@pytest.mark.parametrize("case", SHAPES)
def test_the_value_expands_to_the_indexing_result(case: str) -> None:
    shape, key, value_shape = SHAPES[case]

    def program(t: Any) -> Any:
        x = t.arange(float(t.Size(shape).numel())).view(shape)
        x[x > 0 if key == "mask" else key] = t.ones(value_shape)
        return x

    same(program)
