"""Recursive collection: names, order and de-duplication of parameters, buffers and modules."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support import nn_models
from support.differential import same


def names(pairs: Any) -> list[str]:
    return [name for name, _ in pairs]


def test_named_parameters_order_prefix_recurse() -> None:
    def program(t: ModuleType) -> Any:
        net = nn_models.nested(t)
        return (
            names(net.named_parameters()),
            names(net.named_parameters(prefix="model")),
            names(net.named_parameters(recurse=False)),
            names(net.body.named_parameters()),
            [tuple(p.shape) for p in net.parameters()],
            len(list(net.parameters(recurse=False))),
        )

    assert same(program)[0] == [
        "head_bias",
        "first.scale",
        "first.linear.weight",
        "first.linear.bias",
        "body.0.scale",
        "body.0.linear.weight",
        "body.0.linear.bias",
        "body.2.weight",
        "body.2.bias",
    ]


def test_parameters_are_the_registered_objects() -> None:
    def program(t: ModuleType) -> Any:
        net = nn_models.nested(t)
        return [p is net.get_parameter(n) for n, p in net.named_parameters()]

    same(program)


def test_named_buffers_include_non_persistent_ones() -> None:
    def program(t: ModuleType) -> Any:
        net = nn_models.nested(t)
        return (
            names(net.named_buffers()),
            names(net.named_buffers(prefix="p", recurse=True)),
            names(net.first.named_buffers(recurse=False)),
            [b.dtype for b in net.buffers()],
        )

    same(program)


def test_modules_children_pre_order_root_is_empty_string() -> None:
    def program(t: ModuleType) -> Any:
        net = nn_models.nested(t)
        return (
            names(net.named_modules()),
            names(net.named_modules(prefix="root")),
            [type(m).__name__ for m in net.modules()],
            names(net.named_children()),
            [type(m).__name__ for m in net.children()],
        )

    assert same(program)[0][:3] == ["", "first", "first.linear"]


def test_tied_weight_is_listed_once_first_name_wins() -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.tied(t)
        return (
            names(model.named_parameters()),
            names(model.named_parameters(remove_duplicate=False)),
            len(list(model.parameters())),
            list(model.state_dict()),
            model.encoder.weight is model.decoder.weight,
        )

    assert same(program)[0] == ["encoder.weight", "decoder.bias"]


def test_tied_weight_gradient_sums_both_uses() -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.tied(t)
        x = t.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
        model(x).pow(2).sum().backward()
        return [(n, p.grad) for n, p in model.named_parameters()]

    same(program)


def test_shared_submodule_is_listed_once_unless_asked() -> None:
    def program(t: ModuleType) -> Any:
        shared = t.nn.Linear(2, 2)
        seq = t.nn.Sequential(shared, t.nn.ReLU(), shared)
        return (
            names(seq.named_modules()),
            names(seq.named_modules(remove_duplicate=False)),
            names(seq.named_children()),
            names(seq.named_parameters()),
            list(seq.state_dict()),
        )

    same(program)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none: bool) -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.mlp(t)
        model(t.ones(2, 3)).sum().backward()
        grad = model[0].weight.grad
        model.zero_grad(set_to_none=set_to_none)
        return [p.grad for p in model.parameters()], grad

    same(program)


def test_zero_grad_default_sets_none() -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.mlp(t)
        model(t.ones(2, 3)).sum().backward()
        model.zero_grad()
        return [p.grad for p in model.parameters()]

    assert same(program) == [None] * 4


def test_train_and_eval_are_recursive_and_return_self() -> None:
    def program(t: ModuleType) -> Any:
        net = nn_models.nested(t)
        modes = [[m.training for m in net.modules()]]
        assert net.eval() is net
        modes.append([m.training for m in net.modules()])
        assert net.body.train() is net.body
        modes.append([m.training for m in net.modules()])
        net.train(False)
        modes.append([m.training for m in net.modules()])
        return modes

    same(program)


def test_call_runs_forward() -> None:
    def program(t: ModuleType) -> Any:
        net = nn_models.nested(t)
        x = t.tensor([[1.0, 2.0, -1.0]])
        return net(x).detach(), net.forward(x).detach()

    same(program)


def test_forward_not_implemented() -> None:
    same(lambda t: t.nn.Module()(t.zeros(1)))
    same(lambda t: t.nn.Linear(2, 2).get_submodule("x.y"), raises="AttributeError")
    same(lambda t: t.nn.Linear(2, 2).get_parameter("x"), raises="AttributeError")


def test_requires_grad_and_get_submodule() -> None:
    def program(t: ModuleType) -> Any:
        net = nn_models.nested(t)
        net.first.requires_grad_(False)
        return (
            [(n, p.requires_grad) for n, p in net.named_parameters()],
            type(net.get_submodule("body.0.linear")).__name__,
            net.get_submodule("") is net,
        )

    same(program)


def test_deepcopy_copies_parameters_and_keeps_ties() -> None:
    def program(t: ModuleType) -> Any:
        import copy

        model = nn_models.tied(t)
        clone = copy.deepcopy(model)
        pairs = zip(model.parameters(), clone.parameters(), strict=True)
        return (
            [type(p).__name__ for p in clone.parameters()],
            [(p is q, p.data_ptr() == q.data_ptr(), q._version) for p, q in pairs],
            clone.encoder.weight is clone.decoder.weight,
            dict(clone.state_dict()),
        )

    same(program)


def test_collection_walks_the_tree_while_it_yields() -> None:
    # torch's _named_members is lazy: a parameter registered meanwhile is seen, a module added
    # to a dict being walked stops the walk with Python's error
    def program(t: ModuleType) -> Any:
        seen, stopped = [], []
        m = t.nn.Sequential(t.nn.Linear(1, 1), t.nn.Linear(1, 1))
        for n, _ in m.named_parameters():
            seen.append(n)
            if len(seen) == 1:
                m[1].register_parameter("z", t.nn.Parameter(t.ones(1)))
        try:
            for n, _ in m.named_parameters():
                stopped.append(n)
                m.add_module(f"x{len(stopped)}", t.nn.Linear(1, 1))
        except RuntimeError as e:
            stopped.append(str(e))
        return seen, stopped

    same(program)


@pytest.mark.parametrize("recurse", [True, False])
@pytest.mark.parametrize("read", ["parameters", "buffers", "named_parameters"])
def test_a_module_whose_init_skipped_modules_init_raises_torchs_attribute_error(
    read: str, recurse: bool
) -> None:
    def program(t: ModuleType) -> Any:
        class Net(t.nn.Module):  # forgets super().__init__()
            def __init__(self) -> None:
                self.offset = t.tensor([0.5])

        return list(getattr(Net(), read)(recurse=recurse))

    same(program, raises="AttributeError")
