"""What the engine covers, said out loud: the one error for a part of torch it does not implement.

ownership implements the part of torch that the unit "Aliasing, mutation and module ownership"
uses: CPU tensors of five dtypes, their views, version counters and autograd, the modules,
losses and optimizers of a training step. Where a program reaches past that (another device, a
dtype, sparse tensors, an op or a submodule of torch the engine lacks), it gets one
``NotImplementedError`` that names what is missing and what the engine covers
(:func:`ownership.core.dtypes.missing`), never an ``AttributeError`` from deep inside. Names torch
does not have keep Python's ``AttributeError`` (so ``hasattr`` probes, ``copy``, ``pickle``,
doctest and IPython's protocol lookups work): :func:`module_getattr` and
:func:`missing_tensor_names` tell the two apart with the static lists of torch's public names in
``ownership.torch_names``.

This is torch's parity surface, not a rule of the unit: ``ownership.installation.install()``
declares each name of :func:`missing_tensor_names` on core's ``Tensor`` a ``Missing`` that
raises :func:`tensor_error` (``declare_missing``, in core's seam ``Absent``); the modules of the parity
layer and above take :func:`module_getattr` as their module ``__getattr__``.

>>> import ownership
>>> ownership.fft
Traceback (most recent call last):
...
NotImplementedError: ownership does not implement torch.fft; it covers ...
>>> hasattr(ownership, "no_such_name"), hasattr(ownership, "_repr_html_")
(False, False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ownership.core.dtypes import DTYPES, missing
from ownership.core.tensor import Absent
from ownership.torch_names import TORCH_NAMES

__all__ = ["COVERS", "missing_tensor_names", "module_getattr", "tensor_error"]

COVERS = {
    "torch": (
        f"CPU tensors of dtypes {DTYPES}: creation, views, in-place ops, autograd and the ops "
        "of the unit (see the reference's 'What the engine covers')"
    ),
    "torch.nn": (
        "Module, Parameter, Buffer, the containers, Linear, Identity, Flatten, ReLU, "
        "LeakyReLU, Sigmoid, Tanh, Dropout, BatchNorm1d, MSELoss and CrossEntropyLoss"
    ),
    "torch.nn.functional": "the activations, dropout, linear, batch_norm and the unit's losses",
    "torch.Tensor": (
        "the methods and attributes of the unit: views, in-place ops, autograd, conversions "
        "and the ops of the engine's functions (see the reference's 'What the engine covers')"
    ),
    "torch.optim": "SGD, Adam, AdamW, RMSprop, Adagrad and the lr_scheduler schedules",
    "torch.autograd": "grad, backward, Function, gradcheck, graph hooks and the grad modes",
    "torch.accelerator": "is_available, device_count and current_accelerator (there is none)",
    "torch.backends": "mps and cudnn",
    "torch.backends.cudnn": "is_available, version and the switches enabled, benchmark, "
    "deterministic and allow_tf32",
    "torch.backends.mps": "is_available and is_built (no MPS device)",
    "torch.cuda": "is_available, device_count, is_initialized, manual_seed and manual_seed_all "
    "(there is no CUDA device)",
    "torch.autograd.graph": (
        "Node, saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks, increment_version "
        "and allow_mutation_on_saved_tensors"
    ),
}
"""What each module of the engine covers, as its error says it."""


def module_getattr(torch_module: str, engine_module: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the engine module that stands for ``torch_module``: a public
    name torch has there raises :func:`~ownership.core.dtypes.missing`; any other name,
    Python's ``AttributeError``."""
    names = TORCH_NAMES[torch_module]
    covers = COVERS[torch_module]

    def __getattr__(name: str) -> Any:
        if name in names:
            raise missing(f"{torch_module}.{name}", covers)
        raise AttributeError(f"module '{engine_module}' has no attribute '{name}'")

    return __getattr__


_TENSOR_NAMES = TORCH_NAMES["torch.Tensor"]


def missing_tensor_names(tensor: type) -> list[str]:
    """The public names of torch's tensors that the engine's class ``tensor`` lacks: reading
    one on a tensor raises :func:`tensor_error`; any other name the class lacks keeps Python's
    ``AttributeError`` (an unset slot, a user's misspelling). ``install()`` declares them on the
    class (``Missing``), which is then still as if it lacked them.

    >>> import ownership
    >>> ownership.ones(2).to_sparse()
    Traceback (most recent call last):
    ...
    NotImplementedError: ownership does not implement torch.Tensor.to_sparse; it covers ...
    >>> hasattr(ownership.ones(2), "no_such_name"), hasattr(ownership.Tensor, "to_sparse")
    (False, False)
    """
    return sorted(name for name in _TENSOR_NAMES if not hasattr(tensor, name))


def tensor_error(name: str) -> NotImplementedError:
    """The scope error of ``name``, a public name of torch's tensors that the engine lacks."""
    return missing(f"torch.Tensor.{name}", COVERS["torch.Tensor"])


class Missing(Absent):
    """A public name of torch's tensors that the engine lacks, declared on :class:`Tensor`:
    reading it on a tensor raises ``error(name)``. ``ownership.installation.install()``
    declares (:func:`declare_missing`) each name that :func:`missing_tensor_names` lists, with
    :func:`tensor_error` (``NotImplementedError``), in core's seam
    (:class:`ownership.core.tensor.Absent`).

    Otherwise the class is as if it lacked the name: read on the class, the name is Python's
    ``AttributeError`` (``hasattr(Tensor, name)`` is false); ``dir()`` of a tensor or of the
    class leaves it out (``Tensor.__dir__``, ``TensorMeta``: core's ``Absent``); and, not being a data
    descriptor, it is shadowed by a tensor's own attribute of that name (``t.__dict__``). (A
    ``Tensor.__getattr__`` would say the same in fewer lines, but CPython 3.11 specializes no
    attribute read of a class that has one: every ``t._data`` and ``t.dtype`` of every op would
    take the slow path, about 9% of an op's instructions.)"""

    __slots__ = ("error", "name")

    def __init__(self, name: str, error: Callable[[str], BaseException]) -> None:
        self.name = name
        self.error = error

    def __get__(self, tensor: Any, owner: type) -> Any:
        if tensor is None:  # as ``type.__getattribute__`` says it of a name the class lacks
            raise AttributeError(
                f"type object '{owner.__name__}' has no attribute '{self.name}'",
                name=self.name,
                obj=owner,
            )
        raise self.error(self.name)


def declare_missing(tensor: type) -> None:
    """Declare each of :func:`missing_tensor_names` a :class:`Missing` on ``tensor`` (core's
    ``Tensor``), raising :func:`tensor_error` when read on a tensor (``install()`` calls it)."""
    for name in missing_tensor_names(tensor):
        setattr(tensor, name, Missing(name, tensor_error))
