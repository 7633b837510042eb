"""Saved tensors: each op saves what torch's op saves, and a changed version is refused at backward."""

from __future__ import annotations

import pytest

from support.differential import same
from support.gradients import plain

HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)

OPS = {
    "sigmoid": lambda a, b: a.sigmoid(),
    "exp": lambda a, b: a.exp(),
    "tanh": lambda a, b: a.tanh(),
    "relu": lambda a, b: a.relu(),
    "sqrt": lambda a, b: a.sqrt(),
    "pow": lambda a, b: a.pow(2),
    "pow_operator": lambda a, b: a**3,
    "pow_tensor": lambda a, b: a**b,
    "rpow": lambda a, b: 2.0**a,
    "log": lambda a, b: a.log(),
    "abs": lambda a, b: a.abs(),
    "clamp": lambda a, b: a.clamp(0.5, 2.5),
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "sum": lambda a, b: a.sum(),
    "sum_dim": lambda a, b: a.sum(0),
    "mean": lambda a, b: a.mean(),
    "neg": lambda a, b: -a,
    "mul": lambda a, b: a * b,
    "mul_scalar": lambda a, b: a * 2.0,
    "div": lambda a, b: a / b,
    "rdiv": lambda a, b: b / a,
    "div_scalar": lambda a, b: a / 2.0,
    "matmul": lambda a, b: a @ b,
    "max": lambda a, b: a.max(),
    "max_dim": lambda a, b: a.max(dim=1)[0],
    "softmax": lambda a, b: a.softmax(1),
    "log_softmax": lambda a, b: a.log_softmax(1),
}


@pytest.mark.parametrize("target", ["input", "other", "output"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_which_inplace_write_breaks_backward(op: str, target: str) -> None:
    """Write in place into the input, the constant other operand or the output, then backward."""

    def program(t):
        x = t.tensor([[1.0, 2.0], [3.0, 0.5]], requires_grad=True)
        a = x * 1
        b = t.tensor([[2.0, 3.0], [4.0, 1.5]])
        out = OPS[op](a, b)
        {"input": a, "other": b, "output": out}[target].add_(1)
        out.sum().backward()
        return plain(x.grad)

    same(program)


@pytest.mark.parametrize("target", ["a", "b"])
@pytest.mark.parametrize("op", ["mul", "div", "matmul", "pow_tensor"])
def test_binary_ops_save_both_sides_when_both_need_grad(op: str, target: str) -> None:
    def program(t):
        x = t.tensor([[1.0, 2.0], [3.0, 0.5]], requires_grad=True)
        y = t.tensor([[2.0, 3.0], [4.0, 1.5]], requires_grad=True)
        a, b = x * 1, y * 1
        out = OPS[op](a, b)
        {"a": a, "b": b}[target].mul_(2)
        out.sum().backward()
        return [plain(x.grad), plain(y.grad)]

    same(program)


def test_the_units_sigmoid_then_mul_error_message() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        y.sum().backward()

    assert same(program).kind == "RuntimeError"


def test_the_message_in_full_for_an_output_saved_by_sigmoid() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        y.sum().backward()

    r = same(program)
    assert r.kind == "RuntimeError"
    assert r.message == (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; "
        "expected version 0 instead. " + HINT
    )


def test_a_saved_input_is_named_by_its_current_grad_fn() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        z = y * y
        y.add_(1)
        z.sum().backward()

    assert "which is output 0 of Add," in same(program).message


def test_a_saved_leaf_has_no_producer_in_the_message() -> None:
    def program(t):
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = w * w
        with t.no_grad():
            w.add_(1)
        z.sum().backward()

    r = same(program)
    assert "[torch.FloatTensor [3]] is at version 1; expected version 0" in r.message


def test_float64_and_2d_shapes_in_the_message() -> None:
    def program(t):
        x = t.ones(2, 3, dtype=t.float64, requires_grad=True)
        y = x.exp()
        y.zero_()
        y.sum().backward()

    assert "[torch.DoubleTensor [2, 3]], which is output 0 of Exp" in same(program).message


def test_a_zero_dim_saved_output_in_the_message() -> None:
    def program(t):
        x = t.tensor([1.0, 5.0, 3.0], requires_grad=True)
        m = x.max()
        m.add_(1)
        m.backward()

    assert "[torch.FloatTensor []], which is output 0 of Max1" in same(program).message


def test_the_version_reported_counts_every_bump() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        y.add_(1)
        y[0] = 3.0
        y.sum().backward()

    assert "is at version 3; expected version 0" in same(program).message


def test_a_write_through_a_view_of_a_saved_tensor_is_caught() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x.exp()
        v = y.view(2, 2)
        v[0, 0] = 0.0
        y.sum().backward()

    same(program)


def test_a_write_through_detach_is_caught() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sigmoid()
        y.detach().zero_()
        y.sum().backward()

    same(program)


def test_a_write_through_data_is_not_caught_and_gives_a_wrong_gradient() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sigmoid()
        y.data.zero_()
        y.sum().backward()
        return [y._version, plain(x.grad)]

    r = same(program)
    assert r[0] == 0 and r[1].values.tolist() == [0.0, 0.0, 0.0]


def test_a_write_after_backward_is_harmless() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        y.sum().backward()
        y.add_(1)
        return [plain(x.grad), y]

    same(program)


def test_reordering_the_write_before_the_save_is_fine() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        y.mul_(2)
        z = y.sigmoid()
        z.sum().backward()
        return [plain(x.grad), z, y._version]

    same(program)


def test_clone_before_the_write_is_the_fix() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sigmoid()
        z = y.clone()
        z.mul_(2)
        (y + z).sum().backward()
        return [plain(x.grad), z.grad_fn.name(), y._version, z._version]

    same(program)


def test_a_chain_of_inplace_ops_that_save_nothing_they_later_overwrite() -> None:
    def program(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 1
        y.mul_(3.0)
        y.add_(1.0)
        y.sigmoid_()
        y.sum().backward()
        return [plain(x.grad), y, y._version]

    same(program)


def test_an_inplace_op_that_saved_its_result_catches_a_later_write() -> None:
    def program(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 1
        y.exp_()
        y.add_(1)
        y.sum().backward()

    r = same(program)
    assert "which is output 0 of Exp, is at version 2; expected version 1 instead." in r.message


@pytest.mark.parametrize("write", ["s.copy_(x)", "s.zero_()", "s.fill_(1.0)", "s[0] = 1.0"])
def test_the_message_names_the_node_of_the_last_inplace_write(write: str) -> None:
    """A saved input is described by its grad_fn at unpack time, whatever in-place op set it."""

    def program(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        s = (x * 2).sigmoid()
        z = x * s
        exec(write, {"s": s, "x": x})
        z.sum().backward()

    assert same(program).message.startswith("one of the variables needed")
