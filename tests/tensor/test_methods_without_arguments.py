"""A method that takes no arguments, given some (``x.tanh(1)``): torch's TypeError, worded as a
direct call words it (``TensorBase.tanh() takes no arguments (1 given)``), before the method
does anything (an in-place one writes nothing)."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

NO_ARGUMENTS = [
    "abs",
    "abs_",
    "cos",
    "cos_",
    "exp",
    "exp_",
    "isfinite",
    "isinf",
    "isnan",
    "item",
    "log",
    "log_",
    "logical_not",
    "neg",
    "neg_",
    "reciprocal",
    "relu",
    "relu_",
    "sigmoid",
    "sigmoid_",
    "sign",
    "sin",
    "sin_",
    "sqrt",
    "sqrt_",
    "t",
    "t_",
    "tanh",
    "tanh_",
    "tolist",
    "zero_",
]


@pytest.mark.parametrize("given", ["1", "0, 2", "None"])
@pytest.mark.parametrize("name", NO_ARGUMENTS)
def test_positional_arguments_are_refused_as_torch_refuses_them(name: str, given: str) -> None:
    """Written out as a learner writes the call: torch words ``x.tanh(*args)`` or a method
    fetched with ``getattr`` differently (``Tensor.tanh()``), the engine as a direct call."""
    call = eval(f"lambda x: x.{name}({given})")  # a direct call, compiled as written

    def program(t: Any) -> Any:
        x = t.tensor([[0.5, 2.0], [1.0, 4.0]])
        try:
            call(x)
        except TypeError as error:  # the message, and nothing written
            return [type(error).__name__, str(error), x, x._version]
        return None

    assert same(program)[0] == "TypeError"


@pytest.mark.parametrize("name", ["tanh", "exp_", "t", "item"])
def test_the_same_methods_without_arguments_are_torchs(name: str) -> None:
    same(lambda t: getattr(t.tensor([[0.5]]), name)())
