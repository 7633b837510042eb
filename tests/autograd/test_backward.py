"""Backward mechanics: accumulation into .grad, freed graphs, implicit gradients, errors and warnings."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from support.differential import error_of, grad_of, same
from support.gradients import plain


def test_grad_starts_as_none_and_accumulates() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        start = x.grad
        (x * x).sum().backward()
        first = x.grad.clone()
        (x * 3).sum().backward()
        return [start, first, plain(x.grad), x.grad.requires_grad, x.grad.is_leaf]

    r = same(program)
    assert r[0] is None and r[2].values.tolist() == [5.0, 7.0, 9.0]


def test_grad_is_accumulated_in_place_into_the_same_tensor() -> None:
    """The second backward adds into the existing .grad in place: same object, one more version."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.sum().backward()
        g = x.grad
        first = g._version
        (2 * x).sum().backward()
        second = g._version
        (x * x).sum().backward()
        return [g is x.grad, plain(g), second - first, g._version - second]

    assert same(program)[2:] == [1, 1]


def test_zeroing_grad_by_none_or_zero_() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.sum().backward()
        x.grad = None
        (x * 4).sum().backward()
        after_none = x.grad.clone()
        x.grad.zero_()
        (x * 5).sum().backward()
        return [after_none, plain(x.grad)]

    same(program)


def test_grad_may_be_set_by_hand_and_then_accumulates() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.grad = t.tensor([10.0, 20.0])
        x.sum().backward()
        return plain(x.grad)

    same(program)


@pytest.mark.parametrize(
    "value",
    ["t.ones(2)", "t.ones(3, dtype=t.float64)", "[1.0, 2.0, 3.0]"],
    ids=["wrong_shape", "wrong_dtype", "not_a_tensor"],
)
def test_grad_setter_checks_like_torch(value: str) -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        x.grad = eval(value)

    same(program)


def test_a_shared_input_sums_its_gradients() -> None:
    def program(t):
        x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        a = x * 2
        b = x.exp()
        c = a * b + x
        c.sum().backward()
        return plain(x.grad)

    same(program)


def test_a_diamond_graph_visits_each_node_once() -> None:
    def program(t):
        x = t.tensor([0.5, 1.5], requires_grad=True)
        y = x.sigmoid()
        left = y * 3
        right = y.exp()
        top = left + right
        (top * top).sum().backward()
        return [plain(x.grad), top]

    same(program)


def test_a_deep_chain_does_not_hit_the_recursion_limit() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x
        for _ in range(5000):
            y = y * 1.0001
        y.sum().backward()
        return [plain(x.grad), y]

    same(program)


def test_second_backward_through_a_freed_graph_raises() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x.exp().sum()
        y.backward()
        y.backward()

    assert same(program).message.startswith("Trying to backward through the graph a second time")


def test_multiplying_by_a_python_scalar_saves_it_so_a_second_backward_raises() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = (x * 2).sum()
        y.backward()
        y.backward()

    same(program)


@pytest.mark.parametrize(
    "build",
    ["(x + 1).sum()", "(x - y).sum()", "(-x).sum()", "x.sum()", "x.view(3, 1).t().sum()"],
)
def test_a_graph_that_saved_nothing_may_be_run_twice(build: str) -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = t.ones(3)
        z = eval(build, {"t": t, "x": x, "y": y})
        z.backward()
        z.backward()
        return plain(x.grad)

    same(program)


def test_retain_graph_allows_a_second_backward() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        z = (x * x).sum()
        z.backward(retain_graph=True)
        z.backward()
        return plain(x.grad)

    assert same(program).values.tolist() == [4.0, 8.0]


def test_a_backward_without_retain_after_one_with_retain_frees_it() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        z = (x * x).sum()
        z.backward(retain_graph=True)
        z.backward()
        z.backward()

    same(program)


def test_a_non_scalar_output_needs_a_gradient() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        (x * 2).backward()

    assert same(program).message == "grad can be implicitly created only for scalar outputs"


@pytest.mark.parametrize("dtype", ["bool", "int64"])
@pytest.mark.parametrize("call", ["backward", "autograd.grad"])
def test_an_integer_output_that_requires_grad_gets_no_implicit_gradient(
    dtype: str, call: str
) -> None:
    """Fuzz 666470: a write of a tensor that requires grad into an integer or bool tensor gives
    it a history (``CopySlices``); torch refuses to seed it with ones."""

    def program(t: Any) -> Any:
        x = t.tensor(1.5, requires_grad=True)
        y = t.zeros((), dtype=getattr(t, dtype))
        y.reshape(-1)[...] = x * x
        run = y.backward if call == "backward" else lambda: t.autograd.grad(y, [x])
        return [y.requires_grad, error_of(run), grad_of(x)]

    same(program)


def test_an_explicit_gradient_is_used() -> None:
    def program(t):
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * x
        y.backward(t.tensor([[1.0, 0.0], [0.5, 2.0]]))
        return plain(x.grad)

    same(program)


def test_a_one_element_non_scalar_output_still_needs_a_gradient() -> None:
    same(lambda t: (t.ones(1, requires_grad=True) * 2).backward())


@pytest.mark.parametrize("shape", ["t.ones(2)", "t.ones(1)", "t.ones(3, 1)", "t.ones(())"])
def test_a_gradient_of_the_wrong_shape_raises(shape: str) -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        (x * 2).backward(eval(shape))

    same(program)


@pytest.mark.parametrize(
    "build",
    [
        "t.ones(3).sum()",
        "(x * 2).sum().detach()",
        "x.detach().sum()",
        "x.data.sum()",
        "nograd_sum(t, x)",
    ],
)
def test_a_loss_with_no_grad_path_raises(build: str) -> None:
    def nograd_sum(t, x):
        with t.no_grad():
            return (x * 2).sum()

    def program(t):
        x = t.ones(3, requires_grad=True)
        eval(build, None, {"t": t, "x": x, "nograd_sum": nograd_sum}).backward()

    assert same(program).message == (
        "element 0 of tensors does not require grad and does not have a grad_fn"
    )


def test_an_unused_leaf_keeps_grad_none() -> None:
    def program(t):
        x = t.ones(2, requires_grad=True)
        w = t.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        return [plain(x.grad), plain(w.grad)]

    assert same(program)[1] is None


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)


def test_an_assigned_grad_is_checked_in_torchs_order() -> None:
    """``x.grad = value``: a tensor or None, not ``x`` itself, of the dtype ``x``'s gradients
    take, of ``x``'s shape (each check before the next); a fitting one is kept as it is, and
    ``del x.grad`` leaves None."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        out = []
        for value in ("a", x, t.ones(3, dtype=t.float64), t.ones(3), t.ones(1, 2)):
            try:
                x.grad = value
            except (TypeError, RuntimeError) as e:
                out.append((type(e).__name__, str(e)))
        g = t.full((2,), 3.0)
        x.grad = g
        out.append(x.grad is g)
        del x.grad
        out.append(x.grad)
        x.grad = g
        x.grad = None
        return [*out, x.grad]

    same(program)


def test_grad_of_a_non_leaf_warns_and_is_none() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 2
        y.sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g = y.grad
        return [g, [(w.category.__name__, str(w.message).split(" (Triggered")[0]) for w in caught]]

    r = same(program)
    assert r == [None, [("UserWarning", NON_LEAF_GRAD_WARNING)]]


def test_grad_of_a_leaf_or_a_retained_non_leaf_does_not_warn() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grads = plain([x.grad, y.grad, t.ones(2).grad])
        return [grads, len(caught), y.retains_grad, x.retains_grad]

    same(program)


def test_retain_grad_accumulates_too() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.retain_grad()
        y.sum().backward(retain_graph=True)
        (y * 2).sum().backward()
        return [plain(y.grad), plain(x.grad)]

    same(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda t: t.ones(3, dtype=t.int64, requires_grad=True),
        lambda t: t.tensor([1, 2], requires_grad=True),
        lambda t: t.tensor([True, False], requires_grad=True),
        lambda t: t.arange(3).requires_grad_(),
        lambda t: setattr(t.arange(3), "requires_grad", True),
        lambda t: t.zeros(2, dtype=t.bool, requires_grad=True),
    ],
    ids=["ones_int64", "tensor_int", "tensor_bool", "requires_grad_", "setattr", "zeros_bool"],
)
def test_integer_and_bool_tensors_cannot_require_grad(program) -> None:
    same(program)


def test_requires_grad_false_is_always_allowed() -> None:
    def program(t):
        x = t.arange(3)
        x.requires_grad = False
        x.requires_grad_(False)
        return x

    same(program)


def test_requires_grad_of_a_non_leaf_cannot_be_turned_off() -> None:
    def program(t):
        y = t.ones(3, requires_grad=True) * 2
        y.requires_grad = False

    same(program)


def test_requires_grad_can_be_turned_on_for_a_leaf_and_used() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0])
        y = x.requires_grad_()
        (x * x).sum().backward()
        return [y is x, plain(x.grad), x.is_leaf]

    same(program)


def test_backward_returns_none() -> None:
    same(lambda t: t.ones(2, requires_grad=True).sum().backward())


def test_the_int_target_path_has_no_gradient() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        idx = t.tensor([1, 0])
        y = x[idx] * 3
        y.sum().backward()
        return [plain(x.grad), idx.requires_grad, plain(idx.grad)]

    same(program)


def test_the_grad_of_a_non_contiguous_leaf_has_the_leafs_strides() -> None:
    def program(t):
        x = t.ones(3, 2).t().requires_grad_()
        (x * 2).sum().backward()
        y = t.ones(2, 3, requires_grad=True)
        y.sum().backward()
        return [x.stride(), x.grad.stride(), y.grad.stride(), y.grad.is_contiguous()]

    same(program)


@pytest.mark.parametrize("case", ["later_backward", "no_grad_root", "too_few", "empty_inputs"])
def test_autograd_backward_runs_one_backward_over_all_roots(case: str) -> None:
    """``autograd.backward([r1, r2])`` frees the graph once for all roots; its errors name the
    root (element 1) and count tensors against gradients as torch's do."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        r1, r2 = (x * x).sum(), x.exp().sum()
        if case == "later_backward":
            t.autograd.backward([r1, r2])
            return [grad_of(x), error_of(r1.backward)]
        if case == "no_grad_root":
            t.autograd.backward([r1, t.ones(2).sum()])
        elif case == "too_few":
            t.autograd.backward([r1, r2], [t.tensor(1.0)])
        else:
            t.autograd.backward(r1, inputs=[])

    same(program)


BACKWARD_CALLS: dict[str, Any] = {
    "retain_graph a str": lambda t, x, y: y.backward(retain_graph="yes"),
    "retain_graph 1": lambda t, x, y: y.backward(retain_graph=1),
    "retain_graph a bool tensor": lambda t, x, y: y.backward(retain_graph=t.tensor(True)),
    "retain_graph a float": lambda t, x, y: y.backward(retain_graph=2.0),
    "retain_graph 300": lambda t, x, y: y.backward(retain_graph=300),
    "retain_graph -1": lambda t, x, y: y.backward(retain_graph=-1),
    "create_graph a str": lambda t, x, y: y.backward(create_graph="yes"),
    "create_graph None": lambda t, x, y: y.backward(create_graph=None),
    "inputs a str": lambda t, x, y: y.backward(inputs="x"),
    "inputs, a str after a tensor": lambda t, x, y: y.backward(inputs=[t.ones(2), "x"]),
    "inputs a str, retain_graph a str": lambda t, x, y: y.backward(inputs="x", retain_graph="a"),
    "no history, a vector": lambda t, x, y: t.tensor([1.0, 2.0]).backward(),
    "no history, a vector, retain_graph a str": lambda t, x, y: t.tensor([1.0, 2.0]).backward(
        retain_graph="a"
    ),
    "no history, a vector, inputs a str": lambda t, x, y: t.tensor([1.0, 2.0]).backward(inputs="x"),
    "a vector": lambda t, x, y: (x * 2).backward(),
    "autograd.backward, retain_graph a str": lambda t, x, y: t.autograd.backward(
        y, retain_graph="yes"
    ),
    "autograd.backward, 2 tensors, 1 gradient": lambda t, x, y: t.autograd.backward(
        [y, y], [t.ones(())]
    ),
    "autograd.backward, 1 tensor, 2 gradients": lambda t, x, y: t.autograd.backward(
        [y], [t.ones(()), t.ones(())]
    ),
    "autograd.backward, no history then a vector": lambda t, x, y: t.autograd.backward(
        [t.tensor([1.0, 2.0]), x * 2]
    ),
    "autograd.backward, inputs a str": lambda t, x, y: t.autograd.backward(y, inputs="x"),
}


@pytest.mark.parametrize("call", BACKWARD_CALLS)
def test_backward_checks_its_arguments_in_torchs_order(call: str) -> None:
    """``_make_grads`` first (a vector that requires grad has no implicit gradient), then the
    engine's flags, read as C++ reads an unsigned byte (a str or None is a TypeError), then one
    gradient per tensor and each tensor's history, then the inputs one by one."""

    def program(t: Any) -> Any:
        x = t.ones(3, requires_grad=True)
        y = (x * 2).sum()
        BACKWARD_CALLS[call](t, x, y)
        return grad_of(x)

    same(program)


LAYOUT_CONTRACT = {
    # fuzz 90374: the gradient's stride in a dim of size 1 differs from the leaf's: kept as it is
    "a size-1 dim's stride": """
t1 = t.tensor([[-0.5, 3.0, 2.0]], requires_grad=True)
t5 = t1.mT[::2].narrow(1, 0, 1)
t5.backward(t.ones_like(t5))
out = t1.grad""",
    # fuzz 91629: a copied gradient takes the leaf's exact strides, its size-1 dims' too
    "a copy with the leaf's size-1 strides": """
t1 = t.tensor([[-1.5, 0.0, 1.5], [0.0, 1.5, 1.0]])
t2 = t1[::2]
t2.requires_grad_()
t2.backward(t.ones_like(t2))
out = t2.grad""",
    # fuzz 91010: a sum into a gradient that no longer fits the leaf's layout warns (torch's
    # warning, once per program)
    "a sum that breaks the contract": """
t1 = t.tensor([[-0.0, 1.5], [-0.0, 2.0]], dtype=t.float64, requires_grad=True)
t3 = t1[:, ::2].split(1)[1].diagonal()
t3.backward(t.ones_like(t3))
t1.data = t1[::2]
t3.backward(t.ones_like(t3))
out = t1.grad""",
    # fuzz 97220: a leaf given a 0-d .data: the gradient's dims have no stride of the leaf's
    "a sum into a leaf of fewer dims": """
t1 = t.tensor([[2.0, -1.5, 0.5]], requires_grad=True)
t6 = t1[..., :1].unsqueeze(2)
t6.backward(t.ones_like(t6))
t1.data = t6.prod()
t6.backward(t.ones_like(t6))
out = t1.grad""",
    # fuzz 96218, one path: mul's backward lays out ``grad * other`` as mul does (the expanded
    # gradient takes other's strides, its size-1 dim's too), so the gradient keeps them
    "mul's backward with a size-1 dim": """
t1 = t.zeros((2, 1, 3), requires_grad=True)
t2 = t1.swapaxes(0, 1)
(t2 * t2.detach()).sum().backward()
out = t1.grad""",
    # a gradient of the leaf's transposed strides (``t()``'s of a row-major copy): copied into
    # the leaf's strides, so at version 1 (the copy_ of clone_obey_contract)
    "a transposed first gradient": """
t1 = t.ones(3, 4, requires_grad=True)
t1.t().contiguous().backward(t.ones(4, 3))
out = t1.grad""",
    "a sum in grad mode that breaks the contract": """
t1 = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = (t1 * 2).sum()
y.backward(retain_graph=True)
t1.data = t.ones(2, 4)[:, ::2]
with t.enable_grad():
    y.backward(create_graph=True)
out = t1.grad""",
}


@pytest.mark.parametrize("program", LAYOUT_CONTRACT.values(), ids=LAYOUT_CONTRACT.keys())
def test_the_gradient_layout_contract(program: str) -> None:
    """torch's gradient layout contract for a leaf's ``.grad``: the first gradient is kept when
    it has the leaf's strides in every dim of size other than 1, else copied into exactly the
    leaf's strides; a gradient summed into ``.grad`` that breaks it gets torch's warning."""

    def run(t):
        scope = {"t": t}
        exec(program, scope)
        return [scope["out"], scope["out"].stride()]

    same(run)


RETAINED_VIEWS = {
    # fuzz 93530: a view made under no_grad, its base written under no_grad
    "a no_grad view of a written 0-d leaf": """
t1 = t.tensor(0.0, requires_grad=True)
with t.no_grad():
    v = t1.view_as(t1).reshape(-1)
    t1.flatten()[0] = 2.0
v.retain_grad()
out = [v.retains_grad, v.requires_grad]""",
    "a view made before its base required grad": """
b = t.tensor([0.0, 1.0, -0.5])
v = b[1:]
v.exp_()
b.requires_grad_()
v.retain_grad()
out = [v.retains_grad, v.grad_fn.name()]""",
    "a graph view whose base was written under no_grad": """
x = t.ones(3, requires_grad=True)
y = x * 2
v = y[1:]
with t.no_grad():
    y.mul_(2)
v.retain_grad()
(v * 3).sum().backward()
out = [v.retains_grad, v.grad, x.grad]""",
}


@pytest.mark.parametrize("program", RETAINED_VIEWS.values(), ids=RETAINED_VIEWS.keys())
def test_retain_grad_of_a_view_asks_the_grad_fn_it_holds(program: str) -> None:
    """``retain_grad`` is a no-op on a tensor holding no ``grad_fn`` (torch's C++ ``is_leaf``),
    a view whose ``grad_fn`` read would raise or be made now included; a view holding one has
    it read (refreshed) and retains its gradient."""

    def run(t):
        scope = {"t": t}
        exec(program, scope)
        return scope["out"]

    same(run)
