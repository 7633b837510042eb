"""The harness itself must be able to fail: a difference in any compared fact is reported.

``same`` always runs torch against ``differential._ownership()``; here that is replaced by a
stand-in engine (torch under another module object), and each program behaves differently under
the stand-in in exactly one respect, which ``same`` must report.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

from support import differential
from support.differential import Named, Raised, Tolerance, facts, run, same


@pytest.fixture
def other(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A second engine that is torch under another name, used as the engine under test."""
    stand_in = types.ModuleType("stand_in")
    stand_in.__getattr__ = lambda name: getattr(torch, name)  # type: ignore[method-assign]
    monkeypatch.setattr(differential, "_ownership", lambda: stand_in)
    return stand_in


def _differs(program: Callable[[Any], Any], needle: str, **options: Any) -> None:
    with pytest.raises(AssertionError, match=needle):
        same(program, **options)


def test_facts_of_a_tensor_include_grad_fn_version_and_shape() -> None:
    x = torch.ones(3, requires_grad=True)
    f = facts((x * 2).relu_())
    assert (f.grad_fn, f.version, f.is_leaf, f.shape, f.dtype) == (
        "ReluBackward0",
        1,
        False,
        (3,),
        "float32",
    )
    assert facts([torch.float64, (x * 2).grad_fn]) == [
        Named("torch.float64"),
        Named("<MulBackward0>"),
    ]


def test_an_exception_becomes_a_raised_result_and_warnings_are_kept() -> None:
    def program(t):  # type: ignore[no-untyped-def]
        warnings.warn("careful", stacklevel=1)
        return t.ones(2, requires_grad=True).add_(1)

    got = run(program, torch)
    assert isinstance(got.facts, Raised) and got.facts.kind == "RuntimeError"
    assert "a leaf Variable that requires grad" in got.facts.message
    line = program.__code__.co_firstlineno + 1
    assert got.warnings == (f"UserWarning: careful (at line {line})",)


def test_agreeing_engines_pass_and_return_torchs_facts(other: types.ModuleType) -> None:
    result = same(lambda t: [t.ones(2).add_(1), t.ones(2).dtype, t.ones(2, 3).shape, 3])
    assert result[0].version == 1
    assert result[1:] == [Named("torch.float32"), (2, 3), 3]


def test_a_difference_in_values_is_reported(other: types.ModuleType) -> None:
    _differs(lambda t: t.tensor([1.0, 2.0 if t is torch else 2.5]), r"result\.values")


def test_tolerances_are_passed_on(other: types.ModuleType) -> None:
    same(lambda t: t.tensor([1.0, 2.0 if t is torch else 2.01]), tolerance=Tolerance(ops=2**16))
    _differs(lambda t: t.tensor([1.0, 2.0 if t is torch else 2.01]), r"result\.values")


def test_a_difference_in_versions_is_reported(other: types.ModuleType) -> None:
    def program(t):  # type: ignore[no-untyped-def]
        x = t.ones(2)
        return x if t is torch else x.add_(0)

    _differs(program, r"result\.version: torch 0 != ownership 1")


def test_a_difference_in_grad_fn_names_is_reported(other: types.ModuleType) -> None:
    def program(t):  # type: ignore[no-untyped-def]
        x = t.ones(2, requires_grad=True)
        return x * 2 if t is torch else x + x

    _differs(program, r"result\.grad_fn: torch 'MulBackward0' != ownership 'AddBackward0'")


def test_a_difference_in_dtype_shape_or_parameter_ness_is_reported(other: types.ModuleType) -> None:
    _differs(lambda t: t.ones(2, dtype=t.float32 if t is torch else t.float64), r"\.dtype")
    _differs(lambda t: t.ones(2 if t is torch else 3), r"\.shape")
    _differs(
        lambda t: t.nn.Parameter(t.ones(2)) if t is torch else t.ones(2, requires_grad=True),
        r"\.is_parameter",
    )


def test_a_difference_in_plain_data_or_its_type_is_reported(other: types.ModuleType) -> None:
    _differs(lambda t: [1, "a" if t is torch else "b"], r"result\[1\]: torch 'a' != ownership 'b'")
    _differs(lambda t: 1 if t is torch else 1.0, r"torch int 1 != ownership float 1.0")


def test_a_difference_in_messages_or_classes_is_reported(other: types.ModuleType) -> None:
    def program(t):  # type: ignore[no-untyped-def]
        raise RuntimeError("expected" if t is torch else "other")

    _differs(
        program, r"torch raised RuntimeError: expected\n  ownership raised RuntimeError: other"
    )
    same(program, message=None)  # class only
    same(program, message=r"^(expected|other)$")
    _differs(program, "raised", message=r"^expected$")

    def kinds(t):  # type: ignore[no-untyped-def]
        raise (RuntimeError if t is torch else ValueError)("same words")

    _differs(kinds, r"ownership raised ValueError", message=None)
    _differs(
        lambda t: t.ones(2) if t is torch else 1 / 0,
        r"torch a tensor != ownership raised ZeroDivisionError",
    )


def test_a_difference_in_warnings_is_reported_unless_opted_out(other: types.ModuleType) -> None:
    def program(t):  # type: ignore[no-untyped-def]
        if t is torch:
            warnings.warn("learners read this", stacklevel=1)
        return 1

    _differs(
        program,
        r"warnings: torch \('UserWarning: learners read this \(at line \d+\)',\) != ownership \(\)",
    )
    assert same(program, warnings=False) == 1


def test_a_warning_that_names_another_line_is_a_difference(other: types.ModuleType) -> None:
    """Where a warning points is what a learner reads first: the program's own line (torch's C++
    warnings name it) or a line of the library (a warning torch gives from its Python code)."""

    def program(t):  # type: ignore[no-untyped-def]
        warnings.warn("here", stacklevel=1 if t is torch else 2)
        return 1

    _differs(
        program,
        r"'UserWarning: here \(at line \d+\)',\) != ownership \('UserWarning: here \(in the library\)'",
    )


def test_same_runs_through_the_module_run_so_a_conftest_can_wrap_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[Any] = []

    def spy(program: Any, engine: Any) -> Any:
        seen.append(engine)
        return run(program, engine)

    monkeypatch.setattr(differential, "run", spy)
    monkeypatch.setenv("OWNERSHIP_DIFF_SELF", "1")
    same(lambda t: t.ones(1))
    assert seen == [torch, torch]


@pytest.mark.parametrize(
    "program",
    [
        lambda t: undefined_name,  # type: ignore[name-defined]  # noqa: F821
        lambda t: t.no_such_function(),
        lambda t: __import__("no_such_module"),
    ],
    ids=["NameError", "AttributeError", "ModuleNotFoundError"],
)
def test_a_program_broken_under_torch_fails(other: types.ModuleType, program: Any) -> None:
    """Both engines raise the same error, yet the test fails: the program tests nothing."""
    _differs(program, "the program is broken under torch")


def test_a_test_of_an_attribute_error_says_so(other: types.ModuleType) -> None:
    same(lambda t: t.ones(1).grad_fn.name, raises="AttributeError")
    _differs(
        lambda t: t.ones(1), "the program should raise AttributeError", raises="AttributeError"
    )
    _differs(lambda t: t.ones(1) + None, "should raise AttributeError", raises="AttributeError")
