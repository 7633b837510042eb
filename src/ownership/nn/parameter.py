"""Parameter: the tensor a module registers for the optimizer.

A ``Parameter`` is a leaf :class:`~ownership.Tensor` that shares storage *and* version counter
with the tensor it was made from, requires grad by default (even when created under
``no_grad``), and prints as ``Parameter containing:``. Assigning one to a module attribute
registers it (see :meth:`ownership.nn.Module.__setattr__`); results of operations on it, and its
views, are plain tensors.

>>> import ownership
>>> data = ownership.zeros(2)
>>> p = Parameter(data)
>>> p
Parameter containing:
tensor([0., 0.], requires_grad=True)
>>> with ownership.no_grad():
...     _ = data.add_(1)  # the same storage and counter: p sees it
>>> p._version, p.tolist()
(1, [1.0, 1.0])
"""

from __future__ import annotations

from typing import Any

from ownership.core.tensor import Tensor, TensorMeta
from ownership.ops.creation import zeros

__all__ = ["Buffer", "Parameter", "make_subclass", "reset_grad"]


def make_subclass(cls: type[Tensor], *args: Any, **kwargs: Any) -> Tensor:
    """torch's ``Tensor._make_subclass`` (set on the Tensor as a class method by
    ``ownership.installation.install()``): an instance of a subclass aliasing ``data``'s storage
    and version counter, a leaf.

    Called torch's way, ``Tensor._make_subclass(Sub, data, requires_grad)``, or on the
    subclass, ``Sub._make_subclass(data, requires_grad)``. This is what :class:`Parameter`
    uses; ``requires_grad`` is set as given even under ``no_grad``.
    """
    target = cls
    if args and isinstance(args[0], type):
        target, args = args[0], args[1:]
    data: Tensor = args[0] if args else kwargs["data"]
    requires_grad = bool(
        args[1] if len(args) > 1 else kwargs.get("require_grad", kwargs.get("requires_grad", False))
    )
    if requires_grad and not data.dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t = data._alias(data._version_counter, target)
    t._requires_grad = requires_grad
    return t


class Parameter(Tensor):
    """A leaf tensor that a module owns and an optimizer updates.

    ``Parameter(data)`` aliases ``data``'s storage and version counter; it is a leaf even when
    ``data`` is not (the graph behind ``data`` is cut, as by ``detach``) and requires grad
    unless ``requires_grad=False``, whatever the grad mode. ``Parameter()`` is an empty one.
    Integer data cannot require grad (torch's ``RuntimeError``).
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = zeros(0)
        made: Parameter = make_subclass(cls, data, requires_grad)  # type: ignore[assignment]
        return made

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        """Everything happens in ``__new__`` (the arguments are not used again here)."""

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        """A Parameter over a fresh copy of the values (version 0), once per ``deepcopy``."""
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.data.clone(), self.requires_grad)
        copied: Parameter = memo[id(self)]
        return copied

    def __reduce_ex__(self, protocol: Any) -> Any:
        """torch's: a Parameter rebuilt over its pickled ``data`` (so at version 1), no grad."""
        return (type(self), (self.data, self.requires_grad))


class _BufferMeta(TensorMeta):
    """Makes ``isinstance(t, Buffer)`` true of any tensor marked ``_is_buffer`` (torch's rule)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if (
            cls is Buffer
            and isinstance(instance, Tensor)
            and getattr(instance, "_is_buffer", False)
        ):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor marked as a buffer: assigning it to a module attribute registers it as one.

    ``Buffer(data, persistent=True)`` is not a new kind of tensor: it returns
    ``data.detach()`` (same storage and version counter, the same ``requires_grad``, a leaf)
    marked with ``persistent`` and ``_is_buffer = True``, and ``isinstance(x, Buffer)`` is true
    of any tensor so marked. ``self.name = Buffer(t, persistent=False)`` in a module is
    ``self.register_buffer(name, t.detach(), persistent=False)``. ``Buffer()`` is an empty one.
    """

    persistent: bool
    _is_buffer: bool

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:  # type: ignore[misc]
        if data is None:
            data = zeros(0)
        marked: Tensor = data.detach().requires_grad_(data.requires_grad)
        marked.persistent = persistent  # type: ignore[attr-defined]
        marked._is_buffer = True  # type: ignore[attr-defined]
        return marked


def reset_grad(tensor: Tensor, set_to_none: bool = True) -> None:
    """Forget ``tensor.grad`` before the next backward: set it to ``None``, or zero it in place.

    The one rule behind ``Module.zero_grad`` and ``Optimizer.zero_grad``. Zeroing in place
    first cuts the gradient out of any graph (``detach_``) so the zeros are a plain leaf.
    """
    grad = tensor.grad
    if grad is None:
        return
    if set_to_none:
        tensor.grad = None
        return
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()
