"""``x[i]`` of a 0-d ``x`` reports the size its first dim had before it lost its dims in place.

torch keeps sizes in ``SizesAndStrides``, whose first inline slot is not cleared when a tensor
goes 0-d in place, and its bounds check of a 0-d ``x[i]`` reads that slot
(:mod:`ownership.ops.leftover_size`): 1 after ``max(0)`` of a 1-d tensor (fuzz seed 200424:
"index 10 is out of bounds for dimension 0 with size 1"), 9 after ``resize_(())`` of a
``(9, 2)`` tensor, 0 for a new tensor or a view; ``detach()``, ``.data`` and ``x.data = y`` copy
it; an index within it reaches ``select``, which refuses a 0-dim tensor.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

ZERO_DIMS: dict[str, Any] = {
    "new": lambda t: t.tensor(5),
    "selected": lambda t: t.ones(3)[1],
    "summed": lambda t: t.ones(3).sum(),
    "max(0) of a row (fuzz seed 200424)": lambda t: (
        t.tensor([[-1, -2], [0, 2], [-3, 3]])[1].split(1)[1].max(0).values
    ),
    "max(0) of three": lambda t: t.tensor([3.0, 4.0, 5.0]).max(0).values,
    "its indices": lambda t: t.tensor([3.0, 4.0, 5.0]).max(0).indices,
    "min(0), requires grad": lambda t: t.ones(3, requires_grad=True).min(0)[0],
    "max(0) of a 0-d tensor": lambda t: t.tensor(3.0).max(0).values,
    "max(0, keepdim=True)": lambda t: t.ones(3).max(0, keepdim=True).values.squeeze_(0),
    "max(1) of a (4, 3), squeezed": lambda t: t.ones(4, 3).max(1).values.squeeze_()[0],
    "squeeze_": lambda t: t.ones(1, 1).squeeze_(),
    "resize_": lambda t: t.ones(9, 2).resize_(()),
    "as_strided_": lambda t: t.ones(9, 2).as_strided_((), ()),
    "grown, then shrunk": lambda t: t.tensor(1.0).unsqueeze_(0).resize_(7, 2).resize_(()),
    "a view's squeeze_": lambda t: t.ones(7, 2)[0, :1].squeeze_(),
    "detach()": lambda t: t.ones(3).max(0).values.detach(),
    ".data": lambda t: t.ones(3).max(0).values.data,
    "detach_()": lambda t: t.ones(3).max(0).values.detach_(),
    "clone()": lambda t: t.ones(3).max(0).values.clone(),
    "a view": lambda t: t.ones(3).max(0).values.view(()),
    "times one": lambda t: t.ones(3).max(0).values * 1,
}


def _assigned(t: Any, source: Any) -> Any:
    x = t.tensor(1.0)
    x.data = source
    return x


ZERO_DIMS["x.data = y"] = lambda t: _assigned(t, t.ones(3).max(0).values)
ZERO_DIMS["x.data = a new tensor"] = lambda t: _assigned(t, t.tensor(2.0))


@pytest.mark.parametrize("make", ZERO_DIMS.values(), ids=ZERO_DIMS.keys())
def test_a_0d_index_reports_the_leftover_size(make: Any) -> None:
    def program(t: Any) -> Any:
        x = make(t)
        seen: list[Any] = [x.shape]
        for i in (10, 1, -1, -2, 0):
            try:
                x[i]
            except IndexError as e:
                seen.append(str(e))
        for i in (10, -1):
            try:
                x[i] = 5
            except IndexError as e:
                seen.append(str(e))
        return seen

    same(program)
