"""ownership.compare must be able to fail: every kind of difference is reported and raises."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import ownership
from ownership.compare import Raised, TensorFacts, Tolerance, differences, facts, run, side_by_side


def _both(program: Any, **options: Any) -> Any:
    return side_by_side(program, engines={"torch": torch, "copy": torch}, **options)


def test_agreeing_runs_return_facts_and_the_returned_objects() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([0.0, 1.0], requires_grad=True)
        h = x.sigmoid()
        h.mul_(2)
        return h

    result = _both(program)
    f = result["torch"]
    assert isinstance(f, TensorFacts)
    assert (f.grad_fn, f.version, f.is_leaf, f.shape, f.dtype) == (
        "MulBackward0",
        1,
        False,
        (2,),
        "float32",
    )
    assert result.names == ["torch", "copy"]
    assert isinstance(result.returned("copy"), torch.Tensor)
    text = str(result)
    assert "tensor([1.0000, 1.4621], grad_fn=<MulBackward0>)" in text
    assert "_version=1" in text
    assert "<table" in result._repr_html_() and "&lt;MulBackward0&gt;" in result._repr_html_()


def test_keyword_engines_run_in_order() -> None:
    result = side_by_side(lambda t: t.ones(1).add_(1)._version, a=torch, b=torch)
    assert result.names == ["a", "b"] and result.first == 1


class _Wrong:
    """An engine that gets one thing wrong, selected by ``what``; otherwise it is torch."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __getattr__(self, name: str) -> Any:
        return getattr(torch, name)


def _program(t: Any) -> Any:
    x = t.tensor([1.0, 2.0], requires_grad=True)
    what = getattr(t, "what", "")
    if what == "values":
        return x * 2.5
    if what == "version":
        y = x * 2
        y.add_(0)
        return y
    if what == "grad_fn":
        return x + x
    if what == "leaf":
        return (x * 2).detach().requires_grad_()
    if what == "dtype":
        return (x * 2).double()
    if what == "shape":
        return (x * 2).reshape(2, 1)
    if what == "scalar":
        return 2
    if what == "scalar type":
        return 2.0
    if what == "container":
        return [x * 2]
    if what == "error":
        raise RuntimeError("a different message")
    if what == "warning":
        warnings.warn("surprise", UserWarning, stacklevel=1)
    if what == "parameter":
        return t.nn.Parameter(x * 2)
    return x * 2 if what != "warning" else x.detach() * 2


@pytest.mark.parametrize(
    ("what", "needle"),
    [
        ("values", "values"),
        ("version", "version"),
        ("grad_fn", "grad_fn"),
        ("leaf", "is_leaf"),
        ("dtype", "dtype"),
        ("shape", "shape"),
        ("scalar", "int 2"),
        ("scalar type", "float 2.0"),
        ("container", "list"),
        ("error", "raised"),
        ("warning", "warnings"),
        ("parameter", "is_parameter"),
    ],
)
def test_every_kind_of_difference_raises(what: str, needle: str) -> None:
    with pytest.raises(AssertionError, match=needle):
        side_by_side(_program, torch=torch, wrong=_Wrong(what))


def test_messages_are_compared_exactly_unless_asked_otherwise() -> None:
    def program(t: Any) -> Any:
        raise ValueError("one" if t is torch else "two")

    with pytest.raises(AssertionError, match="raised ValueError: one"):
        side_by_side(program, a=torch, b=_Wrong(""))
    side_by_side(program, a=torch, b=_Wrong(""), message=None)
    side_by_side(program, a=torch, b=_Wrong(""), message="o")
    with pytest.raises(AssertionError):
        side_by_side(program, a=torch, b=_Wrong(""), message="one")


def test_a_raised_error_is_a_result_and_is_shown() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([0.0, 1.0], requires_grad=True)
        h = x.sigmoid()
        h.mul_(2)
        h.sum().backward()

    result = _both(program)
    assert isinstance(result.first, Raised) and result.first.kind == "RuntimeError"
    assert "output 0 of Sigmoid, is at version 1; expected version 0" in result.first.message
    assert "RuntimeError: one of the variables" in str(result)


def test_warnings_are_caught_compared_and_cleaned() -> None:
    def program(t: Any) -> Any:
        return (t.ones(1, requires_grad=True) * 2).grad

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may escape to stderr
        got = run(program, torch)
    assert got.facts is None
    assert got.warnings and got.warnings[0].startswith("UserWarning: The .grad attribute")
    assert "Triggered internally" not in got.warnings[0]

    def only_torch_warns(t: Any) -> Any:
        return program(t) if t is torch else None

    with pytest.raises(AssertionError, match="warnings"):
        side_by_side(only_torch_warns, a=torch, b=_Wrong(""))
    side_by_side(only_torch_warns, a=torch, b=_Wrong(""), compare_warnings=False)


def test_facts_of_plain_data() -> None:
    assert facts((1, [2.0, {"k": None}])) == (1, [2.0, {"k": None}])
    assert repr(facts(torch.float64)) == "torch.float64"
    assert facts(torch.Size([2, 3])) == (2, 3)
    assert differences(facts(np.arange(3)), facts(np.arange(3)), ("a", "b")) == []
    assert differences(facts(np.int64(3)), facts(4), ("a", "b")) == ["result: a 3 != b 4"]


def test_tolerances_apply_to_values_only() -> None:
    near = facts(torch.tensor([1.0]))
    far = facts(torch.tensor([1.0 + 1e-4]))
    assert differences(near, far) and not differences(near, far, tolerance=Tolerance(ops=2**11))


def test_at_least_two_engines() -> None:
    with pytest.raises(ValueError, match="two engines"):
        side_by_side(_program, torch=torch)


def test_an_inference_tensor_is_compared_without_a_version() -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            made = t.ones(2) * 2
        return made, t.ones(2)

    inference, ordinary = side_by_side(program, torch=torch, ownership=ownership)["torch"]
    assert inference.version is None and "no version counter" in str(inference)
    assert ordinary.version == 0
