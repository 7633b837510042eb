"""``torch.<function>`` called with arguments missing, extra, of the wrong kind or unknown, as
torch 2.13 refuses each: a ``TypeError`` in its parser's words (``missing 1 required positional
arguments: "dims"``, ``takes 1 positional argument but 2 were given``, ``received an invalid
combination of arguments``), never Python's wording for the engine's own signature, a numpy
error (``tensor(x, 2)`` reading 2 as a dtype) or an internal ``AttributeError``."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from support.differential import same

FUNCTIONS = (
    "permute",
    "reshape",
    "transpose",
    "unsqueeze",
    "squeeze",
    "unbind",
    "chunk",
    "flatten",
    "narrow",
    "select",
    "t",
    "clone",
    "detach",
    "equal",
    "is_floating_point",
    "numel",
    "tensor",
    "addmm",
    "linspace",
    "mm",
    "bmm",
    "clip",
    "promote_types",
)

CALLS: dict[str, Any] = {
    "nothing": lambda t: (),
    "a_tensor": lambda t: (t.ones(2, 3),),
    "too_many": lambda t: (t.ones(2, 3),) * 9,
    "an_int": lambda t: (t.ones(2, 3), 1),
    "two_ints": lambda t: (t.ones(2, 3), 1, 1),
    "three_ints": lambda t: (t.ones(2, 3), 1, 1, 1),
    "a_float": lambda t: (t.ones(2, 3), 0.5),
    "a_string": lambda t: (t.ones(2, 3), "a"),
    "none": lambda t: (t.ones(2, 3), None),
    "a_tuple": lambda t: (t.ones(2, 3), (1, 0)),
    "a_list_first": lambda t: ([1.0, 2.0], 1),
}


def _call(name: str, make: Any, keywords: dict[str, Any]) -> Any:
    return lambda t: getattr(t, name)(*make(t), **keywords)


@pytest.mark.parametrize(
    ("name", "call"), list(itertools.product(FUNCTIONS, CALLS)), ids=lambda v: str(v)
)
def test_a_wrong_call_is_refused_in_torch_words(name: str, call: str) -> None:
    same(_call(name, CALLS[call], {}))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_an_unknown_keyword_is_refused_in_torch_words(name: str) -> None:
    same(_call(name, CALLS["a_tensor"], {"bogus": 1}))


TENSOR: dict[str, Any] = {
    "dtype_given_positionally": lambda t: t.tensor([1.0], t.float64),
    "none_given_positionally": lambda t: t.tensor([1.0], None),
    "data_as_a_keyword": lambda t: t.tensor(data=[1.0, 2.0], dtype=t.float64),
    "data_twice": lambda t: t.tensor([1.0], data=[2.0]),
    "only_a_keyword": lambda t: t.tensor(requires_grad=True),
    "unknown_keyword": lambda t: t.tensor([1.0], bogus=1),
    "linspace_0d_tensors": lambda t: t.linspace(t.tensor(0.0), t.tensor(1.0), 5),
    "linspace_1d_end": lambda t: t.linspace(0, t.ones(2), 3),
    "addmm_keywords": lambda t: t.addmm(t.ones(2, 2), t.ones(2, 3), t.ones(3, 2), beta=2),
    "split_of_a_list": lambda t: t.split([1.0, 2.0], 1),
}


@pytest.mark.parametrize(
    "program",
    [
        lambda t: t.mm(t.ones(2, 2), t.ones(2, 2), t.float32),
        lambda t: t.bmm(t.ones(1, 2, 2), t.ones(1, 2, 2), out_dtype=t.float64),
        lambda t: t.addmm(t.ones(2, 2), t.ones(2, 2), t.ones(2, 2), t.float32),
    ],
    ids=["mm", "bmm", "addmm"],
)
def test_an_out_dtype_has_no_cpu_kernel(program: Any) -> None:
    """torch's message goes on to list where each backend's kernel was registered (paths)."""
    same(
        program, message=r"^Could not run 'aten::\w+\.dtype' with arguments from the 'CPU' backend"
    )


@pytest.mark.parametrize("program", TENSOR.values(), ids=TENSOR.keys())
def test_calls_as_torch_reads_them(program: Any) -> None:
    same(program, raises="AttributeError" if program is TENSOR["split_of_a_list"] else None)


OWN_STATE = (
    "size",
    "stride",
    "dim",
    "numel",
    "nelement",
    "element_size",
    "storage_offset",
    "is_contiguous",
    "is_floating_point",
    "is_inference",
    "requires_grad_",
    "retain_grad",
    "backward",
    "detach",
    "detach_",
)
"""The methods of a tensor's own state (written in core under private names, called through the
op table): their argument errors are torch's, never Python's for the private name."""

METHOD_CALLS = {
    "nothing": "",
    "an_int": "1",
    "two_ints": "0, 1",
    "a_bool": "True",
    "a_float": "1.0",
    "a_string": "'a'",
    "none": "None",
    "six_nones": "None, None, None, None, None, None",
    "unknown_keyword": "bogus=1",
}
"""The arguments of each call, written into a method call as a program writes it: CPython words a
no-argument builtin's error by the receiver's class (``Tensor.detach()``) when the method is
called bound first (``getattr(x, "detach")(1)``) or with ``*args``, by the class that defines it
(``TensorBase.detach()``) for ``x.detach(1)``."""


@pytest.mark.parametrize(
    ("name", "call"), list(itertools.product(OWN_STATE, METHOD_CALLS)), ids=lambda v: str(v)
)
def test_a_method_of_own_state_refuses_in_torch_words(name: str, call: str) -> None:
    source = f"lambda t: (t.ones(2, 3, requires_grad=True) * 1).{name}({METHOD_CALLS[call]})"
    same(eval(source))


C_METHODS = (
    *(name for name in OWN_STATE if name != "backward"),
    "data_ptr",
    "untyped_storage",
    "float",
    "cpu",
    "item",
    "numpy",
    "view_as",
)
"""Methods torch writes in C, with ``backward`` and ``__repr__`` (torch's Python methods)."""


FIRSTS = ("", "1", "'a'", "[1.0]")
"""What a call on the class gets first: nothing, or no tensor. (torch's Python methods,
``backward`` and ``__repr__``, read any first argument as ``self``, in their own words: only
their call without one is compared.)"""


@pytest.mark.parametrize(
    ("name", "first"),
    [
        *itertools.product(C_METHODS, FIRSTS),
        ("backward", ""),
        ("__repr__", ""),
    ],
    ids=lambda v: str(v),
)
def test_a_method_called_on_the_class_without_a_tensor_is_refused_in_torch_words(
    name: str, first: str
) -> None:
    """``Tensor.stride()``, ``Tensor.stride(1)``: CPython's words for torch's C method
    (``unbound method TensorBase.stride() needs an argument``, ``descriptor 'stride' for
    'torch._C.TensorBase' objects doesn't apply to a 'int' object``), Python's for one torch
    writes in Python (``Tensor.backward()``), never the engine's private name
    (``TensorMetadata._stride()``) or its attributes (``'int' object has no attribute
    '_data'``)."""
    same(eval(f"lambda t: t.Tensor.{name}({first})"))
