"""The elements of a "tuple of ints" argument, run under torch and ownership.

torch's parser checks only the first element of an int list when it picks a signature: an int
(never a bool), a one-element tensor of an integer or bool dtype, or anything with ``__index__``.
A list that starts otherwise is refused with ``must be tuple of ints, but found element of type
bool at pos 0`` (or, among several signatures, the "invalid combination" message). The other
elements are read with ``__index__`` (a bool there is 1 or 0), and one that has none is refused
with ``failed to unpack the object at pos N``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import same


class Index:
    """Not an int, but has ``__index__``: torch takes it in an int list."""

    def __index__(self) -> int:
        return 1


def _x(t: Any) -> Any:
    return t.arange(6.0).reshape(2, 3)


FIRST: dict[str, Any] = {
    "flip_bool": lambda t: _x(t).flip([True]),
    "flip_bool_tuple": lambda t: _x(t).flip((True,)),
    "flip_bool_keyword": lambda t: _x(t).flip(dims=[False]),
    "flip_numpy_bool": lambda t: _x(t).flip([np.bool_(True)]),
    "flip_float_tensor": lambda t: _x(t).flip([t.tensor(1.0)]),
    "permute_bools": lambda t: _x(t).permute([True, False]),
    "repeat_bool_then_int": lambda t: _x(t).repeat([True, 2]),
    "amax_bool": lambda t: _x(t).amax([True]),
    "amin_bool": lambda t: _x(t).amin([True]),
    "logsumexp_bool": lambda t: _x(t).logsumexp([True]),
    "reshape_bool": lambda t: _x(t).reshape([True, 6]),
    "expand_bool": lambda t: _x(t).expand([True, 2, 3]),
    "zeros_bool": lambda t: t.zeros([True, 2]),
    # several signatures: torch's "invalid combination" message
    "view_bool": lambda t: _x(t).view([True, 6]),
    "squeeze_bool": lambda t: _x(t).squeeze([True]),
    "sum_bool": lambda t: _x(t).sum([True]),
    "mean_bool": lambda t: _x(t).mean([True]),
    "var_bool": lambda t: _x(t).var([True]),
    "fn_sum_bool": lambda t: t.sum(_x(t), [True]),
}

TAKEN: dict[str, Any] = {
    "bool_after_an_int": lambda t: _x(t).flip([0, True]),
    "permute_int_then_bool": lambda t: _x(t).permute([1, False]),
    "int_tensor_first": lambda t: _x(t).flip([t.tensor([1])]),
    "bool_tensor_first": lambda t: _x(t).flip([t.tensor(True)]),
    "int_matrix_tensor_first": lambda t: _x(t).flip([t.tensor([[1]])]),
    "int32_tensor_first": lambda t: _x(t).flip([t.tensor(1, dtype=t.int32)]),
    "index_first": lambda t: _x(t).flip([Index()]),
    "index_second": lambda t: _x(t).flip([0, Index()]),
    "int_tensor_second": lambda t: _x(t).flip([0, t.tensor(1)]),
    "bool_tensor_second": lambda t: _x(t).flip([0, t.tensor(True)]),
    "numpy_int_first": lambda t: _x(t).flip([np.int64(1)]),
    "empty": lambda t: _x(t).flip([]),
}

UNPACKED: dict[str, Any] = {
    "float_second": lambda t: _x(t).flip([0, 1.5]),
    "numpy_bool_second": lambda t: _x(t).flip([0, np.bool_(True)]),
    "float_tensor_second": lambda t: _x(t).flip([0, t.tensor(1.0)]),
    "long_tensor_second": lambda t: _x(t).flip([0, t.tensor([1, 2])]),
    "none_second": lambda t: _x(t).flip([0, None]),
}


@pytest.mark.parametrize("program", FIRST.values(), ids=FIRST.keys())
def test_a_list_that_starts_with_a_bool_is_not_a_tuple_of_ints(program: Any) -> None:
    same(program)


@pytest.mark.parametrize("program", TAKEN.values(), ids=TAKEN.keys())
def test_what_torch_takes_as_an_element_of_an_int_list(program: Any) -> None:
    same(program)


@pytest.mark.parametrize("program", UNPACKED.values(), ids=UNPACKED.keys())
def test_a_later_element_without_index_fails_to_unpack(program: Any) -> None:
    same(program)


def test_the_first_bool_is_named_in_torchs_words() -> None:
    raised = same(lambda t: _x(t).flip([True]))
    assert str(raised) == (
        "TypeError: flip(): argument 'dims' (position 1) must be tuple of ints, but found "
        "element of type bool at pos 0"
    )
