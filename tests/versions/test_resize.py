"""``resize_`` and ``resize_as_``: sizes changed in place, versions, and the storage every alias
shares (shrunk in place, reallocated when it grows). New elements are uninitialised in torch:
no test reads them."""

from __future__ import annotations

import numpy as np
import pytest

from support.differential import error_of, same


def _geometry(x):
    return [tuple(x.shape), x.stride(), x.storage_offset(), x.is_contiguous(), x._version]


def test_same_sizes_change_nothing() -> None:
    """Same sizes: strides kept (a transposed tensor stays transposed), no version bump."""

    def program(t):
        x = t.arange(6.0).view(2, 3).t()
        y = t.arange(6.0)[::2]
        out = [x.resize_(3, 2) is x, *_geometry(x), y.resize_((3,)).stride(), y._version]
        out.append(x.resize_as_(t.zeros(3, 2)).stride())
        return [*out, x._version, x]

    assert same(program)[1:3] == [(3, 2), (1, 3)]


def test_new_sizes_get_contiguous_strides_and_one_bump() -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3).t()  # the storage is read row-major, strides ignored
        x.resize_(2, 3)
        out = [*_geometry(x), x]
        x.resize_(6)
        out += [*_geometry(x), x]
        x.resize_as_(t.zeros(3, 1, 2))
        return [*out, *_geometry(x), x, x.resize_(()).shape, x.stride(), x._version, x]

    same(program)


def test_shrinking_keeps_the_storage_and_its_views() -> None:
    def program(t):
        x = t.arange(6.0)
        v = x[3:]
        before, ptr = x.untyped_storage().nbytes(), x.data_ptr()
        x.resize_(2)
        out = [x, v, x.untyped_storage().nbytes() == before, x.data_ptr() == ptr, x._version]
        v.fill_(9.0)
        x.resize_(6)  # grows back within the storage: no reallocation, the view's write kept
        return [*out, x, x.data_ptr() == ptr, x._version, v._version]

    same(program)


def test_growing_reallocates_for_every_alias() -> None:
    """Views, ``detach()`` and ``.data`` aliases read the new memory; old elements are kept."""

    def program(t):
        x = t.arange(6.0)
        v, d, a = x[2:4], x.detach(), x.data
        x.resize_(3, 4)
        out = [x.untyped_storage().nbytes(), v.untyped_storage().nbytes()]
        out += [v.data_ptr() - x.data_ptr(), d.data_ptr() == x.data_ptr() == a.data_ptr()]
        out += [x.view(12)[:6], v, d, a, x._version, v._version, d._version, a._version]
        v.fill_(7.0)
        a.mul_(2.0)
        return [*out, x.view(12)[:6], d, v._version, a._version]

    same(program)


def test_growing_a_view_grows_its_base_storage() -> None:
    def program(t):
        x = t.arange(6.0)
        v = x[2:4]
        v.resize_(10)  # needs offset 2 + 10 elements: the storage is reallocated to 12
        out = [*_geometry(v), v._base is x, x.untyped_storage().nbytes()]
        out += [v.data_ptr() - x.data_ptr(), x, v[:4], x._version]
        v[0] = -1.0
        return [*out, x, x._version]

    same(program)


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool", "int32"])
def test_growth_by_dtype(dtype) -> None:
    def program(t):
        x = t.ones(3, dtype=getattr(t, dtype))
        x.resize_(2, 4)
        return [x.untyped_storage().nbytes(), x.dtype, x.view(8)[:3], x._version]

    same(program)


def test_empty_sizes() -> None:
    """A tensor of no elements never grows its storage; its offset stays."""

    def program(t):
        x = t.arange(6.0)[4:]
        x.resize_(0)
        out = [*_geometry(x), x.untyped_storage().nbytes(), x.resize_(0)._version]
        x.resize_(0, 5)
        out += [*_geometry(x), x.untyped_storage().nbytes()]
        x.resize_(5)  # offset 4 + 5 elements: 36 bytes
        out += [*_geometry(x), x.untyped_storage().nbytes(), x._base is not None, x[:2]]
        e = t.empty(0)
        e.resize_(3)
        return [*out, e.untyped_storage().nbytes(), e._version]

    same(program)


def test_expanded_and_one_element_tensors() -> None:
    def program(t):
        x = t.ones(1).expand(3)
        x.resize_(5)
        y = t.ones(3)
        y.resize_(())
        return [*_geometry(x), x.untyped_storage().nbytes(), x[:1], *_geometry(y), y]

    same(program)


def test_tensors_that_require_grad_are_refused() -> None:
    """Outside inference mode, whatever the sizes (even the same), and under no_grad too."""

    def program(t):
        leaf = t.ones(2, requires_grad=True)
        out = [error_of(lambda: leaf.resize_(3)), error_of(lambda: leaf.resize_(2))]
        y = leaf * 2
        out += [error_of(lambda: y.resize_(3)), error_of(lambda: y[:1].resize_(3))]
        out.append(error_of(lambda: leaf.resize_as_(t.ones(3))))
        with t.no_grad():
            out.append(error_of(lambda: leaf.resize_(3)))
            v = leaf[:1]
        out += [v.requires_grad, error_of(lambda: v.resize_(4))]
        return [*out, leaf, y, leaf._version]

    same(program)


def test_a_template_that_requires_grad_is_fine() -> None:
    def program(t):
        x = t.ones(2, dtype=t.int64)
        x.resize_as_(t.ones(2, 3, requires_grad=True))
        return [*_geometry(x), x.requires_grad, x.dtype]

    same(program)


def test_detached_alias_of_a_leaf_grows_it_and_backward_still_works() -> None:
    def program(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        d = w.detach()
        d.resize_(5)
        d[0] = 3.0  # written in the new memory, which w reads
        out = [w, w.data_ptr() == d.data_ptr(), w._version, w.untyped_storage().nbytes()]
        (w * w).sum().backward()
        return [*out, w.grad]

    same(program)


def test_parameter_grown_through_data() -> None:
    def program(t):
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        a = p.data
        a.resize_(2, 3)
        a.view(6)[:2].mul_(10.0)
        return [
            p,
            p._version,
            a._version,
            p.untyped_storage().nbytes(),
            p.data_ptr() == a.data_ptr(),
        ]

    same(program)


def test_saved_tensors_after_a_resize() -> None:
    """A resize that changes sizes is an in-place write backward notices; the same sizes are
    not. Through ``.data`` nothing is noticed, and backward reads the reallocated memory."""

    def program(t):
        w = t.ones(3, requires_grad=True)
        a = t.tensor([1.0, 2.0, 3.0])
        loss = (a * w).sum()
        a.resize_(3)
        loss.backward(retain_graph=True)
        out = [w.grad.clone()]
        a.resize_(4)
        out.append(error_of(loss.backward))
        x = t.tensor([0.0, 1.0], requires_grad=True)
        y = x.exp()  # saves its output
        y.data.resize_(50)
        y.data.fill_(5.0)
        b = t.tensor([1.0, 2.0])
        z = (b * x).sum()  # saves the input b
        b.data.resize_(60)
        b.data.fill_(3.0)
        y.sum().backward()
        z.backward()
        return [*out, x.grad, y._version, b._version]

    same(program)


def test_inference_mode() -> None:
    """In inference mode a tensor that requires grad may be resized; an inference tensor outside
    it is refused at the bump, its sizes already changed (the same sizes: no bump, no error)."""

    def program(t):
        with t.inference_mode():
            a = t.ones(2, requires_grad=True)
            a.resize_(3)
            b = t.ones(2)
            b.resize_(4)
            n = t.ones(2)
        out = [a.shape, a.requires_grad, b.shape]
        out += [b.resize_(4).shape, error_of(lambda: b.resize_(5)), b.shape]
        x = t.ones(2)
        with t.inference_mode():
            x.resize_(3)
            v = x[:1]
        v.resize_(2)
        return [*out, x._version, v.shape, n.resize_as_(t.ones(2)).shape]

    same(program)


def test_memory_lent_by_numpy_cannot_grow() -> None:
    def program(t):
        def lent():
            return t.from_numpy(np.ones(3, dtype=np.float32))

        # each on a tensor of its own: torch leaves the refused one with its new sizes
        out = [error_of(lambda: lent().resize_(4)), error_of(lambda: lent()[1:].resize_(3))]
        t_ = lent()
        t_.resize_(1, 3)
        out += [*_geometry(t_), t_.resize_(2).untyped_storage().nbytes(), t_]
        return out

    same(program)


def test_sizes_that_overflow() -> None:
    def program(t):
        sizes = [(-1,), (-2, 3), (2, -3), (-1, -1), (2**62, 4), (3, 2**62), (2**62, 2)]
        # each on a tensor of its own: torch leaves the refused one with its new sizes
        out = [error_of(lambda s=s: t.ones(2).resize_(*s)) for s in sizes]
        out.append(error_of(lambda: t.ones(2).resize_(2**61)))  # bytes beyond int64
        # representable, not allocatable: 2**59 bytes, beyond any process's address space
        return [*out, error_of(lambda: t.ones(2).resize_(2**57))]

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.ones(2).resize_(2.0),
        lambda t: t.ones(2).resize_(True),
        lambda t: t.ones(2).resize_(),
        lambda t: t.ones(2).resize_([2.0]),
        lambda t: t.ones(2).resize_((2, 4.0)),
        lambda t: t.ones(2).resize_(2, x=1),
        lambda t: t.ones(2).resize_((2,), 3),
        lambda t: t.ones(2).resize_((2,), memory_format=1),
        lambda t: t.ones(2).resize_as_([1, 2]),
        lambda t: t.ones(2).resize_as_(),
        lambda t: t.ones(2).resize_as_(t.ones(3), 1),
        lambda t: t.resize_as_(t.ones(2)),
        lambda t: t.resize_as_([1.0], t.ones(2)),
    ],
)
def test_wrong_arguments(call) -> None:
    same(call)


def test_sizes_as_given() -> None:
    def program(t):
        return [
            t.ones(2).resize_(np.int64(3)).shape,
            t.ones(2).resize_(t.tensor(3)).shape,
            t.ones(2).resize_(3, t.tensor(2)).shape,
            t.ones(2).resize_(t.Size([3, 1]), memory_format=None).shape,
            t.ones(2).resize_(size=[2, 2]).shape,
            t.Tensor.resize_(t.ones(2), 4).shape,
            t.resize_as_(t.ones(2), t.ones(1, 3)).shape,
            t.resize_as_(t.ones(2), the_template=t.ones(5), memory_format=None).shape,
        ]

    same(program)


@pytest.mark.xfail(
    strict=True,
    reason="torch 2.13 makes a tensor of a negative size when a zero keeps the unsigned product "
    "of the sizes from overflowing (resize_(0, -1)); a numpy array cannot have one, so "
    "ownership refuses it as not supported",
)
def test_negative_size_with_a_zero() -> None:
    same(lambda t: t.ones(2).resize_(0, -1).shape)


@pytest.mark.xfail(
    strict=True,
    reason="torch sets the new sizes before it fails to grow the storage, leaving a tensor "
    "larger than its memory; ownership raises the same error but keeps the old sizes (no numpy "
    "array can be larger than its memory)",
)
def test_sizes_after_a_refused_growth() -> None:
    def program(t):
        x = t.from_numpy(np.ones(3, dtype=np.float32))
        return [error_of(lambda: x.resize_(5)), x.shape]

    same(program)


def test_memory_formats() -> None:
    """Laid out as asked even for the same sizes (no bump); a refused format leaves the new
    sizes with contiguous strides and no bump, as torch's."""

    def program(t):
        x = t.arange(6.0).view(2, 3).t()
        x.resize_(3, 2, memory_format=t.contiguous_format)
        out = [*_geometry(x), x]
        y = t.ones(2)
        y.resize_(2, 3, 4, 5, memory_format=t.channels_last)
        out += [*_geometry(y), y.untyped_storage().nbytes()]
        y.resize_(2, 3, 4, 5, memory_format=t.channels_last)  # the same: no bump
        out += [*_geometry(y), y.resize_(1, 2, 3, 4, 5, memory_format=t.channels_last_3d).stride()]
        for sizes in [(1, 0, 3, 2), (2, 3, 0, 2), (0, 2, 2, 2)]:
            out.append(t.ones(2).resize_(*sizes, memory_format=t.channels_last).stride())
        for fmt, sizes in [
            (t.channels_last, (3, 2)),
            (t.channels_last_3d, (2, 3, 4, 5)),
            (t.preserve_format, (3, 2)),
            (t.preserve_format, (2, 3)),
        ]:
            z = t.ones(2, 3)
            out += [error_of(lambda z=z, f=fmt, s=sizes: z.resize_(*s, memory_format=f))]
            out += _geometry(z)
        return out

    same(program)


@pytest.mark.parametrize(
    "template",
    [
        lambda t: t.ones(2, 4, 5, 3).permute(0, 3, 1, 2),  # channels last
        lambda t: t.ones(2, 3, 4, 5),
        lambda t: t.ones(2, 1, 1, 1),  # ambiguous: contiguous
        lambda t: t.ones(2, 1, 5, 3).permute(0, 3, 1, 2),
        lambda t: t.ones(3, 4, 2, 1).permute(3, 2, 0, 1),
        lambda t: t.ones(2, 0, 3, 2).permute(0, 3, 1, 2),
        lambda t: t.ones(2, 4, 5, 6, 3).permute(0, 4, 1, 2, 3),  # channels last 3d
        lambda t: t.ones(2, 3).t(),
        lambda t: t.ones(4, 5, 3)[None].permute(0, 3, 1, 2).expand(2, 3, 4, 5),
    ],
)
def test_resize_as_preserves_the_suggested_format(template) -> None:
    def program(t):
        tmpl = template(t)
        out = []
        for fmt in (None, t.preserve_format, t.contiguous_format):
            x = t.ones(3)
            x.resize_as_(tmpl, memory_format=fmt)
            out += _geometry(x)
        return out

    same(program)


def test_resize_as_refused_format() -> None:
    def program(t):
        x = t.ones(2, 3)
        out = [error_of(lambda: x.resize_as_(t.ones(3, 2), memory_format=t.channels_last))]
        y = t.ones(2, 3).t()
        y.resize_as_(t.ones(3, 2), memory_format=t.preserve_format)  # same sizes: restrided
        return [*out, *_geometry(x), *_geometry(y)]

    same(program)


def test_memory_format_objects() -> None:
    def program(t):
        import copy
        import pickle

        fmts = [t.contiguous_format, t.channels_last, t.channels_last_3d, t.preserve_format]
        out = [repr(f) for f in fmts] + [str(f) for f in fmts]
        out += [type(t.channels_last).__name__, isinstance(t.channels_last, t.memory_format)]
        out += [pickle.loads(pickle.dumps(f)) is f for f in fmts]
        out += [copy.deepcopy(t.channels_last) is t.channels_last]
        try:
            t.memory_format()
        except TypeError as e:
            out.append(str(e))
        return out

    same(program)


@pytest.mark.xfail(
    strict=True,
    reason="restriding a tensor whose sizes need more memory than its storage holds (an "
    "expanded one, resized to its own sizes) makes torch's tensor read past its storage; "
    "ownership refuses it as not supported",
)
def test_restriding_an_expanded_tensor() -> None:
    def program(t):
        x = t.ones(1).expand(3)
        return x.resize_(3, memory_format=t.contiguous_format).stride()

    same(program)


def test_backward_through_a_tensor_resized_in_inference_mode() -> None:
    """The node keeps the sizes it recorded: backward checks the gradient against them."""

    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 2
        with t.inference_mode():
            y.resize_(5)
        return [error_of(lambda: y.sum().backward()), x.grad]

    same(program)


def test_a_result_in_column_order_is_read_in_memory_order() -> None:
    """A result laid out like its transposed input: resize_ reads its storage row-major."""

    def program(t):
        x = t.arange(6.0).view(2, 3)
        y = x.t() * 2
        out = [y.stride(), y.resize_(6), y.stride()]
        z = x.t() * 3
        w = z.detach()
        z.resize_(2, 4)  # grown: the alias keeps its column-order strides over the new memory
        return [*out, z.view(8)[:6], w, w.stride(), w.data_ptr() == z.data_ptr()]

    same(program)
