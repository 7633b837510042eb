"""The engine's core: the machinery of the unit's rules, below every other layer.

Storage and version counter, dtypes, layout, the one ``Tensor``, the grad and inference modes, the
in-place contract (:mod:`ownership.core.inplace_rules`), the op table, the binder and the graph
(:mod:`ownership.core.autograd`). Nothing here imports a higher layer nor the face ``ownership``:
those fill core's seams once, through :func:`ownership.installation.install`.
"""
