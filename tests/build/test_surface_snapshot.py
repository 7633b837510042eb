"""The engine's surface, recorded: a restructuring that changes nothing a user sees passes.

``surface_snapshot.json`` (beside this file) holds what a user of ``ownership`` can see without
reading its source:

- ``dir()`` of the package, of ``Tensor``, ``nn``, ``nn.Module``, ``nn.functional``, ``optim``,
  ``optim.Optimizer`` and ``autograd``;
- the signature of every public callable among them: ``inspect.signature``'s text, or, where
  that is only ``(*args, **kwargs)`` (an op whose arguments torch's parser binds), the engine's
  own text, the error of a call with an unknown keyword (which lists torch's overloads);
- the exception class and message of a battery of wrong calls (``BATTERY``): wrong argument
  types, missing arguments, unknown keywords, in-place writes on a leaf that requires grad, the
  saved-tensor version error, views written in place, module assignments, ``load_state_dict``
  and optimizer errors.

The snapshot is made in a fresh interpreter (so what other tests imported cannot add a
submodule to ``dir(ownership)``) and compared whole; memory addresses read ``0x...``.
Regenerate it after a change that is meant to change the surface, and review its diff::

    OWNERSHIP_UPDATE_SURFACE=1 python -m pytest tests/build/test_surface_snapshot.py

(or ``python tests/build/test_surface_snapshot.py --update``, with the package importable).
"""

from __future__ import annotations

import difflib
import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).with_name("surface_snapshot.json")
UPDATE_VARIABLE = "OWNERSHIP_UPDATE_SURFACE"
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
UNKNOWN_KEYWORD = "surface_snapshot_unknown_keyword"


def shown(text: str) -> str:
    """``text`` with memory addresses, which change from run to run, as ``0x...``."""
    return ADDRESS.sub("0x...", text)


def outcome(call: Callable[[], Any]) -> str:
    """``ExceptionClass: message`` of what ``call()`` raises, or ``returned <type>``."""
    try:
        result = call()
    except BaseException as error:  # the class is what is recorded
        kind = type(error)
        return shown(f"{kind.__module__}.{kind.__qualname__}: {error}")
    return f"returned {type(result).__module__}.{type(result).__qualname__}"


def signature_text(owner: Any, name: str, sample: Any) -> str:
    """The signature of ``owner.name``: ``inspect.signature``'s text, else (``*args, **kwargs``
    or none) the engine's own text, the error of a call on ``sample`` with an unknown keyword."""
    member = getattr(owner, name)
    try:
        text = str(inspect.signature(member))
    except (TypeError, ValueError):
        text = ""
    general = re.fullmatch(
        r"\((self(: [^,]*)?(=UNBOUND)?, )?\*\w+(: [^,]*)?, \*\*\w+(: [^,]*)?\)( -> .*)?", text
    )
    if text and not general:
        return shown(text)
    bound = getattr(sample, name) if sample is not None else member
    return shown(text) + " | " + outcome(lambda: bound(**{UNKNOWN_KEYWORD: 0}))


def public_callables(owner: Any) -> list[str]:
    """The names in ``dir(owner)`` not starting with ``_`` whose value is callable."""
    names = []
    for name in dir(owner):
        if name.startswith("_"):
            continue
        try:
            value = getattr(owner, name)
        except Exception:  # a property of the class itself
            continue
        if callable(value) and not inspect.ismodule(value):
            names.append(name)
    return names


def battery(t: Any) -> dict[str, Callable[[], Any]]:
    """Wrong calls, each a function of the engine module ``t`` (ownership, or torch)."""
    nn, optim = t.nn, t.optim

    def leaf() -> Any:
        return t.ones(2, requires_grad=True)

    def version_error_on_result() -> Any:
        y = leaf().exp()
        y.add_(1)
        y.sum().backward()

    def version_error_on_input() -> Any:
        c = leaf() * 1
        d = c * c
        c.add_(1)
        d.sum().backward()

    def version_error_through_detach() -> Any:
        y = leaf().sigmoid()
        y.detach().zero_()
        y.sum().backward()

    def version_error_through_view() -> Any:
        y = leaf().exp()
        y[0].mul_(2)
        y.sum().backward()

    def backward_twice() -> Any:
        x = leaf()
        y = (x * x).sum()
        y.backward()
        y.backward()

    def saved_value_after_free() -> Any:
        x = leaf()
        y = x * x
        y.sum().backward()
        return y.grad_fn._saved_self

    def unbind_written() -> Any:
        parts = (leaf() * 1).view(2, 1).unbind(0)
        parts[0].mul_(2)

    def no_grad_view_written() -> Any:
        a = leaf() * 1
        with t.no_grad():
            v = a.view(2)
        v.mul_(2)

    def inference_tensor_written() -> Any:
        with t.inference_mode():
            i = t.ones(2)
        i.add_(1)

    def inference_tensor_saved() -> Any:
        with t.inference_mode():
            i = t.ones(2)
        return i * leaf()

    def expanded_written() -> Any:
        t.zeros(3).expand(2, 3).add_(1)

    def expanded_indexed() -> Any:
        e = t.zeros(3).expand(2, 3)
        e[:, 0] = 1.0

    def grad_of_wrong_shape() -> Any:
        x = leaf()
        x.grad = t.ones(3)

    def hook_of_wrong_shape() -> Any:
        x = leaf()
        x.register_hook(lambda g: t.ones(3))
        (x * 2).sum().backward()

    def non_leaf_requires_grad_off() -> Any:
        (leaf() * 2).requires_grad_(False)

    def parameter_before_init() -> Any:
        class Early(nn.Module):
            def __init__(self) -> None:
                self.w = nn.Parameter(t.ones(1))

        Early()

    def linear() -> Any:
        return nn.Linear(2, 2)

    def tensor_as_parameter() -> Any:
        linear().weight = t.ones(2, 2)

    def buffer_over_parameter() -> Any:
        linear().register_buffer("weight", t.ones(1))

    def dotted_buffer() -> Any:
        linear().register_buffer("a.b", t.ones(1))

    def wrong_state_dict_shape() -> Any:
        m = linear()
        m.load_state_dict({"weight": t.ones(3, 3), "bias": t.ones(2)})

    def unexpected_state_dict_key() -> Any:
        m = linear()
        state = dict(m.state_dict())
        state["extra"] = t.ones(1)
        m.load_state_dict(state)

    def optimizer_state_mismatch() -> Any:
        opt = optim.SGD([leaf()], lr=0.1)
        opt.load_state_dict({"state": {}, "param_groups": []})

    def duplicate_param_group() -> Any:
        x = leaf()
        opt = optim.SGD([x], lr=0.1)
        opt.add_param_group({"params": [x]})

    def unused_input() -> Any:
        x, z = leaf(), leaf()
        return t.autograd.grad((x * 2).sum(), [x, z])

    def grad_of_constant() -> Any:
        return t.autograd.grad(t.ones(2).sum(), [leaf()])

    return {
        "tensor from a str": lambda: t.tensor("abc"),
        "ones of a str": lambda: t.ones("a"),
        "zeros with an unknown keyword": lambda: t.zeros(2, foo=1),
        "sum without its input": lambda: t.sum(),
        "sum over a float dim": lambda: t.ones(2).sum(dim=1.5),
        "sum with an unknown keyword": lambda: t.ones(2).sum(dim=0, bogus=1),
        "view to a wrong size": lambda: t.ones(2).view(3),
        "view with two -1": lambda: t.ones(2, 3).view(-1, -1),
        "reshape to a str": lambda: t.ones(2).reshape("a"),
        "add a str": lambda: t.ones(2) + "a",
        "matmul of mismatched vectors": lambda: t.ones(2) @ t.ones(3),
        "add of unbroadcastable shapes": lambda: t.ones(2).add(t.ones(3)),
        "add_ with an unknown keyword": lambda: t.ones(2).add_(1, bogus=2),
        "add_ on a leaf that requires grad": lambda: leaf().add_(1),
        "zero_ on a leaf that requires grad": lambda: leaf().zero_(),
        "mul_ on a leaf that requires grad": lambda: leaf().mul_(2),
        "mul_ on a view of a leaf that requires grad": lambda: leaf()[0].mul_(2),
        "copy_ on a leaf that requires grad": lambda: leaf().copy_(t.ones(2)),
        "version error: a saved result written": version_error_on_result,
        "version error: a saved input written": version_error_on_input,
        "version error: written through a detached alias": version_error_through_detach,
        "version error: written through a view": version_error_through_view,
        "backward twice": backward_twice,
        "a saved value read after backward freed it": saved_value_after_free,
        "backward of a non-scalar": lambda: (leaf() * 2).backward(),
        "backward of a tensor without a graph": lambda: t.ones(2).sum().backward(),
        "backward with a gradient of the wrong shape": lambda: (leaf() * 2).backward(t.ones(3)),
        "a view of unbind written in place": unbind_written,
        "a view made under no_grad written in place": no_grad_view_written,
        "an inference tensor written outside inference mode": inference_tensor_written,
        "an inference tensor saved for backward": inference_tensor_saved,
        "an expanded tensor written in place": expanded_written,
        "an expanded tensor written through an index": expanded_indexed,
        "detach_ on a view": lambda: leaf().view(2).detach_(),
        "copy_ of a wrong shape": lambda: t.ones(2).copy_(t.ones(3)),
        ".data set to a number": lambda: setattr(leaf(), "data", 3),
        ".grad of the wrong shape": grad_of_wrong_shape,
        ".grad set to a str": lambda: setattr(leaf(), "grad", "a"),
        "requires_grad on an integer tensor": lambda: t.ones(2, dtype=t.int64).requires_grad_(),
        "requires_grad off on a non-leaf": non_leaf_requires_grad_off,
        "a hook returning the wrong shape": hook_of_wrong_shape,
        "a hook on a tensor that does not require grad": lambda: t.ones(2).register_hook(print),
        "item of two elements": lambda: t.ones(2).item(),
        "float of two elements": lambda: float(t.ones(2)),
        "numpy of a tensor that requires grad": lambda: leaf().numpy(),
        "expand to a smaller size": lambda: t.ones(2).expand(3),
        "transpose of a dim out of range": lambda: t.ones(2, 3).transpose(0, 5),
        "index out of range": lambda: t.ones(2)[5],
        "cat of mismatched ranks": lambda: t.cat([t.ones(2), t.ones(2, 2)]),
        "ones with a str dtype": lambda: t.ones(2, dtype="float"),
        "add with out= of a tensor that requires grad": lambda: t.add(leaf(), 1, out=t.ones(2)),
        "a parameter set before Module.__init__": parameter_before_init,
        "a tensor assigned as a parameter": tensor_as_parameter,
        "a buffer over a parameter's name": buffer_over_parameter,
        "a buffer name with a dot": dotted_buffer,
        "register_parameter of a tensor": lambda: linear().register_parameter("p", t.ones(1)),
        "add_module with an int name": lambda: linear().add_module(3, linear()),
        "load_state_dict of an empty dict": lambda: linear().load_state_dict({}),
        "load_state_dict of a wrong shape": wrong_state_dict_shape,
        "load_state_dict with an unexpected key": unexpected_state_dict_key,
        "load_state_dict of a str": lambda: linear().load_state_dict("abc"),
        "Linear of a str size": lambda: nn.Linear("a", 2),
        "Linear on a wrong width": lambda: linear()(t.ones(3)),
        "relu of a str": lambda: nn.functional.relu("a"),
        "SGD of no parameters": lambda: optim.SGD([], lr=0.1),
        "SGD with a negative lr": lambda: optim.SGD([leaf()], lr=-1),
        "SGD of a tensor, not an iterable": lambda: optim.SGD(leaf(), lr=0.1),
        "SGD with a negative momentum": lambda: optim.SGD([leaf()], lr=0.1, momentum=-1),
        "SGD with nesterov and no momentum": lambda: optim.SGD([leaf()], lr=0.1, nesterov=True),
        "SGD of a non-leaf": lambda: optim.SGD([leaf() * 2], lr=0.1),
        "SGD with an unknown keyword": lambda: optim.SGD([leaf()], lr=0.1, bogus=1),
        "optimizer load_state_dict of other groups": optimizer_state_mismatch,
        "a parameter in two groups": duplicate_param_group,
        "autograd.grad of an unused input": unused_input,
        "autograd.grad of a constant": grad_of_constant,
    }


def surface() -> dict[str, Any]:
    """The snapshot: ``dir()`` listings, signatures and the battery's outcomes."""
    import warnings

    import ownership as t

    warnings.simplefilter("ignore")
    owners: dict[str, tuple[Any, Any]] = {
        "ownership": (t, None),
        "ownership.Tensor": (t.Tensor, t.ones(2, 2)),
        "ownership.nn": (t.nn, None),
        "ownership.nn.Module": (t.nn.Module, t.nn.Module()),
        "ownership.nn.functional": (t.nn.functional, None),
        "ownership.optim": (t.optim, None),
        "ownership.optim.Optimizer": (t.optim.Optimizer, None),
        "ownership.autograd": (t.autograd, None),
    }
    snapshot: dict[str, Any] = {"dir": {}, "signatures": {}}
    for label, (owner, sample) in owners.items():
        snapshot["dir"][label] = dir(owner)
        snapshot["signatures"][label] = {
            name: signature_text(owner, name, sample) for name in public_callables(owner)
        }
    snapshot["errors"] = {label: outcome(call) for label, call in battery(t).items()}
    return snapshot


def written(snapshot: dict[str, Any]) -> str:
    return json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def made_fresh() -> str:
    """The snapshot as a fresh interpreter makes it (this file run as a script)."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve())],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    return done.stdout


def test_the_surface_is_the_snapshot() -> None:
    now = made_fresh()
    if os.environ.get(UPDATE_VARIABLE):
        SNAPSHOT.write_text(now, encoding="utf-8")
    recorded = SNAPSHOT.read_text(encoding="utf-8")
    if now != recorded:
        diff = difflib.unified_diff(
            recorded.splitlines(), now.splitlines(), "recorded", "now", lineterm="", n=1
        )
        raise AssertionError(
            f"the surface changed (regenerate with {UPDATE_VARIABLE}=1 if meant):\n"
            + "\n".join(list(diff)[:200])
        )


def test_the_battery_raises_in_torch_too() -> None:
    """Every call of the battery is wrong under torch as well (no call that merely works)."""
    import torch

    quiet = [
        label for label, call in battery(torch).items() if outcome(call).startswith("returned")
    ]
    assert quiet == []


if __name__ == "__main__":
    text = written(surface())
    if "--update" in sys.argv[1:]:
        SNAPSHOT.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
