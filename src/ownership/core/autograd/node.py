"""Graph nodes: what ``grad_fn`` points at.

A :class:`Node` knows its inputs' gradient edges (``next_functions``: a tuple of
``(node_or_None, input_nr)`` pairs, torch's structure) and how to turn the gradients of its
outputs into gradients of its inputs. :class:`OpNode` is the node of a built-in op: it keeps the
op's saved tensors (checked at unpack time, see :mod:`ownership.core.autograd.saved`) and the op's
backward function, written with tensor ops so that it is itself differentiable.
:class:`AccumulateGrad` sits at a leaf and sums gradients into its ``.grad``.

**The node the engine keeps and the node the user sees.** torch gives every node kind its own
class (``type(y.grad_fn).__name__ == "MulBackward0"``) with a property per saved value. The engine
records every op's node as a plain :class:`OpNode`, a class without an attribute hook, whose
attribute reads CPython 3.11 specializes (a ``__getattr__`` on the class would make each of the
engine's reads about three times slower). How a node is shown the first time it reaches the user
(``tensor.grad_fn``, ``node.next_functions``) is parity's, through the seam ``shown``
(:mod:`ownership.ops.named_nodes`: the same object, its class switched to one named after
the node, which serves ``_saved_<name>``).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import Any, cast

from ownership.core import observers
from ownership.core.autograd.hooks import NodeHooks
from ownership.core.autograd.saved import (
    FREED_MESSAGE,
    SavedTensor,
    save_into,
)

Edge = tuple["Node | None", int]
NO_EDGE: Edge = (None, 0)
"""The edge of an input that gets no gradient (a number, a tensor outside the graph)."""
Saved = dict[str, Any]
"""What a backward reads by name: exactly the values torch shows as ``grad_fn._saved_<name>``."""
Grads = tuple[Any, ...]


def shared_context(values: dict[str, Any]) -> Saved:
    """A node context (``_ctx``) one op gives every node it records, read-only: for an op
    whose node's context nothing writes after recording (no ``save(name, None)``, no
    ``save_state``), one object instead of a dict per op (a write would raise TypeError)."""
    return cast(Saved, MappingProxyType(values))


class _Gone:
    """What the reference :data:`NO_ACCUMULATOR` referred to, gone as soon as it was made."""


NO_ACCUMULATOR = weakref.ref(_Gone())
"""Every new tensor's ``_acc``: a weak reference already dead, which is what a leaf whose
accumulator is gone holds too (``_acc()`` is None: the next graph makes one; see
:func:`accumulator`). Set rather than left unset: a read of an unset slot fails (Python's
``AttributeError``), and recording an op over a fresh leaf reads it."""

SEQUENCE_NR_OF_LEAF = 2**64 - 1
"""torch's ``_sequence_nr()`` of an ``AccumulateGrad`` (``UINT64_MAX``): run after every node."""

_seq = itertools.count()
next_seq = _seq.__next__
"""The next node's sequence number: nodes are numbered in the order they are made."""


class Node:
    """A node of the backward graph. Its hook methods (``register_prehook``, ``register_hook``,
    ``_register_hook_dict``) are parity's, set on the class by
    ``ownership.installation.install()`` (:class:`ownership.autograd.graph.NodeHookMethods`);
    they fill the slot ``_pre_hooks`` the backward loop reads
    (:mod:`ownership.core.autograd.hooks`). What torch's nodes offer a program besides
    (``metadata``, a call ``grad_fn(*grads)``, the refusal to pickle) is parity's too, set the
    same way (:class:`ownership.autograd.graph.NodeMethods`), and so are its ``repr`` and
    ``dir()`` as torch's: the engine runs a node by :meth:`apply`."""

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
    # the hook registration, set on the class by ownership.installation.install (parity)
    register_prehook: Callable[[Callable[..., Any]], Any]
    register_hook: Callable[[Callable[..., Any]], Any]
    _register_hook_dict: Callable[[Any], None]

    def __init__(
        self,
        next_functions: tuple[Edge, ...],
        num_outputs: int = 1,
        input_dtypes: tuple[Any, ...] | None = None,
    ) -> None:
        self._edges = next_functions
        self.num_outputs = num_outputs
        self._seq = next_seq()
        self._retained: dict[int, weakref.ref[Any]] | None = None
        self._pre_hooks: NodeHooks | None = None  # every hook of the node (autograd.hooks)
        self.input_dtypes = input_dtypes  # gradients are cast to these (None: not cast)

    @property
    def next_functions(self) -> tuple[Edge, ...]:
        """torch's ``next_functions``: per input, ``(node, input_nr)`` or ``(None, 0)``, each node
        as the user sees it (the seam ``shown``); a new tuple at every read, as torch's."""
        return tuple([(shown(fn), nr) for fn, nr in self._edges])

    def name(self) -> str:
        """torch's name of the node, e.g. ``MulBackward0``."""
        return type(self).__name__

    def _sequence_nr(self) -> int:
        """torch's ``_sequence_nr()``: nodes made later have larger numbers (torch counts per
        thread from 0, so compare two numbers, never one with torch's)."""
        return self._seq

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        """Gradients of the inputs (one per ``next_functions`` entry) from those of the outputs."""
        raise NotImplementedError

    def release(self) -> None:
        """Free saved tensors (after a backward without ``retain_graph``)."""

    def retain(self, output_nr: int, tensor: Any) -> None:
        """Make ``tensor`` (output ``output_nr`` of this node) receive its gradient in ``.grad``.

        The node refers to the tensor weakly, as torch's retain_grad hook does: a tensor refers
        to its node, so a strong reference back would make a cycle that outlives the graph."""
        if self._retained is None:
            self._retained = {}
        self._retained[output_nr] = weakref.ref(tensor)


_init_node = Node.__init__  # bound once: an op's node is made on every recorded op


class OpNode(Node):
    """The node of a built-in op: a named backward function plus checked saved tensors.

    The saved values (``_ctx`` and ``_saved``, keyed by name) are exactly what torch shows as
    ``_saved_<name>``. What only the backward needs lives in typed slots, set by the op that
    needs it and never defaulted, so a backward that reads one its op did not set raises
    ``AttributeError`` instead of dropping a gradient:

    - ``needed``: per input, whether it gets a gradient (torch's ``should_compute_output``;
      set by ``ops.common.inputs_needed``);
    - ``input_shapes``: the inputs' shapes, to sum a broadcast gradient back to each;
    - ``other_number``: the ``other`` operand of ``mul``/``div`` when it was a Python number
      (``None`` for a tensor): torch saves it as a 0-d tensor but multiplies by the number.
    """

    __slots__ = (
        "_backward",
        "_ctx",
        "_freed_keys",
        "_name",
        "_saved",
        "_state_keys",
        "input_shapes",
        "needed",
        "other_number",
    )
    needed: tuple[bool, ...]
    input_shapes: tuple[tuple[int, ...], ...]
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
        _init_node(self, next_functions, num_outputs, input_dtypes)
        self._name = name
        self._backward = backward
        self._ctx = ctx if ctx is not None else {}
        self._saved: dict[str, SavedTensor] | None = None
        # the names of the saved values once freed (None: nothing saved was ever freed)
        self._freed_keys: tuple[str, ...] | None = None
        self._state_keys: tuple[str, ...] = ()

    def save_state(self, *names: str) -> None:
        """Context values torch keeps as saved tensors (an advanced index's tensors): freed with
        the saved tensors, so a second backward through this node raises torch's error."""
        self._state_keys = names
        if self._saved is None:
            self._saved = {}

    save = save_into  # ``node.save(name, tensor, is_output=False, on_view=False,
    # wrapped_number=False)``: one call per saved tensor (see ``autograd.saved.save_into``)

    def save_result(self, tensor: Any) -> None:
        """``save("result", tensor, is_output=True)`` for an op that saves its own fresh output
        (``tanh``, ``exp``, ``relu``)."""
        save_into(self, "result", tensor, True)

    def save_number(self, name: str, number: Any, make: Callable[[Any], Any]) -> None:
        """Save the Python number ``number`` as torch saves a wrapped number: the 0-d tensor
        ``make(number)``, which saved-tensor hooks never see."""
        save_into(self, name, make(number), wrapped_number=True)

    def name(self) -> str:
        return self._name

    def unpack_all(self) -> Saved:
        """All saved values by name, tensors unpacked (version-checked)."""
        saved = self._saved
        if saved is None:
            if self._freed_keys is not None:  # saved values were freed (``release``)
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
            state = self._state_keys
            self._freed_keys = tuple(saved) + state if state else tuple(saved)
            for k in state:
                self._ctx.pop(k, None)
            self._saved = None


BackwardFn = Callable[[OpNode, Saved, Grads], Sequence[Any]]
"""``backward(node, saved, grads)``: the gradients of the node's inputs from its outputs'.

``saved`` holds the unpacked saved values; what is not torch's to show (which inputs need a
gradient, input shapes) the backward reads from the node's typed slots."""


def _as_kept(node: Any) -> Any:
    """``shown`` of core alone: the node as the engine keeps it."""
    return node


shown: Callable[[Any], Any] = _as_kept
"""How a node reaches the user (``tensor.grad_fn``, ``node.next_functions``), a seam:
``ownership.installation.install()`` fills it with parity's
``ownership.ops.named_nodes.shown`` (an :class:`OpNode` switched to the class named after it,
torch's ``MulBackward0``, which serves ``_saved_<name>``); core alone shows the node it keeps."""


class AccumulateGrad(Node):
    """The node at a leaf: sums incoming gradients into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        Node.__init__(self, ())
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _sequence_nr(self) -> int:
        """torch's: the largest number, so an accumulator runs as soon as it is ready."""
        return SEQUENCE_NR_OF_LEAF

    def apply(self, grads: tuple[Any, ...]) -> Sequence[Any]:
        return ()


_ACCUMULATOR_LOCK = threading.Lock()
_lock, _unlock = _ACCUMULATOR_LOCK.acquire, _ACCUMULATOR_LOCK.release  # bound once
_weak = weakref.ref


def accumulator(tensor: Any) -> AccumulateGrad:
    """The (cached) AccumulateGrad node of a leaf; the leaf refers to it weakly, as in torch.

    Made under a lock, as torch's ``grad_accumulator()`` is: two threads building graphs over
    one leaf must get the same node, or a graph would end in a node that ``grad`` cannot find.
    """
    acc = tensor._acc()  # None until the first is made, and once it is gone
    return acc if acc is not None else _new_accumulator(tensor)


def _new_accumulator(tensor: Any) -> AccumulateGrad:
    """:func:`accumulator` once the leaf's cached node was found gone: asked again under the
    lock (another thread may have made it meanwhile), else made."""
    _lock()  # (a ``with`` block's enter and exit calls cost more)
    try:
        acc: AccumulateGrad | None = tensor._acc()
        if acc is None:
            acc = AccumulateGrad(tensor)
            tensor._acc = _weak(acc)
    finally:
        _unlock()
    return acc


def gradient_edge(tensor: Any) -> Edge:
    """Where the gradient of ``tensor`` flows: its grad_fn, its leaf accumulator, or nowhere."""
    if tensor is None:
        return NO_EDGE
    fn = tensor._node()  # a view's grad_fn may need a refresh
    if fn is not None:
        return (fn, tensor._output_nr)
    return leaf_edge(tensor)


def leaf_edge(tensor: Any) -> Edge:
    """:func:`gradient_edge` of a tensor without a ``grad_fn`` (its last case): its accumulator
    while it requires grad, else no edge."""
    if tensor._requires_grad:  # a view made under no_grad reports requires_grad but gets no edge
        return (accumulator(tensor), 0)
    return NO_EDGE
