"""The harness itself must be able to fail: a difference in any compared fact is reported."""

import pytest
import torch

from differential import Raised, _compare, facts, run


def test_facts_of_a_tensor_include_grad_fn_and_version() -> None:
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).relu_()
    f = facts(y)
    assert f.grad_fn == "ReluBackward0"
    assert f.version == 1
    assert not f.is_leaf


def test_a_difference_in_values_versions_or_names_is_reported() -> None:
    a = facts(torch.ones(2).add_(1))
    b = facts(torch.ones(2) + 1)
    assert any("version" in p for p in _compare(a, b, "r", 1e-5, 1e-6))
    c = facts(torch.tensor([1.0, 2.5]))
    d = facts(torch.tensor([1.0, 2.0]))
    assert any("values" in p for p in _compare(c, d, "r", 1e-5, 1e-6))


def test_an_exception_becomes_a_raised_result() -> None:
    def program(t):  # type: ignore[no-untyped-def]
        return t.ones(2, requires_grad=True).add_(1)

    got = run(program, torch)
    assert isinstance(got, Raised) and got.kind == "RuntimeError"
    assert "a leaf Variable that requires grad" in got.message


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
