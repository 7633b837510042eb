"""The unit's practice item: collect a nested module's parameters recursively, in forward order.

TensorTonic's "Collect Module Parameters Recursively": layers in forward order; within a layer,
neuron by neuron (rows of the weight), each neuron's weights followed by its own bias; entries
are views into the parameters, not copies; the count is the sum of n_out*n_in + n_out; and
collecting changes nothing. Then, for each collected tensor: may the optimizer mutate it, and
does it need a gradient?
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ownership.auditing import audit

from differential import same


def collect(t: ModuleType, model: Any) -> list[Any]:
    """Every scalar of every Linear, layer by layer, neuron by neuron: weights, then bias."""
    entries = []
    for layer in model.modules():  # pre-order: the forward order of these models
        if isinstance(layer, t.nn.Linear):
            for i in range(layer.out_features):
                entries.extend(layer.weight[i, j] for j in range(layer.in_features))
                if layer.bias is not None:
                    entries.append(layer.bias[i])
    return entries


def two_layers(t: ModuleType) -> Any:
    """Weights 1,2 / 3,4 with biases 5,6, then a 1x2 layer with weights 7,8 and bias 9."""
    model = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.Tanh(), t.nn.Linear(2, 1))
    model.load_state_dict(
        {
            "0.weight": t.tensor([[1.0, 2.0], [3.0, 4.0]]),
            "0.bias": t.tensor([5.0, 6.0]),
            "2.weight": t.tensor([[7.0, 8.0]]),
            "2.bias": t.tensor([9.0]),
        }
    )
    return model


def test_order_is_per_neuron_weights_then_bias() -> None:
    def program(t: ModuleType) -> Any:
        return [e.item() for e in collect(t, two_layers(t))]

    assert same(program) == [1.0, 2.0, 5.0, 3.0, 4.0, 6.0, 7.0, 8.0, 9.0]


def test_entries_are_views_and_collecting_changes_nothing() -> None:
    def program(t: ModuleType) -> Any:
        model = two_layers(t)
        params = list(model.parameters())
        versions = [p._version for p in params]
        entries = collect(t, model)
        bases = [any(e._base is p for p in params) for e in entries]
        unchanged = [p._version for p in params] == versions
        with t.no_grad():
            entries[2].add_(100.0)  # a write through the entry lands in the parameter
        return bases, unchanged, model[0].bias, model[0].bias._version, entries[2]._version

    result = same(program)
    assert all(result[0]) and result[1]


def test_count_is_the_sum_of_n_out_n_in_plus_n_out() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        model = nn.Sequential(
            nn.Linear(3, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 5), nn.Tanh()), nn.Linear(5, 2)
        )
        return len(collect(t, model)), sum(p.numel() for p in model.parameters())

    assert same(program) == (4 * 3 + 4 + 5 * 4 + 5 + 2 * 5 + 2,) * 2


class_rows = [
    ("0.weight", True, True),
    ("0.bias", True, True),
    ("1.weight", True, True),
    ("1.bias", True, True),
    ("1.running_mean", False, False),
    ("1.running_var", False, False),
    ("1.num_batches_tracked", False, False),
    ("2.count", False, False),
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

        counted = EventCounter(nn.Linear(3, 1))
    else:
        counted = nn.EventCounter(nn.Linear(3, 1))
    counted.module.weight.requires_grad_(False)
    return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), counted)


def test_may_the_optimizer_mutate_it_does_it_need_a_gradient() -> None:
    def program(t: ModuleType) -> Any:
        model = practice_model(t)
        trained = {id(p) for p in model.parameters() if p.requires_grad}
        return [
            (name, id(tensor) in trained, tensor.requires_grad)
            for name, tensor in model.state_dict(keep_vars=True).items()
        ]

    assert same(program) == class_rows


def test_the_audit_states_the_same_answers() -> None:
    def program(t: ModuleType) -> Any:
        return [(r.name, r.optimizer_mutates, r.requires_grad) for r in audit(practice_model(t))]

    assert same(program) == class_rows
