"""What the engine does not implement is said out loud: a public name torch has and the engine
lacks raises one ``NotImplementedError`` naming it and what the engine covers (module
``__getattr__``), so do device, layout and pinned-memory arguments the engine cannot honour;
every other missing name keeps Python's ``AttributeError``, which ``hasattr``, ``copy``,
``pickle``, doctest and IPython rely on. The shipped lists of torch's names are current."""

from __future__ import annotations

import contextlib
import copy
import doctest
import pickle
from types import ModuleType
from typing import Any

import pytest
import torch

import ownership
from ownership.torch_names import TORCH_NAMES

from support import torch_names
from support.differential import same

ENGINE = {
    "torch": ownership,
    "torch.autograd": ownership.autograd,
    "torch.autograd.graph": ownership.autograd.graph,
    "torch.nn": ownership.nn,
    "torch.nn.functional": ownership.nn.functional,
    "torch.optim": ownership.optim,
}


@pytest.mark.parametrize("module", torch_names.MODULES)
def test_the_shipped_names_are_torchs_public_names(module: str) -> None:
    owner = torch_names._owner(module)
    shipped = TORCH_NAMES[module]
    assert all(hasattr(owner, name) for name in shipped)
    # submodules appear in dir() once something imported them: only the rest must be listed
    now = [
        name
        for name in dir(owner)
        if not name.startswith("_") and not isinstance(getattr(owner, name), ModuleType)
    ]
    assert sorted(set(now) - shipped) == []


@pytest.mark.parametrize("module", torch_names.MODULES)
def test_every_public_name_of_torch_works_or_says_it_is_not_implemented(module: str) -> None:
    engine = ENGINE[module]
    lacking = []
    for name in sorted(TORCH_NAMES[module]):
        try:
            getattr(engine, name)
        except NotImplementedError as e:
            assert str(e).startswith(f"ownership does not implement {module}.{name}; it covers ")
            lacking.append(name)
    assert lacking  # the engine is a part of torch


@pytest.mark.parametrize(
    "name",
    [
        "_repr_html_",
        "_ipython_display_",
        "_ipython_canary_method_should_not_exist_",
        "__wrapped__",
        "__array__",
        "__test__",
        "__reduce_ex__x",
        "__deepcopy__x",
        "no_such_name",
        "Conv2dd",
    ],
)
@pytest.mark.parametrize("module", ENGINE, ids=list(ENGINE))
def test_names_torch_lacks_too_are_attribute_errors(module: str, name: str) -> None:
    assert not hasattr(ENGINE[module], name)


def test_the_error_names_the_part_and_what_the_engine_covers() -> None:
    def program(t: ModuleType) -> Any:
        found = []
        for owner, name in [
            (t, "fft"),
            (t, "uint8"),
            (t, "sparse_coo_tensor"),
            (t.nn, "Conv2d"),
            (t.nn.functional, "conv2d"),
            (t.optim, "LBFGS"),
            (t.autograd, "forward_ad"),
        ]:
            try:
                getattr(owner, name)
                found.append("present")
            except NotImplementedError as e:
                found.append(str(e))
        return found

    assert program(torch) == ["present"] * 7
    found = program(ownership)
    assert found[0].startswith("ownership does not implement torch.fft; it covers CPU tensors")
    assert found[3].startswith("ownership does not implement torch.nn.Conv2d; it covers Module")
    assert all(text.startswith("ownership does not implement torch.") for text in found)


def test_python_protocols_still_work_on_the_engine() -> None:
    x = ownership.tensor([1.0, 2.0])
    assert copy.deepcopy(x).tolist() == [1.0, 2.0]
    assert pickle.loads(pickle.dumps(ownership.nn.Linear(2, 1))).weight.shape == (1, 2)
    finder = doctest.DocTestFinder()
    assert finder.find(ownership.scope)  # doctest walks the module without tripping on it
    assert pickle.loads(pickle.dumps(ownership.device("cpu"))) == ownership.device("cpu")


DEVICES = ["cpu", "cpu:0", "cpu:1", "float64", "a", "CPU", "cpu:x", "cpu:01", 0, 5, -1]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", ["zeros", "tensor", "ones_like", "to", "device", "Module.to"])
def test_device_arguments_read_as_torch_reads_them(call: str, device: Any) -> None:
    def program(t: ModuleType) -> Any:
        if call == "zeros":
            return t.zeros(2, device=device)
        if call == "tensor":
            return t.tensor([1.0], device=device)
        if call == "ones_like":
            return t.ones_like(t.zeros(2), device=device)
        if call == "to":
            return t.zeros(2).to(device)
        if call == "device":
            made = t.device(device)
            return repr(made), str(made), made.type, made.index, made == t.device("cpu")
        return t.nn.Linear(1, 1).to(device).weight.shape

    same(program)


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "mps", "meta", "xpu", "hip", "xla"])
@pytest.mark.parametrize("call", ["zeros", "ones_like", "to", "device", "Module.to"])
def test_devices_the_engine_lacks_are_not_implemented(call: str, device: str) -> None:
    calls = {
        "zeros": lambda t: t.zeros(2, device=device),
        "ones_like": lambda t: t.ones_like(t.zeros(2), device=device),
        "to": lambda t: t.zeros(2).to(device),
        "device": lambda t: t.device(device),
        "Module.to": lambda t: t.nn.Linear(1, 1).to(device),
    }
    # torch's CPU build refuses each but 'meta' with an error of its backend's
    with contextlib.suppress(AssertionError, RuntimeError, NotImplementedError):
        calls[call](torch)
    with pytest.raises(NotImplementedError) as raised:
        calls[call](ownership)
    kind = device.split(":")[0]
    assert str(raised.value) == (
        f"ownership does not implement the '{kind}' device; it covers the CPU only (device='cpu')"
    )


def test_pinned_memory_and_layouts() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(2)
        return t.ones_like(x, pin_memory=False), t.zeros_like(x, layout=None)

    same(program)
    with pytest.raises(RuntimeError, match="pin_memory=True requires"):
        ownership.zeros_like(ownership.ones(2), pin_memory=True)
    with pytest.raises(RuntimeError, match="pin_memory=True requires"):
        torch.zeros_like(torch.ones(2), pin_memory=True)
    with pytest.raises(NotImplementedError, match=r"the torch\.sparse_coo layout"):
        ownership.zeros_like(ownership.ones(2), layout=torch.sparse_coo)


def test_tensor_types_and_array_layouts_the_engine_lacks_are_not_implemented() -> None:
    import numpy as np

    assert str(torch.nn.Linear(1, 1).type("torch.HalfTensor").weight.dtype) == "torch.float16"
    with pytest.raises(NotImplementedError, match=r"^ownership does not implement the tensor type"):
        ownership.nn.Linear(1, 1).type("torch.HalfTensor")
    strided = np.arange(6.0)[::2]
    assert torch.from_numpy(strided).stride() == (2,)
    with pytest.raises(NotImplementedError, match=r"^ownership does not implement from_numpy"):
        ownership.from_numpy(strided)
