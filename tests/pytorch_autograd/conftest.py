# Tests in this folder are adapted from PyTorch's test/test_autograd.py
# (https://github.com/pytorch/pytorch), Copyright (c) 2016- Facebook, Inc. and the PyTorch
# contributors, licensed under the BSD 3-Clause License (see PyTorch's LICENSE file).
"""PyTorch's own autograd tests, run differentially against torch and ownership.

Where they come from
    ``test/test_autograd.py`` of pytorch/pytorch (BSD-3-Clause; attribution kept in every file's
    header). Most tests follow the file as stored at commit ``0011ee059a1e`` (older than torch
    2.13); tests added to the file since (the grad-mode coroutine and decorator tests, the
    ``backward(inputs=...)`` tests, saved-tensor hooks, inference mode, in-place view ops, ...)
    follow a recent revision of the same file, and their module docstrings say so. Either way
    the answer compared is that of the installed torch 2.13; where torch has changed since the
    revision read (a warning that became an error, a reworded message), the test's docstring
    says so and asserts torch 2.13's answer.

What is adapted
    The tests whose subject is this unit: version counters, in-place ops on leaves and on views,
    saved tensors, ``detach`` and ``.data``, gradient accumulation, ``retain_graph``, the rules
    of ``requires_grad``, the grad modes and their decorators (``no_grad``, ``enable_grad``,
    ``set_grad_enabled``), and the arguments of ``backward`` and ``torch.autograd.grad``
    (``grad_outputs``, ``inputs``, ``create_graph``, ``allow_unused``, ``retain_graph``).

How
    Each test keeps its source test's name (``test_inplace`` for ``TestAutograd.test_inplace``)
    and says where it comes from. Its body is the original with ``torch`` replaced by ``t``, put
    in a *program* (a function of the engine module) that ``support.differential.same`` runs
    under torch and under ownership (and fails if the program is broken under torch itself);
    the facts the original asserts are returned, so both engines must agree on them, and the
    test also checks torch's answer against the original's assertion.
    ``randn`` is replaced by fixed values (the engines' random streams differ); a loop over
    cases in the original becomes a parametrised test or a list of results. ``assertRaises``
    becomes an exception the program lets escape, or a message recorded with
    ``differential.error_of``: both engines must raise the same class with the same message.
    Gradients are returned through ``differential.grad_of`` (a clone), since the ``_version``
    of a ``.grad`` buffer is an engine artefact; the versions of the caller's tensors are
    compared.

Expected failures
    Where ownership lacks a feature a test needs, or answers differently, the test is marked
    ``xfail(strict=True)`` with a reason that starts with ``gap:`` (a feature ownership does
    not have) or ``bug:`` (a wrong result or error). ``xfail_strict`` makes such a test fail
    once the gap is closed, so the mark is removed with the fix.

Not adapted
    Tests that need CUDA or several devices, sparse or complex tensors, forward-mode AD,
    functorch, nested tensors, the profiler, TorchScript, checkpointing, anomaly-mode internals,
    ``torch.autograd.functional`` (jacobian, hessian, vjp, ...), linear-algebra and FFT
    derivatives (``gradcheck`` of ops the engine does not have), legacy (non-static)
    ``Function`` internals, and deep-graph and memory-leak stress tests. Tests of the
    ``test_inplace_view_*`` family already ported in ``tests/inplace/test_inplace_view.py`` are
    not repeated here.
"""
