"""Indexing: basic indexing makes views, advanced and mask indexing make copies, setitem is in place."""

from __future__ import annotations

import pytest

from support.differential import error_of, grad_of, same
from support.gradients import plain

BASIC = [
    "x[1]",
    "x[-1]",
    "x[1:]",
    "x[:, 1]",
    "x[..., 2]",
    "x[None, 1]",
    "x[1, None, ::2]",
    "x[::2, 1:3]",
    "x[:]",
    "x[0, 0]",
    "x[-2:, -1]",
    "x[..., None]",
]
ADVANCED = [
    "x[idx]",
    "x[:, idx]",
    "x[mask]",
    "x[x > 5]",
    "x[[0, 1]]",
    "x[idx, 1]",
    "x[t.tensor([0, 1]), t.tensor([2, 3])]",
    "x[x[:, 0] > 1]",
]


def _setup(t) -> dict:
    """The names a program's expression may use: t, x (3x4), idx and mask."""
    return {
        "t": t,
        "x": t.arange(12.0).view(3, 4),
        "idx": t.tensor([2, 0, 2]),
        "mask": t.tensor([True, False, True]),
    }


@pytest.mark.parametrize("expr", BASIC)
def test_basic_indexing_is_a_view(expr: str) -> None:
    def program(t):
        env = _setup(t)
        x = env["x"]
        v = eval(expr, env)
        return [v, v._base is x._base, v.data_ptr() - x.data_ptr(), v.stride(), v._version]

    assert same(program)[1] is True


@pytest.mark.parametrize("expr", ADVANCED)
def test_advanced_and_mask_indexing_copy(expr: str) -> None:
    def program(t):
        env = _setup(t)
        x = env["x"]
        c = eval(expr, env)
        c.mul_(0)
        return [c, c._base is None, x, x._version, c._version]

    r = same(program)
    assert r[1] is True and r[3] == 0


@pytest.mark.parametrize("expr", BASIC + ADVANCED)
def test_gradients_through_an_index(expr: str) -> None:
    def program(t):
        env = _setup(t)
        x = env["x"] = env["x"].clone().requires_grad_()
        y = eval(expr, env)
        (y * 2).sum().backward()
        return [y, plain(x.grad)]

    same(program)


SETITEM = [
    "x[1] = 5.0",
    "x[1] = t.tensor([1.0, 2.0, 3.0, 4.0])",
    "x[:, 1] = t.tensor([7.0, 8.0, 9.0])",
    "x[..., 0] = -1",
    "x[1:, 2:] = t.tensor([[1.0], [2.0]])",
    "x[mask] = 0.0",
    "x[x > 5] = 100.0",
    "x[idx] = t.ones(4)",
    "x[t.tensor([0, 1]), t.tensor([2, 3])] = t.tensor([-5.0, -6.0])",
    "x[0, 0] = t.tensor(42.0)",
    "x[None, 2] = 3",
    "x[:] = 1",
]


@pytest.mark.parametrize("stmt", SETITEM)
def test_setitem_is_in_place_and_bumps_once(stmt: str) -> None:
    def program(t):
        env = _setup(t)
        x = env["x"]
        v = x.view(12)
        ptr = x.data_ptr()
        exec(stmt, env)
        return [x, v, x._version, v._version, x.data_ptr() == ptr]

    assert same(program)[2] == 1


@pytest.mark.parametrize(
    "stmt",
    [
        "x[1] = t.ones(3)",
        "x[5] = 1.0",
        "x[mask] = t.ones(3)",
        "x[t.tensor([0, 7])] = 1.0",
        "x[0, 0, 0] = 1.0",
        "x[t.tensor([True, False])] = 1.0",
    ],
)
def test_setitem_errors_like_torch(stmt: str) -> None:
    def program(t):
        env = _setup(t)
        x = env["x"]
        exec(stmt, env)
        return x

    same(program)


@pytest.mark.parametrize("stmt", ["x[1] += 5.0", "x[:, 0] *= 2", "x[1:, 1] -= 1", "x[0, 0] /= 2"])
def test_indexed_augmented_assignment_bumps_twice(stmt: str) -> None:
    def program(t):
        env = _setup(t)
        x = env["x"]
        exec(stmt, env)
        return [x, x._version]

    assert same(program)[1] == 2


def test_advanced_augmented_assignment_writes_back() -> None:
    def program(t):
        env = _setup(t)
        x, mask = env["x"], env["mask"]
        x[mask] += 1
        x[t.tensor([0])] *= 3
        return [x, x._version]

    same(program)


def test_setitem_gradients_on_a_non_leaf() -> None:
    def program(t):
        w = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        s = t.tensor([0.5, -0.5], requires_grad=True)
        y = w * 2
        y[0] = s * 3
        y[y > 7] = 0.0
        (y * t.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return [y, plain(w.grad), plain(s.grad), y.grad_fn]

    same(program)


def test_duplicate_advanced_indices_accumulate_in_backward() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x[t.tensor([0, 0, 2, 0])]
        (y * t.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return [y, plain(x.grad)]

    r = same(program)
    assert r[1].values.tolist() == [7.0, 0.0, 3.0]


def test_index_with_an_int_tensor_and_a_bool_tensor_dtype() -> None:
    def program(t):
        x = t.arange(5.0)
        m = x > 2
        i = t.tensor([4, 1])
        return [m.dtype, i.dtype, x[m], x[i], m, t.tensor([1, 2]).dtype]

    same(program)


def test_setitem_on_a_leaf_under_no_grad() -> None:
    def program(t):
        w = t.zeros(3, requires_grad=True)
        with t.no_grad():
            w[1] = 2.0
            w[w > 1] = 5.0
        return [w, w._version, w.is_leaf, w.requires_grad]

    same(program)


def test_indexing_out_of_range_and_too_many_indices() -> None:
    same(lambda t: t.arange(3)[1.0])
    same(lambda t: t.arange(3)[-4])
    same(lambda t: t.arange(3)[3])
    same(lambda t: t.arange(3)[0, 0])
    same(lambda t: t.arange(3)[t.tensor([3])])


ZERO_D_KEYS = [
    "0", ":1", "0,", "(slice(None),)", "..., :1", "..., 0", "None, :1", "..., None, :1",
    ":1, ...", "None, ..., 0", "..., [0]", "[0]", "..., t.tensor(0)", "t.tensor(0)", "...",
    "..., ...", "None", "True", "..., True", "False, ...", "t.tensor(True)", "..., t.tensor(True)",
    "True, 0",
]  # fmt: skip


@pytest.mark.parametrize("key", ZERO_D_KEYS)
@pytest.mark.parametrize("write", [False, True])
def test_a_0d_tensor_reads_a_lone_int_or_slice_at_once_and_counts_any_other_key(
    key: str, write: bool
) -> None:
    """torch reads a lone int or slice key at once (its own messages for a 0-d tensor); any other
    key is a tuple whose ints, slices and index tensors count against the tensor's 0 dims."""

    def program(t):
        x = t.tensor(1.5)
        if write:
            exec(f"x[{key}] = 2.0", {"t": t, "x": x})
            return x
        return eval(f"x[{key}]", {"t": t, "x": x})

    same(program)


@pytest.mark.parametrize(
    "build",
    ["y = b[[0, 0]]", "y = b[b > 1]", "y = b[:, [1]]", "c = b * 1; c[[0]] = 2.0; y = c"],
)
def test_an_index_node_frees_its_indices_with_backward(build: str) -> None:
    """IndexBackward0 and IndexPutBackward0 save their indices, so a second backward raises;
    the leaf's ``.grad`` is torch's ``zeros.index_put_(...)``, written once (version 1)."""

    def program(t):
        b = t.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        scope = {"b": b}
        exec(build, scope)
        y = scope["y"]
        y.sum().backward()
        return [grad_of(b), b.grad._version, error_of(lambda: y.sum().backward())]

    assert "Specify retain_graph=True" in same(program)[2]


@pytest.mark.parametrize(
    "key, shape",
    [
        ("mask", (1, 1)),
        ("mask", (1, 1, 1)),
        ("mask", (1, 2)),
        ("mask", ()),
        ("mask", (2,)),
        ("[[0, 1], [0, 1]]", (1, 1)),
        ("[[0, 1], [0, 1]]", (1, 2)),
    ],
)
def test_the_gradient_of_an_assigned_value_has_its_leading_ones(
    key: str, shape: tuple[int, ...]
) -> None:
    """IndexPutBackward0's gradient of the value is the written elements' gradient summed to
    the shape ``t[key] = value`` reads (its leading 1s dropped), in the value's own shape."""

    def program(t):
        v = t.ones(shape, requires_grad=True)
        y = t.zeros(2, 2)
        k = t.tensor([[True, False], [False, True]]) if key == "mask" else eval(key)
        y[k] = v
        (y * t.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return y.grad_fn.name(), grad_of(v)

    same(program)


@pytest.mark.parametrize(
    "key", ["[0:3, :]", "[0:100, 0]", "[:, 0:2]", "[None, 0:3]", "[-3:, :]", "[:]", "[...]"]
)
def test_a_slice_over_a_whole_dimension_is_skipped_unless_it_is_the_only_index(key: str) -> None:
    """torch drops ``0:n`` (n at least the size) from a multi-index key; alone it still slices."""
    same(lambda t: eval(f"(t.ones(3, 2, requires_grad=True) * 1){key}"))


SETITEM_KEYS = ["[:]", "[0:3]", "[0:100]", "[-3:]", "[...]", "[:, :]", "[0:2, :]", "[0]", "[:, 0]"]


@pytest.mark.parametrize("value", ["2.0", "t.tensor(3.0, requires_grad=True)", "t.ones(2)"])
@pytest.mark.parametrize("key", SETITEM_KEYS)
def test_setitem_writes_the_tensor_itself_when_the_key_selects_all_of_it(
    key: str, value: str
) -> None:
    """``x[:] = v`` writes ``x`` (a leaf refuses as a leaf, not as a view; the history is the
    write's own node), a number or 0-d value fills, any other is copied."""

    def write(t, x):
        exec(f"x{key} = {value}", {"t": t, "x": x})
        return x

    def program(t):
        y = t.ones(3, 2, requires_grad=True) * 1
        out = write(t, y)
        return (
            out,
            out.grad_fn.next_functions[0][0],
            error_of(lambda: write(t, t.ones(3, 2, requires_grad=True))),
        )

    same(program)


@pytest.mark.parametrize(
    "stmt",
    [
        "x[0:2] = t.ones(3)",
        "x[0:1] = t.ones(2, 1)",
        "x[0:2] = t.ones(1, 2)",
        "x[0:2] = t.ones(1, 1, 2)",
        "x[0:2] = t.ones(2, 2)",
        "x[0] = t.ones(2)",
        "x[0] = t.ones(1)",
        "x[...] = t.ones(1, 3)",
    ],
)
@pytest.mark.parametrize("leaf", [True, False])
def test_setitem_drops_leading_ones_and_expands_the_value_first(stmt: str, leaf: bool) -> None:
    """torch's copy_to: a shape error of the value comes before the leaf checks."""

    def program(t):
        x = t.ones(3, requires_grad=leaf)
        exec(stmt, {"t": t, "x": x})
        return x

    same(program)


@pytest.mark.parametrize(
    "stmt", ["x.fill_(x[0])", "x[0:2].fill_(x[1])", "x[0:2] = x[1]", "x[1:] = x[:-1]"]
)
def test_fill_with_a_value_read_from_the_written_memory(stmt: str) -> None:
    """fill_ reads its 0-d value before writing and checks no overlap; a copy_ still refuses."""

    def program(t):
        x = t.arange(4.0)
        exec(stmt, {"t": t, "x": x})
        return x

    same(program)


NUMPY_KEYS = [
    "np.array(1)",
    "np.array(-1)",
    "np.array(1.0)",
    "np.array([1.5, 0.2])",
    "np.array([2, 0], dtype=np.int32)",
    "np.array(True)",
    "np.array([True, False, True])",
    "np.array([[0, 1]])",
    "(np.array([1, 2]), np.array([3, 0]))",
    "(slice(None), np.array([3.0, 0.0]))",
]


@pytest.mark.parametrize("key", NUMPY_KEYS)
def test_a_numpy_array_index_is_read_as_torch_reads_it(key: str) -> None:
    """torch reads a numpy array index as data: its values as int64 indices unless bool, and a
    0-d one as an integer (a view made by ``select``, not a copy)."""
    import numpy as np

    def program(t):
        x = t.arange(12.0).view(3, 4).requires_grad_()
        y = x[eval(key, {"np": np})]
        y.sum().backward()
        return [y, y._base is None, x.grad]

    same(program)


@pytest.mark.parametrize("key", NUMPY_KEYS)
def test_setitem_with_a_numpy_array_index(key: str) -> None:
    import numpy as np

    def program(t):
        x = t.arange(12.0).view(3, 4)
        x[eval(key, {"np": np})] = -1.0
        return [x, x._version]

    same(program)


def test_a_non_tuple_sequence_index_warns_at_the_callers_line() -> None:
    """torch's deprecation warning for ``x[[[0], [1]]]`` (read and written) names the program's
    line, whatever frames the op table and the operator add."""
    import warnings

    import torch

    import ownership

    lines = {}
    for t in (torch, ownership):
        x = t.zeros(3, 2)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            x[[[0], [1]]]
            x[[[0], [1]]] = 1.0
        lines[t.__name__] = [(w.filename, w.lineno) for w in seen]
    assert lines["ownership"] == lines["torch"]
    assert len(lines["torch"]) == 2 and lines["torch"][0][0] == __file__
