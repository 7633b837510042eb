"""A leaf's ``grad_dtype``: read and set on leaves only, the dtype its gradients are cast to in
backward (before its hooks, in ``autograd.grad``), what ``.grad`` may be assigned, and None,
which lets a gradient keep its dtype."""

from __future__ import annotations

import copy
import gc

import pytest

import ownership
from ownership.core.autograd import grad_dtype

from support.differential import error_of, grad_of, same


def test_default_follows_the_dtype() -> None:
    """Unset, it is the tensor's dtype, also after ``.data`` changes it; a set one stays. Fresh
    tensors (``detach()``, ``.data``, copies, parameters, no_grad results) have the default."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        x.grad_dtype = t.float64
        y = t.ones(2, requires_grad=True)
        y.data = t.ones(2, dtype=t.float64)
        z = t.ones(2, requires_grad=True)
        z.grad_dtype = t.float32
        z.data = t.ones(2, dtype=t.float64)
        w = t.ones(2, requires_grad=True)
        w.grad_dtype = None
        w.data = t.ones(2, dtype=t.float64)
        with t.no_grad():
            made = x * 2
        plain = t.ones(3, dtype=t.int64)
        view = plain[:2]
        view.grad_dtype = t.float64
        return [
            y.grad_dtype,
            z.grad_dtype,
            w.grad_dtype,
            x.detach().grad_dtype,
            x.data.grad_dtype,
            copy.deepcopy(x).grad_dtype,
            t.nn.Parameter(x.detach()).grad_dtype,
            made.grad_dtype,
            x.requires_grad_(False).grad_dtype,
            plain.grad_dtype,
            view.grad_dtype,
            plain.grad_dtype,
        ]

    same(program)


@pytest.mark.parametrize("value", ["a", 3, float, 1.5])
def test_set_to_a_non_dtype(value) -> None:
    """Only a dtype or None; checked before anything else (a non-leaf's too)."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        x.grad = t.ones(2)
        return [
            error_of(lambda: setattr(x, "grad_dtype", value)),
            error_of(lambda: setattr(x * 2, "grad_dtype", value)),
        ]

    same(program)


def test_non_leaves() -> None:
    """A non-leaf (a result, a view of a leaf, a retained one) has none: reading it is an
    error; setting it reads its ``.grad`` first (the non-leaf warning), then is an error."""

    def program(t):
        x = t.ones(4, requires_grad=True)
        y = x * 2
        r = x * 3
        r.retain_grad()
        return [
            error_of(lambda: y.grad_dtype),
            error_of(lambda: x[:2].grad_dtype),
            error_of(lambda: setattr(y, "grad_dtype", t.float64)),
            error_of(lambda: setattr(y, "grad_dtype", None)),
            error_of(lambda: setattr(r, "grad_dtype", None)),
        ]

    same(program)


@pytest.mark.parametrize("existing", ["float32", "float64", "int64"])
@pytest.mark.parametrize("new", ["float32", "float64", None])
def test_set_while_a_gradient_exists(existing: str, new: str | None) -> None:
    """An existing ``.grad`` must already have the new dtype (None accepts any)."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        x.grad_dtype = None
        x.grad = t.ones(2, dtype=getattr(t, existing))
        err = error_of(lambda: setattr(x, "grad_dtype", None if new is None else getattr(t, new)))
        return [err, x.grad_dtype, x.grad]

    same(program)


@pytest.mark.parametrize("setting", ["default", "float64", "float32", None])
@pytest.mark.parametrize("given", ["float32", "float64", "int64"])
def test_assigning_grad(setting: str | None, given: str) -> None:
    """An assigned ``.grad`` must have the grad_dtype (None: any dtype); the dtype is checked
    before the size."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        if setting != "default":
            x.grad_dtype = None if setting is None else getattr(t, setting)
        dt = getattr(t, given)
        return [
            error_of(lambda: setattr(x, "grad", t.ones(3, dtype=dt))),
            error_of(lambda: setattr(x, "grad", t.ones(2, dtype=dt))),
            grad_of(x),
        ]

    same(program)


@pytest.mark.parametrize("create_graph", [False, True])
def test_backward_casts_and_accumulates(create_graph: bool) -> None:
    """A float32 leaf with grad_dtype float64 gets float64 gradients, summed in place into the
    same ``.grad`` (a new one with ``create_graph``, its first a ``CopyBackwards`` copy)."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.grad_dtype = t.float64
        (x * 1.1).sum().backward(create_graph=create_graph)
        first = x.grad
        facts = [first.dtype, first.grad_fn is None]
        (x * x).sum().backward(create_graph=create_graph)
        return [facts, x.grad is first, first._version, x.grad.detach().clone()]

    same(program, warnings=not create_graph)  # create_graph's warning: once per process in torch


def test_set_after_the_graph_was_built() -> None:
    """A grad_dtype set after the graph was made is the one gradients take: setting it changes
    the leaf's accumulator, which the backward pass reads."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        y = x * 3
        x.grad_dtype = t.float64
        y.sum().backward()
        first = x.grad.dtype
        z = x * 3
        x.grad = None
        x.grad_dtype = t.float32
        z.sum().backward()
        return [first, x.grad.dtype]

    same(program)


@pytest.mark.parametrize("setting", ["default", "float64", None])
@pytest.mark.parametrize("given", ["float32", "float64"])
def test_gradient_given_to_the_leaf(setting: str | None, given: str) -> None:
    """``x.backward(g)`` on the leaf itself: by default g takes x's dtype, None keeps g's."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        if setting != "default":
            x.grad_dtype = None if setting is None else getattr(t, setting)
        x.backward(t.full((2,), 0.1, dtype=getattr(t, given)))
        return grad_of(x)

    same(program)


def test_none_keeps_the_existing_gradient_dtype() -> None:
    """None: a float32 gradient is added in place into an existing float64 ``.grad``; a fresh
    one keeps the float32 the graph gives."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        x.grad_dtype = None
        x.grad = t.zeros(2, dtype=t.float64)
        kept = x.grad
        (x * 1.1).sum().backward()
        facts = [x.grad is kept, kept._version, x.grad.clone()]
        x.grad = None
        (x * 1.1).sum().backward()
        return [facts, grad_of(x)]

    same(program)


def test_hooks_and_autograd_grad_see_the_cast() -> None:
    """The leaf's tensor hooks and post-accumulate hooks see the cast gradient, and
    ``autograd.grad`` returns it."""

    def program(t):
        seen = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.grad_dtype = t.float64
        x.register_hook(lambda g: seen.append(("hook", g.dtype)))
        x.register_post_accumulate_grad_hook(lambda p: seen.append(("post", p.grad.dtype)))
        (x * x).sum().backward()
        y = t.tensor([1.0, 2.0], requires_grad=True)
        y.grad_dtype = t.float64
        (got,) = t.autograd.grad((y.exp() * 3).sum(), y)
        return [seen, grad_of(x), got]

    same(program)


def test_float64_leaf_with_float32_gradients() -> None:
    """A float64 leaf whose grad_dtype is float32: its gradients are rounded to float32."""

    def program(t):
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        x.grad_dtype = t.float32
        (x * 1.1).sum().backward()
        (x / 3).sum().backward()
        return grad_of(x)

    same(program)


@pytest.mark.parametrize("setting", ["default", "float64", None])
def test_autograd_grad_of_the_leaf_itself(setting: str | None) -> None:
    """``autograd.grad`` of a leaf with respect to itself, or through ``double()``, with a
    float64 gradient; ``backward(inputs=[x])``."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        if setting != "default":
            x.grad_dtype = None if setting is None else getattr(t, setting)
        g = t.ones(2, dtype=t.float64)
        own = t.autograd.grad(x, x, g)[0]
        through = t.autograd.grad(x.double(), x, g)[0]
        x.sum().backward(inputs=[x])
        return [own, through, grad_of(x)]

    same(program)


@pytest.mark.parametrize("setting", ["int64", "bool", None])
def test_not_a_floating_gradient(setting: str | None) -> None:
    """A grad_dtype that is not floating, or None with an integer gradient given to the leaf:
    torch's engine refuses the gradient (its assertion's message), and ``.grad`` stays None."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        x.grad_dtype = None if setting is None else getattr(t, setting)
        errors = [
            error_of(lambda: x.backward(t.ones(2, dtype=t.int64))),
            error_of(lambda: t.autograd.grad(x, x, t.ones(2, dtype=t.int64))),
        ]
        if setting is not None:
            errors.append(error_of(lambda: (x * 1.5).sum().backward()))
            errors.append(error_of(lambda: t.autograd.grad((x * 1.5).sum(), x)))
        return [errors, grad_of(x)]

    same(program)


def test_inference_tensor() -> None:
    """An inference tensor is a leaf: its grad_dtype is read and set as any leaf's."""

    def program(t):
        with t.inference_mode():
            i = t.ones(2)
        before = i.grad_dtype
        i.grad_dtype = t.float64
        return [before, i.grad_dtype]

    same(program)


def test_a_grad_dtype_is_forgotten_when_its_tensor_is_gone() -> None:
    """A tensor given a grad_dtype is remembered while it lives (the backward pass casts its
    gradient); once it is gone, backward asks nothing more of any leaf."""
    before = dict(grad_dtype.LEAVES)
    x = ownership.ones(2, requires_grad=True)
    x.grad_dtype = ownership.float64
    x.grad_dtype = None
    assert set(grad_dtype.LEAVES) - set(before) == {id(x)}
    del x
    gc.collect()
    assert set(grad_dtype.LEAVES) <= set(before)


def test_other_leaves_keep_their_own_dtype_while_one_has_a_grad_dtype(monkeypatch) -> None:
    """While one leaf has a grad_dtype, the backward pass asks every leaf for its own: the
    others (one whose dtype ``.data`` changed before the graph was made among them) keep theirs, asked without reading
    their unset slot (no attribute read fails: a ``__getattr__`` set for the test sees none)."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        x.grad_dtype = t.float64
        y = t.ones(2, requires_grad=True)
        z = t.ones(2, requires_grad=True)
        z.data = t.ones(2, dtype=t.float64)
        (x * y * z.float()).sum().backward()
        grads = t.autograd.grad((x * y).sum(), [x, y])
        return [x.grad, y.grad, z.grad, *grads]

    same(program)
    failed: list[str] = []

    def counted(tensor, name):
        failed.append(name)
        raise AttributeError(name)

    monkeypatch.setattr(ownership.Tensor, "__getattr__", counted, raising=False)
    program(ownership)
    assert failed == []


DATA_AFTER_THE_GRAPH = {
    # a .data of another dtype after the graph was made: the old accumulator keeps the dtype it
    # was made with; a grad_dtype set since goes to the new one, which the old graph never meets
    "a_float64_partner": ("float64", None, "unset"),
    "a_float64_partner_then_none": ("float64", None, None),
    "a_float64_partner_then_float32": ("float64", None, "float32"),
    "doubled_then_float64": ("float32", None, "float64"),
    "doubled": ("float32", None, "unset"),
    "a_float64_leaf": ("float64", "float64", "unset"),
}


@pytest.mark.parametrize("case", DATA_AFTER_THE_GRAPH)
def test_a_data_of_another_dtype_after_the_graph_was_made(case: str) -> None:
    """The gradient a leaf's old graph brings is cast to the dtype its accumulator was made with,
    not to the leaf's dtype now; a backward through a new graph adds into that gradient."""
    partner, leaf, setting = DATA_AFTER_THE_GRAPH[case]

    def program(t):
        x = t.ones(2, requires_grad=True, dtype=getattr(t, leaf or "float32"))
        y = (x * t.ones(2, dtype=getattr(t, partner))).sum()
        x.data = t.zeros(2, dtype=t.float32 if leaf == "float64" else t.float64)
        if setting != "unset":
            x.grad_dtype = None if setting is None else getattr(t, setting)
        y.backward()
        first = x.grad
        (x * 2).sum().backward()
        return [first.dtype, x.grad]

    same(program)


@pytest.mark.parametrize("create_graph", [False, True])
def test_none_set_after_the_graph_was_made_keeps_what_arrives(create_graph: bool) -> None:
    """grad_dtype None set on a leaf after the graph was made: the float64 gradient of its
    product with a float64 tensor reaches it uncast (the op's record of the leaf's float32 is
    not what the cast reads)."""

    def program(t):
        x = t.ones(2, requires_grad=True)
        y = (x * t.ones(2, dtype=t.float64)).sum()
        x.grad_dtype = None
        y.backward(create_graph=create_graph)
        return grad_of(x)

    same(program, warnings=not create_graph)  # create_graph's warning: once per process in torch
