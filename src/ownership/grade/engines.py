"""Which engine grades the learner's code, and how its ``import torch`` finds it.

``torch`` (the default) grades a learner's PyTorch code as PyTorch code; torch is imported here,
lazily, and nowhere else in the grader. ``ownership`` makes the learner's ``import torch`` (and
``import torch.nn``, ``from torch import optim``, ...) resolve to ``ownership``: inside
:func:`as_torch`, every ``ownership.X`` module is also ``torch.X`` in ``sys.modules``.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from types import ModuleType

__all__ = ["ENGINES", "as_torch", "engine"]

#: The engines a learner's code can run in.
ENGINES = ("torch", "ownership")


def engine(name: str) -> ModuleType:
    """The engine module called ``name`` (one of :data:`ENGINES`), imported on first use."""
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
    module = importlib.import_module(name)
    if name == "ownership":
        for sub in ("nn", "nn.functional", "optim", "autograd"):
            importlib.import_module(f"ownership.{sub}")
    return module


@contextlib.contextmanager
def as_torch(module: ModuleType) -> Iterator[None]:
    """Within the block, ``import torch`` (and its submodules) gives ``module``'s counterparts.

    For ``torch`` itself this changes nothing. ``sys.modules`` is restored on exit.
    """
    if module.__name__ == "torch":
        yield
        return
    prefix = module.__name__
    aliases = {
        "torch" + name[len(prefix) :]: sub
        for name, sub in list(sys.modules.items())
        if name == prefix or name.startswith(prefix + ".")
    }
    saved = {name: sys.modules.get(name) for name in aliases}
    sys.modules.update(aliases)
    try:
        yield
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
