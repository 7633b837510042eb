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
import subprocess
import sys
from pathlib import Path
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
    "torch.accelerator": ownership.accelerator,
    "torch.autograd": ownership.autograd,
    "torch.autograd.graph": ownership.autograd.graph,
    "torch.backends": ownership.backends,
    "torch.backends.cudnn": ownership.backends.cudnn,
    "torch.backends.mps": ownership.backends.mps,
    "torch.cuda": ownership.cuda,
    "torch.nn": ownership.nn,
    "torch.nn.functional": ownership.nn.functional,
    "torch.optim": ownership.optim,
    "torch.Tensor": ownership.ones(2, 2),  # a tensor's names: declared ``scope.Missing``
}
MODULES = [name for name in ENGINE if name != "torch.Tensor"]


@pytest.mark.parametrize("module", torch_names.MODULES)
def test_the_shipped_names_are_torchs_public_names(module: str) -> None:
    owner = torch_names._owner(module)
    shipped = TORCH_NAMES[module]
    assert all(hasattr(owner, name) for name in shipped)
    # submodules appear in dir() once something imported them: compared without them

    def without_modules(names: Any) -> list[str]:
        return sorted(n for n in names if not isinstance(getattr(owner, n, None), ModuleType))

    assert without_modules(shipped) == without_modules(torch_names.public_names()[module])
    # what a module imported for itself is not torch's: it stays an AttributeError
    assert not shipped & {"torch", "Any", "Optional", "TYPE_CHECKING", "annotations"}


def test_pickle_finds_torchs_globals_with_the_engine_loaded() -> None:
    # pickle looks a global up in every loaded module and expects AttributeError where it is not
    import pickle

    fmts = [torch.contiguous_format, torch.channels_last, torch.preserve_format]
    assert [pickle.loads(pickle.dumps(f)) is f for f in fmts] == [True, True, True]


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
    assert lacking or not TORCH_NAMES[module]  # the engine is a part of torch


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
@pytest.mark.parametrize("module", MODULES, ids=MODULES)
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


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "xpu"])
@pytest.mark.parametrize("call", ["zeros", "ones_like", "to", "device", "Module.to", "randn"])
def test_accelerators_get_the_errors_of_torchs_cpu_build(call: str, device: str) -> None:
    calls = {
        "zeros": lambda t: t.zeros(2, device=device),
        "ones_like": lambda t: t.ones_like(t.zeros(2), device=device),
        "to": lambda t: t.zeros(2).to(device),
        "device": lambda t: repr(t.device(device)),
        "Module.to": lambda t: t.nn.Linear(1, 1).to(device),
        "randn": lambda t: t.randn(2, device=t.device(device)),
    }
    same(calls[call])


@pytest.mark.parametrize("device", ["mps", "meta", "hip", "xla"])
@pytest.mark.parametrize("call", ["zeros", "ones_like", "to", "Module.to", "Linear"])
def test_devices_the_engine_lacks_are_not_implemented(call: str, device: str) -> None:
    calls = {
        "zeros": lambda t: t.zeros(2, device=device),
        "ones_like": lambda t: t.ones_like(t.zeros(2), device=device),
        "to": lambda t: t.zeros(2).to(device),
        "Module.to": lambda t: t.nn.Linear(1, 1).to(device),
        "Linear": lambda t: t.nn.Linear(1, 1, device=device),
    }
    # torch's CPU build refuses each but 'meta' with an error of its backend's
    with contextlib.suppress(RuntimeError, NotImplementedError):
        calls[call](torch)
    with pytest.raises(NotImplementedError) as raised:
        calls[call](ownership)
    assert str(raised.value) == (
        f"ownership does not implement the '{device}' device; it covers the CPU only (device='cpu')"
    )


def test_device_agnostic_programs_run_on_the_cpu() -> None:
    def program(t: ModuleType) -> Any:
        device = "cuda" if t.cuda.is_available() else "cpu"
        other = t.accelerator.current_accelerator() or t.device("cpu")
        mps = t.device("mps") if t.backends.mps.is_available() else t.device("cpu")
        t.manual_seed(0)
        t.cuda.manual_seed_all(0)
        t.backends.cudnn.deterministic, t.backends.cudnn.benchmark = True, False
        model = t.nn.Linear(3, 2, device=device, dtype=t.float64)
        norm = t.nn.BatchNorm1d(2, device=device, dtype=t.float64)
        x = t.randn(4, 3, device=device, dtype=t.float64)
        y = norm(model(x.to(other).to(mps)))
        made = [
            t.zeros(2, device=device),
            t.full((2,), 3.0, device=device),
            t.arange(3, device=device),
            t.linspace(0, 1, 3, device=device),
            t.eye(2, device=device),
            t.rand(2, device=device),
            t.randint(5, (3,), device=device),
            t.randperm(4, device=device),
            x.new_zeros(2, device=device),
            x.new_ones(2, device=device),
            x.new_full((2,), 1.5, device=device),
            x.new_tensor([1.0], device=device),
        ]
        states = {k: (v.dtype, v.device) for k, v in norm.state_dict().items()}
        return (
            device,
            str(other),
            y,
            [(m, m.device) for m in made],
            states,
            t.cuda.device_count(),
            t.accelerator.device_count(),
            t.backends.cudnn.deterministic,
            t.backends.cudnn.is_available(),
            t.backends.mps.is_built(),
            t.cuda.is_initialized(),
        )

    try:
        same(program)
    finally:
        torch.backends.cudnn.deterministic = False
        ownership.backends.cudnn.deterministic = False


@pytest.mark.parametrize(
    "call",
    [
        "device(1.5)",
        "device('cpu', 'x')",
        "device(device('cpu'), 1)",
        "zeros(2, device=1.5)",
        "tensor([1.0], device=[0])",
        "zeros_like(ones(1), device=True)",
        "as_tensor([1.0], device=1.5)",
        "cuda.current_device()",
        "cuda.synchronize()",
    ],
)
def test_device_arguments_of_the_wrong_kind_get_torchs_errors(call: str) -> None:
    same(lambda t: eval(call, {name: getattr(t, name) for name in dir(t) if name[0] != "_"}))


def test_a_tensor_name_torch_has_and_the_engine_lacks_says_so() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(2)
        found = []
        for name in ["to_sparse", "no_such_name", "_private", "grad", "shape"]:
            try:
                getattr(x, name)
                found.append("present")
            except NotImplementedError as e:
                found.append(str(e))
            except AttributeError as e:
                found.append(f"AttributeError: {e}")
        return found

    assert program(torch) == [
        "present",
        "AttributeError: 'Tensor' object has no attribute 'no_such_name'",
        "AttributeError: 'Tensor' object has no attribute '_private'",
        "present",
        "present",
    ]
    found = program(ownership)
    assert found[0].startswith("ownership does not implement torch.Tensor.to_sparse; it covers ")
    assert found[1:] == program(torch)[1:]


def test_a_tensor_name_the_engine_lacks_is_absent_but_for_its_error() -> None:
    # declared on the class (``core.tensor.Missing``), yet the class is as if it lacked it
    t, p = ownership.ones(2), ownership.nn.Parameter(ownership.ones(2))
    lacking = ownership.scope.missing_tensor_names(ownership.Tensor)
    assert "to_sparse" in lacking and "add" not in lacking
    shown = set(dir(ownership.Tensor)) | set(dir(t)) | set(dir(p)) | set(dir(type(p)))
    assert not shown & set(lacking)
    assert not any(hasattr(ownership.Tensor, name) for name in lacking)
    for name in lacking:
        with pytest.raises(
            NotImplementedError, match=f"^ownership does not implement torch.Tensor.{name}; "
        ):
            getattr(p, name)
    # on the class, Python's own error of a name a class lacks
    for owner in (ownership.Tensor, ownership.nn.Parameter):
        errors = []
        for name in ("to_sparse", "no_such_name"):
            with pytest.raises(AttributeError) as raised:
                getattr(owner, name)
            errors.append((str(raised.value).replace(name, "?"), raised.value.obj))
            assert raised.value.name == name
        assert errors[0] == errors[1]


def test_a_tensors_own_attribute_shadows_a_name_the_engine_lacks() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(2)
        x.to_sparse, x.label = "mine", "w"
        copied, loaded = copy.deepcopy(x), pickle.loads(pickle.dumps(x))
        return x.to_sparse, x.label, copied.to_sparse, loaded.to_sparse, "label" in dir(x)

    same(program)


def test_the_scope_error_keeps_a_tensors_attribute_reads_specialized() -> None:
    # CPython 3.11 specializes no attribute read on a class with a ``__getattr__`` (or its own
    # ``__getattribute__``): each ``t._data`` of each op would take the generic path
    for cls in ownership.Tensor.__mro__[:-1]:
        assert "__getattr__" not in vars(cls) and "__getattribute__" not in vars(cls), cls


def test_core_alone_has_pythons_attribute_error_for_every_name() -> None:
    # core imported without the package, so without ``install()``: nothing is declared missing
    program = (
        "import sys, types\n"
        "package = types.ModuleType('ownership')\n"
        f"package.__path__ = [{str(Path(ownership.__file__).parent)!r}]\n"
        "sys.modules['ownership'] = package\n"
        "from ownership.core.tensor import Tensor\n"
        "t = Tensor._wrap([1.0])\n"
        "for owner in (t, Tensor):\n"
        "    try:\n"
        "        owner.to_sparse\n"
        "    except AttributeError as e:\n"
        "        print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == [
        "'Tensor' object has no attribute 'to_sparse'",
        "type object 'Tensor' has no attribute 'to_sparse'",
    ]


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
