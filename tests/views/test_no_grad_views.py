"""Views made under no_grad: not graph edges, and not writable (nor their views) with grad on."""

from __future__ import annotations

import pytest

from support.differential import same
from support.gradients import plain


def test_a_view_made_under_no_grad_refuses_inplace_with_grad_on() -> None:
    def program(t):
        a = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            v = a[0]
        v.mul_(2)

    assert same(program).message.startswith(
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled."
    )


def test_a_view_of_a_leaf_made_under_no_grad_refuses_with_the_no_grad_message() -> None:
    def program(t):
        a = t.ones(2, 3, requires_grad=True)
        with t.no_grad():
            v = a.t()
        v.zero_()

    same(program)


def test_a_view_made_and_written_under_no_grad_leaves_the_base_usable() -> None:
    def program(t):
        a = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            v = a[0]
            v.mul_(2)
        a.sum().backward()
        return [a, a._version, v._version, v.requires_grad]

    same(program)


def test_the_grad_fn_of_a_no_grad_view_written_in_place_cannot_be_read() -> None:
    """torch refuses even when the write also happened under no_grad."""

    def program(t):
        a = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            v = a[0]
            v.mul_(2)
        return v.grad_fn

    assert same(program).message.startswith("A view was created in no_grad mode and its base")


def test_a_no_grad_view_whose_base_changes_with_grad_on_refuses_when_used() -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            v = x[0]
        x.mul_(2)
        seen = [v._version, v.requires_grad]
        (v * 2).sum().backward()
        return seen

    assert same(program).message.startswith(
        "A view was created in no_grad mode and its base or another view of its base has been "
        "modified inplace with grad mode enabled."
    )


@pytest.mark.parametrize("how", ["unbind", "split", "chunk"])
def test_a_multi_output_view_made_under_no_grad_refuses_with_the_no_grad_message(how: str) -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True)
        with t.no_grad():
            part = {"unbind": x.unbind(0), "split": x.split(1), "chunk": x.chunk(2)}[how][0]
        part.add_(1)

    assert same(program).message.startswith("A view was created in no_grad mode")


@pytest.mark.parametrize("second", ["v[0]", "v.view(2, 3)", "v.t()", "v[1:]", "v.unsqueeze(0)"])
def test_a_view_of_a_no_grad_view_refuses_naming_its_own_node(second: str) -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            v = x.view(6) if second != "v.t()" else x.view(3, 2)
        w = eval(second, {"v": v})
        w.add_(1)

    assert "is a view of a view which was created in no_grad mode" in same(program).message


def test_writing_a_no_grad_view_after_its_base_changed_names_the_write() -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            v = x[0]
        x.add_(1)
        v.add_(1)

    assert same(program).message.startswith(
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled."
    )


@pytest.mark.parametrize("use", ["v.view(-1)", "v.reshape(-1)", "v * 2", "v.sum()", "v[0]"])
def test_using_a_no_grad_view_whose_base_changed_refuses_before_anything_else(use: str) -> None:
    """torch reads the view's history first, so this error comes before, e.g., a view-size one."""

    def program(t):
        y = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            v = y.t()
        y.add_(1)
        return eval(use, {"v": v})

    assert "its base or another view of its base has been modified" in same(program).message


def test_a_no_grad_view_of_a_leaf_is_no_edge_of_the_graph() -> None:
    """It reports requires_grad=True, but torch gives it no AccumulateGrad: nothing flows to it."""

    def program(t):
        x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        with t.no_grad():
            r = x[0]
        s = (x * 2).sigmoid()
        z = s * r
        z.sum().backward()
        return [r.requires_grad, r.is_leaf, z.grad_fn.next_functions, plain(x.grad), plain(r.grad)]

    same(program)


def test_which_saved_tensor_is_reported_when_a_no_grad_view_is_an_operand() -> None:
    def program(t):
        x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        s = (x * 2).sigmoid()
        with t.no_grad():
            r = x[0]
        z = s * r
        s.add_(0.5)
        z.sum().backward()

    assert "which is output 0 of Sigmoid," in same(program).message
