"""``float(x)`` of a tensor that requires grad warns as torch 2.13 does: once per process.

torch raises the warning with ``TORCH_WARN_ONCE``, so whether it appears depends on what the
process did before. Each program therefore runs in a fresh interpreter, where both engines start
from "not warned yet".
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]  # on the new interpreter's path, as on pytest's


def _same_in_fresh_process(body: str) -> None:
    """Run ``same(program)`` with ``program(t)`` given by ``body`` in a new interpreter."""
    script = textwrap.dedent(
        """
        from support.differential import same

        def program(t):
        {body}

        same(program)
        """
    ).format(body=textwrap.indent(textwrap.dedent(body), "    "))
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    env = os.environ | {"PYTHONPATH": path}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]


def test_float_of_a_tensor_that_requires_grad_warns_once() -> None:
    _same_in_fresh_process(
        """
        x = t.tensor([2.0], requires_grad=True)
        with t.no_grad():
            quiet = float(x)  # no warning with grad mode off, and the once is not used up
        others = [int(x), bool(x), x.item(), x.tolist(), float(x.detach())]  # never warn
        first = float(x * 3)  # warns (a non-leaf too)
        again = float(x)  # torch warns only once per process
        return [quiet, others, first, again]
        """
    )


def test_float_of_a_leaf_warns_with_torch_message() -> None:
    _same_in_fresh_process(
        """
        x = t.tensor(1.5, dtype=t.float64, requires_grad=True)
        return float(x)
        """
    )
