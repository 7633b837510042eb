"""The unit's own examples, each run under torch and ownership (differential)."""

from __future__ import annotations

import pytest

from support.differential import same

PROGRAMS = {
    "broadcast_5141_311": lambda t: (t.ones(5, 1, 4, 1) + t.ones(3, 1, 1)).shape,
    "inplace_may_not_grow": lambda t: t.ones(3, 1, 1).add_(t.ones(5, 1, 4, 1)),
    "view_shares_memory": lambda t: (lambda b: [b.view(2, 3).data_ptr() == b.data_ptr(), b])(
        t.arange(6.0)
    ),
    "mutating_view_changes_base": lambda t: (lambda b: (b.view(2, 3)[0].fill_(7.0), b)[1])(
        t.arange(6.0)
    ),
    "transpose_non_contiguous": lambda t: (lambda a: [a.t().is_contiguous(), a.t().stride()])(
        t.zeros(2, 3)
    ),
    "contiguous_copies_only_when_needed": lambda t: (
        lambda a: [a.contiguous() is a, a.t().contiguous() is a.t(), a.t().contiguous().stride()]
    )(t.zeros(2, 3)),
    "reshape_may_copy": lambda t: (
        lambda a: [
            a.reshape(6).data_ptr() == a.data_ptr(),
            a.t().reshape(6).data_ptr() == a.data_ptr(),
        ]
    )(t.zeros(2, 3)),
    "stride_and_offset": lambda t: (lambda a: [a[1:, 2:].stride(), a[1:, 2:].storage_offset()])(
        t.zeros(3, 4)
    ),
    "basic_view_advanced_copy": lambda t: (
        lambda a: [a[0]._base is a, a[[0]]._base is None, a[a > 0]._base is None]
    )(t.ones(3, 2)),
    "sigmoid_mul_version_error": lambda t: (
        lambda x: (lambda h: (h.mul_(2), h.sum().backward()))(x.sigmoid())
    )(t.tensor([0.5, 1.0, -1.0], requires_grad=True)),
    "detach_gives_u_not_3x2": lambda t: (
        lambda x: (lambda y: (lambda u: ((x * u).sum().backward(), x.grad)[1])(y.detach()))(x * x)
    )(t.tensor([1.0, 2.0, 3.0], requires_grad=True)),
    "grad_accumulates_then_zero_": lambda t: (
        lambda x: [
            (x * 2).sum().backward(),
            (x * 2).sum().backward(),
            x.grad.clone(),
            x.grad.zero_(),
            x.grad._version,
        ]
    )(t.ones(2, requires_grad=True)),
    "data_mutation_is_silent": lambda t: (
        lambda x: (lambda h: (h.data.mul_(2), h.sum().backward(), x.grad)[2])(x.sigmoid())
    )(t.tensor([0.5, 1.0], requires_grad=True)),
    "cross_entropy_ignore_index": lambda t: t.nn.functional.cross_entropy(
        t.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]], requires_grad=True),
        t.tensor([2, -100]),
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_unit_example(name: str) -> None:
    same(PROGRAMS[name])


def test_gradcheck_of_an_expanded_input_is_refused() -> None:
    def program(t):  # type: ignore[no-untyped-def]
        x = t.ones(1, dtype=t.float64, requires_grad=True).expand(3)
        return t.autograd.gradcheck(lambda a: a * 2, (x,))

    same(program)
