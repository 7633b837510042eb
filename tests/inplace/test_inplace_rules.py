"""In-place rules: leaves, views of leaves, multi-output views, overlap, broadcasting, dtypes."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same
from support.gradients import plain

LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)

WRITES = {
    "add_": lambda t, x: x.add_(1),
    "sub_": lambda t, x: x.sub_(1),
    "mul_": lambda t, x: x.mul_(2),
    "div_": lambda t, x: x.div_(2),
    "zero_": lambda t, x: x.zero_(),
    "fill_": lambda t, x: x.fill_(3.0),
    "copy_": lambda t, x: x.copy_(t.zeros_like(x)),
    "clamp_": lambda t, x: x.clamp_(0, 1),
    "relu_": lambda t, x: x.relu_(),
    "sigmoid_": lambda t, x: x.sigmoid_(),
    "exp_": lambda t, x: x.exp_(),
}


def _iadd(t, x):
    x += 1
    return x


def _ipow(t, x):
    x **= 2
    return x


def _setitem(t, x):
    x[0] = 1.0
    return x


WRITES["iadd"] = _iadd
WRITES["ipow"] = _ipow
WRITES["setitem"] = _setitem


@pytest.mark.parametrize("op", sorted(WRITES))
def test_a_leaf_that_requires_grad_refuses(op: str) -> None:
    r = same(lambda t: WRITES[op](t, t.ones(3, requires_grad=True)))
    assert r.message in (LEAF, VIEW_OF_LEAF)


@pytest.mark.parametrize(
    "view",
    ["x[0]", "x[:, 1]", "x.t()", "x.view(6)", "x.narrow(0, 0, 1)", "x.expand(2, 2, 3)[0]"],
)
@pytest.mark.parametrize("op", ["add_", "zero_", "copy_", "setitem"])
def test_a_view_of_a_leaf_that_requires_grad_refuses(view: str, op: str) -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True)
        v = eval(view, {"x": x})
        return WRITES[op](t, v)

    assert same(program).message == VIEW_OF_LEAF


@pytest.mark.parametrize("op", sorted(WRITES))
def test_under_no_grad_a_leaf_may_be_written_and_still_bumps(op: str) -> None:
    def program(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with t.no_grad():
            y = WRITES[op](t, x)
        return [y is x, x, x._version, x.is_leaf, x.requires_grad, x.grad_fn]

    same(program)


def test_under_no_grad_a_view_of_a_leaf_may_be_written() -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True)
        with t.no_grad():
            x[0].mul_(5)
            x[:, 2] = 0.0
        return [x, x._version, x.grad_fn]

    same(program)


def test_a_leaf_that_does_not_require_grad_may_be_written() -> None:
    def program(t):
        x = t.ones(3)
        x.add_(1)
        x[1] = 5
        return [x, x._version, x.requires_grad]

    same(program)


def test_writing_a_grad_requiring_value_into_a_plain_tensor_makes_it_require_grad() -> None:
    def program(t):
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = t.ones(3)
        x.mul_(w)
        y = t.zeros(3)
        y.copy_(w)
        z = t.zeros(3)
        z[1] = w[0]
        (x + y + z).sum().backward()
        return [x, y, z, plain(w.grad)]

    same(program)


MULTI = {
    "unbind": lambda a: a.unbind(0)[0],
    "unbind_1": lambda a: a.unbind(1)[2],
    "split": lambda a: a.split(1)[0],
    "split_sizes": lambda a: a.split([1, 1], dim=0)[1],
    "chunk": lambda a: a.chunk(2)[0],
    "unbind_then_view": lambda a: a.unbind(0)[0].view(3),
    "view_then_unbind": lambda a: a.view(2, 3).unbind(0)[1],
}


@pytest.mark.parametrize("how", sorted(MULTI))
def test_multi_output_views_refuse_inplace_with_grad_on(how: str) -> None:
    def program(t):
        a = t.ones(2, 3, requires_grad=True) * 1
        return MULTI[how](a).mul_(2)

    assert "This view is the output of a function that returns multiple views." in (
        same(program).message
    )


@pytest.mark.parametrize("how", sorted(MULTI))
def test_multi_output_views_of_a_leaf_refuse_with_the_multi_output_message(how: str) -> None:
    same(lambda t: MULTI[how](t.ones(2, 3, requires_grad=True)).zero_())


@pytest.mark.parametrize("how", sorted(MULTI))
def test_multi_output_views_may_be_written_without_grad(how: str) -> None:
    def program(t):
        plain = t.ones(2, 3)
        MULTI[how](plain).mul_(2)
        a = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            MULTI[how](a).mul_(3)
        return [plain, plain._version, a, a._version, a.grad_fn]

    same(program)


@pytest.mark.parametrize("op", ["add_", "mul_", "div_", "copy_", "exp_", "iadd"])
def test_inplace_into_an_expanded_tensor_refuses(op: str) -> None:
    def program(t):
        a = t.ones(1, 3)
        e = a.expand(2, 3)
        return WRITES[op](t, e)

    assert same(program).message == OVERLAP


@pytest.mark.parametrize("op", ["zero_", "fill_", "setitem"])
def test_filling_an_expanded_tensor_is_allowed(op: str) -> None:
    """torch lets a constant fill through overlapping memory (every alias gets the same value)."""

    def program(t):
        a = t.ones(1, 3)
        e = a.expand(2, 3)
        WRITES[op](t, e)
        return [a, e, a._version]

    same(program)


def test_inplace_into_a_clone_of_an_expanded_tensor_is_fine() -> None:
    same(lambda t: t.ones(1, 3).expand(2, 3).clone().add_(t.tensor([[1.0], [2.0]])))


@pytest.mark.parametrize(
    "shapes",
    [((3,), (2, 3)), ((3, 1), (3, 3)), ((1,), (2,)), ((), (3,)), ((2, 3), (3,)), ((2, 3), (2, 1))],
)
@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "copy_"])
def test_inplace_broadcasting_may_not_grow_the_written_tensor(shapes, op: str) -> None:
    def program(t):
        x = t.ones(shapes[0])
        other = t.ones(shapes[1]) * 2
        getattr(x, op)(other)
        return [x, x._version]

    same(program)


@pytest.mark.parametrize("op", ["add_", "mul_", "div_", "iadd_float"])
def test_an_integer_tensor_refuses_a_float_result(op: str) -> None:
    def program(t):
        x = t.ones(3, dtype=t.int64)
        if op == "iadd_float":
            x += 0.5
        elif op == "div_":
            x.div_(2)
        else:
            getattr(x, op)(1.5)
        return x

    same(program)


def test_an_integer_tensor_accepts_an_integer_inplace() -> None:
    def program(t):
        x = t.arange(4)
        x.add_(2)
        x *= 3
        x[0] = 7
        return [x, x._version, x.dtype]

    same(program)


def test_detach_inplace_on_a_view_refuses() -> None:
    def program(t):
        a = t.ones(3, requires_grad=True) * 2
        a.view(3).detach_()

    assert same(program).message.startswith("Can't detach views in-place. Use detach() instead.")


def test_detach_inplace_on_a_non_view() -> None:
    def program(t):
        a = t.ones(3, requires_grad=True)
        b = a * 2
        b.detach_()
        a.detach_()
        return [a, b, a.requires_grad, b.requires_grad, b.grad_fn, a._version, b._version]

    same(program)


@pytest.mark.parametrize("how", ["unbind", "split", "chunk"])
@pytest.mark.parametrize("write", ["x.mul_(2)", "parts[0].detach().mul_(2)", "nograd"])
def test_a_multi_output_view_whose_base_changes_refuses_when_used(how: str, write: str) -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True) * 1
        parts = {"unbind": x.unbind(0), "split": x.split(1), "chunk": x.chunk(2)}[how]
        if write == "nograd":
            with t.no_grad():
                x.mul_(2)
        else:
            eval(write)
        return parts[1] * 2

    assert "is a view and its base or another view of its base has been modified inplace." in (
        same(program).message
    )


@pytest.mark.parametrize(
    "stmt",
    ["x[1:] = x[:3]", "x[:3].copy_(x[1:])", "x[:2] = x[2:]", "x.copy_(x)", "x[::2] = x[1::2]"],
)
def test_a_write_whose_source_partly_overlaps_its_target_refuses(stmt: str) -> None:
    """Shifting a tensor into itself aliases source and target: torch asks for a clone()."""

    def program(t):
        x = t.arange(4.0)
        exec(stmt, {"x": x})
        return [x, x._version]

    same(program)


def test_a_view_that_became_a_leaf_requiring_grad_refuses_as_a_view() -> None:
    def program(t):
        w = t.ones(3)
        v = w[:2]
        v.requires_grad_()
        v.add_(1)

    assert same(program).message == VIEW_OF_LEAF


@pytest.mark.parametrize("how", ["unbind", "split", "chunk"])
def test_writing_a_multi_output_view_after_its_base_changed_names_the_write(how: str) -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True) * 1
        parts = {"unbind": x.unbind(0), "split": x.split(1), "chunk": x.chunk(2)}[how]
        x.add_(1)
        parts[1].add_(1)

    assert " is a view and is being modified inplace." in same(program).message


@pytest.mark.parametrize("exponent", [2, 0.5, -1, 2**40])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_an_augmented_power_writes_through_every_alias(dtype: str, exponent: Any) -> None:
    def program(t):
        x = t.tensor([1, 2, 3]).to(getattr(t, dtype))
        alias, view = x, x[1:]
        x **= exponent
        return alias is x, alias, alias._version, view, view._version

    same(program)


COPY_SHAPES = {
    "longer": ((2,), (3,)),
    "longer, requiring grad": ((2,), "grad"),
    "trailing dim": ((2, 3), (2,)),
    "empty into a new dim": ((2, 0, 1), (2, 0)),
    "int from float": ((2,), (3,)),
    "grows the output": ((2, 1), (3,)),
    "more dims": ((2,), (3, 2)),
}


@pytest.mark.parametrize("case", COPY_SHAPES)
def test_copy_of_a_source_that_does_not_broadcast_names_torchs_sizes(case: str) -> None:
    """copy_ broadcasts as TensorIterator does: its words for sizes that differ ('The size of
    tensor a (2) must match ...'), or for a result larger than the written tensor."""
    shape, src = COPY_SHAPES[case]

    def program(t):
        dtype = t.int64 if case.startswith("int") else t.float32
        x = t.zeros(shape, dtype=dtype)
        s = t.zeros(3, requires_grad=True) if src == "grad" else t.zeros(src)
        return x.copy_(s)

    same(program)


STALE_VIEW_READS: dict[str, Any] = {
    "grad": lambda v: v.grad,
    "requires_grad": lambda v: v.requires_grad,
    "_version": lambda v: v._version,
    "retains_grad": lambda v: v.retains_grad,
    "requires_grad_()": lambda v: v.requires_grad_() is v,
    "requires_grad_(False)": lambda v: v.requires_grad_(False),
    "grad_fn": lambda v: v.grad_fn,
    "is_leaf": lambda v: v.is_leaf,
    "repr": repr,
}


@pytest.mark.parametrize("read", STALE_VIEW_READS)
@pytest.mark.parametrize("how", ["split", "unbind", "slice of a non-leaf", "view of a zeros"])
def test_what_a_view_shows_once_its_base_changed_under_no_grad(how: str, read: str) -> None:
    """``.grad`` and ``requires_grad_`` ask whether a tensor is a leaf by its ``grad_fn`` slot
    as it is (torch's C++ ``is_leaf``), never refreshed: a multi-output view whose base was
    written under no_grad shows ``.grad`` (None, with the non-leaf warning) where its
    ``grad_fn`` and ``is_leaf`` raise."""

    def program(t):
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        if how == "view of a zeros":  # no grad_fn when made; its base gets one later
            b = t.zeros(3)
            v = b[1:]
            b.mul_(w)
            return STALE_VIEW_READS[read](v)
        if how == "slice of a non-leaf":
            w = w * 1
        v = {"split": lambda: w.split(2)[1], "unbind": lambda: w.unbind()[1]}.get(
            how, lambda: w[1:]
        )()
        with t.no_grad():
            w.mul_(2)
        return STALE_VIEW_READS[read](v)

    same(program)
