# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""Saved tensors: ``detach_`` of a saved tensor, and ``torch.autograd.graph.saved_tensors_hooks``
(see conftest.py for how the tests are adapted). These tests were added to test_autograd.py
after the stored revision; they are adapted from a recent revision of the same file.
"""

from __future__ import annotations

import warnings

from support.differential import grad_of, same


def five(t):
    """A fixed leaf of five values in place of the original's ``randn(5)``."""
    return t.tensor([0.5, -1.0, 1.5, 2.0, -0.25], requires_grad=True)


def test_saved_variable_saved_original_inplace_detach() -> None:
    """TestAutograd.test_saved_variable_saved_original_inplace_detach: a saved input detached
    in place breaks backward; a saved output detached in place does not."""

    def program(t):
        a = t.tensor(1.0, requires_grad=True).clone()
        b = a.sin()
        a.detach_()
        try:
            b.backward()
            error = None
        except RuntimeError as e:
            error = str(e)
        a = t.tensor(1.0, requires_grad=True).clone()
        b = a.exp()
        a.detach_()
        b.backward()
        return error

    assert "Trying to use a saved tensor that has been detached" in same(program)


def test_saved_variable_packing_unpacking_saved_original_with_default_hooks() -> None:
    """TestAutograd.test_saved_variable_packing_unpacking_saved_original_with_default_hooks."""

    def program(t):
        hooks = t.autograd.graph.saved_tensors_hooks
        out = []

        def pack(x):
            warnings.warn("pack", stacklevel=1)
            return x

        with hooks(pack, lambda x: x):
            a = t.ones(5, requires_grad=True)
            y = a * a
        for pack_hook, unpack_hook in (
            (lambda x: x, lambda x: x),
            (lambda x: 2 * x, lambda x: x / 2),
            (lambda x: 2 * x, lambda x: x),
        ):
            with hooks(pack_hook, unpack_hook):
                a = five(t)
                y = a * a
                out += [y.grad_fn._saved_self, y.grad_fn._saved_other]
                y.sum().backward()
                out.append(grad_of(a))
        a = five(t)
        y = a * a
        y.sum().backward()
        return [*out, y.grad_fn is not None, grad_of(a)]

    same(program)


def test_saved_variable_packing_unpacking_did_not_save_original_with_default_hooks() -> None:
    """TestAutograd.test_saved_variable_packing_unpacking_did_not_save_original_with_default_hooks."""

    def program(t):
        with t.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            a = five(t)
            y = t.exp(a)
            saved = y.grad_fn._saved_result
            y.sum().backward()
            return [saved, grad_of(a), y]

    same(program)


def test_setting_default_saved_variable_hooks_twice_should_use_inner() -> None:
    """TestAutograd.test_setting_default_saved_variable_hooks_twice_should_use_inner."""

    def program(t):
        hooks = t.autograd.graph.saved_tensors_hooks
        with hooks(lambda x: 3 * x, lambda x: 3 * x):
            b = five(t)
            with hooks(lambda x: 5 * x, lambda x: 5 * x):
                a = five(t)
                y = a * a
            z = b * b
        y.sum().backward()
        z.sum().backward()
        return [grad_of(a), 2 * 5 * 5 * a, grad_of(b), 2 * 3 * 3 * b]

    same(program)


def test_saved_tensor_hooks_custom_error_propagation() -> None:
    """TestAutograd.test_saved_tensor_hooks_custom_error_propagation."""

    def program(t):
        class CustomError(Exception):
            pass

        def raise_(what):
            raise CustomError(what)

        hooks = t.autograd.graph.saved_tensors_hooks
        a = t.tensor(1.0, requires_grad=True)
        out = []
        try:
            with hooks(lambda x: raise_("pack"), lambda x: x):
                t.sin(a)
        except CustomError as e:
            out.append(str(e))
        with hooks(lambda x: x, lambda x: raise_("unpack")):
            y = t.sin(a)
            try:
                y.backward()
            except CustomError as e:
                out.append(str(e))
        return out

    assert same(program) == ["pack", "unpack"]


def test_saved_tensor_hooks_custom_function_intermediates() -> None:
    """TestAutograd.test_saved_tensor_hooks_custom_function_intermediates."""

    def program(t):
        class Func(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                intermediate = x.exp()
                ctx.save_for_backward(intermediate.clone().detach_().requires_grad_(True))
                return x.exp()

            @staticmethod
            def backward(ctx, grad_out):
                (intermediate,) = ctx.saved_tensors
                return grad_out * intermediate

        a = t.tensor(1.0, requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            out = Func.apply(a)
        out.backward()
        return grad_of(a)

    same(program)


def test_unpack_hooks_exec_count() -> None:
    """TestAutograd.test_unpack_hooks_exec_count: one pack, one unpack per saved tensor."""

    def program(t):
        counts = {"pack": 0, "unpack": 0}

        def pack_hook(x):
            counts["pack"] += 1
            return x

        def unpack_hook(x):
            counts["unpack"] += 1
            return x

        x = t.ones(4, requires_grad=True)
        y = t.ones(4, requires_grad=False)
        with t.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            out_test = x * y
            seen = [dict(counts)]
            out_test.sum().backward()
            seen.append(dict(counts))
        return seen

    assert same(program) == [{"pack": 1, "unpack": 0}, {"pack": 1, "unpack": 1}]


def test_wrapped_number_saved_tensors_hooks() -> None:
    """TestAutograd.test_wrapped_number_saved_tensors_hooks: a Python number is no saved tensor."""

    def program(t):
        def err_hook(x):
            raise RuntimeError("this hook should not be called")

        with t.autograd.graph.saved_tensors_hooks(err_hook, err_hook):
            a = five(t)
            out = (a * 3).sum()
            return t.autograd.grad(out, (a,))

    same(program)


OPS_OF_A_NUMBER = ["x * 3", "x / 3", "3 / x", "x.mul_(3)", "x.div_(3)", "x.__itruediv__(3)"]


def test_an_inplace_op_of_a_number_saves_no_tensor_the_hooks_see() -> None:
    """Fuzz 951270, 960417: ``x.div_(3)`` saved its wrapped number where the pack hook saw it
    (``x * 3`` and the others never did)."""

    def program(t):
        seen = []
        results = []
        for source in OPS_OF_A_NUMBER:
            x = t.tensor([-1.0, 3.0], requires_grad=True) * 1
            with t.autograd.graph.saved_tensors_hooks(
                lambda s, op=source: seen.append((op, tuple(s.shape))) or s, lambda s: s
            ):
                y = eval(source, {"x": x})
            results.append([y.grad_fn._saved_other, y.grad_fn.name()])
            y.sum().backward()
        return [seen, results]

    same(program)


def test_pack_hook_with_inplace_modification_should_fail() -> None:
    """TestAutograd.test_pack_hook_with_inplace_modification_should_fail (default hooks)."""

    def program(t):
        a = five(t)

        def inc(x):
            x += 1
            return x

        with t.autograd.graph.saved_tensors_hooks(inc, lambda x: x):
            t.exp(a)

    assert "A saved tensor pack hook is modifying its input in place." in same(program).message


def test_default_saved_tensors_hooks_double_backward() -> None:
    """TestAutograd.test_default_saved_tensors_hooks_double_backward: which tensors a double
    backward saves, counted by a pack hook that doubles them."""

    def program(t):
        hooks = t.autograd.graph.saved_tensors_hooks
        out = []
        with hooks(lambda x: x, lambda x: x):
            a = five(t)
            (g,) = t.autograd.grad(t.sum(a**3), (a,), create_graph=True)
            g.sum().backward()
            out.append(grad_of(a) / a)
        with hooks(lambda x: 2 * x, lambda x: x):
            a = five(t)
            s = t.sum(a**3)
        (g,) = t.autograd.grad(s, (a,), create_graph=True)
        g.sum().backward()
        out.append(grad_of(a) / a)
        a = five(t)
        s = t.sum(a**3)
        with hooks(lambda x: 2 * x, lambda x: x):
            (g,) = t.autograd.grad(s, (a,), create_graph=True)
            g.sum().backward()
            out.append(grad_of(a) / a)
        return out

    r = same(program)
    assert [float(v.values[0]) for v in r] == [6.0, 12.0, 24.0]


def test_saved_tensors_hook_version_counter_not_shared() -> None:
    """TestAutograd.test_saved_tensors_hook_version_counter_not_shared: the packed replacement
    has its own version counter."""

    def program(t):
        seen = []

        class Test(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.sin()

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                before = a._version
                x.add_(1)
                seen.append(a._version == before)
                return grad_output

        a = t.tensor(1.0, requires_grad=True)
        a_replacement = a.clone()
        with t.autograd.graph.saved_tensors_hooks(lambda x: a_replacement, lambda x: x):
            b = Test.apply(a)
        b.backward()
        return seen

    assert same(program) == [True]
