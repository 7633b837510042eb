"""grad_fn names and next_functions structure, op by op, as torch 2.13 builds them."""

from __future__ import annotations

import pytest

from support.differential import Named, same

ACC = "torch::autograd::AccumulateGrad"

OPS = {
    "add": lambda t, x, c: x + c,
    "add_scalar": lambda t, x, c: x + 1,
    "radd": lambda t, x, c: 1 + x,
    "sub": lambda t, x, c: x - c,
    "rsub": lambda t, x, c: 1 - x,
    "mul": lambda t, x, c: x * c,
    "mul_scalar": lambda t, x, c: x * 2,
    "rmul": lambda t, x, c: 2 * x,
    "div": lambda t, x, c: x / c,
    "div_scalar": lambda t, x, c: x / 2,
    "rdiv": lambda t, x, c: 2 / x,
    "pow": lambda t, x, c: x**2,
    "pow_method": lambda t, x, c: x.pow(3),
    "pow_tensor": lambda t, x, c: x**c,
    "rpow": lambda t, x, c: 2**x,
    "matmul": lambda t, x, c: x @ c,
    "matmul_fn": lambda t, x, c: t.matmul(x, c),
    "matmul_mv": lambda t, x, c: x @ c[0],
    "matmul_dot": lambda t, x, c: x[0] @ c[0],
    "neg": lambda t, x, c: -x,
    "exp": lambda t, x, c: x.exp(),
    "log": lambda t, x, c: x.log(),
    "sqrt": lambda t, x, c: x.sqrt(),
    "abs": lambda t, x, c: x.abs(),
    "sigmoid": lambda t, x, c: x.sigmoid(),
    "tanh": lambda t, x, c: x.tanh(),
    "relu": lambda t, x, c: x.relu(),
    "clamp": lambda t, x, c: x.clamp(0, 1),
    "clamp_min": lambda t, x, c: x.clamp(min=0),
    "clamp_max": lambda t, x, c: x.clamp(max=1),
    "sum": lambda t, x, c: x.sum(),
    "sum_dim": lambda t, x, c: x.sum(0),
    "sum_keepdim": lambda t, x, c: x.sum(1, keepdim=True),
    "mean": lambda t, x, c: x.mean(),
    "mean_dim": lambda t, x, c: x.mean(0),
    "max": lambda t, x, c: x.max(),
    "max_dim": lambda t, x, c: x.max(1)[0],
    "max_dim_values": lambda t, x, c: x.max(dim=0).values,
    "softmax": lambda t, x, c: x.softmax(1),
    "log_softmax": lambda t, x, c: x.log_softmax(1),
    "view": lambda t, x, c: x.view(4),
    "reshape": lambda t, x, c: x.reshape(4),
    "reshape_copy": lambda t, x, c: x.t().reshape(4),
    "reshape_alias": lambda t, x, c: x[:, :1].reshape(2),
    "reshape_alias_t": lambda t, x, c: x.t()[0].reshape(1, 2),
    "flatten": lambda t, x, c: x.flatten(),
    "flatten_copy": lambda t, x, c: x.t().flatten(),
    "t": lambda t, x, c: x.t(),
    "T": lambda t, x, c: x.T,
    "transpose": lambda t, x, c: x.transpose(0, 1),
    "permute": lambda t, x, c: x.permute(1, 0),
    "expand": lambda t, x, c: x[0:1].expand(3, 2),
    "unsqueeze": lambda t, x, c: x.unsqueeze(0),
    "squeeze_dim": lambda t, x, c: x[0:1].squeeze(0),
    "squeeze_all": lambda t, x, c: x[0:1].squeeze(),
    "narrow": lambda t, x, c: x.narrow(0, 0, 1),
    "select": lambda t, x, c: x.select(0, 1),
    "index_int": lambda t, x, c: x[0],
    "index_int_int": lambda t, x, c: x[0, 1],
    "index_slice": lambda t, x, c: x[:, 1:],
    "index_none": lambda t, x, c: x[None],
    "index_ellipsis": lambda t, x, c: x[..., 0],
    "unbind": lambda t, x, c: x.unbind(0)[0],
    "split": lambda t, x, c: x.split(1)[0],
    "chunk": lambda t, x, c: x.chunk(2)[1],
    "advanced_index": lambda t, x, c: x[t.tensor([0, 0])],
    "mask_index": lambda t, x, c: x[x > 2],
    "clone": lambda t, x, c: x.clone(),
    "contiguous_copy": lambda t, x, c: x.t().contiguous(),
    "sum_then_view": lambda t, x, c: x.sum(0).view(2, 1),
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_grad_fn_name_and_next_functions(op: str) -> None:
    def program(t):
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        c = t.tensor([[1.0, 2.0], [3.0, 4.0]])
        y = OPS[op](t, x, c)
        return [y.grad_fn.name(), y.grad_fn.next_functions, y.grad_fn]

    same(program)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "matmul", "pow_tensor"])
def test_next_functions_when_both_sides_require_grad(op: str) -> None:
    def program(t):
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        c = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = OPS[op](t, x * 1, c)
        return [y.grad_fn.next_functions, [n.next_functions for n, _ in y.grad_fn.next_functions]]

    same(program)


def test_the_units_graph_of_sigmoid_then_mul() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        w = t.tensor([3.0, 4.0], requires_grad=True)
        s = x.sigmoid()
        z = s * w
        node = z.grad_fn
        return [
            node.name(),
            [(n.name(), i) for n, i in node.next_functions],
            node.next_functions[0][0].next_functions[0][0].name(),
        ]

    assert same(program) == [
        "MulBackward0",
        [("SigmoidBackward0", 0), (ACC, 0)],
        ACC,
    ]


def test_accumulate_grad_nodes_are_shared_per_leaf() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = x.exp()
        acc_a = a.grad_fn.next_functions[0][0]
        acc_b = b.grad_fn.next_functions[0][0]
        return [acc_a is acc_b, acc_a.name(), acc_a.variable is x]

    assert same(program) == [True, ACC, True]


def test_a_leaf_has_no_grad_fn_and_a_non_requiring_input_is_none() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        c = t.tensor([1.0, 2.0])
        y = c * x
        return [x.grad_fn, c.grad_fn, y.grad_fn.next_functions]

    assert same(program)[2] == ((None, 0), (Named("<torch::autograd::AccumulateGrad>"), 0))


def test_max_with_dim_returns_values_and_indices() -> None:
    def program(t):
        x = t.tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]], requires_grad=True)
        values, indices = x.max(dim=1)
        r = x.max(1, keepdim=True)
        return [values, indices, indices.dtype, r[0], r[1], values.grad_fn.name()]

    same(program)


def test_output_nr_of_multi_output_views() -> None:
    def program(t):
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        parts = y.unbind(0)
        z = parts[1] * 2
        return [z.grad_fn.next_functions, parts[0].grad_fn is parts[1].grad_fn]

    same(program)


def test_inplace_ops_change_the_grad_fn() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        names = [y.grad_fn.name()]
        for op in ("add_", "mul_", "sub_", "div_"):
            getattr(y, op)(2.0)
            names.append(y.grad_fn.name())
        y.exp_()
        y.sigmoid_()
        y.relu_()
        y.clamp_(0, 1)
        names.append(y.grad_fn.name())
        y.zero_()
        names.append(y.grad_fn.name())
        y.fill_(1.0)
        names.append(y.grad_fn.name())
        y.copy_(x)
        names.append(y.grad_fn.name())
        return [names, y.grad_fn.next_functions]

    same(program)


@pytest.mark.parametrize(
    "op", ["exp_", "sigmoid_", "relu_", "clamp_", "zero_", "fill_", "copy_", "add_", "mul_"]
)
def test_each_inplace_grad_fn_name(op: str) -> None:
    args = {"clamp_": (0.0, 1.0), "fill_": (2.0,), "copy_": None, "add_": (1.0,), "mul_": (2.0,)}

    def program(t):
        x = t.tensor([1.0, -2.0], requires_grad=True)
        y = x * 1
        a = args.get(op, ())
        if a is None:
            a = (x.exp(),)
        getattr(y, op)(*a)
        return [y.grad_fn.name(), y.grad_fn.next_functions, y._version]

    same(program)
