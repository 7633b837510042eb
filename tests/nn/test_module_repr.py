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


def test_class_str_prints_the_engine_classes_as_torch_prints_its_own() -> None:
    import torch

    import ownership
    from ownership.nn.typename import class_str

    classes = [
        name for name in ownership.nn.__all__ if isinstance(getattr(ownership.nn, name), type)
    ]
    shared = [name for name in classes if hasattr(torch.nn, name)]
    assert len(shared) >= 15
    for name in shared:
        assert class_str(getattr(ownership.nn, name)) == str(getattr(torch.nn, name)), name
    assert class_str(ownership.Tensor) == str(torch.Tensor)
    assert class_str(ownership.nn.EventCounter) == str(ownership.nn.EventCounter)  # no torch twin
