"""Writes into an inference tensor's ``detach()`` (or ``.data``) inside inference mode.

Made outside inference mode, such an alias has a version counter of its own, though it is an
inference tensor. Its writes inside inference mode are counted exactly when torch's
ADInplaceOrView kernel runs, which is when some tensor argument of the op carries that dispatch
key: a normal tensor (the source of ``copy_``, an operand, an index, a mask), never an inference
tensor or a Python number (fuzz program 399264). The inference tensor itself has no version.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def test_the_issues_program() -> None:
    """Fuzz program 399264: ``copy_`` of a normal tensor counts, in inference mode."""

    def program(t: Any) -> Any:
        with t.inference_mode():
            t1 = t.ones((2, 3), dtype=t.int64)
        t4 = t1[..., [0]]
        with t.set_grad_enabled(False):
            l7 = t4.sigmoid().sum()
        t9 = t1.detach()
        with t.inference_mode():
            t9.copy_(l7)
        return [t9, t9._version, t9.is_inference(), t1, t.is_inference(l7)]

    same(program)


WRITES = {
    "copy_ of a normal tensor": lambda a, n: a.copy_(n["int"]),
    "copy_ of a normal 0-d tensor": lambda a, n: a.copy_(n["float 0-d"]),
    "copy_ of an inference tensor": lambda a, n: a.copy_(n["inference"]),
    "add_ of a number": lambda a, n: a.add_(1),
    "add_ of a normal tensor": lambda a, n: a.add_(n["int"]),
    "add_ of a normal tensor, alpha": lambda a, n: a.add_(n["int"], alpha=2),
    "mul_ of a normal 0-d tensor": lambda a, n: a.mul_(n["int 0-d"]),
    "fill_ of a normal 0-d tensor": lambda a, n: a.fill_(n["float 0-d"]),
    "fill_ of a number": lambda a, n: a.fill_(3),
    "zero_": lambda a, n: a.zero_(),
    "clamp_ of a normal bound": lambda a, n: a.clamp_(n["int 0-d"], None),
    "a normal index": lambda a, n: a.__setitem__(n["index"], 5),
    "an int index, a normal value": lambda a, n: a.__setitem__(0, n["int 0-d"]),
    "an int index, a number": lambda a, n: a.__setitem__(0, 5),
    "masked_fill_ of a normal mask": lambda a, n: a.masked_fill_(n["mask"], 1),
}


@pytest.mark.parametrize("data", [False, True], ids=["detach", "data"])
@pytest.mark.parametrize("write", WRITES.values(), ids=WRITES.keys())
def test_a_write_into_an_inference_tensors_alias(write: Any, data: bool) -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            inf = t.ones(2, 3, dtype=t.int64)
        normal = {
            "int": t.full((2, 3), 2, dtype=t.int64),
            "int 0-d": t.tensor(2),
            "float 0-d": t.tensor(2.0),
            "index": t.tensor([0]),
            "mask": t.tensor([True, False, True]),
            "inference": inf,
        }
        a = inf.data if data else inf.detach()
        before = a._version
        with t.inference_mode():
            write(a, normal)
        after_inside = a._version
        a.add_(1)  # outside inference mode every write counts
        return [a, before, after_inside, a._version, a.is_inference()]

    same(program)


def test_a_tensor_given_inference_data_counts_a_write_with_a_normal_operand() -> None:
    """A normal tensor given inference ``.data`` in inference mode keeps its own counter."""

    def program(t: Any) -> Any:
        c = t.ones(2, 3)
        n = t.ones(2, 3)
        with t.inference_mode():
            c.data = t.zeros(2, 3)
            c.add_(1)
            alone = c._version
            c.add_(n)
        return [c, alone, c._version, c.is_inference()]

    same(program)


def test_an_out_argument_of_normal_operands() -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            inf = t.ones(3)
        a = inf.detach()
        n = t.ones(3)
        with t.inference_mode():
            t.add(n, n, out=a)
            first = a._version
            t.add(inf, inf, out=a)
        return [a, first, a._version]

    same(program)
