"""Views: shape, stride, storage offset, data_ptr, _base, contiguity; reshape copies only when it must."""

from __future__ import annotations

import pytest

from support.differential import same

VIEWS = {
    "view": lambda x: x.view(4, 6),
    "view_infer": lambda x: x.view(-1, 3),
    "reshape": lambda x: x.reshape(6, 4),
    "flatten": lambda x: x.flatten(),
    "flatten_range": lambda x: x.flatten(1),
    "t_of_2d": lambda x: x[0].t(),
    "T_of_2d": lambda x: x[1].T,
    "transpose": lambda x: x.transpose(0, 2),
    "transpose_neg": lambda x: x.transpose(-1, -2),
    "permute": lambda x: x.permute(2, 0, 1),
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "expand_new_dim": lambda x: x[0, 0].expand(3, 4),
    "expand_minus_one": lambda x: x[:, :1].expand(-1, 3, -1),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "unsqueeze_neg": lambda x: x.unsqueeze(-1),
    "squeeze_dim": lambda x: x[:, :1].squeeze(1),
    "squeeze_all": lambda x: x[:1, :1].squeeze(),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "select": lambda x: x.select(1, 2),
    "select_neg": lambda x: x.select(-1, -1),
    "unbind": lambda x: x.unbind(1)[1],
    "split": lambda x: x.split(2, dim=1)[1],
    "split_sizes": lambda x: x.split([1, 3], dim=2)[1],
    "chunk": lambda x: x.chunk(2, dim=2)[1],
    "int": lambda x: x[1],
    "int_int": lambda x: x[1, 2],
    "int_int_int": lambda x: x[1, 2, 3],
    "slice": lambda x: x[:, 1:3],
    "slice_step": lambda x: x[:, ::2, 1::2],
    "none": lambda x: x[None],
    "ellipsis": lambda x: x[..., 0],
    "mixed": lambda x: x[1, None, ..., :2],
    "detach": lambda x: x.detach(),
}


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_view_layout_matches_torch(kind: str) -> None:
    def program(t):
        x = t.arange(24.0).view(2, 3, 4)
        v = VIEWS[kind](x)
        return {
            "value": v,
            "shape": tuple(v.shape),
            "size": tuple(v.size()),
            "ndim": v.ndim,
            "dim": v.dim(),
            "numel": v.numel(),
            "stride": v.stride(),
            "offset": v.storage_offset(),
            "contiguous": v.is_contiguous(),
            "ptr_delta": v.data_ptr() - x.data_ptr(),
            "has_base": v._base is not None,
            "base_is_root": v._base is x._base,
        }

    same(program)


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_a_write_through_a_view_is_seen_by_the_base_and_back(kind: str) -> None:
    def program(t):
        x = t.arange(24.0).view(2, 3, 4)
        v = VIEWS[kind](x)
        v.mul_(-1)
        x.add_(100)
        return [x, v, x._version, v._version]

    same(program)


def test_base_is_always_the_root() -> None:
    def program(t):
        root = t.arange(12.0)
        a = root.view(3, 4)
        b = a.t()
        c = b[1:]
        return [root._base is None, a._base is root, b._base is root, c._base is root]

    assert same(program) == [True, True, True, True]


def test_dim_and_stride_accessors() -> None:
    def program(t):
        x = t.zeros(2, 3, 4).transpose(0, 2)
        return [x.size(0), x.size(-1), x.stride(0), x.stride(-1), x.shape[1], list(x.shape)]

    same(program)


def test_shape_is_a_tuple_like_size() -> None:
    def program(t):
        x = t.zeros(2, 3)
        return [x.shape == (2, 3), len(x.shape), x.shape[-1], tuple(x.shape), x.size() == (2, 3)]

    assert same(program) == [True, 2, 3, (2, 3), True]


@pytest.mark.parametrize(
    "make",
    ["x.t()", "x.permute(1, 0)", "x[:, ::2]", "x.expand(3, 2, 4)[0]"],
)
def test_reshape_of_a_non_contiguous_tensor_copies(make: str) -> None:
    def program(t):
        x = t.arange(8.0).view(2, 4)
        y = eval(make)
        r = y.reshape(-1)
        return [r._base is None, r.is_contiguous(), r.data_ptr() == x.data_ptr(), r, r.stride()]

    same(program)


def test_reshape_of_a_contiguous_tensor_is_a_view() -> None:
    def program(t):
        x = t.arange(8.0)
        r = x.reshape(2, 2, 2)
        f = x.view(2, 4)[1].reshape(2, 2)
        return [r._base is x, r.data_ptr() == x.data_ptr(), f._base is x, f.storage_offset()]

    assert same(program) == [True, True, True, 4]


def test_view_of_a_non_contiguous_tensor_raises() -> None:
    same(lambda t: t.arange(6.0).view(2, 3).t().view(6))


@pytest.mark.parametrize(
    "program",
    [
        lambda t: t.arange(6.0).view(4, 2),
        lambda t: t.arange(6.0).view(-1, -1),
        lambda t: t.arange(6.0).view(2, 3).transpose(0, 2),
        lambda t: t.arange(6.0).view(2, 3).permute(0, 0),
        lambda t: t.arange(6.0).view(2, 3).expand(3, 3),
        lambda t: t.arange(6.0).view(2, 3).narrow(1, 2, 2),
        lambda t: t.arange(6.0).view(2, 3).select(0, 2),
        lambda t: t.arange(6.0).view(2, 3)[2],
        lambda t: t.arange(6.0).view(2, 3)[0, 0, 0],
        lambda t: t.arange(6.0).view(2, 3).unsqueeze(3),
    ],
    ids=[
        "view_size",
        "view_two_minus_one",
        "transpose_dim",
        "permute_repeat",
        "expand_non_singleton",
        "narrow_past_end",
        "select_out_of_range",
        "index_out_of_range",
        "too_many_indices",
        "unsqueeze_dim",
    ],
)
def test_invalid_view_arguments_raise_like_torch(program) -> None:
    same(program)


def test_contiguous_copies_a_transposed_tensor() -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3)
        c = x.t().contiguous()
        x.add_(1)
        return [c, c.stride(), c.is_contiguous(), c._base is None, c._version]

    same(program)


def test_clone_is_a_contiguous_copy() -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3).t()
        c = x.clone()
        x.mul_(0)
        return [c, c._base is None, c.data_ptr() == x.data_ptr(), c.stride()]

    same(program)


def test_data_ptr_is_the_byte_address_including_the_offset() -> None:
    def program(t):
        x = t.zeros(10)
        d = t.zeros(10, dtype=t.float64)
        return [
            x[3:].data_ptr() - x.data_ptr(),
            d[3:].data_ptr() - d.data_ptr(),
            x.detach().data_ptr() == x.data_ptr(),
            x.clone().data_ptr() == x.data_ptr(),
        ]

    assert same(program) == [12, 24, True, False]


def test_views_of_a_tensor_that_requires_grad() -> None:
    def program(t):
        x = t.ones(2, 3, requires_grad=True)
        out = {}
        for name in ("t", "flatten"):
            v = getattr(x, name)()
            out[name] = v
        out["view"] = x.view(3, 2)
        out["select"] = x[0]
        out["slice"] = x[:, 1:]
        out["expand"] = x[:1].expand(4, 3)
        out["unsqueeze"] = x.unsqueeze(0)
        out["squeeze"] = x.unsqueeze(0).squeeze(0)
        out["permute"] = x.permute(1, 0)
        out["transpose"] = x.transpose(0, 1)
        out["narrow"] = x.narrow(1, 0, 2)
        out["reshape"] = x.reshape(6)
        out["unbind"] = x.unbind(0)
        out["split"] = x.split(1, 1)
        out["chunk"] = x.chunk(3, 1)
        return out

    same(program)


def test_tolist_and_item() -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3).t()
        return [x.tolist(), x[1, 1].item(), t.arange(3).tolist(), t.tensor(2.5).tolist()]

    same(program)


@pytest.mark.parametrize(
    "make",
    [
        "base[6:]",
        "base.view(2, 3)[:, 3:]",
        "base.view(2, 3)[2:]",
        "base.view(2, 3)[None, ..., 1][1:]",
        "base.view(2, 3)[1:, 1:][1:]",
        "t.ones(0, 3).t()",
        "base[1:1:2].reshape(-1)",
        "base[::2][3:].view(-1)",
    ],
)
def test_empty_views_have_torchs_layout(make: str) -> None:
    """Empty views may point past the end of the storage and are always contiguous."""

    def program(t):
        base = t.arange(6.0)
        v = eval(make, {"t": t, "base": base})
        return [tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(), v.numel(), v]

    same(program)
