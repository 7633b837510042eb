"""Module repr: torch's tree, extra_repr on one line or many, indentation of nested children."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from support import nn_models
from support.differential import same


def test_nested_tree() -> None:
    def program(t: ModuleType) -> Any:
        return repr(nn_models.nested(t)), repr(nn_models.tied(t)), repr(t.nn.Module())

    text = same(program)[0]
    assert text.startswith("Net(\n  (first): Block(\n    (linear): Linear(in_features=3")


def test_extra_repr_one_line_and_multi_line() -> None:
    def program(t: ModuleType) -> Any:
        class One(t.nn.Module):  # type: ignore[name-defined,misc]
            def extra_repr(self) -> str:
                return "size=3"

        class Many(t.nn.Module):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                super().__init__()
                self.inner = One()

            def extra_repr(self) -> str:
                return "a=1\nb=2"

        return repr(One()), repr(Many()), str(Many())

    same(program)
