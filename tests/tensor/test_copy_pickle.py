"""``copy.deepcopy`` and ``pickle`` of tensors, Parameters and modules follow torch."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from support.differential import same


def _layout(t: Any) -> list[Any]:
    return [t, t.grad, t.stride(), t.storage_offset(), t.untyped_storage().size(), t._base is None]


def _roundtrip(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj))


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_leaf_after_backward(how: str) -> None:
    """deepcopy copies .grad (into a new tensor); pickle drops it. Both give version 1."""

    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * 2).sum().backward()
        y = copy.deepcopy(x) if how == "deepcopy" else _roundtrip(x)
        return [*_layout(y), y.grad is x.grad]

    same(program)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_versions_start_where_torchs_do(how: str) -> None:
    def program(t):
        x = t.ones(3)
        x.add_(1).mul_(2)
        fresh = t.ones(2)
        cp = copy.deepcopy if how == "deepcopy" else _roundtrip
        return [cp(x), cp(fresh), cp(t.ones(2, 3).t())]

    same(program)


def test_deepcopy_of_a_non_leaf_is_refused() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        return copy.deepcopy(x * 2)

    same(program)


def test_deepcopy_of_results_that_are_leaves() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        with t.no_grad():
            y = x * 2
        return [copy.deepcopy(t.ones(3) * 2), copy.deepcopy(y), copy.deepcopy(x.detach())]

    same(program)


@pytest.mark.parametrize("order", ["base_first", "view_first"])
def test_a_base_and_its_view_copied_together_share_memory(order: str) -> None:
    def program(t):
        base = t.arange(6.0).reshape(2, 3)
        view = base[1]
        if order == "base_first":
            b2, v2 = copy.deepcopy([base, view])
        else:
            v2, b2 = copy.deepcopy([view, base])
        v2.fill_(7.0)
        return [b2, v2, v2.data_ptr() == b2.data_ptr() + 12, v2._base is None, base]

    same(program)


def test_a_view_copied_alone_copies_its_whole_storage() -> None:
    def program(t):
        view = t.arange(6.0).reshape(2, 3)[1, 1:]
        return [_layout(copy.deepcopy(view)), _layout(_roundtrip(view))]

    same(program)


def test_a_view_and_its_base_pickled_together_do_not_share() -> None:
    def program(t):
        base = t.arange(6.0).reshape(2, 3)
        b2, v2 = _roundtrip([base, base[1]])
        v2.fill_(5.0)
        return [b2, v2, v2.storage_offset()]

    same(program)


def test_pickle_of_a_non_leaf_gives_a_leaf_that_requires_grad() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x.sigmoid()
        z = y * 2
        z.sum().backward()
        return [_roundtrip(y), _roundtrip(z), _roundtrip(x)]

    same(program)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_parameter_after_backward(how: str) -> None:
    """torch's Parameter.__deepcopy__ clones the data (version 0) and drops .grad."""

    def program(t):
        p = t.nn.Parameter(t.ones(2))
        (p * 3).sum().backward()
        q = copy.deepcopy(p) if how == "deepcopy" else _roundtrip(p)
        return [q, type(q).__name__, q.grad]

    same(program)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_module_after_backward(how: str) -> None:
    def program(t):
        m = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.Sigmoid(), t.nn.Linear(2, 1))
        with t.no_grad():
            for k, p in enumerate(m.parameters()):
                p.fill_(0.25 * k - 0.3)  # the engines draw different initial values
        m(t.ones(3, 2)).sum().backward()
        m2 = copy.deepcopy(m) if how == "deepcopy" else _roundtrip(m)
        return [
            [(name, p, type(p).__name__, p.grad) for name, p in m2.named_parameters()],
            m2(t.ones(1, 2)),
        ]

    same(program)


SHALLOW: dict[str, Any] = {
    "plain": lambda t: t.tensor([1.0, 2.0]),
    "leaf requiring grad": lambda t: t.tensor([1.0, 2.0], requires_grad=True),
    "non-leaf": lambda t: t.tensor([1.0, 2.0], requires_grad=True) * 2,
    "view": lambda t: t.arange(6.0).reshape(2, 3)[:, 1:],
    "integer": lambda t: t.tensor([3, 4]),
    "leaf with a grad": lambda t: _with_grad(t),
}


def _with_grad(t: Any) -> Any:
    x = t.tensor([1.0, 2.0], requires_grad=True)
    x.grad = t.ones(2)
    return x


@pytest.mark.parametrize("tensor", SHALLOW.values(), ids=SHALLOW.keys())
def test_copy_copy_shares_the_storage(tensor: Any) -> None:
    """torch's ``copy.copy`` rebuilds the tensor from its reduction over the same storage: a
    new leaf at version 1 with its own counter, ``requires_grad`` kept, no ``.grad``, no graph;
    a write through either is seen by the other."""

    def program(t: Any) -> Any:
        x = tensor(t)
        c = copy.copy(x)
        facts = [*_layout(c), c is x, c.requires_grad, c.is_leaf, c.grad_fn, c._version]
        facts += [c.data_ptr() == x.data_ptr(), c.untyped_storage() is x.untyped_storage()]
        with t.no_grad():
            c.add_(1)
        return [*facts, x, c._version, x._version]

    same(program)


def test_copy_copy_of_an_inference_tensor_outside_the_block() -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            x = t.ones(2)
        c = copy.copy(x)
        return [c, c.is_inference(), c.data_ptr() == x.data_ptr(), c._version]

    same(program)


def test_copy_copy_keeps_a_tensors_attributes_and_deepcopy_still_copies() -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0])
        x.note = "kept"
        c, d = copy.copy(x), copy.deepcopy(x)
        d.mul_(3)
        return [c.note, d.note, d.data_ptr() == x.data_ptr(), x, d]

    same(program)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_a_copy_made_in_inference_mode_is_an_inference_tensor(
    how: str, requires_grad: bool
) -> None:
    """Fuzz program 40472: the copy is a new tensor, made in the block."""

    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0, -1.5], requires_grad=requires_grad)
        make = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": _roundtrip}[how]
        with t.inference_mode():
            c = make(x)
            inside = [c.is_inference(), c.requires_grad, c.is_leaf]
        reading = None
        try:
            c._version
        except RuntimeError as e:
            reading = str(e)
        return [c.detach().clone(), *inside, c.is_inference(), reading]

    same(program)


class _Hook:
    """A hook whose ``repr`` is the same in both engines' runs (a lambda's shows its address)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, grad: Any) -> None:
        return None

    def __repr__(self) -> str:
        return f"<hook {self.name}>"


@pytest.mark.parametrize("how", ["copy", "pickle"])
def test_copying_a_tensor_warns_of_each_hook_it_drops(how: str) -> None:
    """fuzz 901294, 901888: ``copy.copy`` and pickling of a tensor warn of each hook
    ``register_hook`` gave it (leaf or not; not a removed one, nor a ``grad_fn``'s own), as
    torch's ``__reduce_ex__`` does; deepcopy does not."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(_Hook("kept"))
        x.register_hook(_Hook("removed")).remove()
        y = x * 2
        y.register_hook(_Hook("on y"))
        y.grad_fn.register_prehook(_Hook("node"))
        copied = [copy.copy(v) if how == "copy" else _roundtrip(v) for v in (x, y)]
        return copied, copy.deepcopy(x)

    same(program)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_an_integer_view_of_a_leaf_that_requires_grad_is_refused_its_flag(how: str) -> None:
    """fuzz 1007320: an integer view made in inference mode requires grad once its base does (a
    float ``.data`` given to the base, then ``requires_grad_()``); its copy is refused the flag
    as torch's rebuild sets it: by the ``requires_grad`` setter (copy, pickle) or by
    ``requires_grad_()`` (deepcopy), each with its own message."""

    def program(t: Any) -> Any:
        x = t.tensor([[2, 1, 3], [2, 0, -1]])
        with t.inference_mode():
            v = x.view(-1)
        x.data = t.tensor([0.5, 0.25])
        x.requires_grad_()
        make = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": _roundtrip}[how]
        return [v.requires_grad, v.is_leaf, make(v)]

    same(program)
