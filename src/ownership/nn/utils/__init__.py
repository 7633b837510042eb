"""``nn.utils``: utilities that mutate gradients or parameters in place.

- :func:`clip_grad_norm_` / :func:`clip_grad_value_`: scale or clamp every ``.grad`` in place
  (each write bumps that gradient's version, as torch's do); :func:`get_total_norm` and
  :func:`clip_grads_with_norm_` are ``clip_grad_norm_``'s two halves.
- :func:`parameters_to_vector` / :func:`vector_to_parameters`: flatten parameters into one new
  vector (a copy, in the graph), and make parameters *alias* slices of a vector.
"""

from ownership.nn.utils.clip_grad import (
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from ownership.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "vector_to_parameters",
]
