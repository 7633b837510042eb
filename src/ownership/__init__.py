"""ownership: a numpy engine with PyTorch's contracts for aliasing, mutation and module ownership.

Write ``import ownership as torch`` and the programs of the unit run with torch's values,
``grad_fn`` names, ``_version`` numbers and errors.

>>> import ownership as torch
>>> x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> y = x.sigmoid()
>>> y.grad_fn.name(), y._version
('SigmoidBackward0', 0)
"""

from __future__ import annotations

from ownership import autograd, nn, ops, optim
from ownership._tensor import Tensor
from ownership.auditing import audit
from ownership.autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from ownership.dtypes import bool_ as bool
from ownership.dtypes import (
    dtype,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    set_default_dtype,
)
from ownership.dtypes import float32 as float
from ownership.dtypes import float64 as double
from ownership.dtypes import int32 as int
from ownership.dtypes import int64 as long
from ownership.functions import (
    abs,
    add,
    allclose,
    argmax,
    argmin,
    broadcast_shapes,
    chunk,
    clamp,
    clone,
    cos,
    detach,
    div,
    dot,
    eq,
    equal,
    exp,
    flatten,
    is_floating_point,
    is_tensor,
    log,
    log_softmax,
    matmul,
    max,
    mean,
    min,
    mm,
    mul,
    mv,
    narrow,
    neg,
    numel,
    permute,
    pow,
    promote_types,
    relu,
    reshape,
    select,
    sigmoid,
    sign,
    sin,
    softmax,
    split,
    sqrt,
    squeeze,
    sub,
    sum,
    t,
    tanh,
    transpose,
    unbind,
    unsqueeze,
    where,
)
from ownership.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ownership.inference_mode import inference_mode, is_inference, is_inference_mode_enabled
from ownership.layout import Size
from ownership.op_registry import quiet
from ownership.ops.creation import (
    arange,
    cat,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    stack,
    tensor,
    zeros,
    zeros_like,
)
from ownership.ops.nn_ops import addmm
from ownership.ops.statistics import norm, var, var_mean
from ownership.random import (
    Generator,
    initial_seed,
    manual_seed,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
)

__version__ = "0.1.0"

# The factories compute with numpy too (``tensor([1e40])`` overflows float32): like every op,
# they run with numpy's floating-point reports off (see ownership.op_registry.quiet).
arange = quiet(arange)
cat = quiet(cat)
eye = quiet(eye)
full = quiet(full)
linspace = quiet(linspace)
stack = quiet(stack)
tensor = quiet(tensor)
addmm = quiet(addmm)
norm = quiet(norm)
var = quiet(var)
var_mean = quiet(var_mean)

clip = clamp

__all__ = [
    "Generator",
    "Size",
    "Tensor",
    "__version__",
    "abs",
    "add",
    "addmm",
    "allclose",
    "arange",
    "argmax",
    "argmin",
    "audit",
    "autograd",
    "bool",
    "broadcast_shapes",
    "cat",
    "chunk",
    "clamp",
    "clip",
    "clone",
    "cos",
    "detach",
    "div",
    "dot",
    "double",
    "dtype",
    "empty",
    "empty_like",
    "enable_grad",
    "eq",
    "equal",
    "exp",
    "eye",
    "flatten",
    "float",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "full_like",
    "get_default_dtype",
    "inference_mode",
    "initial_seed",
    "int",
    "int32",
    "int64",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_floating_point",
    "is_grad_enabled",
    "is_inference",
    "is_inference_mode_enabled",
    "is_tensor",
    "linspace",
    "log",
    "log_softmax",
    "long",
    "manual_seed",
    "matmul",
    "max",
    "mean",
    "min",
    "mm",
    "mul",
    "mv",
    "narrow",
    "neg",
    "nn",
    "no_grad",
    "norm",
    "numel",
    "ones",
    "ones_like",
    "ops",
    "optim",
    "permute",
    "pow",
    "promote_types",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "randperm",
    "relu",
    "reshape",
    "select",
    "set_anomaly_enabled",
    "set_default_dtype",
    "set_grad_enabled",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "split",
    "sqrt",
    "squeeze",
    "stack",
    "sub",
    "sum",
    "t",
    "tanh",
    "tensor",
    "transpose",
    "unbind",
    "unsqueeze",
    "var",
    "var_mean",
    "where",
    "zeros",
    "zeros_like",
]
