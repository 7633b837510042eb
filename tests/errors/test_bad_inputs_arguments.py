"""Arguments of the wrong kind, run under torch and ownership (issue 8, section 3).

torch binds every call through one argument parser, and its refusals are ``TypeError``s with
fixed wording: ``argument 'dim' (position 1) must be int, not float``, ``takes 1 positional
argument but 2 were given``, and, when several overloads are plausible, ``received an invalid
combination of arguments - got (...), but expected one of: ...`` with each overload as torch
prints it. The engine's :mod:`ownership.arguments` reproduces the parser; these programs compare
the messages exactly. Also here: dims out of range (a 0-d tensor included), reductions of empty
tensors, ``split``/``chunk``/``narrow`` sizes, ``mT``, and ``torch.*`` functions given numbers.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same

PARSER: dict[str, Any] = {
    # one signature: which argument, which position, which type
    "sum_of_a_list": lambda t: t.sum([1, 2]),
    "sum_of_an_int": lambda t: t.sum(3),
    "mean_of_a_list": lambda t: t.mean([1.0, 2.0]),
    "sigmoid_of_a_float": lambda t: t.sigmoid(0.5),
    "exp_of_a_float": lambda t: t.exp(0.5),
    "relu_of_a_list": lambda t: t.relu([1.0]),
    "tanh_of_none": lambda t: t.tanh(None),
    "sigmoid_missing": lambda t: t.sigmoid(),
    "sigmoid_extra": lambda t: t.sigmoid(t.ones(2), 1),
    "sigmoid_unknown_keyword": lambda t: t.sigmoid(t.ones(2), foo=1),
    "detach_of_a_list": lambda t: t.detach([1.0]),
    "numel_of_a_list": lambda t: t.numel([1]),
    "clone_of_a_list": lambda t: t.clone([1.0]),
    "flatten_of_a_list": lambda t: t.flatten([1.0]),
    "t_of_a_list": lambda t: t.t([1.0]),
    "reshape_of_a_list": lambda t: t.reshape([1.0], (1,)),
    "mul_of_a_str": lambda t: t.mul("a", 2),
    "mul_too_many": lambda t: t.mul(t.ones(2), t.ones(2), t.ones(2), t.ones(2), foo=1),
    "softmax_without_dim": lambda t: t.softmax(t.ones(2)),
    "argmax_float_dim": lambda t: t.ones(2).argmax(0.5),
    "argmax_float_dim_keyword": lambda t: t.ones(2).argmax(dim=0.5),
    "argmax_str_keepdim": lambda t: t.ones(3).argmax(None, "a"),
    "argmax_unknown_keyword": lambda t: t.ones(2).argmax(1, True, foo=1),
    "fn_argmax_float_dim": lambda t: t.argmax(t.ones(2), 0.5),
    "unsqueeze_float": lambda t: t.ones(2).unsqueeze(0.5),
    "unsqueeze_float_keyword": lambda t: t.ones(2).unsqueeze(dim=0.5),
    "unsqueeze_none": lambda t: t.ones(2).unsqueeze(None),
    "unsqueeze_bool": lambda t: t.ones(2).unsqueeze(True),
    "unsqueeze_missing": lambda t: t.ones(2).unsqueeze(),
    "unsqueeze_two": lambda t: t.ones(2).unsqueeze(0, 1),
    "unsqueeze_wrong_keyword": lambda t: t.ones(2).unsqueeze(d=0),
    "unsqueeze_0d_tensor_dim": lambda t: t.ones(2).unsqueeze(t.tensor(0)),
    "transpose_float": lambda t: t.ones(2, 2).transpose(0, 0.5),
    "transpose_missing": lambda t: t.ones(2).transpose(0),
    "select_float_index": lambda t: t.ones(2).select(0, 0.5),
    "softmax_float_dim": lambda t: t.ones(2).softmax(0.5),
    "softmax_int_dtype": lambda t: t.ones(2).softmax(0, 1),
    "softmax_too_many": lambda t: t.ones(2).softmax(1, 2, 3),
    "softmax_none": lambda t: t.ones(2).softmax(None),
    "chunk_too_many": lambda t: t.ones(2).chunk(1, 2, 3),
    "flatten_float": lambda t: t.ones(2).flatten(0.5),
    "unbind_float": lambda t: t.ones(2).unbind(0.5),
    "permute_float": lambda t: t.ones(2).permute(0.0),
    "permute_float_second": lambda t: t.ones(2, 2).permute(0, 1.0),
    "expand_float": lambda t: t.ones(1).expand(2.5),
    "reshape_float_second": lambda t: t.ones(4).reshape(2, 2.0),
    "reshape_float_first_vararg": lambda t: t.ones(2).reshape(2.0, 2),
    "reshape_float_first_in_tuple": lambda t: t.ones(2).reshape((2.0, 2)),
    "reshape_float_second_in_tuple": lambda t: t.ones(2).reshape((2, 2.0)),
    "reshape_none": lambda t: t.ones(2).reshape(None),
    "view_float_second": lambda t: t.ones(2).view(2, 2.0),
    "view_float_second_in_tuple": lambda t: t.ones(2).view((1, 2.0)),
    "view_tuple_then_int": lambda t: t.ones(4).view((2, 2), 1),
    "view_list_then_list": lambda t: t.ones(4).view([2, 2], [1]),
    "reshape_tuple_then_int": lambda t: t.ones(4).reshape((2, 2), 1),
    "permute_tuple_then_int": lambda t: t.ones(2, 2).permute((1, 0), 1),
    "expand_tuple_then_int": lambda t: t.ones(1).expand((2,), 1),
    "split_float": lambda t: t.ones(4).split(1.5),
    "split_none": lambda t: t.ones(2).split(None),
    "split_bool": lambda t: t.ones(2).split(True),
    "split_float_dim": lambda t: t.ones(2).split(1, 0.5),
    "add_list": lambda t: t.ones(2).add([1.0, 2.0]),
    "add_none": lambda t: t.ones(2).add(None),
    "add_numpy_array": lambda t: t.ones(2).add(__import__("numpy").ones(2)),
    "add_alpha_none": lambda t: t.ones(2).add(t.ones(2), alpha=None),
    "add_alpha_str": lambda t: t.ones(2).add(t.ones(2), alpha="a"),
    "add_missing": lambda t: t.ones(2).add(foo=1),
    "sub_none": lambda t: t.ones(2).sub(None),
    "mul_str": lambda t: t.ones(2).mul("a"),
    "mul_none": lambda t: t.ones(2).mul(None),
    "mul_two": lambda t: t.ones(2).mul(2, 3),
    "div_none": lambda t: t.ones(2).div(None),
    "fn_add_unknown_keyword": lambda t: t.add(foo=1),
    "fn_add_one_tensor": lambda t: t.add(t.ones(2)),
    "sum_keepdim_int": lambda t: t.ones(2).sum(0, keepdim=1),
    "sum_keepdim_str": lambda t: t.ones(2).sum(0, "a"),
    "sum_three_positional": lambda t: t.ones(2).sum(0, True, t.float32),
    "argmax_too_many_indices": lambda t: t.ones(2).max(t.ones(2), 1),
    # several signatures: the "invalid combination" message, overload by overload
    "sum_float_dim_keyword": lambda t: t.ones(2).sum(dim=0.5),
    "sum_str_dim_keyword": lambda t: t.ones(2).sum(dim="a"),
    "sum_float_dim": lambda t: t.ones(2).sum(0.5),
    "sum_bool_dim": lambda t: t.ones(2).sum(True),
    "sum_float_in_tuple_first": lambda t: t.ones(2).sum(dim=(0.5,)),
    "sum_float_in_list": lambda t: t.ones(2, 2).sum(dim=[0, 1.5]),
    "sum_float_in_tuple_second": lambda t: t.ones(2).sum((0, 0.5)),
    "sum_four_ints": lambda t: t.ones(2).sum(0, 1, 2, 3),
    "sum_unknown_keyword": lambda t: t.ones(2).sum(foo=1),
    "sum_dtype_int": lambda t: t.ones(2).sum(dtype=1),
    "fn_sum_float_dim": lambda t: t.sum(t.ones(2), 0.5),
    "fn_sum_str_dim_keyword": lambda t: t.sum(t.ones(2), dim="a"),
    "fn_sum_seven": lambda t: t.sum(t.ones(2), 0, True, 1, 2, 3, 4),
    "mean_float_dim": lambda t: t.ones(2).mean(0.5),
    "mean_list_of_float": lambda t: t.ones(2).mean(dim=[0.5]),
    "max_float": lambda t: t.ones(2).max(0.5),
    "max_float_keyword": lambda t: t.ones(2).max(dim=0.5),
    "min_str": lambda t: t.ones(2).min("a"),
    "fn_max_float": lambda t: t.max(t.ones(2), 0.5),
    "squeeze_float": lambda t: t.ones(2).squeeze(0.5),
    "squeeze_unknown_keyword": lambda t: t.ones(2).squeeze(foo=1),
    "view_float": lambda t: t.ones(4).view(2.5),
    "view_str": lambda t: t.ones(4).view("a"),
    "view_none": lambda t: t.ones(4).view(None),
    "view_unknown_keyword": lambda t: t.ones(4).view(foo=1),
    "clamp_str": lambda t: t.ones(2).clamp("a"),
    "clamp_str_keyword": lambda t: t.ones(2).clamp(min="a"),
    "pow_none": lambda t: t.ones(2).pow(None),
    "pow_str": lambda t: t.ones(2).pow("a"),
    "eq_none_method": lambda t: t.ones(2).eq(None),
    "narrow_float_start": lambda t: t.ones(2).narrow(0, 0.5, 1),
    "narrow_unknown_keyword": lambda t: t.ones(2).narrow(foo=1),
    "linspace_float_steps": lambda t: t.linspace(0, 1, 2.5),
}

NUMBERS: dict[str, Any] = {
    "add_two_ints": lambda t: t.add(1, 2),
    "add_int_and_float": lambda t: t.add(1, 2.5),
    "add_int_and_tensor": lambda t: t.add(1, t.ones(2)),
    "add_bool_and_int32": lambda t: t.add(True, t.ones(2, dtype=t.int32)),
    "add_float_and_double": lambda t: t.add(2.5, t.ones(2, dtype=t.float64)),
    "add_with_alpha": lambda t: t.add(1, t.ones(2), alpha=2),
    "mul_two_ints": lambda t: t.mul(2, 3),
    "sub_floats": lambda t: t.sub(2.5, 1),
    "div_ints": lambda t: t.div(1, 2),
    "add_number_needs_grad": lambda t: t.add(1, t.ones(2, requires_grad=True)),
    "sum_none_dim": lambda t: t.ones(2, 3).sum(None),
    "sum_none_dim_graph": lambda t: _backward_of(t, lambda x: x.sum(None)),
    "sum_empty_dims_keepdim_graph": lambda t: _backward_of(t, lambda x: x.sum([], keepdim=True)),
    "mean_none_dim_graph": lambda t: _backward_of(t, lambda x: x.mean(None)),
    "fn_sum_none_dim_graph": lambda t: _backward_of(t, lambda x: t.sum(x, None)),
    "sum_empty_dims": lambda t: t.ones(2, 3).sum([]),
    "mean_empty_dims": lambda t: t.ones(2, 3).mean(dim=()),
    "max_elementwise": lambda t: t.max(t.ones(2), t.zeros(2)),
    "min_elementwise_method": lambda t: t.ones(2).min(t.zeros(2)),
    "sum_numpy_int_dim": lambda t: t.ones(2).sum(__import__("numpy").int64(0)),
    "sum_0d_tensor_dim": lambda t: t.ones(2).sum(t.tensor(0)),
}

DIMS: dict[str, Any] = {
    "sum_0d_dim1": lambda t: t.tensor(1.0).sum(dim=1),
    "sum_0d_dim0": lambda t: t.tensor(1.0).sum(dim=0),
    "sum_0d_dim_minus1": lambda t: t.tensor(1.0).sum(dim=-1),
    "mean_0d_dim1": lambda t: t.tensor(1.0).mean(dim=1),
    "max_0d_dim1": lambda t: t.tensor(1.0).max(1),
    "argmax_0d_dim1": lambda t: t.tensor(1.0).argmax(1),
    "softmax_0d_dim1": lambda t: t.tensor(1.0).softmax(1),
    "softmax_0d": lambda t: t.tensor(1.0).softmax(0),
    "softmax_0d_nan": lambda t: t.tensor(float("nan")).softmax(-1),
    "log_softmax_0d_inf": lambda t: t.tensor(float("inf")).log_softmax(0),
    "squeeze_0d_dim1": lambda t: t.tensor(1.0).squeeze(1),
    "squeeze_repeated_dims": lambda t: t.ones(2).squeeze((0, 0)),
    "unsqueeze_0d_dim2": lambda t: t.tensor(1.0).unsqueeze(2),
    "transpose_0d": lambda t: t.tensor(1.0).transpose(0, 1),
    "transpose_0d_same": lambda t: t.tensor(1.0).transpose(-1, 0),
    "flatten_out_of_range": lambda t: t.ones(2).flatten(2),
    "flatten_reversed": lambda t: t.ones(2, 2, 2).flatten(2, 0),
    "flatten_0d_dim1": lambda t: t.tensor(1.0).flatten(1),
    "unbind_0d": lambda t: t.tensor(1.0).unbind(),
    "unbind_0d_dim1": lambda t: t.tensor(1.0).unbind(1),
    "unbind_dim": lambda t: t.ones(2).unbind(1),
    "permute_too_few": lambda t: t.ones(2, 3).permute(0),
    "permute_too_many": lambda t: t.ones(2, 3).permute(5, 6, 7),
    "permute_repeated": lambda t: t.ones(2, 2).permute(0, 0),
    "expand_last_dim_reported": lambda t: t.ones(2, 3).expand(0, 1),
    "expand_too_few_int64": lambda t: t.ones(2, 2, dtype=t.int64).expand(3),
    "expand_too_few_bool": lambda t: t.ones(2, 2, dtype=t.bool).expand(3),
    "expand_negative_leading": lambda t: t.ones(2).expand(-2),
    "view_negative_dim": lambda t: t.ones(4).view(-3),
    "reshape_ambiguous_empty": lambda t: t.ones(0).view(-1, 0),
    "reshape_bad": lambda t: t.ones(4).reshape(3),
}

SIZES: dict[str, Any] = {
    "split_zero": lambda t: t.ones(4).split(0),
    "split_zero_of_empty": lambda t: t.ones(0).split(0),
    "split_negative": lambda t: t.ones(4).split(-1),
    "split_negative_sizes": lambda t: t.ones(4).split([5, -1]),
    "split_dim": lambda t: t.ones(4).split(2, dim=1),
    "split_0d": lambda t: t.tensor(1.0).split(1),
    "chunk_zero": lambda t: t.ones(4).chunk(0),
    "chunk_negative": lambda t: t.ones(4).chunk(-1),
    "chunk_0d": lambda t: t.tensor(1.0).chunk(1),
    "chunk_dim": lambda t: t.ones(2).chunk(1, 5),
    "chunk_of_empty": lambda t: t.ones(0).chunk(2),
    "narrow_start_out_of_range": lambda t: t.ones(2).narrow(0, 5, 1),
    "narrow_negative_start_out_of_range": lambda t: t.ones(2).narrow(0, -3, 1),
    "narrow_past_the_end": lambda t: t.ones(2).narrow(0, 1, 2),
    "narrow_empty_at_the_end": lambda t: t.ones(2).narrow(0, 2, 0),
    "narrow_negative_length": lambda t: t.ones(2).narrow(0, 0, -1),
    "narrow_0d": lambda t: t.tensor(1.0).narrow(0, 0, 1),
    "narrow_dim": lambda t: t.ones(2).narrow(5, 0, 1),
    "mT_1d": lambda t: t.ones(3).mT,
    "t_3d": lambda t: t.ones(2, 2, 2).t(),
}

EMPTY: dict[str, Any] = {
    "argmax_empty": lambda t: t.tensor([]).argmax(),
    "argmin_empty": lambda t: t.tensor([]).argmin(),
    "argmax_empty_dim": lambda t: t.zeros(0, 3).argmax(0),
    "argmax_empty_other_dim": lambda t: t.zeros(0, 3).argmax(1),
    "argmax_bool": lambda t: t.ones(2, dtype=t.bool).argmax(),
    "argmin_bool_dim": lambda t: t.ones(2, dtype=t.bool).argmin(0),
    "argmax_0d_keepdim": lambda t: t.tensor(3.0).argmax(0, True),
    "max_empty": lambda t: t.tensor([]).max(),
    "max_empty_dim": lambda t: t.zeros(0, 3).max(0),
    "min_empty_dim": lambda t: t.zeros(0, 3).min(dim=0),
    "max_empty_other_dim": lambda t: t.zeros(0, 3).max(1),
    "softmax_empty": lambda t: t.ones(0).softmax(0),
    "softmax_empty_int": lambda t: t.ones(0, dtype=t.int64).softmax(0),
    "softmax_int_last_dim": lambda t: t.ones(2, dtype=t.int64).softmax(0),
    "softmax_int_other_dim": lambda t: t.ones(2, 3, dtype=t.int64).softmax(0),
    "log_softmax_int": lambda t: t.ones(2, 3, dtype=t.int64).log_softmax(1),
    "softmax_int_bad_dim": lambda t: t.ones(2, dtype=t.int64).softmax(5),
    "sum_empty": lambda t: t.tensor([]).sum(),
}


def _backward_of(t: Any, f: Any) -> Any:
    x = t.ones(2, 3, requires_grad=True)
    y = f(x)
    y.sum().backward()
    return y, x.grad


def _cases(*tables: dict[str, Any]) -> Any:
    merged = {k: v for table in tables for k, v in table.items()}
    return pytest.mark.parametrize("program", merged.values(), ids=merged.keys())


@_cases(PARSER)
def test_arguments_of_the_wrong_kind_get_torch_words(program: Any) -> None:
    same(program)


@_cases(NUMBERS)
def test_functions_take_what_torch_takes(program: Any) -> None:
    same(program)


@_cases(DIMS, SIZES, EMPTY)
def test_dims_sizes_and_empty_tensors_as_torch(program: Any) -> None:
    same(program)


def test_mT_of_a_0d_tensor_is_the_tensor_itself() -> None:
    """torch warns about it once per process, and so does the engine (so whether this test sees
    the warning depends on the order of the tests): warnings are not compared here, the
    engine's words are, with every warning given (``set_warn_always``)."""
    same(lambda t: (lambda x: (x.mT, x.mT is x))(t.tensor(1.0)), warnings=False)
    import warnings

    import ownership

    ownership.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match=r"^Tensor\.mT is deprecated on 0-D tensors\. This"):
            ownership.tensor(1.0).mT
    finally:
        ownership.set_warn_always(False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match=r"tensor\.mT is only supported on matrices"):
            ownership.ones(3).mT


def _argument_patterns() -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Positional and keyword calls made of plain values and int lists (the calls the parser
    remembers), and of the values a remembered pattern must leave to the parser: int lists of
    other elements, numpy ints and tensors among ints given one by one."""
    import itertools

    import numpy as np

    import ownership

    values: list[Any] = [0, 2, -1, True, None, 1.5, ownership.float64]
    lists: list[Any] = [(2, 3), [1], (), [], ownership.Size([2, 3])]
    lists += [
        (2, True),
        [1.5],
        (np.int64(2), 3),
        (ownership.tensor(2), 1),
        (ownership.tensor(2.0),),
    ]
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [((), {})]
    for n in (1, 2, 3):
        calls += [(args, {}) for args in itertools.product(values, repeat=n)]
    for n in (1, 2):
        calls += [(args, {}) for args in itertools.product([*lists, 0, 2, True], repeat=n)]
    calls += [((2, one), {}) for one in (np.int64(3), ownership.tensor(3), ownership.tensor(3.0))]
    names = ["dim", "keepdim", "dtype", "size", "shape", "dims", "dim0", "dim1", "index"]
    for name, value in itertools.product(names, values + lists):
        calls += [((), {name: value}), ((0,), {name: value}), ((1, 0), {name: value})]
    return calls


def test_a_remembered_binding_equals_the_parsers_on_every_signature_and_call() -> None:
    """Parser.parse remembers how a pattern of argument types binds (its fast path); a second
    call of the same pattern, bound from memory, gives what the full parser gives, and a call
    the parser refuses is refused again with the same message. Every call is also made after
    every other (a pattern remembered from one call's values meets another's)."""
    from ownership.arguments import Parser
    from ownership.core import binder, tensor_metadata
    from ownership.ops import methods, signatures

    def outcome(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            index, bound = fn(args, kwargs)
        except TypeError as exc:
            return ("TypeError", str(exc))
        return index, list(bound.items())  # the order of the keys included

    modules = (tensor_metadata, signatures)
    declared = [d for m in modules for d in vars(m).values() if isinstance(d, binder.Signatures)]
    declared += [d.signatures for d in methods.DECLARED if d.signatures is not None]
    parsers = [d.binding for d in declared]
    assert all(isinstance(p, Parser) for p in parsers)
    assert len(parsers) > 40
    remembered = 0
    patterns = _argument_patterns()
    for parser in parsers:
        for args, kwargs in patterns:
            first = outcome(parser.parse, args, kwargs)
            again = outcome(parser.parse, args, kwargs)
            full = outcome(parser._parse, args, kwargs)
            assert first == again == full, (parser.name, args, kwargs)
        for args, kwargs in patterns:  # each pattern now bound from what another call left
            assert outcome(parser.parse, args, kwargs) == outcome(parser._parse, args, kwargs)
        remembered += len(parser._plans)
    assert remembered > 200  # the fast path was taken, not only the parser
