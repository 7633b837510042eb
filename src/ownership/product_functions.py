"""The ``torch.*`` products of matrices and vectors (``matmul``, ``mm``, ``bmm``, ``mv``, ``dot``,
``addmm``; ``outer`` is made from its declaration, :mod:`ownership.functions`), with torch's refusal of the ``out_dtype`` overloads on the CPU."""

from __future__ import annotations

from typing import Any, cast

from ownership.core import op_registry
from ownership.core.binder import Signatures
from ownership.core.tensor import Tensor
from ownership.ops import signatures as sig
from ownership.ops.op_table import OpTable

ops: OpTable[Tensor] = op_registry.ops


def matmul(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.matmul(input, other)``."""
    a = sig.FN_MATMUL.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].matmul(a["other"]))


def mm(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.mm(input, mat2)``."""
    a = sig.FN_MM.parse(args, kwargs)[1]
    if "out_dtype" in a:
        _no_cpu_kernel("mm")
    return cast(Tensor, a["input"].mm(a["mat2"]))


def bmm(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.bmm(input, mat2)``; ``out=`` refused (ownership writes no given tensors)."""
    a = sig.FN_BMM.parse(args, kwargs)[1]
    if "out_dtype" in a:
        _no_cpu_kernel("bmm")
    return cast(Tensor, a["input"].bmm(a["mat2"]))


def _no_cpu_kernel(name: str) -> None:
    """torch's refusal of an ``out_dtype`` overload on the CPU (its message goes on to list the
    backends that have the kernel, and where each was registered)."""
    raise NotImplementedError(
        f"Could not run 'aten::{name}.dtype' with arguments from the 'CPU' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build). If you are a Facebook employee "
        "using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible "
        "resolutions."
    )


def mv(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.mv(input, vec)``."""
    a = sig.FN_MV.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].mv(a["vec"]))


def dot(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.dot(input, tensor)``."""
    a = sig.FN_DOT.parse(args, kwargs)[1]
    return cast(Tensor, a["input"].dot(a["tensor"]))


def addmm(*args: Any, **kwargs: Any) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``, one ``AddmmBackward0``; ``out=`` refused
    (ownership writes no given tensors), ``out_dtype`` as torch refuses it on the CPU."""
    a = _ADDMM.parse(args, kwargs)[1]
    if "out_dtype" in a:
        _no_cpu_kernel("addmm")
    return ops.addmm(a["input"], a["mat1"], a["mat2"], beta=a["beta"], alpha=a["alpha"])


_ADDMM = Signatures(
    "addmm",
    "(Tensor input, Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1, "
    "Tensor out = None)",
    "(Tensor input, Tensor mat1, Tensor mat2, torch.dtype out_dtype, *, Number beta = 1, "
    "Number alpha = 1, Tensor out = None)",
)
