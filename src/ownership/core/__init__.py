"""The engine's core: the machinery of the unit's rules, below every other layer.

Storage and the version counter (:mod:`ownership.core.storage`), dtypes and promotion, shapes and
strides (:mod:`ownership.core.layout`), the one ``Tensor`` (:mod:`ownership.core.tensor` and its
``tensor_*`` parts), the grad modes and inference mode, the in-place contract
(:mod:`ownership.core.inplace_rules`), the op table the Tensor methods call through, the binder
their declared signatures bind arguments through (:mod:`ownership.core.binder`), and the
graph: nodes, saved tensors, the view history and the one backward loop
(:mod:`ownership.core.autograd`). Nothing here imports a higher layer (the ops, torch's parity
surface, ``nn``, ``optim``, the tools) nor the face ``ownership``; those fill core's seams once,
through :func:`ownership.installation.install`. Not here, though core calls them through such a
seam: the loop order of torch's CPU kernels (:mod:`ownership.ops.loop_order`), torch's print
format of a tensor's values (:mod:`ownership.printing`) and its scope errors for the names it has
and the engine lacks (:mod:`ownership.scope`).
"""
