# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""The rules of ``requires_grad``: who requires grad, who may set it, assignments torch checks
(see conftest.py for how the tests are adapted)."""

from __future__ import annotations

import pickle

import pytest

from support.differential import same


def m(t, *shape, requires_grad=False):
    """Fixed values of the given shape in place of the original's ``randn``."""
    n = 1
    for s in shape:
        n *= s
    return (t.arange(float(n)).reshape(*shape) * 0.1 - 0.5).requires_grad_(requires_grad)


def test_requires_grad() -> None:
    """TestAutograd.test_requires_grad (without the private ``_backward_hooks`` part)."""

    def program(t):
        x = m(t, 5, 5)
        y = m(t, 5, 5)
        z = m(t, 5, 5, requires_grad=True)
        a = x + y
        b = a + z
        b.backward(t.ones(5, 5))
        return [a.requires_grad, b.requires_grad, a.grad_fn, x.grad, z.grad.clone()]

    assert same(program)[:2] == [False, True]


def test_requires_grad_() -> None:
    """TestAutograd.test_requires_grad_: returns self; a non-leaf cannot be set to False."""

    def program(t):
        x = m(t, 5, 5)
        y = m(t, 5, 5, requires_grad=True)
        out = [x is x.requires_grad_(), x.requires_grad, y is y.requires_grad_(), y.requires_grad]
        out += [x is x.requires_grad_(True), y is y.requires_grad_(True)]
        z = x * y
        try:
            z.requires_grad_(False)
        except RuntimeError as e:
            out.append(str(e))
        out += [z is z.requires_grad_(), z.requires_grad, z is z.requires_grad_(True)]
        out += [x is x.requires_grad_(False), x.requires_grad]
        out += [y is y.requires_grad_(False), y.requires_grad]
        return out

    r = same(program)
    assert r[6].startswith("you can only change requires_grad flags of leaf variables.")
    assert r[-4:] == [True, False, True, False]


def test_requires_grad_inplace() -> None:
    """TestAutograd.test_requires_grad_inplace: ``a += b`` makes ``a`` require grad."""

    def program(t):
        a = m(t, 5, 5)
        b = m(t, 5, 5, requires_grad=True)
        a += b
        a2 = m(t, 5, 5) + 0
        a2 += b
        return [a, a2]

    r = same(program)
    assert r[0].requires_grad and r[1].requires_grad


def test_no_requires_grad_inplace() -> None:
    """TestAutograd.test_no_requires_grad_inplace: in-place before requires_grad is fine."""

    def program(t):
        a = m(t, 2, 3)
        a.add_(5)
        a.requires_grad = True
        a.sum().backward()
        out = [a.grad]
        a = m(t, 2, 3)
        b = a[:]
        b.add_(5)
        a.requires_grad = True
        a.sum().backward()
        out.append(a.grad)
        a = m(t, 2, 3)
        b = a[:]
        a.requires_grad = True
        for target in (a, b):
            try:
                target.add_(5)
            except RuntimeError as e:
                out.append(str(e))
        return out

    r = same(program)
    assert len(r) == 4 and "leaf Variable that requires grad" in r[2]


def test_attribute_deletion() -> None:
    """TestAutograd.test_attribute_deletion: each ``del`` answers as torch does."""

    def program(t):
        x = m(t, 5, 5, requires_grad=True)
        del x.grad
        out = [x.grad]
        for action in ("del_data", "set_data_none", "del_requires_grad", "del_grad_fn"):
            try:
                if action == "del_data":
                    del x.data
                elif action == "set_data_none":
                    x.data = None
                elif action == "del_requires_grad":
                    del x.requires_grad
                else:
                    del x._grad_fn
            except (RuntimeError, TypeError) as e:
                out.append((type(e).__name__, str(e)))
        return out

    r = same(program)
    assert [k for k, _ in r[1:]] == ["RuntimeError", "TypeError", "RuntimeError", "RuntimeError"]


@pytest.mark.parametrize(
    "assign",
    ["wrong_shape", "wrong_dtype", "self"],
)
def test_grad_assignment(assign: str) -> None:
    """TestAutogradDeviceType.test_grad_assignment: ``.grad`` of the wrong shape, dtype or self."""

    def program(t):
        x = m(t, 5, 5)
        if assign == "wrong_shape":
            x.grad = m(t, 2, 2)
        elif assign == "wrong_dtype":
            x.grad = t.zeros(5, 5, dtype=t.long)
        else:
            x.grad = x

    assert same(program).kind == "RuntimeError"


@pytest.mark.parametrize("dtype", ["float", "double"])
def test_requires_grad_factory(dtype: str) -> None:
    """TestAutogradDeviceType.test_requires_grad_factory: ``*_like(requires_grad=...)``."""

    def program(t):
        x = m(t, 2, 3)
        out = []
        for fn in (t.ones_like, t.randn_like):
            for requires_grad in (True, False):
                o = fn(x, dtype=getattr(t, dtype), requires_grad=requires_grad)
                out += [o.requires_grad, o.dtype, str(x.device)]
        return out

    r = same(program)
    assert r[0::3] == [True, False, True, False]


@pytest.mark.parametrize("dtype", ["float", "double", "int32", "int64"])
def test_set_requires_grad_only_for_floats(dtype: str) -> None:
    """TestAutogradDeviceType.test_set_requires_grad_only_for_floats (the dtypes ownership has)."""

    def program(t):
        a = t.ones(1, dtype=getattr(t, dtype))
        a.requires_grad = False
        a.requires_grad_(False)
        out = []
        for way in ("requires_grad_", "attribute", "factory"):
            try:
                if way == "requires_grad_":
                    t.ones(1, dtype=getattr(t, dtype)).requires_grad_()
                elif way == "attribute":
                    t.ones(1, dtype=getattr(t, dtype)).requires_grad = True
                else:
                    t.ones(1, dtype=getattr(t, dtype), requires_grad=True)
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))
        return out

    r = same(program)
    assert all(("floating point" in e) != dtype.startswith(("float", "double")) for e in r)


def test_numpy_requires_grad() -> None:
    """TestAutograd.test_numpy_requires_grad: refused when requiring grad, even under no_grad."""

    def program(t):
        x = m(t, 2, 2, requires_grad=True)
        out = []
        try:
            x.numpy()
        except RuntimeError as e:
            out.append(str(e))
        with t.no_grad():
            try:
                out.append(x.numpy())
            except RuntimeError as e:
                out.append(str(e))
        y = m(t, 2, 2)
        out.append(y.numpy())
        with t.no_grad():
            out.append(y.numpy())
        return out

    r = same(program)
    assert r[0].startswith("Can't call numpy() on Tensor that requires grad.")


def test_leaf_assignment() -> None:
    """TestAutograd.test_leaf_assignment: writing grad-requiring rows into a plain tensor."""

    def program(t):
        x = m(t, 5, 5)
        y = m(t, 5, requires_grad=True)
        z = m(t, 5, requires_grad=True)
        x[0] = y
        x[1] = 2 * z
        facts = [x.requires_grad, x.grad_fn is not None]
        x.sum().backward()
        return [*facts, y.grad, z.grad, x]

    r = same(program)
    assert r[:2] == [True, True] and (r[3].values == 2).all()


def test_next_functions() -> None:
    """TestAutograd.test_next_functions: edges to AccumulateGrad and to None for a constant."""

    def program(t):
        x = m(t, 5, 5, requires_grad=True)
        y = m(t, 5, 5, requires_grad=True)
        a = x + y
        nf = a.grad_fn.next_functions
        b = a + 5
        nb = b.grad_fn.next_functions
        return [len(nf), nf[0][0], nf[0][1], nf[1][0], nf[1][1], len(nb), nb[0][0] is a.grad_fn]

    r = same(program)
    assert r[0] == 2 and repr(r[1]) == "<torch::autograd::AccumulateGrad>" and r[-1] is True


def test_next_functions_constant() -> None:
    """TestAutograd.test_next_functions: ``(b := a + 5).grad_fn.next_functions[1][0] is None``."""

    def program(t):
        a = m(t, 5, 5, requires_grad=True) * 2
        b = a + 5
        return [len(b.grad_fn.next_functions), b.grad_fn.next_functions[1][0]]

    assert same(program) == [2, None]


def test_mul_out() -> None:
    """TestAutograd.test_mul_out: ``out=`` refuses inputs that require grad, except in no_grad."""

    def program(t):
        a = m(t, 2, 2, requires_grad=True)
        b = m(t, 2, 2, requires_grad=True) * 1.5
        x = t.zeros(2, 2)
        try:
            t.mul(a, b, out=x)
        except RuntimeError as e:
            error = str(e)
        with t.no_grad():
            t.mul(a, b, out=x)
            same_values = bool((x == a * b).all())
        return [error, x, same_values]

    r = same(program)
    assert "out=" in r[0] and r[2] is True


def test_mul_out_result_requires_grad() -> None:
    """TestAutograd.test_mul_out_result_requires_grad: an ``out=`` that requires grad."""

    def program(t):
        a = m(t, 2, 2)
        b = m(t, 2, 2)
        x = t.zeros(2, 2, requires_grad=True)
        t.mul(a, b, out=x)

    assert "out=" in same(program).message


def test_shape() -> None:
    """TestAutograd.test_shape."""

    def program(t):
        x = m(t, 3, 4)
        return [len(x.shape), x.shape[0], x.shape[1]]

    assert same(program) == [2, 3, 4]


def test_type_conversions() -> None:
    """TestAutograd.test_type_conversions and _test_type_conversion_backward (CPU dtypes)."""

    def program(t):
        x = m(t, 5, 5)
        out = [x.float().dtype, x.int().dtype, x.double().dtype, x.type_as(x.long()).dtype]
        fvar = m(t, 5, 5).float().requires_grad_()
        fvar.double().sum().backward()
        dvar = m(t, 5, 5).double().requires_grad_()
        dvar.float().sum().backward()
        return [*out, fvar.grad.dtype, fvar.grad, dvar.grad.dtype, dvar.grad]

    r = same(program)
    assert [repr(d) for d in r[4::2]] == ["torch.float32", "torch.float64"]


def test_copy_() -> None:
    """TestAutogradDeviceType.test_copy_: copy_ from a grad-requiring tensor (float dtypes)."""

    def program(t):
        x = m(t, 10, requires_grad=True)
        out = []
        for dt in (t.float32, t.float64):
            y = t.empty(10, dtype=dt)
            y.copy_(x)
            out += [y.requires_grad, x.to(dt).requires_grad, y]
        return out

    r = same(program)
    assert r[0] and r[3]


def test_integer_outputs() -> None:
    """TestAutograd.test_integer_outputs: argmax and argmin never require grad."""

    def program(t):
        inp = t.tensor([0.3, 0.9, 0.1, 0.5], requires_grad=True)
        return [inp.argmax(), inp.argmin(), inp.argmax().dtype.is_floating_point]

    r = same(program)
    assert not r[0].requires_grad and not r[1].requires_grad and r[2] is False


def test_integer_outputs_argsort_searchsorted() -> None:
    """TestAutograd.test_integer_outputs, second half: argsort and searchsorted."""

    def program(t):
        inp = t.tensor([0.1, 0.3, 0.5, 0.9], requires_grad=True)
        val = t.tensor(0.4, requires_grad=True)
        return [inp.argsort(), t.searchsorted(inp, val)]

    same(program)


def test_set_data_preserve_pyobj() -> None:
    """TestAutograd.test_set_data_preserve_pyobj: ``b.data = a`` keeps the object ``b``."""

    def program(t):
        a = m(t, 1, 2)
        b = m(t, 1, 2) * 2
        b_id_saved = id(b)
        b.data = a
        return [b_id_saved == id(b), b, b.data_ptr() == a.data_ptr()]

    assert same(program)[0] is True


@pytest.mark.parametrize("protocol", [0, 1, 2])
def test_pickle(protocol: int) -> None:
    """TestAutograd.test_pickle: values and requires_grad survive pickle protocols 0 to 2."""

    def program(t):
        x = m(t, 10, 10, requires_grad=True)
        y = m(t, 10, 10)
        return pickle.loads(pickle.dumps([x, y], protocol=protocol))

    r = same(program)
    assert r[0].requires_grad and not r[1].requires_grad
