"""pytest from the repository's root: the engine is imported whole, as a user imports it, before
any of its modules is collected for its doctests.

pytest's importlib mode runs the file of a module that is not imported yet a second time, as a
fresh module put in its place (``pytest src/ownership/core/op_registry.py tests/...``). The seams that
``import ownership`` fills (:mod:`ownership.installation`) would be empty in such a copy; with the
package imported first, pytest finds every module imported and runs none again.

The tests run torch, numpy's BLAS and the engine at one intra-op thread unless the caller's
environment says otherwise (``OMP_NUM_THREADS``), set here before either engine is imported, in
the main process and so in every pytest-xdist worker it starts. pytest runs a worker per core:
each with torch's default of a thread per core, the workers' OpenMP threads wait on each other:
on a busy two-core machine, 300 steps of a small network took 36 s instead of 2.3 s. With one thread, torch's parallel
loops run as one part, which the engine's split (``ownership.ops.cpu.parts``) follows; the split
into several parts is tested in a process of its own
(``tests/ops/test_thread_parts.py``).
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import ownership  # noqa: F401
