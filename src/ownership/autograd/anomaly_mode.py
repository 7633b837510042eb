"""``torch.autograd.anomaly_mode``, the public face: ``detect_anomaly`` and ``set_detect_anomaly``.

The mode itself (the forward stacks saved tensors keep, the NaN check, the in-place writes the
version error lists) is :mod:`ownership.core.autograd.anomaly_mode`.
"""

from __future__ import annotations

from ownership.core.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly"]
