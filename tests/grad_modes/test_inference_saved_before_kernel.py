"""An op's autograd kernel saves its inputs before the op's own kernel checks them.

torch's generated autograd kernel of an op that records makes its node, collects the edges (an
input view whose base was written since reads its history: its rebase error) and saves what the
backward needs (``SavedVariable``: an inference tensor is refused, a pack hook runs), and only then
calls the op's own kernel, whose checks (shapes that do not broadcast, dtypes that do not cast into
the written tensor) come after. An in-place op makes ``check_inplace`` first of all. So a saved
inference tensor is refused before a shape error, an unsaved one is not (``add`` saves nothing;
``mul`` saves ``other`` when ``self`` needs a gradient, ``self`` when ``other`` does), and outside
any recording the shape error is the only one.

Every op that saves an operand follows that order (``ownership.ops.common.run_op``), every
in-place op (``ownership.core.inplace_rules.run_inplace``). The fuzzer's programs 93010, 97002, 98071, 200302, 203599, 204425 (out of place), 202583, 203069,
200039 (in place) and 202227 (a stale view's rebase error before ``mul_``'s dtype check).
"""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import same


def _operands(t: Any) -> dict[str, Any]:
    """Operands that do not broadcast together: normal and inference, requiring grad or not."""
    with t.inference_mode():
        inf = t.tensor([1.5, -1.5, 1.0, 3.0], dtype=t.float64)
        inf_req = t.tensor([[0.5, -2.0, 0.0]], requires_grad=True)
        inf_bool = t.tensor([[False, True, True], [False, False, False]])
        inf_empty = t.tensor([False, True, True, True])
    return {
        "req": t.tensor([[0.0, 1.5], [1.0, -2.0], [-1.5, -2.0]], requires_grad=True),
        "plain": t.tensor([[0.0, 1.5], [1.0, -2.0]]),
        "empty_req": t.zeros((2, 0), requires_grad=True),
        "inf": inf,
        "inf_req": inf_req,
        "inf_bool": inf_bool,
        "inf_empty": inf_empty,
    }


PROGRAMS: dict[str, Any] = {
    # the inference operand is saved (the other operand needs a gradient): its refusal first
    "req * inf (fuzz program 98071)": lambda t, o: o["req"] * o["inf"],
    "inf * req": lambda t, o: o["inf"] * o["req"],
    "req * inf_bool (fuzz program 200302)": lambda t, o: o["req"] * o["inf_bool"],
    "req * inf_req (fuzz program 93010)": lambda t, o: o["req"] * o["inf_req"],
    "inf_req * req (fuzz program 97002)": lambda t, o: o["inf_req"] * o["req"],
    "inf_empty / empty_req (fuzz program 204425)": lambda t, o: o["inf_empty"] / o["empty_req"],
    "req / inf": lambda t, o: o["req"] / o["inf"],
    "inf / req": lambda t, o: o["inf"] / o["req"],
    "torch.mul(req, inf)": lambda t, o: t.mul(o["req"], o["inf"]),
    # the other ops that save an operand: their kernels' shape checks come after
    "req ** inf": lambda t, o: o["req"] ** o["inf"],
    "inf ** req": lambda t, o: o["inf"] ** o["req"],
    "maximum(req, inf)": lambda t, o: t.maximum(o["req"], o["inf"]),
    "minimum(inf_req, req)": lambda t, o: t.minimum(o["inf_req"], o["req"]),
    "req @ inf (mm)": lambda t, o: o["req"] @ o["inf"],
    "inf_req @ req": lambda t, o: o["inf_req"] @ o["req"],
    "mm(req, inf) (a rank mm refuses)": lambda t, o: t.mm(o["req"], o["inf"]),
    "mm(req, inf 2-d)": lambda t, o: t.mm(o["req"], o["inf"].reshape(2, 2)),
    "mv(req, inf)": lambda t, o: t.mv(o["req"], o["inf"]),
    "dot(req, inf) (fuzz program 305410: dtypes)": lambda t, o: o["req"][0].dot(o["inf"][:3]),
    "dot(inf.float(), req) (a normal copy: the shapes)": lambda t, o: t.dot(
        o["inf"].float(), o["req"][0]
    ),
    "bmm(req, inf)": lambda t, o: t.bmm(o["req"][None], o["inf"].reshape(1, 2, 2)),
    "bmm(req 2-d, inf) (a rank bmm refuses)": lambda t, o: t.bmm(o["req"], o["inf"][None]),
    "inf % req": lambda t, o: o["inf"] % o["req"],
    "req.div(inf, rounding_mode='floor')": lambda t, o: o["req"].div(
        o["inf"], rounding_mode="floor"
    ),
    "inf.div(req, rounding_mode='trunc')": lambda t, o: o["inf"].div(
        o["req"], rounding_mode="trunc"
    ),
    "div(req, inf, rounding_mode=None)": lambda t, o: t.div(o["req"], o["inf"], rounding_mode=None),
    "req % inf (self needs grad: nothing saved)": lambda t, o: o["req"] % o["inf"],
    "clamp(req, min=inf)": lambda t, o: o["req"].clamp(min=o["inf"]),
    "clamp(inf_req, max=req)": lambda t, o: o["inf_req"].clamp(max=o["req"]),
    "clamp_min(req, inf)": lambda t, o: t.clamp_min(o["req"], o["inf"]),
    # not saved: the shape error
    "inf_req * plain (other needs no gradient: self not saved)": lambda t, o: (
        o["inf_req"] * o["plain"]
    ),
    "req + inf (add saves nothing)": lambda t, o: o["req"] + o["inf"],
    "req - inf": lambda t, o: o["req"] - o["inf"],
    "plain * inf (not recorded)": lambda t, o: o["plain"] * o["inf"],
    "inf_req * inf (no autograd kernel)": lambda t, o: o["inf_req"] * o["inf"],
    # in place: check_inplace, then the saves, then the kernel's checks
    "req.exp() *= inf (fuzz program 200039)": lambda t, o: o["req"].exp().mul_(o["inf"]),
    "req.exp()[:, 1:] *= inf": lambda t, o: o["req"].exp()[:, 1:].mul_(o["inf"]),
    "req.exp() /= inf": lambda t, o: o["req"].exp().div_(o["inf"]),
    "req.exp() += inf (add_ saves nothing)": lambda t, o: o["req"].exp().add_(o["inf"]),
    "req *= inf (the leaf's refusal first)": lambda t, o: o["req"].mul_(o["inf"]),
    "plain *= inf_req (self's clone saved: normal)": lambda t, o: o["plain"].mul_(o["inf_req"]),
}


@pytest.mark.parametrize("program", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_a_saved_inference_tensor_is_refused_before_the_kernels_checks(program: Any) -> None:
    def run(t: Any) -> Any:
        return program(t, _operands(t))

    same(run)


def test_an_inplace_write_through_a_view_saves_before_its_shape_check() -> None:
    """Fuzz programs 202583 and 203069."""

    def program(t: Any) -> Any:
        t1 = t.tensor([[0.5, -1.0, 3.0], [2.0, -2.0, 0.0]], requires_grad=True)
        t2 = t.maximum(t1, t1)
        with t.inference_mode():
            t10 = t2.index_select(0, t.tensor([1, 0]))
        t2[:, 1:].mul_(t10)

    same(program)

    def indexed(t: Any) -> Any:
        with t.inference_mode():
            t1 = t.tensor([[[1.5, -2.0, 3.0]], [[-0.0, 0.5, -1.0]]], requires_grad=True)
        t3 = t1[[0, 0]]
        t3.select(0, 1).mul_(t1)

    same(indexed)


def test_a_stale_views_rebase_error_comes_before_the_kernels_dtype_check() -> None:
    """Fuzz program 202227: the view's history is read when the node's edges are collected."""

    def program(t: Any) -> Any:
        with t.no_grad():
            t1 = t.tensor([[[-0.5, -1.0, 1.0]], [[0.5, -0.0, 0.0]]], requires_grad=True)
        with t.inference_mode():
            t2 = t1.select(0, 0)
        with t.inference_mode():
            t3 = t.tensor([[-1, -2, 2], [-3, -1, -3]])
            t1.unsqueeze(-3).exp_()
        t3.mul_(t2)

    same(program)


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a * b,
        lambda a, b: b * a,
        lambda a, b: a / b,
        lambda a, b: a.div(b, rounding_mode="floor"),
        lambda a, b: a.exp().mul_(b),
        lambda a, b: a.exp().div_(b),
        lambda a, b: a.exp().add_(b),
    ],
    ids=["mul", "mul reversed", "div", "div floor", "mul_", "div_", "add_"],
)
def test_a_pack_hook_runs_before_the_kernels_shape_check(op: Any) -> None:
    """What an op saves is packed before its kernel runs: the hook has run when it refuses."""

    def program(t: Any) -> Any:
        packed: list[Any] = []

        def pack(x: Any) -> Any:
            packed.append(list(x.shape))
            return x

        a = t.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        b = t.tensor([[1.0, 2.0], [3.0, 4.0]])
        with t.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
            try:
                op(a, b)
            except RuntimeError as e:
                return [packed, str(e)]
        return packed

    same(program)


@pytest.mark.parametrize("which", ["max", "min"])
def test_a_pack_hook_runs_before_an_empty_tensors_max_is_refused(which: str) -> None:
    """``max()`` saves ``self`` before its kernel refuses an empty tensor: the hook has run."""

    def program(t: Any) -> Any:
        packed: list[Any] = []

        def pack(x: Any) -> Any:
            packed.append(list(x.shape))
            return x

        a = t.zeros(0, requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
            try:
                getattr(a, which)()
            except RuntimeError as e:
                return [packed, str(e)]
        return packed

    same(program)


@pytest.mark.parametrize("join", ["cat", "stack"])
def test_a_stale_views_rebase_error_comes_before_a_joins_checks(join: str) -> None:
    """Fuzz program 316588: ``cat`` collects its inputs' edges (a view of a multi-output view op
    whose base was written reads its history: refused) before it refuses a 0-d input."""

    def program(t: Any) -> Any:
        t1 = t.tensor([[-0.0, 1.5, -2.0]])
        t2 = t1.select(1, 0).split(1)[0].squeeze()
        t5 = t2.expand(3).squeeze(0)
        t5.requires_grad_()
        t1[0].add_(t5)
        return getattr(t, join)([t2.float(), t2])

    same(program)


ORDERED: dict[str, Any] = {
    "mul": lambda t, a, b, c: a * b,
    "div": lambda t, a, b, c: a / b,
    "dot": lambda t, a, b, c: a.dot(b),
    "matmul of vectors": lambda t, a, b, c: a @ b,
    "mm": lambda t, a, b, c: a[None].mm(b[:, None]),
    "mv": lambda t, a, b, c: a[None].mv(b),
    "bmm": lambda t, a, b, c: a[None, None].bmm(b[None, :, None]),
    "pow": lambda t, a, b, c: a**b,
    "pow_": lambda t, a, b, c: (a * 1).pow_(b),
    "maximum": lambda t, a, b, c: t.maximum(a, b),
    "minimum": lambda t, a, b, c: t.minimum(a, b),
    "remainder": lambda t, a, b, c: a % b,
    "clamp of two tensors": lambda t, a, b, c: a.clamp(min=b, max=c),
    "clamp max tensor": lambda t, a, b, c: a.clamp(max=c),
    "clamp_min": lambda t, a, b, c: t.clamp_min(a, b),
    "mul_": lambda t, a, b, c: (a * 1).mul_(b),
    "div_": lambda t, a, b, c: (a * 1).div_(b),
}


@pytest.mark.parametrize("op", ORDERED.values(), ids=ORDERED.keys())
def test_what_an_op_saves_is_packed_and_unpacked_in_torchs_order(op: Any) -> None:
    """The order of a node's saved tensors is what its hooks see, and which of two tensors
    written since backward names first (fuzz program 318831: ``t3 @ t1`` saves ``self``, then
    ``tensor``)."""

    def program(t: Any) -> Any:
        log: list[str] = []
        a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = t.tensor([2.0, 1.0, 0.5], requires_grad=True)
        c = t.tensor([2.5, 1.5, 2.0], requires_grad=True)
        names = {id(a): "a", id(b): "b", id(c): "c"}

        def pack(x: Any) -> Any:
            log.append(f"pack {names.get(id(x), '?')} {list(x.shape)}")
            return x

        def unpack(x: Any) -> Any:
            log.append(f"unpack {names.get(id(x), '?')} {list(x.shape)}")
            return x

        with t.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = op(t, a, b, c)
        y.sum().backward()
        return log

    same(program)


def test_the_saved_tensor_named_by_the_version_error_is_torchs_first() -> None:
    """Fuzz program 318831: both saved tensors were written; torch names ``self`` (``t3``)."""

    def program(t: Any) -> Any:
        t1 = t.zeros((4,), requires_grad=True)
        t3 = t1.tanh()
        t4 = t3 @ t1
        t3[[1, 0]] = -1
        with t.inference_mode():
            t1.t().fill_(0.25)
            t4.backward(retain_graph=True)

    same(program)


def _b4(t: Any) -> Any:
    return t.ones(4)


# every op ownership implements, on an inference tensor that requires grad (saved: refused) and
# arguments the op's own kernel refuses: torch's refusal of the save comes first where the op
# saves it, the kernel's own error where the op saves nothing, or where a composite op checks
# before it calls the op that records
ENUMERATED: dict[str, Any] = {
    "where": lambda t, a: t.where(t.ones(4, dtype=t.bool), a, _b4(t)),
    "where of a float condition": lambda t, a: t.where(t.ones(2, 3), a, a),
    "index out of range": lambda t, a: a[t.tensor([5])],
    "index by a mask of another shape": lambda t, a: a[t.ones(4, dtype=t.bool)],
    "gather out of range": lambda t, a: a.gather(0, t.tensor([[5]])),
    "gather by a float index": lambda t, a: a.gather(0, t.tensor([[0.0]])),
    "gather over a dim out of range": lambda t, a: a.gather(5, t.tensor([[0]])),
    "addmm, mat1": lambda t, a: t.addmm(t.ones(2, 2), a, t.ones(4, 2)),
    "addmm, input": lambda t, a: t.addmm(a, t.ones(2, 2), t.ones(4, 2)),
    "add": lambda t, a: a + _b4(t),
    "sub": lambda t, a: a - _b4(t),
    "mul": lambda t, a: a * _b4(t),
    "div": lambda t, a: a / _b4(t),
    "pow": lambda t, a: a ** _b4(t),
    "masked_fill": lambda t, a: a.masked_fill(t.ones(4, dtype=t.bool), 0.0),
    "index_select": lambda t, a: a.index_select(0, t.tensor([5])),
    "outer": lambda t, a: t.outer(a, _b4(t)),
    "matmul": lambda t, a: a @ t.ones(4, 2),
    "bmm": lambda t, a: t.bmm(a[None], t.ones(1, 4, 2)),
    "dot": lambda t, a: a[0].dot(_b4(t)),
    "mv": lambda t, a: a.mv(_b4(t)),
    "linear": lambda t, a: t.nn.functional.linear(a, t.ones(2, 4)),
    "cat": lambda t, a: t.cat([a, t.ones(2, 4)]),
    "stack": lambda t, a: t.stack([a, t.ones(2, 4)]),
    "clamp": lambda t, a: a.clamp(_b4(t)),
    "minimum": lambda t, a: t.minimum(a, _b4(t)),
    "mse_loss": lambda t, a: t.nn.functional.mse_loss(a, _b4(t)),
    "nll_loss, a target out of range": lambda t, a: t.nn.functional.nll_loss(a, t.tensor([5, 0])),
    "nll_loss, a float target": lambda t, a: t.nn.functional.nll_loss(a, t.tensor([0.0, 0.0])),
    "nll_loss, a 2-d target": lambda t, a: t.nn.functional.nll_loss(a, t.tensor([[0, 0], [0, 0]])),
    "nll_loss, batch sizes": lambda t, a: t.nn.functional.nll_loss(a, t.tensor([0, 0, 0])),
    "cross_entropy": lambda t, a: t.nn.functional.cross_entropy(a, t.tensor([5, 0])),
    "softmax": lambda t, a: a.softmax(5),
    "log_softmax": lambda t, a: a.log_softmax(5),
    "cumsum": lambda t, a: a.cumsum(5),
    "cumprod": lambda t, a: a.cumprod(5),
    "prod": lambda t, a: a.prod(5),
    "mean": lambda t, a: a.mean(5),
    "mean of all": lambda t, a: a.mean(),
    "std": lambda t, a: a.std(5),
    "var_mean": lambda t, a: t.var_mean(a, 5),
    "norm": lambda t, a: a.norm(dim=5),
    "logsumexp": lambda t, a: a.logsumexp(5),
    "amax": lambda t, a: a.amax(5),
    "max": lambda t, a: a.max(5),
    "sort": lambda t, a: a.sort(5),
    "topk": lambda t, a: a.topk(5),
    "flip": lambda t, a: a.flip(5),
    "expand": lambda t, a: a.expand(4, 4),
    "reshape": lambda t, a: a.reshape(5),
    "view": lambda t, a: a.view(5),
    "narrow": lambda t, a: a.narrow(0, 5, 1),
    "select": lambda t, a: a.select(0, 5),
    "squeeze": lambda t, a: a.squeeze(5),
    "dropout": lambda t, a: t.nn.functional.dropout(a, 2.0),
    "masked_fill by a tensor": lambda t, a: a.masked_fill(t.ones(4, dtype=t.bool), a.sum()),
}


@pytest.mark.parametrize("op", ENUMERATED.values(), ids=ENUMERATED.keys())
def test_every_op_on_an_inference_tensor_that_requires_grad(op: Any) -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            a = t.ones(2, 3, requires_grad=True)
        return op(t, a)

    same(program)


# an op recording for a normal tensor that requires grad saves an inference operand it does not
# differentiate (a condition, a mask, index tensors): refused before the kernel's checks
SAVED_OPERANDS: dict[str, Any] = {
    "where, a condition of another shape": lambda t, r, i: t.where(i["mask4"], r, t.ones(4)),
    "where, a float condition": lambda t, r, i: t.where(i["float"], r, r),
    "where, a float condition of another shape": lambda t, r, i: t.where(i["float4"], r, r),
    "index by an index out of range": lambda t, r, i: r[i["index"]],
    "index by a mask of another shape": lambda t, r, i: r[i["mask4"]],
    "index by a list and an index": lambda t, r, i: r[[0], i["index"]],
    "index_select out of range": lambda t, r, i: r.index_select(0, i["index"]),
    "index_select over a dim out of range": lambda t, r, i: r.index_select(5, i["index"]),
    "index_select by a float index": lambda t, r, i: r.index_select(0, i["float4"]),
    "gather out of range": lambda t, r, i: r.gather(0, i["index"][None]),
    "masked_fill, a mask of another shape": lambda t, r, i: r.masked_fill(i["mask4"], 1.0),
    "masked_fill, a float mask": lambda t, r, i: r.masked_fill(i["float"], 1.0),
    "masked_fill, a value of 1 dim": lambda t, r, i: r.masked_fill(i["mask"], t.ones(2)),
    "masked_fill, normal operands": lambda t, r, i: r.masked_fill(t.ones(4, dtype=t.bool), 1.0),
    "masked_fill, a normal mask of another shape and a value of 1 dim": lambda t, r, i: (
        r.masked_fill(t.ones(4, dtype=t.bool), t.ones(2))
    ),
    "masked_fill of an inference tensor by an inference mask": lambda t, r, i: i["req"].masked_fill(
        i["mask4"], 1.0
    ),
    "nll_loss, an inference target out of range": lambda t, r, i: t.nn.functional.nll_loss(
        r, i["index"].expand(2)
    ),
}


@pytest.mark.parametrize("op", SAVED_OPERANDS.values(), ids=SAVED_OPERANDS.keys())
def test_an_inference_operand_saved_by_a_recording_op(op: Any) -> None:
    def program(t: Any) -> Any:
        with t.inference_mode():
            inference = {
                "mask": t.ones(2, 3, dtype=t.bool),
                "mask4": t.ones(4, dtype=t.bool),
                "float": t.ones(2, 3),
                "float4": t.ones(4),
                "index": t.tensor([5]),
                "req": t.ones(2, 3, requires_grad=True),
            }
        return op(t, t.ones(2, 3, requires_grad=True), inference)

    same(program)
