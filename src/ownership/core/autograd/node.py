"""Graph nodes, what ``grad_fn`` points at: :class:`Node`, a built-in op's :class:`OpNode`, a
leaf's :class:`AccumulateGrad`; how a node is shown to the user is parity's (the seam ``shown``).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import Any, ClassVar, cast

from ownership.core import observers
from ownership.core.autograd.grad_dtype import target
from ownership.core.autograd.hooks import NodeHooks
from ownership.core.autograd.saved import FREED_MESSAGE, SavedTensor, SavedTensorList, save_into

Edge = tuple["Node | None", int]
NO_EDGE: Edge = (None, 0)
"""The edge of an input that gets no gradient (a number, a tensor outside the graph)."""
Saved = dict[str, Any]
"""What a backward reads by name: exactly the values torch shows as ``grad_fn._saved_<name>``."""
Grads = tuple[Any, ...]


def shared_context(values: dict[str, Any]) -> Saved:
    """A read-only node context (``_ctx``) one op gives every node it records."""
    return cast(Saved, MappingProxyType(values))


class _Gone:
    """What :data:`NO_ACCUMULATOR` referred to."""


NO_ACCUMULATOR = weakref.ref(_Gone())
"""Every new tensor's ``_acc``: a dead weak reference (see :func:`accumulator`)."""

next_seq = itertools.count().__next__
"""The next node's sequence number: nodes are numbered in the order they are made."""


class Node:
    """A node of the backward graph, run by :meth:`apply`; torch's node surface is parity's, set
    on the class by ``install()`` (:class:`ownership.autograd.graph.NodeMethods`...)."""

    __slots__ = (
        "__weakref__",
        "_edges",
        "_metadata",
        "_pre_hooks",
        "_retained",
        "_seq",
        "input_dtypes",
        "num_outputs",
    )
    _metadata: dict[str, Any]  # unset until ``metadata`` is first read (parity's property)
    keeps_unneeded: ClassVar[bool] = False
    """Whether its hooks see a gradient this backward does not need: a custom Function's node
    (torch's ``PyNode``) passes on what its backward returned; a built-in one computes none."""
    register_prehook: Callable[[Callable[..., Any]], Any]
    register_hook: Callable[[Callable[..., Any]], Any]
    _register_hook_dict: Callable[[Any], None]

    def __init__(
        self, next_functions: tuple[Edge, ...], num_outputs: int = 1, input_dtypes: Any = None
    ) -> None:
        self._edges = next_functions
        self.num_outputs = num_outputs
        self._seq = next_seq()
        self._retained: dict[int, weakref.ref[Any]] | None = None
        self._pre_hooks: NodeHooks | None = None  # every hook of the node (autograd.hooks)
        self.input_dtypes: tuple[Any, ...] | None = input_dtypes  # gradients cast to these

    def name(self) -> str:
        """torch's name of the node, e.g. ``MulBackward0``."""
        return type(self).__name__

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        """Gradients of the inputs (one per ``next_functions`` entry) from those of the outputs."""
        raise NotImplementedError

    def release(self) -> None:
        """Free saved tensors (after a backward without ``retain_graph``)."""

    def retain(self, output_nr: int, tensor: Any) -> None:
        """Make ``tensor`` (output ``output_nr`` of this node) receive its gradient in ``.grad``;
        referred to weakly, as torch's retain_grad hook does (no cycle outliving the graph)."""
        if self._retained is None:
            self._retained = {}
        self._retained[output_nr] = weakref.ref(tensor)


class OpNode(Node):
    """The node of a built-in op: a named backward function plus checked saved tensors.

    ``_ctx`` and ``_saved`` hold what torch shows as ``_saved_<name>``; what only the backward
    reads (``needed``, ``input_shapes``, ``other_number``) is in slots its op must set."""

    __slots__ = (
        "_backward",
        "_ctx",
        "_freed_keys",
        "_name",
        "_saved",
        "input_shapes",
        "needed",
        "other_number",
    )
    needed: tuple[bool, ...]
    input_shapes: tuple[tuple[int, ...] | None, ...]  # None: reduced by validate_outputs
    other_number: int | float | bool | None

    def __init__(
        self,
        name: str,
        next_functions: tuple[Edge, ...],
        backward: BackwardFn,
        ctx: Saved | None = None,
        num_outputs: int = 1,
        input_dtypes: tuple[Any, ...] | None = None,
    ) -> None:
        Node.__init__(self, next_functions, num_outputs, input_dtypes)
        self._name = name
        self._backward = backward
        self._ctx = ctx if ctx is not None else {}
        self._saved: dict[str, SavedTensor | SavedTensorList] | None = None
        self._freed_keys: tuple[str, ...] | None = None  # the saved names, once freed

    save = save_into  # ``node.save(name, tensor, is_output=False, on_view=False, ...)``

    def save_result(self, tensor: Any) -> None:
        """``save("result", tensor, is_output=True)``: an op saving its own fresh output."""
        save_into(self, "result", tensor, True)

    def save_number(self, name: str, number: Any, make: Callable[[Any], Any]) -> None:
        """Save a Python number as torch saves a wrapped number: the 0-d tensor ``make(number)``,
        which saved-tensor hooks never see."""
        save_into(self, name, make(number), wrapped_number=True)

    def name(self) -> str:
        return self._name

    def unpack_all(self) -> Saved:
        """All saved values by name, tensors unpacked (version-checked)."""
        saved = self._saved
        if saved is None:
            if self._freed_keys is not None:
                raise RuntimeError(FREED_MESSAGE)
            return self._ctx
        vals = self._ctx.copy()
        for k, s in saved.items():
            try:
                vals[k] = s.unpack(self)
            except RuntimeError:
                if s.trace is not None:  # anomaly mode: torch's warning naming the forward call
                    observers.ANOMALY.on_backward_error(self.name(), s.trace)
                raise
        return vals

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        return self._backward(self, self.unpack_all(), grads)

    def release(self) -> None:
        saved = self._saved
        if saved is not None:
            self._freed_keys = tuple(saved)
            self._saved = None


BackwardFn = Callable[[OpNode, Saved, Grads], Sequence[Any]]
"""``backward(node, saved, grads)``: the gradients of the node's inputs from its outputs'."""


def _as_kept(node: Any) -> Any:
    return node


shown: Callable[[Any], Any] = _as_kept
"""How a node reaches the user (``tensor.grad_fn``), a seam: ``install()`` gives it
``ownership.ops.named_nodes.shown``."""


class AccumulateGrad(Node):
    """The node at a leaf: sums incoming gradients into ``variable.grad``. Its ``grad_dtype`` is
    torch's input metadata: the dtype every gradient is cast to on its way here (None: none), the
    leaf's when the node was made (``grad_dtype.target``). A ``.data`` of another dtype gives the
    leaf a new node later, this one keeps its dtype; setting ``t.grad_dtype`` changes it."""

    __slots__ = ("grad_dtype", "variable")

    def __init__(self, variable: Any) -> None:
        Node.__init__(self, ())
        self.variable = variable
        self.grad_dtype = target(variable)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        return ()


_ACCUMULATOR_LOCK = threading.Lock()


def accumulator(tensor: Any) -> AccumulateGrad:
    """The (cached) AccumulateGrad node of a leaf, referred to weakly, as in torch; made under a
    lock, so two threads building graphs over one leaf get the same node."""
    acc = tensor._acc()  # None until the first is made, and once it is gone
    if acc is not None:
        return acc  # type: ignore[no-any-return]
    with _ACCUMULATOR_LOCK:
        acc = tensor._acc()
        if acc is None:
            acc = AccumulateGrad(tensor)
            tensor._acc = weakref.ref(acc)
    return acc  # type: ignore[no-any-return]


def gradient_edge(tensor: Any) -> Edge:
    """Where the gradient of ``tensor`` flows: its grad_fn, its leaf accumulator, or nowhere."""
    if tensor is None:
        return NO_EDGE
    fn = tensor._node()  # a view's grad_fn may need a refresh
    if fn is not None:
        return (fn, tensor._output_nr)
    return leaf_edge(tensor)


def leaf_edge(tensor: Any) -> Edge:
    """:func:`gradient_edge` of a tensor without a ``grad_fn``: its accumulator while it
    requires grad, else no edge."""
    if tensor._requires_grad:  # a view made under no_grad reports requires_grad but gets no edge
        return (accumulator(tensor), 0)
    return NO_EDGE
