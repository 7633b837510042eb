"""Reading torch's autograd graph and aten schemas, for the torch watcher.

Small pure helpers: the tensors in a value, the nodes reachable from roots, the leaves a tensor
was computed from, whether two tensors' memory overlaps, which arguments an aten op writes, which
attributes of a node hold saved tensors.
"""

from __future__ import annotations

from typing import Any

import torch

from ownership.doctor.ledger import nodes

__all__ = ["arg", "leaves", "nodes", "overlap", "saved_attrs", "tensors", "written"]

_saved_names: dict[type, tuple[str, ...]] = {}
_written_args: dict[Any, tuple[int, ...]] = {}


def saved_attrs(node: Any) -> tuple[str, ...]:
    """The attributes of a graph node that hold its saved tensors (``_saved_self``...)."""
    kind = type(node)
    names = _saved_names.get(kind)
    if names is None:
        names = _saved_names[kind] = tuple(a for a in dir(node) if a.startswith("_saved_"))
    return names


def written(func: Any) -> tuple[int, ...]:
    """Positions of the arguments an aten op writes (empty for a pure op)."""
    found = _written_args.get(func)
    if found is None:
        found = _written_args[func] = tuple(
            i
            for i, a in enumerate(func._schema.arguments)
            if a.alias_info is not None and a.alias_info.is_write
        )
    return found


def tensors(value: Any) -> list[torch.Tensor]:
    """The tensors in ``value``: itself, or the tensors of a list or tuple."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


def leaves(t: torch.Tensor) -> list[torch.Tensor]:
    """The leaves requiring grad that ``t`` was computed from."""
    return [n.variable for n in nodes([t.grad_fn]) if hasattr(n, "variable")]


def overlap(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether the memory spans of ``a`` and ``b`` (same storage) intersect."""

    def span(t: torch.Tensor) -> tuple[int, int]:
        start = t.data_ptr()
        extent = sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True))
        return start, start + (extent + 1) * t.element_size()

    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 < b1 and b0 < a1 and a.numel() > 0 and b.numel() > 0


def arg(args: Any, i: int, default: Any) -> Any:
    """``args[i]``, or ``default`` when there are fewer arguments."""
    return args[i] if len(args) > i else default
