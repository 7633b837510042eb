"""Which error wins when an in-place write breaks two rules at once (torch's order).

torch checks autograd first (``check_inplace``: a non-default view, a view of a leaf, a leaf), then
the op's own arguments, then, in the kernel, memory overlap before shapes before dtypes
(``TensorIteratorBase::build``). Each program breaks two rules; the expected message is torch's.
"""

from __future__ import annotations

import numpy as np
import pytest

from support.differential import same

LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
OVERLAP = "unsupported operation: more than one element of the written-to tensor refers to a"
PARTIAL = "unsupported operation: some elements of the input tensor and the written-to tensor"


def _leaf(t, *shape):
    return t.zeros(*shape, requires_grad=True)


def _no_grad_view(t):
    x = t.ones(3, requires_grad=True) * 1
    with t.no_grad():
        v = x[1:]
    return v.clamp_()


def _int_to_a_negative_power(t):
    return t.ones(2, dtype=t.int64).pow_(-1)


PROGRAMS = {
    # the kernel: overlap before shape, overlap before dtype
    "overlap, growth": (lambda t: t.zeros(1).expand(3).add_(t.ones(2, 3)), OVERLAP),
    "overlap, shapes": (lambda t: t.zeros(1).expand(3).add_(t.ones(2)), OVERLAP),
    "overlap, narrowing": (
        lambda t: t.zeros(1, dtype=t.int64).expand(3).add_(t.ones(3)),
        OVERLAP,
    ),
    "overlap, div_ of ints": (lambda t: t.zeros(1, dtype=t.int64).expand(3).div_(2), OVERLAP),
    "overlap, copy_ shapes": (lambda t: t.zeros(1).expand(3).copy_(t.ones(2)), OVERLAP),
    "overlap, copy_ growth": (lambda t: t.zeros(1).expand(3).copy_(t.ones(2, 3)), OVERLAP),
    "partial overlap, shapes": (lambda t: (lambda x: x[1:].add_(x[:2]))(t.zeros(4)), PARTIAL),
    # the op's own arguments: after autograd, before the kernel
    "leaf, clamp_()": (lambda t: _leaf(t, 3).clamp_(), LEAF),
    "leaf, fill_ with a 1-d value": (lambda t: _leaf(t, 3).fill_(t.ones(2)), LEAF),
    "leaf, unsqueeze_ dim": (lambda t: _leaf(t, 2, 3).unsqueeze_(5), LEAF),
    "leaf, as_strided_ past the end": (lambda t: _leaf(t, 3).as_strided_((10,), (1,)), LEAF),
    "no_grad view, clamp_()": (_no_grad_view, "A view was created in no_grad mode"),
    "overlap, clamp_()": (
        lambda t: t.zeros(1).expand(3).clamp_(),
        "torch.clamp: At least one of 'min' or 'max' must not be None",
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_first_broken_rule_names_the_error(name: str) -> None:
    program, expected = PROGRAMS[name]
    r = same(program)
    assert r.message.startswith(expected)


def test_an_advanced_index_assignment_into_a_leaf_is_refused_before_its_shapes() -> None:
    def program(t):
        x = t.ones(3, requires_grad=True)
        x[[0, 1]] = t.ones(3)

    assert same(program).message == LEAF


INDEX_PUTS = {
    # index_put_ checks autograd, then the overlaps, then its indices (make_info)
    "leaf, indices that do not broadcast": ("w[[0, 1], [0, 1, 2]] = 1.0", LEAF),
    "leaf, float index": ("w[t.tensor([0.5])] = 1.0", LEAF),
    "overlap, indices that do not broadcast": ("x[[0, 1], [0, 1, 2]] = x[0, 0]", PARTIAL),
    "indices that do not broadcast, a value apart": (
        "x[[0, 1], [0, 1, 2]] = x[:, 0]",
        "shape mismatch: indexing tensors could not be broadcast together",
    ),
}


@pytest.mark.parametrize("name", sorted(INDEX_PUTS))
def test_an_index_write_checks_its_indices_after_autograd_and_overlap(name: str) -> None:
    statement, expected = INDEX_PUTS[name]

    def program(t):
        w, x = t.ones(3, 3, requires_grad=True), t.ones(3, 3)
        exec(statement, {"t": t, "w": w, "x": x})

    assert same(program).message.startswith(expected)


def test_an_integer_tensor_to_a_negative_power_in_place_is_torchs_runtime_error() -> None:
    r = same(_int_to_a_negative_power)
    assert r.kind == "RuntimeError"
    assert r.message == "Integers to negative integer powers are not allowed."


def test_data_reads_the_same_storage_object() -> None:
    """A ``.data`` alias has its own counter but the same storage (one ``untyped_storage()``)."""

    def program(t):
        x = t.zeros(3)
        a = np.zeros(3, dtype=np.float32)
        return {
            ".data": x.untyped_storage() is x.data.untyped_storage(),
            "view": x.untyped_storage() is x[1:].untyped_storage(),
            "detach": x.untyped_storage() is x.detach().untyped_storage(),
            "from_numpy twice": t.from_numpy(a).untyped_storage()
            is t.from_numpy(a).untyped_storage(),
        }

    assert same(program) == {".data": True, "view": True, "detach": True, "from_numpy twice": False}


BOOL_SUBTRACTIONS = {
    # fuzz 91742: a multi-output view written with an operand that requires grad
    "an unbind view": lambda t, b, w: b.unbind(0)[-1].sub_(w.sum()),
    "an unbind view, alpha": lambda t, b, w: b.unbind(0)[-1].sub_(w, alpha=2),
    "a split view": lambda t, b, w: b.split(2)[0].sub_(w),
    "an unbind view, a bool": lambda t, b, w: b.unbind(0)[-1].sub_(True),
    "the bool tensor itself": lambda t, b, w: b.sub_(w.sum()),
    "a select view": lambda t, b, w: b[0].sub_(w),
    "a leaf requiring grad": lambda t, b, w: w.sub_(b[0]),
}


@pytest.mark.parametrize("write", BOOL_SUBTRACTIONS.values(), ids=BOOL_SUBTRACTIONS.keys())
def test_a_bool_subtraction_is_refused_after_the_autograd_checks(write) -> None:
    """``sub_``'s refusal of a bool operand is its kernel's (``sub_check``): a view the autograd
    check refuses (a multi-output one, written with an operand that requires grad), or a leaf
    requiring grad, is refused first."""

    def program(t):
        b = t.tensor([True, False, False])
        w = t.tensor(0.25, dtype=t.float64, requires_grad=True)
        write(t, b, w)

    same(program)
