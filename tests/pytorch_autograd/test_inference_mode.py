# Adapted from PyTorch's test/test_autograd.py (https://github.com/pytorch/pytorch),
# Copyright (c) 2016- Facebook, Inc. and the PyTorch contributors, BSD 3-Clause License.
"""TestAutogradInferenceMode: the grad mode that also drops version counters and views'
history (see conftest.py for how the tests are adapted). These tests were added to
test_autograd.py after the stored revision; they are adapted from a recent revision of the same
file. Each loop over ``requires_grad`` (and over ``add_``/``transpose_``) of the original is a
parameter here; ``view_as`` or ``add_`` stand in where only ``transpose_`` is missing."""

from __future__ import annotations

import pytest

from support.differential import error_of, same

RG = pytest.mark.parametrize("requires_grad", [True, False])


def test_inference_mode_context_manager() -> None:
    """TestAutogradInferenceMode.test_inference_mode_context_manager: nesting and restoring."""

    def program(t):
        seen = [t.is_inference_mode_enabled()]
        with t.inference_mode():
            seen.append(t.is_inference_mode_enabled())
            with t.inference_mode(False):
                seen.append(t.is_inference_mode_enabled())
            seen.append(t.is_inference_mode_enabled())
        return [*seen, t.is_inference_mode_enabled()]

    assert same(program) == [False, True, False, True, False]


@pytest.mark.parametrize(
    ("mode", "use_kwarg"), [(m, k) for m in (True, False, None) for k in (True, False)]
)
def test_inference_mode_decorator(mode: bool | None, use_kwarg: bool) -> None:
    """TestAutogradInferenceMode.test_inference_mode_decorator: every way of decorating."""

    def program(t):
        seen = []

        def func(x):
            seen.append(t.is_inference_mode_enabled())
            return x * x

        if mode is None:
            decorated = t.inference_mode(mode=func) if use_kwarg else t.inference_mode(func)
        elif use_kwarg:
            decorated = t.inference_mode(mode=mode)(func)
        else:
            decorated = t.inference_mode(mode)(func)
        for requires_grad in (True, False):
            d = decorated(t.ones(1, 2, 3, requires_grad=requires_grad))
            seen += [t.is_inference(d), d.requires_grad]
        return seen

    same(program)


def test_inference_mode_tensor_creation() -> None:
    """TestAutogradInferenceMode.test_inference_mode_tensor_creation."""

    def program(t):
        with t.inference_mode():
            c = t.ones(1, 2, 3)
            tmp = t.ones(1, 2, 3, requires_grad=True)
            tmp2 = t.ones(1, 2, 3).requires_grad_(False)
            return [(x.requires_grad, t.is_inference(x)) for x in (c, tmp, tmp2)]

    assert same(program) == [(False, True), (True, True), (False, True)]


def test_inference_mode_existing_autograd_session() -> None:
    """TestAutogradInferenceMode.test_inference_mode_existing_autograd_session: an in-place op
    in inference mode still bumps a normal tensor's version."""

    def program(t):
        s = t.ones(1, 2, 3, requires_grad=True)
        a = s.clone()
        out = a * a
        with t.inference_mode():
            a.add_(2)
        return [t.is_inference(a), error_of(lambda: out.backward(t.ones_like(out)))]

    r = same(program)
    assert r[0] is False and "modified by an inplace operation" in r[1]


@RG
def test_inference_mode_inf_tensor_in_inf_mode_functional_op(requires_grad: bool) -> None:
    """TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_inf_mode_functional_op."""

    def program(t):
        with t.inference_mode():
            c = t.ones(1, 2, 3, requires_grad=requires_grad)
            func_out = c * c
            return [t.is_inference(func_out), func_out.requires_grad]

    assert same(program) == [True, False]


@pytest.mark.parametrize(
    "requires_grad",
    [
        False,
        True,
    ],
)
def test_inference_mode_inf_tensor_in_inf_mode_view_op(requires_grad: bool) -> None:
    """TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_inf_mode_view_op."""

    def program(t):
        with t.inference_mode():
            c = t.ones(1, 2, 3, requires_grad=requires_grad)
            view_out = c.view(-1)
            return [t.is_inference(view_out), view_out.requires_grad]

    assert same(program) == [True, False]


@pytest.mark.parametrize(
    "requires_grad",
    [
        False,
        True,
    ],
)
def test_inference_mode_inf_tensor_in_normal_mode_functional_op(requires_grad: bool) -> None:
    """TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_functional_op."""

    def program(t):
        with t.inference_mode():
            c = t.ones(1, 2, 3, requires_grad=requires_grad)
        func_out = c * c
        return [t.is_inference(func_out), func_out.requires_grad, func_out.is_leaf]

    same(program)


def test_inference_mode_inf_tensor_in_normal_mode_inplace_op() -> None:
    """TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_inplace_op."""

    def program(t):
        with t.inference_mode():
            c = t.ones(1, 2, 3)
        c.add_(2)

    assert "Inplace update to inference tensor outside InferenceMode" in same(program).message


@RG
def test_inference_mode_inf_tensor_in_normal_mode_view_op(requires_grad: bool) -> None:
    """TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_view_op."""

    def program(t):
        with t.inference_mode():
            c = t.ones(1, 2, 3, requires_grad=requires_grad)
        out = c.view(-1)
        return [t.is_inference(out), out.requires_grad, out._base is None, out.is_leaf]

    assert same(program) == [True, False, True, True]


@RG
def test_normal_tensor_view_output_in_normal_mode(requires_grad: bool) -> None:
    """TestAutogradInferenceMode.test_normal_tensor_view_output_in_normal_mode: a view made in
    inference mode refuses an in-place op outside it when it requires grad."""

    def program(t):
        s = t.ones(1, 2, 3, requires_grad=requires_grad)
        a = s.clone()
        with t.inference_mode():
            out = a.view(-1)
            facts = [t.is_inference(out), out.requires_grad, out.is_leaf]
        tmp = out * out
        facts += [t.is_inference(tmp), tmp.requires_grad, error_of(lambda: out.add_(2))]
        return facts

    same(program)


@RG
def test_mix_inference_and_normal_tensor_functional_op(requires_grad: bool) -> None:
    """TestAutogradInferenceMode.test_mix_inference_and_normal_tensor_functional_op: an
    inference tensor cannot be saved for backward."""

    def program(t):
        s = t.ones(1, 2, 3, requires_grad=requires_grad)
        with t.inference_mode():
            c = t.ones(1, 2, 3, requires_grad=requires_grad)
        out = c.add(s)
        facts = [t.is_inference(out), out.requires_grad]
        if requires_grad:
            out.backward(t.ones_like(out))
            facts += [c.grad, error_of(lambda: c * s)]
        return facts

    same(program)


@RG
def test_inference_mode_handle_direct_view_on_rebase(requires_grad: bool) -> None:
    """TestAutogradInferenceMode.test_inference_mode_handle_direct_view_on_rebase (add_)."""

    def program(t):
        s = t.ones(1, 2, 3, requires_grad=requires_grad)
        a = s.clone()
        with t.inference_mode():
            view_out = a.view_as(a)
        return error_of(lambda: view_out.add_(2))

    r = same(program)
    assert (r is None) != requires_grad
