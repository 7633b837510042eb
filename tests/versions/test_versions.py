"""Version counter: one per storage, shared by the base, its views and detach(); bumped once per in-place op."""

from __future__ import annotations

import pytest

from support.differential import same


def test_a_new_tensor_starts_at_version_zero() -> None:
    r = same(lambda t: [t.tensor([1.0, 2.0])._version, t.zeros(3)._version, t.ones(2, 2)._version])
    assert r == [0, 0, 0]


INPLACE = {
    "add_": lambda t, x: x.add_(1.0),
    "add_tensor": lambda t, x: x.add_(t.tensor([1.0, 2.0, 3.0])),
    "sub_": lambda t, x: x.sub_(0.5),
    "mul_": lambda t, x: x.mul_(2.0),
    "div_": lambda t, x: x.div_(4.0),
    "zero_": lambda t, x: x.zero_(),
    "fill_": lambda t, x: x.fill_(7.0),
    "copy_": lambda t, x: x.copy_(t.tensor([9.0, 8.0, 7.0])),
    "clamp_": lambda t, x: x.clamp_(0.0, 1.5),
    "clamp_min": lambda t, x: x.clamp_(min=1.5),
    "relu_": lambda t, x: x.relu_(),
    "sigmoid_": lambda t, x: x.sigmoid_(),
    "exp_": lambda t, x: x.exp_(),
}


@pytest.mark.parametrize("op", sorted(INPLACE))
def test_each_inplace_op_bumps_once_and_returns_self(op: str) -> None:
    def program(t):
        x = t.tensor([-1.0, 0.5, 2.0])
        before = x._version
        y = INPLACE[op](t, x)
        return [before, x._version, y is x, x]

    r = same(program)
    assert r[1] == 1 and r[2] is True


@pytest.mark.parametrize(
    "stmt",
    ["x += 1", "x -= 1", "x *= 2", "x /= 2", "x += y", "x *= y"],
)
def test_augmented_assignment_bumps_once(stmt: str) -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0])
        y = t.tensor([2.0, 2.0, 2.0])
        x0 = x
        env = {"x": x, "y": y}
        exec(stmt, {}, env)
        return [env["x"] is x0, x._version, x]

    assert same(program)[1] == 1


def test_inplace_ops_bump_in_every_grad_mode() -> None:
    def program(t):
        x = t.ones(3)
        with t.no_grad():
            x.add_(1)
        with t.enable_grad():
            x.mul_(2)
        with t.set_grad_enabled(False):
            x.zero_()
        return x._version

    assert same(program) == 3


def test_a_leaf_requiring_grad_bumps_under_no_grad() -> None:
    def program(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        with t.no_grad():
            w.sub_(0.1)
            w -= 0.1
        return [w._version, w, w.is_leaf, w.requires_grad]

    assert same(program)[0] == 2


def test_views_share_the_counter_with_their_base() -> None:
    def program(t):
        x = t.zeros(2, 3)
        v = x.view(6)
        s = x[0]
        tr = x.t()
        s.add_(1)
        after_view = [x._version, v._version, s._version, tr._version]
        x.mul_(2)
        return [after_view, x._version, v._version, s._version, tr._version, x]

    assert same(program)[:5] == [[1, 1, 1, 1], 2, 2, 2, 2]


VIEWS = {
    "view": lambda x: x.view(6),
    "reshape": lambda x: x.reshape(3, 2),
    "flatten": lambda x: x.flatten(),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "squeeze": lambda x: x.unsqueeze(1).squeeze(1),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(0, 1),
    "index_int": lambda x: x[1],
    "index_slice": lambda x: x[:, ::2],
    "index_none": lambda x: x[None, ..., 1],
    "unbind": lambda x: x.unbind(0)[1],
    "split": lambda x: x.split(1, dim=0)[0],
    "chunk": lambda x: x.chunk(3, dim=1)[2],
    "expand": lambda x: x[:, :1].expand(2, 4),
    "detach": lambda x: x.detach(),
}


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_every_view_kind_shares_the_counter(kind: str) -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3)
        v = VIEWS[kind](x)
        x.add_(1)
        first = v._version
        with t.no_grad():
            x.mul_(2)
        return [first, v._version, x._version, v]

    assert same(program)[:3] == [1, 2, 2]


def test_detach_shares_the_counter_both_ways() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 2
        d = y.detach()
        d.add_(1)
        y_after = y._version
        with t.no_grad():
            y.mul_(3)
        return [y_after, d._version, y._version]

    assert same(program) == [1, 2, 2]


def test_data_is_an_alias_with_a_fresh_counter() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 2
        y.data.add_(1)
        first = y._version
        d = y.data
        d.mul_(2)
        return [first, y._version, d._version, y, d]

    assert same(program)[:3] == [0, 0, 1]


def test_clone_and_out_of_place_results_start_at_zero() -> None:
    def program(t):
        x = t.ones(3)
        x.add_(1)
        x.add_(1)
        return [
            x._version,
            x.clone()._version,
            (x + 1)._version,
            x.exp()._version,
            x.sum()._version,
        ]

    assert same(program) == [2, 0, 0, 0, 0]


def test_contiguous_of_a_contiguous_tensor_is_itself() -> None:
    def program(t):
        x = t.ones(2, 3)
        x.add_(1)
        c = x.contiguous()
        nc = x.t().contiguous()
        return [c is x, c._version, nc._version]

    assert same(program) == [True, 1, 0]


def test_reshape_that_copies_gets_its_own_counter() -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3)
        r = x.t().reshape(6)
        x.add_(1)
        return [r._version, x._version, r]

    assert same(program)[:2] == [0, 1]


def test_setitem_bumps_once() -> None:
    def program(t):
        x = t.zeros(4)
        x[1] = 5.0
        x[t.tensor([True, False, True, False])] = 2.0
        x[t.tensor([0, 3])] = t.tensor([1.0, 1.0])
        return [x._version, x]

    assert same(program)[0] == 3


def test_indexed_augmented_assignment_bumps_twice() -> None:
    def program(t):
        x = t.zeros(4)
        x[1] += 5.0
        x[2:] *= 3
        return [x._version, x]

    assert same(program)[0] == 4


def test_zeros_like_and_ones_like_are_fresh() -> None:
    def program(t):
        x = t.ones(3)
        x.add_(1)
        return [t.zeros_like(x)._version, t.ones_like(x)._version, t.zeros_like(x), t.ones_like(x)]

    assert same(program)[:2] == [0, 0]


def test_out_of_place_op_does_not_bump_its_inputs() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y.sigmoid() + y.exp() * y
        z.sum().backward()
        return [x._version, y._version, z._version]

    assert same(program) == [0, 0, 0]
