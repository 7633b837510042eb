"""``repr`` of a tensor, following torch/_tensor_str.py for the cases a learner meets.

Floats print with 4 decimals (``0.1000``), or as ``1.`` when every value is integral, or in
scientific notation when magnitudes span more than 1000x; columns are right-aligned to a common
width; lines wrap at 80 characters; more than 1000 elements are summarised with ``...``. And
``format(t, spec)`` (:func:`tensor_format`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ownership.core.tensor import Tensor

LINEWIDTH = 80
PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3


class _Formatter:
    def __init__(self, values: NDArray[Any], floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        vals = flat.astype(np.float64)
        vals = vals[np.isfinite(vals) & (vals != 0)]
        if vals.size == 0:
            return
        absv = np.abs(vals)
        vmin, vmax = float(absv.min()), float(absv.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if self.int_mode:
            if vmax / vmin > 1000.0 or vmax > 1.0e8:
                self.sci_mode = True
                for v in vals.tolist():
                    self.max_width = max(self.max_width, len(f"{v:.{PRECISION}e}"))
            else:
                for v in vals.tolist():
                    self.max_width = max(self.max_width, len(f"{v:.0f}") + 1)
        elif vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4:
            self.sci_mode = True
            for v in vals.tolist():
                self.max_width = max(self.max_width, len(f"{v:.{PRECISION}e}"))
        else:
            for v in vals.tolist():
                self.max_width = max(self.max_width, len(f"{v:.{PRECISION}f}"))

    def format(self, value: Any) -> str:
        if self.floating:
            value = float(value)
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRECISION}f}"
        else:
            ret = str(value)
        return (self.max_width - len(ret)) * " " + ret


def _summarized(values: NDArray[Any]) -> NDArray[Any]:
    """The edge items torch shows of a big tensor (to compute the column width)."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        parts = [values[:EDGEITEMS], values[-EDGEITEMS:]]
        values = np.concatenate([_summarized(p) for p in parts])
        return values
    return np.stack([_summarized(v) for v in values]) if values.ndim > 1 else values


def _vector(values: NDArray[Any], indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, math.floor((LINEWIDTH - indent) / element_length))
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        data = (
            [fmt.format(v) for v in values[:EDGEITEMS].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in values[-EDGEITEMS:].tolist()]
        )
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(values: NDArray[Any], indent: int, summarize: bool, fmt: _Formatter) -> str:
    dim = values.ndim
    if dim == 0:
        return fmt.format(values.item())
    if dim == 1:
        return _vector(values, indent, summarize, fmt)
    n = values.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        slices = (
            [_tensor_str(values[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)]
            + ["..."]
            + [_tensor_str(values[i], indent + 1, summarize, fmt) for i in range(n - EDGEITEMS, n)]
        )
    else:
        slices = [_tensor_str(values[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(
    values: NDArray[Any],
    floating: bool,
    dtype_suffix: str | None,
    grad_suffix: str | None,
    prefix: str = "tensor(",
) -> str:
    """The repr torch prints for a tensor with these values, dtype suffix and grad suffix.

    >>> tensor_repr(np.array([0.1, 0.2]), True, None, "requires_grad=True")
    'tensor([0.1000, 0.2000], requires_grad=True)'
    """
    indent = len(prefix)
    suffixes: list[str] = []
    summarize = values.size > THRESHOLD
    if values.size == 0:
        body = "[]"
        if values.ndim != 1:
            suffixes.append("size=" + str(tuple(values.shape)))
    else:
        fmt = _Formatter(_summarized(values) if summarize else values, floating)
        body = _tensor_str(values, indent, summarize, fmt)
    if dtype_suffix:
        suffixes.append(dtype_suffix)
    if grad_suffix:
        suffixes.append(grad_suffix)
    return _add_suffixes(prefix + body, suffixes, indent)


def tensor_format(self: Tensor, format_spec: str) -> str:
    """``format(t, spec)`` (``f"{loss:.4f}"``), the Tensor's ``__format__`` (set on the class by
    ``ownership.installation.install()``), as torch's: a 0-d tensor of the class ``Tensor`` itself
    formats as its number; any other as ``object`` formats it (its ``str`` for an empty spec).

    >>> import ownership
    >>> f"{ownership.tensor(2.5):.2f}", f"{ownership.tensor([2.5])}"
    ('2.50', 'tensor([2.5000])')
    """
    if self._data.ndim == 0 and type(self) is Tensor:
        return format(self._data.item(), format_spec)
    return object.__format__(self, format_spec)
