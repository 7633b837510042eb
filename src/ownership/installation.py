"""The one place where a higher layer fills what a lower one leaves open: :func:`install`.

The engine is built in layers: core (storage and version counter, layout, the tensor, the graph
and saved tensors, the in-place contract, backward), then the ops, then torch's parity surface,
then ``nn`` and ``optim``, then the tools. No module imports one of a higher layer, not even
inside a function (``tests/build/test_layers.py`` checks it). Where a lower layer needs what a
higher one defines, it leaves a named seam, and ``import ownership`` calls :func:`install` once to
fill every seam here, in one list a reader can follow:

>>> from ownership.core import binder, op_registry, surface
>>> op_registry.ops.add.__module__
'ownership.ops.arithmetic'
"""

from __future__ import annotations

from ownership import autograd, out_argument, printing, random, scope, serialization
from ownership.arguments import torch_binding
from ownership.autograd import anomaly_mode
from ownership.autograd import graph as agraph
from ownership.autograd.function import Function, FunctionCtx
from ownership.autograd.gradcheck import GradcheckError, gradcheck
from ownership.core import (
    binder,
    inplace_rules,
    observers,
    op_registry,
    surface,
    tensor_metadata,
)
from ownership.core import tensor as core_tensor
from ownership.core.autograd import node, saved, view_history
from ownership.core.tensor import Tensor
from ownership.nn.parameter import Parameter, make_subclass
from ownership.ops import (
    argument_values,
    devices,
    grad_attribute,
    inplace_fills,
    leaf_grad_dtype,
    loop_order,
    methods,
    named_nodes,
    out_variants,
    table,
    unbound_calls,
)

__all__ = ["install"]


def install() -> None:
    """Fill the seams of the lower layers. ``ownership/__init__.py`` calls it once, after
    importing every layer; calling it again changes nothing."""
    # core's op table, which the Tensor methods call, holds the ops of ownership.ops
    op_registry.install(table)
    # the Tensor's declared methods (ops/methods.py), each calling its op through that table
    surface.install(Tensor, table, methods.DECLARED, unbound_calls.unbound)
    # the graph: saved tensors under saved-tensor hooks keep a leaf's accumulator
    saved._accumulator = node.accumulator
    # an in-place write over memory an input shares follows the loop order of torch's CPU kernels
    inplace_rules.write_aliased = loop_order.write_aliased
    # the samplers of the in-place fills draw from random's generators
    inplace_fills._stream_of = random.stream_of
    # anomaly mode (parity): saved tensors, nodes and the backward loop ask it through core's seam
    observers.ANOMALY = anomaly_mode.MODE
    # hook registration (parity): the Tensor's and the nodes' methods fill the tables where the
    # backward loop calls the hooks (core.autograd.hooks), before the scope error's names below
    for name in ("register_hook", "register_post_accumulate_grad_hook"):
        setattr(Tensor, name, getattr(agraph.TensorHookMethods, name))
    for name in ("register_prehook", "register_hook", "_register_hook_dict"):
        setattr(node.Node, name, getattr(agraph.NodeHookMethods, name))
    # what torch's nodes offer a program besides (parity): the edges, the order, metadata, a call,
    # no pickling, repr, dir
    for name in (
        "next_functions",
        "_sequence_nr",
        "metadata",
        "__call__",
        "__reduce_ex__",
        "__repr__",
        "__dir__",
    ):
        setattr(node.Node, name, agraph.NodeMethods.__dict__[name])
    node.AccumulateGrad.__call__ = agraph.call_accumulator  # type: ignore[method-assign]
    # a node reaches the user as torch shows it (parity): its class named after it, ``_saved_*``
    node.shown = named_nodes.shown
    # and a view's ``AsStridedBackward0`` shows torch's saved values (parity)
    for name in ("_saved_size", "_saved_stride", "_saved_storage_offset", "__dir__"):
        setattr(view_history.AsStridedBackward0, name, named_nodes.AsStridedSaved.__dict__[name])
    # a leaf's ``grad_dtype`` (parity): torch's property and its checks over core's rule
    Tensor.grad_dtype = leaf_grad_dtype.GRAD_DTYPE  # type: ignore[assignment]
    # ``t.grad`` (parity): torch's property over the slot the backward loop accumulates into
    Tensor.grad = grad_attribute.GRAD  # type: ignore[assignment]
    # the checks of one argument value read 0-d tensors as numbers
    argument_values.install(Tensor)
    # torch's argument parser (parity) binds the calls of every declared method and function
    binder.install(torch_binding)
    # the pointwise functions write a given ``out=`` in torch's order (parity)
    out_variants.install(out_argument.write_out)
    # torch.autograd's custom Function and gradcheck (parity), in the graph's namespace
    autograd.Function, autograd.FunctionCtx = Function, FunctionCtx
    autograd.GradcheckError, autograd.gradcheck = GradcheckError, gradcheck
    # ``Tensor._make_subclass``, which nn's Parameter is made by: a leaf aliasing its data
    setattr(Tensor, "_make_subclass", classmethod(make_subclass))  # noqa: B010
    # torch.save and torch.load (parity) pickle and rebuild nn's Parameter as torch's
    serialization.install(Parameter)
    # copy.deepcopy, copy.copy and pickle of a tensor rebuild it as torch's (parity)
    for name in ("__deepcopy__", "__reduce_ex__"):
        setattr(Tensor, name, getattr(serialization.TensorCopying, name))
    # a public name of torch's tensors that the engine lacks raises the scope error (parity),
    # declared on the class (``scope.Missing``: no ``__getattr__``, which would slow every attribute read)
    scope.declare_missing(Tensor)
    # every tensor's device is torch.device('cpu') (parity's ``device``, with torch's parsing)
    tensor_metadata.CPU = devices.CPU
    # a tensor's repr prints its values in torch's format (parity)
    core_tensor.tensor_repr = printing.tensor_repr
    # ``format(t, spec)`` formats a 0-d tensor as its number (parity)
    setattr(Tensor, "__format__", printing.tensor_format)  # noqa: B010
    # torch writes these methods in Python: a call Python refuses names them as torch's (parity)
    # (not the hook methods: the site's autodoc finds a method's class by its qualified name in
    # its module, autograd.graph, which has no ``Tensor``)
    for name in ("__deepcopy__", "__reduce_ex__", "__format__"):
        getattr(Tensor, name).__qualname__ = f"Tensor.{name}"
