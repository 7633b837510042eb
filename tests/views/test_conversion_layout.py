"""A dtype conversion (``to``, ``double``, ``long``, ``type_as`` ...) is a copy laid out as
``clone`` lays it out, torch's ``preserve_format``: a dense layout kept, any other (an expanded,
a stepped tensor) made contiguous in the order of its strides. numpy's ``astype`` kept the zero
strides' odd order (``x.expand(2, 3).double().stride()`` was (1, 2))."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

LAYOUTS: dict[str, Any] = {
    "permuted": lambda x: x.permute(2, 0, 1),
    "stepped": lambda x: x[:, :, ::2],
    "expanded first dim": lambda x: x[:1].expand(3, 3, 4),
    "permuted and stepped": lambda x: x.permute(2, 1, 0)[::2],
    "expanded new dim": lambda x: x.unsqueeze(0).expand(2, 2, 3, 4),
    "expanded then transposed": lambda x: x[:, :1].expand(2, 3, 4).transpose(0, 1),
    "a 0-d expanded": lambda x: x[0, 0, 0].expand(2, 3),
    "matrix transposed": lambda x: x.mT,
    "empty transposed": lambda x: x[:, :0].transpose(0, 2),
    "0-d": lambda x: x[1, 2, 3],
}
CONVERSIONS: dict[str, Any] = {
    "double": lambda t, v: v.double(),
    "long": lambda t, v: v.long(),
    "bool": lambda t, v: v.bool(),
    "to a dtype keyword": lambda t, v: v.to(dtype=t.float64),
    "type_as": lambda t, v: v.type_as(t.zeros(1, dtype=t.int32)),
    "to the same dtype, copy=True": lambda t, v: v.to(t.float32, copy=True),
}


@pytest.mark.parametrize("conversion", CONVERSIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_conversion_is_laid_out_as_a_clone(layout: str, conversion: str) -> None:
    def program(t: Any) -> Any:
        v = LAYOUTS[layout](t.arange(24.0, requires_grad=True).view(2, 3, 4) * 1)
        out = CONVERSIONS[conversion](t, v)
        return [out, out.stride(), v.clone().stride()]

    same(program)
