"""BatchNorm1d: parameters the optimizer trains, buffers the forward pass maintains.

The unit's example of the ownership split in one layer:

- ``weight`` and ``bias`` are **parameters**: they get gradients; only the optimizer writes them.
- ``running_mean``, ``running_var`` and ``num_batches_tracked`` are **buffers**: saved in
  ``state_dict``, never differentiated, written only by ``forward`` in training mode, outside
  the graph. Evaluation mode normalises with them instead of the batch's statistics.

>>> import ownership
>>> bn = BatchNorm1d(2)
>>> _ = bn(ownership.tensor([[1.0, 2.0], [3.0, 6.0]]))
>>> bn.running_mean, bn.running_var, bn.num_batches_tracked
(tensor([0.2000, 0.4000]), tensor([1.1000, 1.7000]), tensor(1))
"""

from __future__ import annotations

from typing import Any

from ownership.core import dtypes, grad_mode
from ownership.core.tensor import Tensor
from ownership.nn import functional as F
from ownership.nn import init
from ownership.nn.module import Module
from ownership.nn.parameter import Parameter
from ownership.ops.creation import ones, tensor, zeros

__all__ = ["BatchNorm1d"]


class BatchNorm1d(Module):
    """Normalise each feature (dim 1) of a ``(N, C)`` or ``(N, C, L)`` input over the batch.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``. In training mode ``mean`` and ``var``
    are the batch's (``var`` biased) and the running statistics move towards them:
    ``running = (1 - momentum) * running + momentum * batch``, with the *unbiased* variance for
    ``running_var``; ``momentum=None`` gives the cumulative average over
    ``num_batches_tracked`` batches. In evaluation mode the running statistics are used (the
    batch's if ``track_running_stats=False``). ``affine=False`` registers ``weight`` and
    ``bias`` as ``None``; ``track_running_stats=False`` registers the three buffers as ``None``.

    The forward is :func:`ownership.nn.functional.batch_norm`: one node,
    ``NativeBatchNormBackward0``, as torch's. It writes the running statistics the way torch's
    kernel does, without bumping their version (measured in 2.13: ``running_mean._version``
    stays 1 after a training step while ``num_batches_tracked``, updated with ``add_``, goes
    to 2).
    """

    num_features: int
    eps: float
    momentum: float | None
    affine: bool
    track_running_stats: bool
    weight: Parameter | None
    bias: Parameter | None
    running_mean: Tensor | None
    running_var: Tensor | None
    num_batches_tracked: Tensor | None

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(zeros(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(zeros(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batch seen (each written once, in place)."""
        if self.running_mean is not None and self.running_var is not None:
            with grad_mode.no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                if self.num_batches_tracked is not None:
                    self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Reset the running statistics, ``weight`` to ones and ``bias`` to zeros."""
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    _version = 2  # version 2 added num_batches_tracked

    def _load_from_state_dict(
        self,
        state_dict: dict[str, Any],
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        """A checkpoint older than version 2 (or without ``_metadata``) may lack
        ``num_batches_tracked``: the current value is kept, as torch does. From version 2 on
        the key is required like any other."""
        version = local_metadata.get("version")
        key = prefix + "num_batches_tracked"
        old = version is None or version < 2
        if old and self.track_running_stats and key not in state_dict:
            state_dict[key] = (
                self.num_batches_tracked
                if self.num_batches_tracked is not None
                # read as torch reads it (a module assigned over the buffer has no device)
                and self.num_batches_tracked.device.type != "meta"
                else tensor(0, dtype=dtypes.int64)
            )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def forward(self, input: Tensor) -> Tensor:
        """Normalise ``input``; in training mode also count the batch and update the buffers."""
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)  # in grad mode, as torch's (a leaf that requires
            # grad, assigned over the buffer, is refused)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        """The constructor's settings, as torch prints them."""
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )
