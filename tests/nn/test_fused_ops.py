"""Linear and BatchNorm1d build torch's own nodes: AddmmBackward0, NativeBatchNormBackward0.

Each program returns what a learner can see: the output (values, grad_fn name, version), the
graph below it (node names and input numbers, down to the leaves), the gradients after
backward, the running statistics with their versions, and the error an in-place write on a
saved tensor causes. Both engines get the same weights (copied in place under no_grad).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from support.differential import _ownership, same
from support.nn_models import SHAPES, B, W, data, graph, make_bn, make_linear


# ---------------------------------------------------------------- Linear
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("input_grad", [True, False])
def test_linear_graph_values_and_gradients(
    shape: tuple[int, ...], bias: bool, input_grad: bool
) -> None:
    def program(t: ModuleType) -> Any:
        lin = make_linear(t, bias)
        x = data(t, shape, input_grad)
        y = lin(x)
        facts = [y, graph(y.grad_fn), y._base is None]
        (y * data(t, tuple(y.shape), False)).sum().backward()
        return [*facts, x.grad, lin.weight.grad, None if lin.bias is None else lin.bias.grad]

    same(program)


@pytest.mark.parametrize("bias", [True, False])
def test_linear_non_contiguous_input_adds_the_bias_in_place(bias: bool) -> None:
    def program(t: ModuleType) -> Any:
        lin = make_linear(t, bias)
        a = data(t, (2, 4, 3))
        y = lin(a.transpose(0, 1))
        z = lin(a[0, :, 0].unsqueeze(1).expand(4, 3))
        (y.sum() + z.sum()).backward()
        return y, graph(y.grad_fn), z, graph(z.grad_fn), a.grad, lin.weight.grad

    same(program)


def test_functional_linear_and_addmm_saved_tensors() -> None:
    def program(t: ModuleType) -> Any:
        w = t.tensor(W, requires_grad=True)
        b = t.tensor(B, requires_grad=True)
        out = []
        for x in (data(t, (4, 3)), data(t, (4, 3), False)):
            fn = t.nn.functional.linear(x, w, b).grad_fn
            out.append([fn._saved_mat1, fn._saved_mat2, fn._saved_alpha, fn._saved_beta])
        plain = t.nn.functional.linear(data(t, (4, 3)), t.tensor(W), b).grad_fn
        out.append([plain._saved_mat1, plain._saved_mat2, graph(plain)])
        return out

    same(program)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("input_grad", [True, False])
def test_linear_in_place_write_on_the_saved_input_breaks_backward(
    shape: tuple[int, ...], bias: bool, input_grad: bool
) -> None:
    def program(t: ModuleType) -> Any:
        lin = make_linear(t, bias)
        x = data(t, shape, input_grad) * 1
        y = lin(x)
        x.mul_(2)
        y.sum().backward()
        return lin.weight.grad

    same(program)


def test_fused_nodes_list_torch_saved_names() -> None:
    def program(t: ModuleType) -> Any:
        nodes = [
            make_linear(t, True)(data(t, (4, 3))).grad_fn,
            make_linear(t, False)(data(t, (3,))).grad_fn,
            make_linear(t, False)(data(t, (2, 2, 3))).grad_fn,
            make_bn(t, True)(data(t, (5, 3))).grad_fn,
        ]
        return [[a for a in dir(fn) if a.startswith("_saved_")] for fn in nodes]

    same(program)


def test_linear_weight_written_after_forward_breaks_backward() -> None:
    def program(t: ModuleType) -> Any:
        lin = make_linear(t, True)
        y = lin(data(t, (4, 3)))
        with t.no_grad():
            lin.weight.mul_(2)
        y.sum().backward()
        return lin.weight.grad

    same(program)


def test_linear_without_grad_records_nothing() -> None:
    def program(t: ModuleType) -> Any:
        with t.no_grad():
            outs = [make_linear(t, b)(data(t, s)) for s in SHAPES for b in (True, False)]
        return [(y, y.grad_fn, y._version) for y in outs]

    same(program)


def test_linear_shape_mismatch_error() -> None:
    same(lambda t: make_linear(t, True)(data(t, (4, 5))))
    same(lambda t: make_linear(t, True)(data(t, (2, 2, 5))))


def test_linear_whose_weight_is_none_or_not_a_tensor_is_refused_by_the_parser() -> None:
    # fuzz_modules 60: a Linear whose weight was registered as None
    def program(t: ModuleType) -> Any:
        lin = make_linear(t, True)
        lin.register_parameter("weight", None)
        return lin(data(t, (2, 4)))

    same(program)
    x = lambda t: t.ones(2, 3)  # noqa: E731
    same(lambda t: t.nn.functional.linear(x(t), 1.0))
    same(lambda t: t.nn.functional.linear(x(t), t.ones(2, 3), 3))


# ---------------------------------------------------------------- BatchNorm1d
BN_SHAPES = [(5, 3), (4, 3, 2)]


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("track", [True, False])
def test_batchnorm_graph_values_gradients_and_buffers(
    shape: tuple[int, ...], affine: bool, training: bool, track: bool
) -> None:
    def program(t: ModuleType) -> Any:
        bn = make_bn(t, affine, track).train(training)
        x = data(t, shape)
        y = bn(x)
        facts = [y, graph(y.grad_fn)]
        (y * data(t, shape, False)).sum().backward()
        buffers = [(n, b, b._version) for n, b in bn.named_buffers()]
        params = [(n, p, p._version, p.grad) for n, p in bn.named_parameters()]
        return [*facts, x.grad, buffers, params]

    same(program)


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("training", [True, False])
def test_batchnorm_saved_tensors(affine: bool, training: bool) -> None:
    def program(t: ModuleType) -> Any:
        bn = make_bn(t, affine).train(training)
        fn = bn(data(t, (5, 3)) * 1).grad_fn
        names = ["input", "weight", "running_mean", "running_var", "result1", "result2"]
        saved = [getattr(fn, "_saved_" + n) for n in names]
        return [*saved, fn._saved_eps, fn._saved_training]

    same(program)


def test_batchnorm_several_training_steps_then_eval() -> None:
    def program(t: ModuleType) -> Any:
        bn = make_bn(t, True)
        ys = []
        for k in range(3):
            x = data(t, (4, 3, 2)) * (k + 1) - k
            ys.append(bn(x))
        for y in ys:  # the kernel's writes do not bump: every graph still backpropagates
            y.sum().backward()
        trained = [(n, b, b._version) for n, b in bn.named_buffers()]
        bn.eval()
        y = bn(data(t, (4, 3, 2)))
        return trained, bn.weight.grad, bn.bias.grad, y

    same(program)


@pytest.mark.parametrize("training", [True, False])
def test_batchnorm_in_place_write_on_the_saved_input_breaks_backward(training: bool) -> None:
    def program(t: ModuleType) -> Any:
        bn = make_bn(t, True).train(training)
        x = data(t, (5, 3)) * 1
        y = bn(x)
        x.add_(1)
        y.sum().backward()
        return bn.weight.grad

    same(program)


@pytest.mark.parametrize("training", [True, False])
def test_batchnorm_resetting_running_stats_after_forward_breaks_backward(training: bool) -> None:
    def program(t: ModuleType) -> Any:
        bn = make_bn(t, True).train(training)
        y = bn(data(t, (5, 3)))
        bn.reset_running_stats()
        y.sum().backward()
        return bn.weight.grad

    same(program)


def test_functional_batch_norm_and_its_errors() -> None:
    def program(t: ModuleType) -> Any:
        f = t.nn.functional
        x = data(t, (5, 3))
        rm, rv = t.zeros(3), t.ones(3)
        y = f.batch_norm(x, rm, rv, training=True, momentum=0.5)
        z = f.batch_norm(x, None, None, training=True)
        return y, graph(y.grad_fn), rm, rm._version, rv, z, graph(z.grad_fn)

    same(program)
    same(lambda t: t.nn.functional.batch_norm(data(t, (1, 3)), None, None, training=True))
    same(lambda t: t.nn.functional.batch_norm(data(t, (5, 3)), t.zeros(4), t.ones(4)))
    same(lambda t: make_bn(t, True)(data(t, (1, 3, 1))))


@pytest.mark.parametrize("given", ["mean", "var", "neither"])
@pytest.mark.parametrize("training", [True, False])
def test_functional_batch_norm_missing_running_stats(given: str, training: bool) -> None:
    def program(t: ModuleType) -> Any:
        rm = t.zeros(3) if given == "mean" else None
        rv = t.ones(3) if given == "var" else None
        return t.nn.functional.batch_norm(data(t, (5, 3)), rm, rv, training=training)

    same(program)


def test_batchnorm_second_derivative_matches_torch() -> None:
    def program(t: ModuleType) -> Any:
        bn = make_bn(t, True)
        x = data(t, (4, 3))
        y = bn(x)
        (gx,) = t.autograd.grad((y**3).sum(), x, create_graph=True)
        (ggx,) = t.autograd.grad((gx * gx).sum(), x)
        # values only: the double-backward graph (and so how often a gradient buffer is
        # accumulated into, its version) is the engine's own, not NativeBatchNormBackwardBackward0
        return gx.detach().clone(), ggx.clone()

    same(program)


# ---------------------------------------------------------------- gradcheck, float64
def _double(own: Any, shape: tuple[int, ...], seed: int) -> Any:
    rng = np.random.default_rng(seed)
    return own.tensor(rng.standard_normal(shape).tolist(), dtype=own.float64, requires_grad=True)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("bias", [True, False])
def test_gradcheck_linear(shape: tuple[int, ...], bias: bool) -> None:
    own = _ownership()
    f = own.nn.functional
    ins = [_double(own, shape, 0), _double(own, (2, 3), 1)] + (
        [_double(own, (2,), 2)] if bias else []
    )
    assert own.autograd.gradcheck(lambda *a: f.linear(*a), ins)


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("training", [True, False])
def test_gradcheck_batch_norm(shape: tuple[int, ...], training: bool) -> None:
    own = _ownership()
    f = own.nn.functional
    rm = own.tensor([0.2, -0.1, 0.4], dtype=own.float64)
    rv = own.tensor([1.5, 0.5, 2.0], dtype=own.float64)
    ins = [_double(own, shape, 3), _double(own, (3,), 4), _double(own, (3,), 5)]

    def fn(x: Any, w: Any, b: Any) -> Any:
        # momentum 0: the running statistics stay put while gradcheck evaluates many times
        return f.batch_norm(x, rm, rv, w, b, training=training, momentum=0.0)

    assert own.autograd.gradcheck(fn, ins)


def test_batchnorm_counts_its_batch_in_grad_mode() -> None:
    # module fuzzer 211: num_batches_tracked.add_(1) runs in grad mode, as torch's forward does
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3)
        bn.num_batches_tracked = t.zeros((), requires_grad=True)
        x = t.tensor([[0.0, -1.5, 0.5], [-2.0, 0.0, 0.25]])
        return bn(x)

    same(program)


@pytest.mark.parametrize("wrong", ["weight", "bias"])
def test_batchnorm_affine_of_the_wrong_size_is_refused_before_the_running_stats_move(
    wrong: str,
) -> None:
    # module fuzzer 211: torch checks weight and bias against the channels first
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3)
        getattr(bn, wrong).data = t.zeros(5)
        x = t.tensor([[0.0, -1.5, 0.5], [-2.0, 0.0, 0.25]])
        try:
            bn(x)
        except RuntimeError as e:
            return str(e), bn.running_mean, bn.running_var, bn.num_batches_tracked
        return None

    same(program)


@pytest.mark.parametrize("mode", ["enable_grad", "no_grad"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("which", ["running_mean", "running_var", "both"])
def test_batchnorm_statistics_that_require_grad_are_refused_in_grad_mode(
    mode: str, training: bool, which: str
) -> None:
    # module fuzzer 1691, 1948: a Parameter assigned over a running statistic
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3).train(training)
        for name in ("running_mean", "running_var") if which == "both" else (which,):
            setattr(bn, name, t.nn.Parameter(getattr(bn, name).clone()))
        x = t.tensor([[0.0, -1.5, 0.5], [-2.0, 0.0, 0.25]])
        with getattr(t, mode)():
            try:
                out = bn(x)
            except RuntimeError as e:
                out = str(e)
        return out, bn.running_mean, bn.running_var

    same(program)


def test_batchnorm_checks_sizes_before_dtypes() -> None:
    # module fuzzer 1223: a float64 layer with a bias of the wrong size, given float32 data
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3)
        bn.bias.data = t.zeros(5)
        return bn.double()(t.ones(4, 3))

    same(program)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize(
    "stats", [("zeros(2)", None), (None, "zeros(2)"), ("zeros(3)", None), (None, None)]
)
def test_batchnorm_checks_each_statistic_in_torchs_order(
    training: bool, stats: tuple[str | None, str | None]
) -> None:
    # module fuzzer 2419: a running_mean of the wrong size beside a running_var of None
    def program(t: ModuleType) -> Any:
        mean, var = (None if s is None else t.zeros(int(s[6])) for s in stats)
        return t.nn.functional.batch_norm(t.ones(2, 3), mean, var, training=training)

    same(program)


def test_batchnorm_backward_after_the_layer_became_double_is_refused() -> None:
    # module fuzzer 2369: double() swaps the saved weight's data between forward and backward
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3)
        loss = bn(t.tensor([[-1.0, 0.25, 0.5], [-0.5, -2.0, -0.5], [0.25, 0.0, 0.25]])).pow(2).sum()
        bn.double()
        loss.backward()
        return bn.weight.grad

    same(program)


def test_batchnorm_loading_an_old_checkpoint_reads_its_counter_device() -> None:
    # module fuzzer 30903: a module assigned over num_batches_tracked, a dict without _metadata
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3)
        bn.num_batches_tracked = t.nn.Identity()
        state = {k: v.double() for k, v in bn.state_dict().items()}
        try:
            bn.load_state_dict(state, assign=True)
        except AttributeError as e:
            return str(e), bn.weight.dtype
        return None

    same(program)


@pytest.mark.parametrize(
    "written",
    [("weight", "running_mean"), ("weight", "running_var"), ("running_mean", "running_var")],
)
def test_batchnorm_backward_checks_the_statistics_versions_before_the_weights(
    written: tuple[str, str],
) -> None:
    # module fuzzer 40899: two loads into a BatchNorm between its forward and backward
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(3)
        loss = bn(t.arange(12.0).view(4, 3)).sum()
        with t.no_grad():
            getattr(bn, written[0]).add_(0)
            getattr(bn, written[1]).add_(0).add_(0)
        loss.backward()

    same(program)
