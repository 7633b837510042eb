"""Random module trees: registration, traversal, state_dict and audit agree with torch.

Hypothesis builds a tree description (containers, Linear and BatchNorm1d layers, custom modules
with their own parameters, buffers, non-persistent buffers and plain tensor attributes, shared
children and tied weights); the same description is built with each engine and every listing
is compared.
"""

from __future__ import annotations

from dataclasses import astuple
from types import ModuleType
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ownership.auditing import audit

from support.differential import same

sizes = st.integers(1, 3)
leaves = st.one_of(
    st.tuples(st.just("linear"), sizes, sizes, st.booleans()),
    st.tuples(st.just("bn"), sizes, st.booleans(), st.booleans()),
    st.tuples(st.just("relu")),
)


def _custom(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.tuples(
        st.just("custom"),
        st.lists(st.tuples(sizes, st.booleans()), max_size=2),  # parameters (size, requires_grad)
        st.lists(st.tuples(sizes, st.booleans()), max_size=2),  # buffers (size, persistent)
        st.booleans(),  # a plain tensor attribute
        st.lists(children, max_size=3),
    )


trees = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.tuples(st.just("seq"), st.lists(children, min_size=1, max_size=3)), _custom(children)
    ),
    max_leaves=8,
)


def build(t: ModuleType, spec: Any) -> Any:
    nn = t.nn
    kind = spec[0]
    if kind == "linear":
        return nn.Linear(spec[1], spec[2], bias=spec[3])
    if kind == "bn":
        return nn.BatchNorm1d(spec[1], affine=spec[2], track_running_stats=spec[3])
    if kind == "relu":
        return nn.ReLU()
    if kind == "seq":
        return nn.Sequential(*(build(t, child) for child in spec[1]))
    module = nn.Module()
    for i, (size, requires_grad) in enumerate(spec[1]):
        setattr(module, f"p{i}", nn.Parameter(t.ones(size), requires_grad=requires_grad))
    for i, (size, persistent) in enumerate(spec[2]):
        module.register_buffer(f"b{i}", t.zeros(size), persistent=persistent)
    if spec[3]:
        module.cache = t.zeros(2)
    for i, child in enumerate(spec[4]):
        module.add_module(f"c{i}", build(t, child))
    return module


def tie_and_share(t: ModuleType, root: Any, share: bool, tie: bool) -> Any:
    """Optionally add the root's first child again under another name, and tie two weights."""
    children = list(root.children())
    if share and children:
        root.add_module("again", children[0])
    linears = [m for m in root.modules() if isinstance(m, t.nn.Linear)]
    for a in linears:
        for b in linears:
            if tie and a is not b and tuple(a.weight.shape) == tuple(b.weight.shape):
                b.weight = a.weight
                return root
    return root


def listings(model: Any) -> Any:
    return (
        [(n, tuple(p.shape), p.requires_grad) for n, p in model.named_parameters()],
        [n for n, _ in model.named_parameters(remove_duplicate=False)],
        [(n, tuple(b.shape)) for n, b in model.named_buffers()],
        [n for n, _ in model.named_modules()],
        [n for n, _ in model.named_modules(remove_duplicate=False)],
        [n for n, _ in model.named_children()],
        [(k, tuple(v.shape)) for k, v in model.state_dict().items()],
        [astuple(row) for row in audit(model)],
        repr(model),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=trees, share=st.booleans(), tie=st.booleans())
def test_random_trees_list_like_torch(spec: Any, share: bool, tie: bool) -> None:
    def program(t: ModuleType) -> Any:
        root = t.nn.Sequential(build(t, spec), t.nn.Linear(2, 2))
        return listings(tie_and_share(t, root, share, tie))

    same(program)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=trees, tie=st.booleans())
def test_random_trees_round_trip_through_state_dict(spec: Any, tie: bool) -> None:
    def program(t: ModuleType) -> Any:
        source = tie_and_share(t, t.nn.Sequential(build(t, spec)), False, tie)
        target = tie_and_share(t, t.nn.Sequential(build(t, spec)), False, tie)
        with t.no_grad():
            for i, p in enumerate(source.parameters()):
                p.fill_(i + 0.5)
        result = target.load_state_dict(source.state_dict())
        return repr(result), dict(target.state_dict())

    same(program)
