"""ModuleList, ModuleDict, ParameterList, ParameterDict, Sequential: registration, indexing,
torch's errors; and the trap of modules kept in a plain Python list (never trained, never saved)."""

from __future__ import annotations

from collections import OrderedDict
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ownership.auditing import audit

from support.differential import same


def names(model: Any) -> Any:
    return (
        [(n, tuple(p.shape)) for n, p in model.named_parameters()],
        list(model.state_dict()),
        [n for n, _ in model.named_modules()],
        repr(model),
    )


def test_module_list_registers_and_indexes_like_a_list() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
        layers = nn.ModuleList([a, b])
        layers.append(c)
        part = layers[1:]
        return (
            names(layers),
            len(layers),
            layers[0] is a,
            layers[-1] is c,
            type(part).__name__,
            [m is n for m, n in zip(part, [b, c], strict=True)],
            list(part._modules),
            [type(m).__name__ for m in layers],
        )

    same(program)


def test_module_list_mutations_keep_names_contiguous() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        layers = nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 2), nn.Linear(1, 3)])
        layers.insert(1, nn.Tanh())
        popped = layers.pop(0)
        del layers[-1]
        layers.extend([nn.ReLU(), nn.ReLU(), nn.ReLU()])
        layers += [nn.Sigmoid()]
        joined = layers + nn.ModuleList([nn.Linear(2, 2)])
        layers[0] = nn.Linear(4, 4)
        return names(layers), repr(popped), names(joined), type(joined).__name__

    same(program)


def test_module_list_repr_compresses_repeats_and_nests() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        inner = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        outer = nn.Module()
        outer.blocks = nn.ModuleList([inner, nn.ModuleList(), nn.ReLU(), nn.ReLU()])
        return names(outer)

    same(program)


def test_tied_weights_through_containers() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        shared = nn.Linear(2, 2)
        model = nn.Module()
        model.heads = nn.ModuleDict({"a": shared, "b": nn.Linear(2, 2)})
        model.heads["b"].weight = shared.weight
        model.stack = nn.ModuleList([shared])
        return (
            names(model),
            [n for n, _ in model.named_parameters(remove_duplicate=False)],
            len(list(model.parameters())),
        )

    same(program)


MODULE_LIST_ERRORS = {
    "index out of range": lambda t: t.nn.ModuleList([t.nn.ReLU()])[3],
    "negative out of range": lambda t: t.nn.ModuleList([t.nn.ReLU()])[-2],
    "set out of range": lambda t: t.nn.ModuleList().__setitem__(0, t.nn.ReLU()),
    "non-int index": lambda t: t.nn.ModuleList([t.nn.ReLU()])["0"],
    "extend a non-iterable": lambda t: t.nn.ModuleList().extend(3),
    "not a module": lambda t: t.nn.ModuleList([t.nn.ReLU(), 3]),
    "tensor member": lambda t: t.nn.ModuleList([t.zeros(2)]),
    "called": lambda t: t.nn.ModuleList([t.nn.ReLU()])(t.zeros(1)),
    "dict not a module": lambda t: t.nn.ModuleDict({"a": 1}),
    "dict dotted key": lambda t: t.nn.ModuleDict({"a.b": t.nn.ReLU()}),
    "dict empty key": lambda t: t.nn.ModuleDict({"": t.nn.ReLU()}),
    "dict int key": lambda t: t.nn.ModuleDict({1: t.nn.ReLU()}),
    "dict existing attribute": lambda t: t.nn.ModuleDict({"training": t.nn.ReLU()}),
    "dict missing key": lambda t: t.nn.ModuleDict()["nope"],
    "dict update non-iterable": lambda t: t.nn.ModuleDict().update(3),
    "dict update bad pair": lambda t: t.nn.ModuleDict([("a", t.nn.ReLU(), 1)]),
    "dict update non-iterable element": lambda t: t.nn.ModuleDict([3]),
}


@pytest.mark.parametrize("case", MODULE_LIST_ERRORS, ids=list(MODULE_LIST_ERRORS))
def test_module_container_errors(case: str) -> None:
    same(MODULE_LIST_ERRORS[case])


def test_module_dict_is_an_ordered_registry() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        heads = nn.ModuleDict([("b", nn.Linear(1, 2)), ("a", nn.Linear(2, 1))])
        heads.update({"z": nn.ReLU(), "c": nn.Tanh()})
        heads["d"] = nn.Linear(3, 3)
        popped = heads.pop("z")
        del heads["c"]
        return (
            names(heads),
            list(heads.keys()),
            [(k, type(v).__name__) for k, v in heads.items()],
            [type(v).__name__ for v in heads.values()],
            list(heads),
            "a" in heads,
            "z" in heads,
            len(heads),
            repr(popped),
        )

    same(program)


def test_parameter_list_wraps_tensors_as_aliasing_parameters() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        data = t.zeros(2)
        params = nn.ParameterList([data, nn.Parameter(t.ones(3)), "not a tensor"])
        params.append(t.ones(1, 2, dtype=t.float64))
        with t.no_grad():
            data.add_(1)
        first = params[0]
        return (
            names(params),
            type(first).__name__,
            first.data_ptr() == data.data_ptr(),
            first._version,
            first,
            params[2],
            len(params),
            [type(p).__name__ for p in params],
            type(params[1:]).__name__,
            names(params[::2]),
            params[-1] is params[3],
        )

    same(program)


PARAMETER_CONTAINER_ERRORS = {
    "list index out of range": lambda t: t.nn.ParameterList([t.zeros(1)])[1],
    "list extend with a tensor": lambda t: t.nn.ParameterList().extend(t.zeros(2)),
    "list extend non-iterable": lambda t: t.nn.ParameterList().extend(1),
    "list called": lambda t: t.nn.ParameterList()(1),
    "list integer tensor": lambda t: t.nn.ParameterList([t.zeros(1, dtype=t.int64)]),
    "dict non-string key": lambda t: t.nn.ParameterDict({1: t.zeros(1)}),
    "dict missing key": lambda t: t.nn.ParameterDict()["x"],
    "dict update non-iterable": lambda t: t.nn.ParameterDict().update(1),
    "dict update bad pair": lambda t: t.nn.ParameterDict([("a",)]),
    "dict called": lambda t: t.nn.ParameterDict()(1),
}
# torch's ParameterDict reads a key as an attribute: a missing key is an AttributeError.
RAISES = {"dict missing key": "AttributeError"}


@pytest.mark.parametrize("case", PARAMETER_CONTAINER_ERRORS, ids=list(PARAMETER_CONTAINER_ERRORS))
def test_parameter_container_errors(case: str) -> None:
    same(PARAMETER_CONTAINER_ERRORS[case], raises=RAISES.get(case))


def test_parameter_dict_orders_and_converts() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        plain = nn.ParameterDict({"b": t.zeros(1), "a": t.ones(2)})  # a plain dict: sorted
        ordered = nn.ParameterDict(OrderedDict([("b", t.zeros(1)), ("a", t.ones(2))]))
        ordered["c"] = 3
        ordered.setdefault("d", t.ones(1, dtype=t.float64))
        got = ordered.get("zz", "default"), ordered.get("a")
        last = ordered.popitem()
        merged = plain | ordered
        popped = plain.pop("a")
        return (
            names(plain),
            names(ordered),
            list(reversed(ordered)),
            got,
            last,
            names(merged),
            popped,
            list(ordered.values())[:1],
            [(k, type(v).__name__) for k, v in ordered.items()],
            "c" in ordered,
        )

    same(program)


def test_sequential_from_ordered_dict_indexing_and_growth() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        relu = nn.ReLU()
        seq = nn.Sequential(
            OrderedDict([("fc", nn.Linear(2, 3)), ("act", relu), ("out", nn.Linear(3, 1))])
        )
        part = seq[1:]
        seq.append(nn.Sigmoid())
        seq.insert(0, nn.Tanh())
        seq.extend([nn.ReLU()])
        popped = seq.pop(1)
        return (
            names(part),
            type(part).__name__,
            part[0] is relu,
            names(seq),
            repr(popped),
            seq[-1].__class__.__name__,
        )

    same(program)


SEQUENTIAL_ERRORS = {
    "index out of range": lambda t: t.nn.Sequential(t.nn.ReLU())[1],
    "insert out of range": lambda t: t.nn.Sequential().insert(2, t.nn.ReLU()),
    "insert a non-module": lambda t: t.nn.Sequential().insert(0, 1),
}


@pytest.mark.parametrize("case", SEQUENTIAL_ERRORS, ids=list(SEQUENTIAL_ERRORS))
def test_sequential_errors(case: str) -> None:
    # insert's AssertionError names the Module class, whose module path differs between engines
    same(SEQUENTIAL_ERRORS[case], message=r"(?s).*(out of range|module should be of type).*")


def test_sequential_add_and_multiply_share_the_children() -> None:
    def program(t: ModuleType) -> Any:
        nn = t.nn
        relu, tanh = nn.ReLU(), nn.Tanh()
        seq = nn.Sequential(relu, nn.Linear(2, 2), tanh)
        added = seq + nn.Sequential(nn.Sigmoid())
        doubled, left = seq * 2, 3 * seq
        grown = nn.Sequential(nn.ReLU())
        grown += seq
        repeated = nn.Sequential(relu, tanh)
        repeated *= 3
        named = nn.Sequential(OrderedDict([("a", relu)]))
        return (
            names(added),
            names(doubled),
            names(left),
            names(grown),
            names(repeated),
            doubled[2] is relu and left[5] is tanh and repeated[4] is relu,
            type(seq * True).__name__,
            names(named + named),
            names(named * 2),
        )

    same(program)


SEQUENTIAL_OPERATOR_ERRORS = {
    "add a module": lambda t: t.nn.Sequential() + t.nn.ReLU(),
    "add a list": lambda t: t.nn.Sequential() + [t.nn.ReLU()],  # noqa: RUF005
    "list plus": lambda t: [t.nn.ReLU()] + t.nn.Sequential(),  # noqa: RUF005
    "iadd a module list": lambda t: t.nn.Sequential().__iadd__(t.nn.ModuleList()),
    "times a float": lambda t: t.nn.Sequential(t.nn.ReLU()) * 2.0,
    "float times": lambda t: 2.0 * t.nn.Sequential(t.nn.ReLU()),
    "times zero": lambda t: t.nn.Sequential(t.nn.ReLU()) * 0,
    "negative times": lambda t: -1 * t.nn.Sequential(t.nn.ReLU()),
    "imul a tensor": lambda t: t.nn.Sequential(t.nn.ReLU()).__imul__(t.tensor(2)),
    "imul zero": lambda t: t.nn.Sequential(t.nn.ReLU()).__imul__(0),
    "imul named children": lambda t: t.nn.Sequential(OrderedDict([("a", t.nn.ReLU())])).__imul__(2),
}


@pytest.mark.parametrize("case", SEQUENTIAL_OPERATOR_ERRORS, ids=list(SEQUENTIAL_OPERATOR_ERRORS))
def test_sequential_operator_errors(case: str) -> None:
    # the messages print torch's classes: the engine's layers under their torch module paths
    same(SEQUENTIAL_OPERATOR_ERRORS[case])


class _Plain:
    """A model that keeps its layers in a plain list and a plain dict: the trap."""

    @staticmethod
    def build(t: ModuleType) -> Any:
        class Net(t.nn.Module):  # type: ignore[name-defined, misc]
            def __init__(self) -> None:
                super().__init__()
                self.stem = t.nn.Linear(2, 2)
                self.blocks = [t.nn.Linear(2, 2), t.nn.Linear(2, 2)]
                self.heads = {"out": t.nn.Linear(2, 1)}
                self.order = [self.stem]  # mirrors a registered layer: not a mistake

            def forward(self, x: Any) -> Any:
                x = self.stem(x)
                for block in self.blocks:
                    x = block(x).relu()
                return self.heads["out"](x)

        t.manual_seed(0)
        return Net()


def test_layers_in_a_plain_list_are_not_registered_and_never_train() -> None:
    def program(t: ModuleType) -> Any:
        net = _Plain.build(t)
        before = [b.weight.clone() for b in net.blocks]
        opt = t.optim.SGD(net.parameters(), lr=0.1)
        net(t.ones(4, 2)).sum().backward()
        opt.step()
        return (
            [n for n, _ in net.named_parameters()],
            list(net.state_dict()),
            [b.weight.grad is not None for b in net.blocks],  # gradients arrive...
            [bool(t.equal(b.weight, w)) for b, w in zip(net.blocks, before, strict=True)],
            [b.weight._version for b in net.blocks],  # ...but no step ever touches them
            net.stem.weight._version,
        )

    same(program)


def test_audit_flags_tensors_in_plain_containers() -> None:
    def program(t: ModuleType) -> Any:
        net = _Plain.build(t)
        net.extra = [t.nn.Parameter(t.zeros(3))]
        table = audit(net)
        return [(r.name, r.kind, r.optimizer_mutates, r.in_state_dict, r.rule) for r in table], [
            f.name for f in table.flags
        ]

    rows, flagged = same(program)
    assert flagged == [
        "blocks[0].weight",
        "blocks[0].bias",
        "blocks[1].weight",
        "blocks[1].bias",
        "heads['out'].weight",
        "heads['out'].bias",
        "extra[0]",
    ]
    assert all(row[1] == "in a plain container" for row in rows if "[" in row[0])


def test_audit_is_silent_on_registered_containers() -> None:
    def program(t: ModuleType) -> Any:
        net = t.nn.Module()
        net.blocks = t.nn.ModuleList([t.nn.Linear(2, 2)])
        net.heads = t.nn.ModuleDict({"out": t.nn.Linear(2, 1)})
        net.extra = t.nn.ParameterList([t.zeros(3)])
        return [f.name for f in audit(net).flags], [r.name for r in audit(net)]

    assert same(program)[0] == []


# -- generated: random module trees built out of the containers ------------------------------

leaf = st.sampled_from(["linear", "relu", "params"])
tree = st.recursive(
    leaf,
    lambda kids: st.tuples(
        st.sampled_from(["list", "dict", "seq", "odict", "pdict"]),
        st.lists(kids, min_size=0, max_size=3),
    ),
    max_leaves=8,
)


def build(t: ModuleType, spec: Any, counter: list[int]) -> Any:
    nn = t.nn
    counter[0] += 1
    size = 1 + counter[0] % 3
    if spec == "linear":
        return nn.Linear(size, 2)
    if spec == "relu":
        return nn.ReLU()
    if spec == "params":
        return nn.ParameterList([t.ones(size), t.zeros(2, size)])
    kind, kids = spec
    made = [build(t, k, counter) for k in kids]
    if kind == "list":
        return nn.ModuleList(made)
    if kind == "dict":
        return nn.ModuleDict({f"k{len(made) - i}": m for i, m in enumerate(made)})
    if kind == "odict":
        return nn.Sequential(OrderedDict((f"m{i}", m) for i, m in enumerate(made)))
    if kind == "pdict":
        return nn.ParameterDict({f"p{i}": t.ones(i + 1) for i in range(len(made))})
    return nn.Sequential(*made)


@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(spec=tree, slice_start=st.integers(-2, 2))
def test_random_container_trees_register_like_torch(spec: Any, slice_start: int) -> None:
    def program(t: ModuleType) -> Any:
        root = t.nn.ModuleList([build(t, spec, [0]), t.nn.Linear(2, 2)])
        part = root[slice_start:]
        return (
            names(root),
            names(part),
            [n for n, _ in root.named_parameters(remove_duplicate=False)],
            [(r.name, r.kind) for r in audit(root)],
            [f.name for f in audit(root).flags],
        )

    same(program)


@pytest.mark.parametrize("kind", ["Sequential", "ModuleList", "ModuleDict"])
def test_a_none_child_is_iterated_indexed_and_called(kind: str) -> None:
    # fuzz_modules 85: torch's containers walk a child registered as None like any other
    def program(t: ModuleType) -> Any:
        box = getattr(t.nn, kind)()
        box.add_module("0", t.nn.ReLU())
        box.add_module("1", None)
        first = box["1"] if kind == "ModuleDict" else box[1]
        walked = [type(m).__name__ for m in (box.values() if kind == "ModuleDict" else box)]
        return first, walked, len(box)

    same(program)


def test_sequential_calls_a_none_child() -> None:
    def program(t: ModuleType) -> Any:
        seq = t.nn.Sequential(t.nn.ReLU())
        seq.add_module("1", None)
        return seq(t.ones(2))

    same(program)


@pytest.mark.parametrize(
    "edit",
    ["box[-1] = t.nn.ReLU()", "del box[-1]", "del box[1:]", "x = box[-1]", "x = box.pop(-1)"],
)
@pytest.mark.parametrize("kind", ["ModuleList", "Sequential"])
def test_an_index_names_a_list_child_by_its_number_and_a_sequential_child_by_position(
    kind: str, edit: str
) -> None:
    # module fuzzer 22400: ModuleList turns an index into the name str(i); Sequential counts
    def program(t: ModuleType) -> Any:
        box = (
            getattr(t.nn, kind)(t.nn.Linear(3, 3), t.nn.Tanh())
            if kind == "Sequential"
            else (t.nn.ModuleList([t.nn.Linear(3, 3), t.nn.Tanh()]))
        )
        box.add_module("w2", t.nn.Sigmoid())
        namespace = {"t": t, "box": box}
        exec(edit, namespace)
        return [(n, type(m).__name__) for n, m in box.named_children()], repr(namespace.get("x"))

    # torch's ModuleList deletes the attribute '2', which the list does not have
    same(program, raises="AttributeError" if kind == "ModuleList" and "del" in edit else None)
