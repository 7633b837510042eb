"""Every op call passes one observer point, :func:`ownership.core.op_registry.watch` (the doctor's):
a Tensor method, a ``torch`` function and an operator alike; ``unwatch`` puts the ops back. The
factories, ``bernoulli``, ``cat``, ``stack``, ``addmm``, ``norm``, the ``new_*`` methods, the
conversions (``float()``, ``type_as``...: not ``to``), ``view_as``, ``reshape_as``, ``expand_as``,
``square`` and the functions of ``nn.functional`` pass it too, each under the name torch's ``TorchFunctionMode``
sees it by (the doctor's watch of torch), call by call, and only the outermost call: an op called
while another runs (``as_tensor``'s ``to``, ``linear``'s ``addmm``) is not seen, as torch's mode
is off while its handler runs."""

from __future__ import annotations

import contextlib
import operator
import threading
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch

import ownership
from ownership.core import op_registry


def test_every_op_call_passes_the_one_observer_point() -> None:
    seen: list[str] = []

    def observer(name: str, op: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        seen.append(name)
        return op(*args, **kwargs)

    x = ownership.ones(2)
    op_registry.watch(observer)
    try:
        x.mul(2)
        ownership.mul(x, 2)
        _ = x * 2
        x.mul_(2)
        x *= 2
        x.sum()
        with pytest.raises(RuntimeError, match="watched already"):
            op_registry.watch(observer)
    finally:
        op_registry.unwatch()
    assert seen == ["mul", "mul", "mul", "mul_", "mul_", "sum"]
    assert x.tolist() == [4.0, 4.0]
    x.mul(2)
    _ = x * 2
    assert len(seen) == 6


# The calls of a program, made under each engine: the factories, ``bernoulli``, ``cat``,
# ``stack``, ``addmm``, ``norm`` and ``threshold_`` (the functions once called off the table),
# each on inputs made before the watch.
CALLS: list[tuple[str, Callable[[ModuleType, Any, Any], Any]]] = [
    ("zeros", lambda t, x, m: t.zeros(2, 3)),
    ("zeros of a tuple", lambda t, x, m: t.zeros((2, 3), dtype=t.float64)),
    ("ones", lambda t, x, m: t.ones(2)),
    ("empty", lambda t, x, m: t.empty(2)),
    ("empty_strided", lambda t, x, m: t.empty_strided((2, 2), (1, 2))),
    ("full", lambda t, x, m: t.full((2,), 1.5)),
    ("tensor", lambda t, x, m: t.tensor([1.0, 2.0], requires_grad=True)),
    ("as_tensor", lambda t, x, m: t.as_tensor([1, 2])),
    ("arange", lambda t, x, m: t.arange(0, 5, 2)),
    ("linspace", lambda t, x, m: t.linspace(0, 1, 5)),
    ("eye", lambda t, x, m: t.eye(2, 3)),
    ("zeros_like", lambda t, x, m: t.zeros_like(x)),
    ("ones_like", lambda t, x, m: t.ones_like(x, dtype=t.float64)),
    ("empty_like", lambda t, x, m: t.empty_like(x)),
    ("full_like", lambda t, x, m: t.full_like(x, 7)),
    ("rand", lambda t, x, m: t.rand(3)),
    ("randn", lambda t, x, m: t.randn(2, 2)),
    ("randint", lambda t, x, m: t.randint(3, (4,))),
    ("randint with low", lambda t, x, m: t.randint(1, 3, (4,))),
    ("randperm", lambda t, x, m: t.randperm(4)),
    ("rand_like", lambda t, x, m: t.rand_like(x)),
    ("randn_like", lambda t, x, m: t.randn_like(x)),
    ("bernoulli", lambda t, x, m: t.bernoulli(x)),
    ("cat", lambda t, x, m: t.cat([x, x])),
    ("stack", lambda t, x, m: t.stack([x, x], dim=1)),
    ("addmm", lambda t, x, m: t.addmm(m, m, m, beta=0.5)),
    ("norm", lambda t, x, m: t.norm(x)),
    ("threshold", lambda t, x, m: t.threshold(m, 0.5, 0.0)),
    ("threshold_", lambda t, x, m: t.threshold_(m, 0.5, 0.0)),
    ("a method", lambda t, x, m: x.mul(2)),
    ("as_tensor of a tensor", lambda t, x, m: t.as_tensor(x, dtype=t.float64)),
    ("new_zeros", lambda t, x, m: x.new_zeros(2)),
    ("new_ones", lambda t, x, m: x.new_ones((2, 1), dtype=t.float64)),
    ("new_empty", lambda t, x, m: x.new_empty(2)),
    ("new_full", lambda t, x, m: x.new_full((2,), 3.0)),
    ("new_tensor", lambda t, x, m: x.new_tensor([1.0])),
    ("F.linear", lambda t, x, m: t.nn.functional.linear(m, m, m.sum(0))),
    ("F.linear of 3 dims", lambda t, x, m: t.nn.functional.linear(x.unsqueeze(0), x, m.sum(0))),
    ("F.linear without bias", lambda t, x, m: t.nn.functional.linear(x, x)),
    ("F.cross_entropy", lambda t, x, m: t.nn.functional.cross_entropy(m, t.tensor([0, 1]))),
    ("F.nll_loss", lambda t, x, m: t.nn.functional.nll_loss(m, t.tensor([1, 0]))),
    ("F.mse_loss", lambda t, x, m: t.nn.functional.mse_loss(x, x)),
    ("F.batch_norm", lambda t, x, m: t.nn.functional.batch_norm(x, None, None, training=True)),
    ("F.dropout", lambda t, x, m: t.nn.functional.dropout(x, 0.5)),
    ("F.dropout not training", lambda t, x, m: t.nn.functional.dropout(x, 0.5, False)),
    ("F.dropout in place", lambda t, x, m: t.nn.functional.dropout(x.clone(), inplace=True)),
    ("F.leaky_relu", lambda t, x, m: t.nn.functional.leaky_relu(x, 0.2)),
    ("F.leaky_relu in place", lambda t, x, m: t.nn.functional.leaky_relu(x.clone(), inplace=True)),
    ("F.leaky_relu_", lambda t, x, m: t.nn.functional.leaky_relu_(x.clone())),
    ("F.threshold", lambda t, x, m: t.nn.functional.threshold(x, 0.5, 0.0)),
    ("F.threshold in place", lambda t, x, m: t.nn.functional.threshold(x.clone(), 0.5, 0.0, True)),
    ("F.threshold_", lambda t, x, m: t.nn.functional.threshold_(x.clone(), 0.5, 0.0)),
    ("F.relu", lambda t, x, m: t.nn.functional.relu(x)),
    ("F.relu in place", lambda t, x, m: t.nn.functional.relu(x.clone(), inplace=True)),
    ("F.softmax", lambda t, x, m: t.nn.functional.softmax(x, dim=1)),
    ("nn.Linear's forward", lambda t, x, m: LINEAR[t.__name__](x)),
    ("F.dropout of a str", lambda t, x, m: _refused(lambda: t.nn.functional.dropout("a"))),
    ("F.leaky_relu of a str", lambda t, x, m: _refused(lambda: t.nn.functional.leaky_relu("a"))),
    (
        "F.threshold of a str",
        lambda t, x, m: _refused(lambda: t.nn.functional.threshold("a", 0, 1)),
    ),
    ("F.linear of a str", lambda t, x, m: _refused(lambda: t.nn.functional.linear("a", x))),
    ("float", lambda t, x, m: x.float()),
    ("double", lambda t, x, m: x.double()),
    ("long", lambda t, x, m: x.long()),
    ("int", lambda t, x, m: x.int()),
    ("bool", lambda t, x, m: x.bool()),
    ("type", lambda t, x, m: x.type()),
    ("type of a dtype", lambda t, x, m: x.type(t.float64)),
    ("type of its own dtype", lambda t, x, m: x.type(t.float32)),
    ("type of a name", lambda t, x, m: x.type("torch.LongTensor")),
    ("type_as", lambda t, x, m: x.type_as(m.long())),
    # torch's argument parser refuses these before its mode sees the call
    ("type_as of a number", lambda t, x, m: _refused(lambda: x.type_as(3))),
    ("type_as of nothing", lambda t, x, m: _refused(lambda: x.type_as())),
    ("view_as of a number", lambda t, x, m: _refused(lambda: x.view_as(3))),
    ("reshape_as of a number", lambda t, x, m: _refused(lambda: x.reshape_as(3))),
    ("expand_as of a number", lambda t, x, m: _refused(lambda: x.expand_as(3))),
    ("float of an argument", lambda t, x, m: _refused(lambda: x.float(3))),
    ("bool of an argument", lambda t, x, m: _refused(lambda: x.bool(1))),
    ("to", lambda t, x, m: x.to(t.float64)),
    ("cpu of an argument", lambda t, x, m: _refused(lambda: x.cpu(1))),
    ("cpu", lambda t, x, m: x.cpu()),
    ("view_as", lambda t, x, m: x.view_as(x.t())),
    ("reshape_as", lambda t, x, m: x.reshape_as(x.t())),
    ("expand_as", lambda t, x, m: m.sum(0).expand_as(m)),
    ("square", lambda t, x, m: x.square()),
    ("torch.square", lambda t, x, m: t.square(x)),
    ("torch.square with out", lambda t, x, m: t.square(x, out=t.empty(2, 3))),
    ("square_", lambda t, x, m: x.clone().square_()),
    ("square of an argument", lambda t, x, m: _refused(lambda: x.square(1))),
    ("square_ of an argument", lambda t, x, m: _refused(lambda: x.clone().square_(1))),
    # the operators: torch's mode sees some by the op they call (``x + y``: add), the others by
    # their own name (``x[i]``: __getitem__, ``2 / x``: __rdiv__)
    ("x[i]", lambda t, x, m: x[0]),
    ("x[i] = v", lambda t, x, m: x.clone().__setitem__(0, 1.0)),
    ("x + y", lambda t, x, m: x + x),
    ("2 + x", lambda t, x, m: 2 + x),
    ("x - y", lambda t, x, m: x - x),
    ("2 - x", lambda t, x, m: 2 - x),
    ("x * 2", lambda t, x, m: x * 2),
    ("2 * x", lambda t, x, m: 2 * x),
    ("x / 2", lambda t, x, m: x / 2),
    ("2 / x", lambda t, x, m: 2 / x),
    ("x.__rdiv__(2)", lambda t, x, m: x.__rdiv__(2)),
    ("x // 2", lambda t, x, m: x // 2),
    ("2 // x", lambda t, x, m: 2 // x),
    ("x % 2", lambda t, x, m: x % 2),
    ("2 % x", lambda t, x, m: 2 % x),
    ("x ** 2", lambda t, x, m: x**2),
    ("2 ** x", lambda t, x, m: 2**x),
    ("x @ y", lambda t, x, m: m @ m),
    ("__rmatmul__", lambda t, x, m: m.__rmatmul__(m)),
    ("-x", lambda t, x, m: -x),
    ("+x", lambda t, x, m: +x),
    ("torch.positive", lambda t, x, m: t.positive(x)),
    ("positive", lambda t, x, m: x.positive()),
    ("+b", lambda t, x, m: _refused(lambda: +(INTS[t.__name__] > 1))),
    ("positive of a bool", lambda t, x, m: _refused(lambda: (INTS[t.__name__] > 1).positive())),
    ("torch.positive of a str", lambda t, x, m: _refused(lambda: t.positive("a"))),
    ("positive of an argument", lambda t, x, m: _refused(lambda: x.positive(1))),
    ("abs(x)", lambda t, x, m: abs(x)),
    ("x += 1", lambda t, x, m: _inplace(x.clone(), "iadd", 1)),
    ("x -= 1", lambda t, x, m: _inplace(x.clone(), "isub", 1)),
    ("x *= 2", lambda t, x, m: _inplace(x.clone(), "imul", 2)),
    ("x /= 2", lambda t, x, m: _inplace(x.clone(), "itruediv", 2)),
    ("x //= 2", lambda t, x, m: _inplace(x.clone(), "ifloordiv", 2)),
    ("x %= 2", lambda t, x, m: _inplace(x.clone(), "imod", 2)),
    ("x **= 2", lambda t, x, m: _inplace(x.clone(), "ipow", 2)),
    ("x == y", lambda t, x, m: x == x),
    ("x == 1", lambda t, x, m: x == 1),
    ("x == None", lambda t, x, m: x == None),  # noqa: E711
    ("x != y", lambda t, x, m: x != x),
    ("x < y", lambda t, x, m: x < x),
    ("x <= 1", lambda t, x, m: x <= 1),
    ("x > y", lambda t, x, m: x > x),
    ("x >= 1", lambda t, x, m: x >= 1),
    ("~i", lambda t, x, m: ~INTS[t.__name__]),
    ("i & i", lambda t, x, m: INTS[t.__name__] & INTS[t.__name__]),
    ("i | 1", lambda t, x, m: INTS[t.__name__] | 1),
    ("i ^ 1", lambda t, x, m: INTS[t.__name__] ^ 1),
    ("1 & i", lambda t, x, m: 1 & INTS[t.__name__]),
    ("1 | i", lambda t, x, m: 1 | INTS[t.__name__]),
    ("1 ^ i", lambda t, x, m: 1 ^ INTS[t.__name__]),
    ("i << 1", lambda t, x, m: INTS[t.__name__] << 1),
    ("i >> 1", lambda t, x, m: INTS[t.__name__] >> 1),
    ("1 << i", lambda t, x, m: 1 << INTS[t.__name__]),
    ("1 >> i", lambda t, x, m: 1 >> INTS[t.__name__]),
    ("i &= 1", lambda t, x, m: _inplace(INTS[t.__name__].clone(), "iand", 1)),
    ("i |= 1", lambda t, x, m: _inplace(INTS[t.__name__].clone(), "ior", 1)),
    ("i ^= 1", lambda t, x, m: _inplace(INTS[t.__name__].clone(), "ixor", 1)),
    ("i <<= 1", lambda t, x, m: _inplace(INTS[t.__name__].clone(), "ilshift", 1)),
    ("i >>= 1", lambda t, x, m: _inplace(INTS[t.__name__].clone(), "irshift", 1)),
    # a tensor's own state: core's methods, seen by their names
    ("size", lambda t, x, m: x.size()),
    ("size of a dim", lambda t, x, m: x.size(-1)),
    ("stride", lambda t, x, m: x.stride()),
    ("stride of a dim", lambda t, x, m: x.stride(0)),
    ("dim", lambda t, x, m: x.dim()),
    ("numel", lambda t, x, m: x.numel()),
    ("nelement", lambda t, x, m: x.nelement()),  # torch's mode sees numel
    ("element_size", lambda t, x, m: x.element_size()),
    ("storage_offset", lambda t, x, m: x.storage_offset()),
    ("data_ptr", lambda t, x, m: x.data_ptr()),
    ("untyped_storage", lambda t, x, m: x.untyped_storage()),
    ("is_contiguous", lambda t, x, m: x.is_contiguous()),
    ("is_floating_point", lambda t, x, m: x.is_floating_point()),
    ("is_inference", lambda t, x, m: x.is_inference()),
    ("detach", lambda t, x, m: x.detach()),
    ("torch.detach", lambda t, x, m: t.detach(x)),
    ("detach_", lambda t, x, m: x.clone().detach_()),
    ("detach_ of a view", lambda t, x, m: _refused(lambda: x[0].detach_())),
    ("requires_grad_", lambda t, x, m: x.clone().requires_grad_()),
    ("requires_grad_ of ints", lambda t, x, m: _refused(lambda: INTS[t.__name__].requires_grad_())),
    ("retain_grad", lambda t, x, m: (LEAF[t.__name__] * 1).retain_grad()),
    ("retain_grad refused", lambda t, x, m: _refused(lambda: x.retain_grad())),
    ("backward", lambda t, x, m: (LEAF[t.__name__] * 2).sum().backward()),
    ("backward refused", lambda t, x, m: _refused(lambda: x.sum().backward())),
    ("detach of an argument", lambda t, x, m: _refused(lambda: x.detach(1))),
    ("dim of an argument", lambda t, x, m: _refused(lambda: x.dim(1))),
    ("numel of an argument", lambda t, x, m: _refused(lambda: x.numel(1))),
    ("is_contiguous of an argument", lambda t, x, m: _refused(lambda: x.is_contiguous(1))),
    ("repr", lambda t, x, m: repr(x)),
    ("str", lambda t, x, m: str(x)),
    ("a Parameter's repr", lambda t, x, m: repr(t.nn.Parameter(t.ones(1)))),
    # the ways out of the engine
    ("item", lambda t, x, m: x[0, 0].item()),
    ("item of many", lambda t, x, m: _refused(lambda: x.item())),
    ("item of an argument", lambda t, x, m: _refused(lambda: x.item(1))),
    ("tolist", lambda t, x, m: x.tolist()),
    ("numpy", lambda t, x, m: x.numpy()),
    ("numpy of an argument", lambda t, x, m: _refused(lambda: x.numpy(1))),
    ("np.asarray", lambda t, x, m: np.asarray(x)),
    ("float(x)", lambda t, x, m: float(x[0, 0])),
    ("int(x)", lambda t, x, m: int(x[0, 0])),
    ("bool(x)", lambda t, x, m: bool(x[0, 0])),
    ("an index", lambda t, x, m: [1, 2][INTS[t.__name__][0]]),
    ("len(x)", lambda t, x, m: len(x)),
    ("iter(x)", lambda t, x, m: list(x)),  # torch's Python __iter__: dim, then unbind
    ("1 in x", lambda t, x, m: 1 in x),
    ("from_numpy", lambda t, x, m: t.from_numpy(np.ones(2))),  # torch's mode sees no call
    # a tensor read as an argument by the parser: no call of the program's
    ("a tensor dim", lambda t, x, m: x.sum(INTS[t.__name__][0] - 1)),
    ("a tensor size", lambda t, x, m: x.view(INTS[t.__name__][1] + 1, 2)),
    ("a tensor alpha", lambda t, x, m: x.add(x, alpha=INTS[t.__name__][0])),
    ("stride of a dim", lambda t, x, m: x.stride(1)),
    ("size refused", lambda t, x, m: _refused(lambda: x.size("a"))),
    ("repr refused", lambda t, x, m: _refused(lambda: x.__repr__(1))),
    ("a refused factory", lambda t, x, m: _refused(lambda: t.zeros(-1))),
    # nn.init: torch's handle constant_, kaiming_uniform_, uniform_ and normal_ as torch
    # functions (one call each); its mode sees the others as the calls they make, but for
    # no_grad's ``_set_grad_enabled`` and ``shape``'s ``__get__``, which are no ops
    # (INITIALISERS_UNDER_NO_GRAD, NOT_OPS)
    ("init.uniform_", lambda t, x, m: t.nn.init.uniform_(W[t.__name__], -1, 1)),
    ("init.normal_", lambda t, x, m: t.nn.init.normal_(W[t.__name__], std=0.5)),
    ("init.constant_", lambda t, x, m: t.nn.init.constant_(W[t.__name__], 0.5)),
    ("init.kaiming_uniform_", lambda t, x, m: t.nn.init.kaiming_uniform_(W[t.__name__])),
    (
        "init.kaiming_uniform_ of a Parameter",
        lambda t, x, m: t.nn.init.kaiming_uniform_(LINEAR[t.__name__].weight, a=5**0.5),
    ),
    (
        "init.kaiming_uniform_ of nothing",
        lambda t, x, m: t.nn.init.kaiming_uniform_(W0[t.__name__]),
    ),
    (
        "init.kaiming_uniform_ refused",
        lambda t, x, m: _refused(lambda: t.nn.init.kaiming_uniform_(W[t.__name__], mode="x")),
    ),
    ("init.calculate_gain", lambda t, x, m: t.nn.init.calculate_gain("relu")),
    ("init's fans", lambda t, x, m: t.nn.init._calculate_fan_in_and_fan_out(W[t.__name__])),
    (
        "init's fans of a vector",
        lambda t, x, m: _refused(lambda: t.nn.init._calculate_fan_in_and_fan_out(LEAF[t.__name__])),
    ),
]


def _refused(call: Callable[[], Any]) -> str:
    """The class of the error ``call()`` raises (a call torch refuses is seen all the same, but
    for one its argument parser refuses first: ``F.linear``'s)."""
    try:
        call()
    except (RuntimeError, TypeError, ValueError) as error:
        return type(error).__name__
    raise AssertionError("not refused")


INTS: dict[str, Any] = {}
"""Each engine's ``tensor([1, 2])``, for the bitwise operators (made before the watch)."""


def _inplace(x: Any, name: str, other: Any) -> Any:
    """``x <op>= other``, by Python's operator (``operator.iadd``: ``x += other``)."""
    return getattr(operator, name)(x, other)


LINEAR: dict[str, Any] = {}
"""Each engine's ``Linear(3, 2)``, made with the inputs before the watch (its construction calls
other functions in each: ``torch.nn.init``'s)."""


LEAF: dict[str, Any] = {}
"""Each engine's leaf that requires grad, for ``retain_grad`` and ``backward``."""


W: dict[str, Any] = {}
"""Each engine's 3-by-4 tensor, for ``nn.init``'s initialisers to fill."""


W0: dict[str, Any] = {}
"""Each engine's tensor of no elements, which ``kaiming_uniform_`` leaves alone (warning)."""


def _inputs(t: ModuleType) -> tuple[Any, Any]:
    LINEAR[t.__name__] = t.nn.Linear(3, 2)
    LEAF[t.__name__] = t.ones(2, requires_grad=True)
    INTS[t.__name__] = t.tensor([1, 2])
    W[t.__name__], W0[t.__name__] = t.empty(3, 4), t.empty(0, 3)
    return t.ones(2, 3), t.ones(2, 2)


def _seen_by_torch() -> list[list[str]]:
    """The names torch's ``TorchFunctionMode`` is called with, call by call."""
    from torch.overrides import TorchFunctionMode

    seen: list[str] = []

    class Seen(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    x, m = _inputs(torch)
    calls = []
    with Seen():
        for _, call in CALLS:
            seen.clear()
            call(torch, x, m)
            calls.append(list(seen))
    return calls


def _seen_by_ownership() -> list[list[str]]:
    """The names the op table's observer point (the doctor's) is called with, call by call."""
    seen: list[str] = []

    def observer(name: str, op: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        seen.append(name)
        return op(*args, **kwargs)

    x, m = _inputs(ownership)
    calls = []
    op_registry.watch(observer)
    try:
        for _, call in CALLS:
            seen.clear()
            call(ownership, x, m)
            calls.append(list(seen))
    finally:
        op_registry.unwatch()
    return calls


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors is a no-op")
def test_the_observer_sees_each_call_as_torchs_function_mode_does() -> None:
    by_torch = dict(zip((label for label, _ in CALLS), _seen_by_torch(), strict=True))
    by_ownership = dict(zip((label for label, _ in CALLS), _seen_by_ownership(), strict=True))
    assert by_ownership == by_torch
    assert by_torch["zeros"] == ["zeros"] and by_torch["from_numpy"] == []
    assert by_torch["as_tensor of a tensor"] == ["as_tensor"]  # not its ``to``
    assert by_torch["F.threshold"] == ["_threshold"]  # torch's Python function's name
    assert by_torch["x[i]"] == ["__getitem__"] and by_torch["x + y"] == ["add"]
    assert by_torch["float"] == ["float"] and by_torch["view_as"] == ["t", "view_as"]  # no to, view


def _seen_across_threads(t: ModuleType, watching: Callable[[Callable[..., Any]], Any]) -> Any:
    """Thread A's op waits, inside its handler, until thread B's op ran: B's op is seen (the
    state "inside an op" is thread A's only), and what A's op calls inside is not."""
    seen: list[str] = []
    a_inside, b_done = threading.Event(), threading.Event()

    def handler(name: str, op: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        seen.append(name)
        if name == "mul":
            a_inside.set()
            b_done.wait(10)
        return op(*args, **kwargs)

    x, y = t.ones(2), t.ones(2)

    def thread_b() -> None:
        a_inside.wait(10)
        with watching(handler):
            y.add(1)
        b_done.set()

    b = threading.Thread(target=thread_b)
    b.start()
    with watching(handler):
        x.mul(2)
    b.join()
    return sorted(seen)


def test_an_op_running_in_one_thread_hides_no_op_of_another() -> None:
    from torch.overrides import TorchFunctionMode

    class Mode(TorchFunctionMode):
        def __init__(self, handler: Callable[..., Any]) -> None:
            super().__init__()
            self.handler = handler

        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            return self.handler(func.__name__, func, args, kwargs or {})

    watched = [False]

    @contextlib.contextmanager
    def ownership_watch(handler: Callable[..., Any]) -> Iterator[None]:
        first = not watched[0]  # one watch for every thread: the first thread's
        if first:
            watched[0] = True
            op_registry.watch(handler)
        try:
            yield
        finally:
            if first:
                op_registry.unwatch()

    by_torch = _seen_across_threads(torch, Mode)
    assert by_torch == ["add", "mul"]
    assert _seen_across_threads(ownership, ownership_watch) == by_torch


def test_float_of_a_tensor_that_requires_grad_warns_at_the_callers_line() -> None:
    """The conversion's warning names the program's line, whatever frames the op table adds."""
    import warnings

    lines = {}
    for t in (torch, ownership):
        x = t.ones(1, requires_grad=True)
        was = t.is_warn_always_enabled()
        t.set_warn_always(True)  # a warn-once: given here whatever tests ran before
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                float(x)
        finally:
            t.set_warn_always(was)
        lines[t.__name__] = [(w.filename, w.lineno) for w in seen]
    assert lines["ownership"] == lines["torch"]
    assert lines["torch"][0][0] == __file__


INITIALISERS_UNDER_NO_GRAD: list[tuple[str, Callable[[ModuleType, Any], Any]]] = [
    ("init.ones_", lambda t, w: t.nn.init.ones_(w)),
    ("init.zeros_", lambda t, w: t.nn.init.zeros_(w)),
    ("init.xavier_uniform_", lambda t, w: t.nn.init.xavier_uniform_(w)),
    ("init.xavier_normal_", lambda t, w: t.nn.init.xavier_normal_(w, gain=2.0)),
    ("init.kaiming_normal_", lambda t, w: t.nn.init.kaiming_normal_(w, mode="fan_out")),
]
"""``nn.init``'s initialisers torch writes as plain Python, each writing under ``no_grad``
(``constant_``, ``uniform_``, ``normal_`` and ``kaiming_uniform_`` torch hands its mode as one
call: :data:`CALLS`)."""

NOT_OPS = frozenset({"_set_grad_enabled", "__get__"})
"""What torch's function mode sees of these besides the calls they make: ``no_grad``'s switch of
grad mode, on entering and on leaving (``torch._C._set_grad_enabled``), and ``kaiming_normal_``'s
read of the property ``tensor.shape`` (``__get__``). Neither is an op: no tensor is made, written
or saved; the engine's grad mode and properties are its Tensor's own, not the op table's."""


def test_an_initialiser_is_seen_as_its_calls_as_torchs_modes_see_them() -> None:
    """The op table's observer sees each initialiser as the ops it calls (``dim``, ``size``,
    ``uniform_``...), as torch's function mode does but for :data:`NOT_OPS`, which carry no tensor
    and which the observer's user, the doctor, reads nothing from (its watch of torch acts on a
    call's tensors: none in ``_set_grad_enabled(False)``, a ``torch.Size`` from ``__get__``); torch's
    dispatch mode sees neither, only each initialiser's one in-place write, as the engine makes it."""
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    by_torch, written = [], []

    class Functions(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            by_torch[-1].append(func.__name__)
            return func(*args, **(kwargs or {}))

    class Writes(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            written[-1].append(func.__name__)
            return func(*args, **(kwargs or {}))

    w = torch.empty(3, 4)
    for _, call in INITIALISERS_UNDER_NO_GRAD:
        by_torch.append([])
        written.append([])
        with Functions():
            call(torch, w)
        with Writes():
            call(torch, w)

    by_ownership: list[list[str]] = []

    def observer(name: str, op: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        by_ownership[-1].append(name)
        return op(*args, **kwargs)

    v = ownership.empty(3, 4)
    op_registry.watch(observer)
    try:
        for _, call in INITIALISERS_UNDER_NO_GRAD:
            by_ownership.append([])
            call(ownership, v)
    finally:
        op_registry.unwatch()

    assert [[n for n in names if n not in NOT_OPS] for names in by_torch] == by_ownership
    assert by_torch[0] == ["_set_grad_enabled", "fill_", "_set_grad_enabled"]  # what is left out
    assert by_torch[4][0] == "__get__"
    writes = [
        "fill_.Scalar",
        "zero_.default",
        "uniform_.default",
        "normal_.default",
        "normal_.default",
    ]
    assert written == [[name] for name in writes]  # one in-place write each, as the engine's
    assert [names[-1] for names in by_ownership] == [
        "fill_",
        "zero_",
        "uniform_",
        "normal_",
        "normal_",
    ]
