"""The unit's practice exercise 1, as the practice page and its grader state it, against torch.

``collect_parameters(module) -> list[tuple[str, Tensor]]``: the parameters with their dotted
names, in ``named_parameters()`` order, found by recursion over registration (``_parameters``,
``_modules``), each tied parameter once, the Parameters themselves. The page's reference solution
is run on the grader's own trees (nested blocks, a frozen weight, buffers, a buffer named
``weight``, tied weights, a shared module, a root with a Parameter of its own) in both engines.
Then the follow-up: for each collected tensor, may the optimizer mutate it, and does it need a
gradient?
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ownership.auditing import audit
from ownership.grade.cases import collect_trees

from support.differential import same

SOLUTION = Path(__file__).resolve().parents[2] / "docs/guide/practice_files/practice_solution.py"


def collect(module: Any) -> list[tuple[str, Any]]:
    """The practice page's reference ``collect_parameters`` (it calls no torch function)."""
    spec = importlib.util.spec_from_file_location("practice_solution", SOLUTION)
    assert spec is not None and spec.loader is not None
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    return solution.collect_parameters(module)  # type: ignore[no-any-return]


@pytest.mark.parametrize("seed", [0, 1])
def test_the_collection_is_named_parameters_itself(seed: int) -> None:
    def program(t: ModuleType) -> Any:
        rows = []
        for tree in collect_trees(t, seed):
            found = collect(tree)
            expected = list(tree.named_parameters())
            rows.append(
                (
                    [n for n, _ in found],
                    [n for n, _ in found] == [n for n, _ in expected],
                    all(p is q for (_, p), (_, q) in zip(found, expected, strict=True)),
                    [type(p).__name__ for _, p in found],
                )
            )
        return rows

    rows = same(program)
    assert all(names_equal and identical for _, names_equal, identical, _ in rows)
    assert all(kinds == ["Parameter"] * len(kinds) for *_, kinds in rows)
    tied = [name for names, *_ in rows for name in names if "decoder.weight" in name]
    assert tied == []  # a tied weight is listed once, under its first name (encoder.weight)


def test_an_optimizer_built_from_it_steps_each_parameter_once() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        encoder, decoder = nn.Linear(2, 2), nn.Linear(2, 2)
        decoder.weight = encoder.weight
        model = nn.Sequential(encoder, nn.Tanh(), decoder)
        with t.no_grad():
            for p in model.parameters():
                p.fill_(0.5)
        optimizer = t.optim.SGD([p for _, p in collect(model)], lr=0.1)
        model(t.ones(1, 2)).sum().backward()
        before = decoder.weight._version
        optimizer.step()
        return (
            [name for name, _ in collect(model)],
            encoder.weight,
            decoder.weight._version - before,
        )

    names, _, writes = same(program)
    assert names == ["0.weight", "0.bias", "2.bias"] and writes == 1  # stepped once, not twice


class_rows = [
    ("0.weight", True, True),
    ("0.bias", True, True),
    ("1.weight", True, True),
    ("1.bias", True, True),
    ("2.module.weight", False, False),
    ("2.module.bias", True, True),
]


def practice_model(t: ModuleType) -> Any:
    """Linear, BatchNorm1d, and a counted Linear whose weight is frozen."""
    nn = t.nn
    if t.__name__ == "torch":
        import torch

        class EventCounter(torch.nn.Module):
            def __init__(self, module: Any) -> None:
                super().__init__()
                self.register_buffer("count", torch.zeros((), dtype=torch.int64))
                self.module = module

            def forward(self, input: Any) -> Any:
                with torch.no_grad():
                    self.count.add_(int(input.shape[0]) if input.dim() > 1 else 1)
                return self.module(input)

        counted = EventCounter(nn.Linear(3, 1))
    else:
        counted = nn.EventCounter(nn.Linear(3, 1))
    counted.module.weight.requires_grad_(False)
    return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), counted)


def test_may_the_optimizer_mutate_it_does_it_need_a_gradient() -> None:
    """The follow-up: a frozen Parameter is collected, but neither gets a gradient nor a step."""

    def program(t: ModuleType) -> Any:
        model = practice_model(t)
        found = collect(model)
        optimizer = t.optim.SGD([p for _, p in found], lr=0.1)
        model(t.ones(4, 2)).sum().backward()
        versions = {name: p._version for name, p in found}
        optimizer.step()
        return [
            (name, p._version > versions[name], p.grad is not None and p.requires_grad)
            for name, p in found
        ]

    assert same(program) == class_rows


def test_the_audit_states_the_same_answers() -> None:
    def program(t: ModuleType) -> Any:
        rows = audit(practice_model(t))
        return [(r.name, r.optimizer_mutates, r.requires_grad) for r in rows if r.kind != "buffer"]

    assert same(program) == class_rows
