"""Copies of modules and the metadata of state dicts against torch: deepcopy keeps tied weights
tied and copies independent; pickle round-trips modules and state dicts; ``_metadata`` versions
(BatchNorm's ``num_batches_tracked`` by version); ``strict=False`` results; ``assign=True``."""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict
from types import ModuleType
from typing import Any

import pytest

from support import nn_models
from support.differential import same


def test_deepcopy_keeps_tied_weights_tied_and_copies_independent() -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.tied(t)
        with t.no_grad():
            model.encoder.weight.mul_(2)
        twin = copy.deepcopy(model)
        with t.no_grad():
            twin.decoder.weight.add_(1)
        return (
            twin.encoder.weight is twin.decoder.weight,
            twin.encoder.weight is model.encoder.weight,
            twin.encoder.weight.data_ptr() == model.encoder.weight.data_ptr(),
            type(twin.encoder.weight).__name__,
            twin.encoder.weight,
            model.encoder.weight,
            len(list(twin.parameters())),
        )

    same(program)


def test_deepcopy_of_a_module_with_grads_and_buffers() -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.mlp(t)
        model.append(t.nn.BatchNorm1d(2))
        model(t.ones(3, 3)).sum().backward()
        twin = copy.deepcopy(model)
        return (
            [p.grad for p in twin.parameters()],
            list(twin.state_dict().items()),
            twin[3].running_mean is model[3].running_mean,
        )

    same(program)


def test_pickle_round_trips_modules_and_state_dicts() -> None:
    def program(t: ModuleType) -> Any:
        # Built from the engine's own classes: pickle cannot save a class defined in a function.
        nn = t.nn
        model = nn.Sequential(nn.Linear(3, 3, bias=False), nn.Tanh(), nn.Linear(3, 3))
        model[2].weight = model[0].weight  # tied: one Parameter in two places
        nn_models.load_weights(model, t, 1)
        back = pickle.loads(pickle.dumps(model))
        sd = pickle.loads(pickle.dumps(model.state_dict()))
        return (
            back[0].weight is back[2].weight,
            [(n, p.tolist(), p.requires_grad) for n, p in back.named_parameters()],
            [(k, v.tolist()) for k, v in sd.items()],
            sd._metadata,
            type(sd).__name__,
        )

    same(program)


def test_state_dict_metadata_versions() -> None:
    def program(t: ModuleType) -> Any:
        model = t.nn.Sequential(
            t.nn.Linear(2, 2),
            t.nn.Sequential(OrderedDict(bn=t.nn.BatchNorm1d(2), act=t.nn.ReLU())),
        )
        sd = model.state_dict()
        deep = copy.deepcopy(sd)
        return sd._metadata, deep._metadata, model[1].state_dict(prefix="x.")._metadata

    same(program)


def _bn_without_counter(t: ModuleType, version: int | None, as_plain_dict: bool) -> Any:
    bn = t.nn.BatchNorm1d(2)
    with t.no_grad():
        bn.num_batches_tracked.fill_(5)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    if version is not None:
        sd._metadata[""]["version"] = version
    target = t.nn.BatchNorm1d(2)
    result = target.load_state_dict(dict(sd) if as_plain_dict else sd)
    return repr(result), target.num_batches_tracked


@pytest.mark.parametrize(
    ("version", "plain"), [(None, False), (1, False), (None, True)], ids=["v2", "v1", "no metadata"]
)
def test_batchnorm_num_batches_tracked_by_version(version: int | None, plain: bool) -> None:
    same(lambda t: _bn_without_counter(t, version, plain))


def test_batchnorm_without_running_stats_ignores_the_version() -> None:
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(2, track_running_stats=False)
        sd = bn.state_dict()
        sd._metadata[""]["version"] = 1
        return repr(bn.load_state_dict(sd)), list(sd)

    same(program)


def test_strict_false_results() -> None:
    def program(t: ModuleType) -> Any:
        model = nn_models.mlp(t)
        sd = model.state_dict()
        del sd["0.bias"]
        sd["extra.weight"] = t.zeros(1)
        sd["2.nope"] = t.zeros(1)
        result = model.load_state_dict(sd, strict=False)
        return repr(result), result.missing_keys, result.unexpected_keys, len(result)

    same(program)


def test_assign_takes_the_given_tensors() -> None:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(2, 1)
        lin.bias.requires_grad_(False)
        w, b = t.ones(1, 2), t.nn.Parameter(t.zeros(1))
        result = lin.load_state_dict({"weight": w, "bias": b}, assign=True)
        return (
            repr(result),
            type(lin.weight).__name__,
            lin.weight.data_ptr() == w.data_ptr(),
            lin.weight is w,
            lin.bias is b,
            lin.weight.requires_grad,
            b.requires_grad,
            lin.weight._version,
            [n for n, _ in lin.named_parameters()],
        )

    same(program)


def test_assign_buffers_and_shape_errors() -> None:
    def program(t: ModuleType) -> Any:
        bn = t.nn.BatchNorm1d(2)
        mean = t.tensor([1.0, 2.0])
        sd = bn.state_dict()
        sd["running_mean"] = mean
        bn.load_state_dict(sd, assign=True)
        lin = t.nn.Linear(2, 1)
        try:
            lin.load_state_dict({"weight": t.ones(2, 2), "bias": t.zeros(1)}, assign=True)
        except RuntimeError as e:
            refused = str(e)
        return bn.running_mean is mean, refused, [n for n, _ in bn.named_buffers()]

    same(program)


def test_deepcopy_of_tensors_shares_memory_like_the_originals() -> None:
    def program(t: ModuleType) -> Any:
        a = t.arange(6.0).reshape(2, 3)
        a.add_(1)
        view = a.t()
        alias = a.detach()
        b, v, al = copy.deepcopy([a, view, alias])
        with t.no_grad():
            b.mul_(10)
        return (
            v,
            al,
            v.stride(),
            v._base is None,
            v.data_ptr() == b.data_ptr(),
            [x._version for x in (b, v, al)],
            a,
        )

    same(program)


def test_deepcopy_of_a_leaf_with_grad_and_of_a_non_leaf() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(2, requires_grad=True)
        (x * 3).sum().backward()
        y = copy.deepcopy(x)
        try:
            copy.deepcopy(x * 2)
        except RuntimeError as e:
            refused = str(e)
        return y, y.grad, y.grad is x.grad, y.grad._version, refused

    same(program)
