"""torch picks its CPU kernels when it loads (``ATEN_CPU_CAPABILITY``, else the CPU's best), and
its random values depend on the pick: the AVX2 build fuses ``a * b + c`` and samples float32
normals with Cephes' polynomials, the DEFAULT build neither; an AVX512 CPU runs the AVX2 build's
normal kernel. Whatever this process runs, a child process held to each build this CPU can run
must agree bit for bit too (``make pytest-baseline`` runs the whole suite at DEFAULT as well)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = """
import math
import ownership, torch
from support.bits import bits

def program(t):
    t.manual_seed(1)
    out = []
    for dt in (t.float32, t.float64):
        out += [t.rand(1000, dtype=dt), t.randn(1000, dtype=dt), t.randn(7, dtype=dt)]
        out += [t.zeros(300, dtype=dt).normal_(0.5, 0.02), t.zeros(40, dtype=dt).uniform_(-0.3, 2)]
        w = t.zeros(64, 33, dtype=dt)
        t.nn.init.kaiming_uniform_(w, a=math.sqrt(5))
        out.append(w.clone())
        t.nn.init.xavier_normal_(w)
        out.append(w.clone())
        out.append(t.nn.functional.dropout(t.ones(500, dtype=dt), 0.3))
    layer = t.nn.Linear(20, 7)
    return bits(*out, layer.weight, layer.bias)

print(torch.backends.cpu.get_cpu_capability(), program(torch) == program(ownership))
"""


def _run(capability: str) -> list[str]:
    """The capability torch ran with ``ATEN_CPU_CAPABILITY=capability`` in a child process, and
    whether the program drew the same bits under both engines there."""
    env = os.environ | {"ATEN_CPU_CAPABILITY": capability}
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (tests, env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600
    )
    return done.stdout.split() or [done.stderr]


@pytest.mark.parametrize("build", ["default", "avx2", "avx512"])
def test_every_build_of_torch_is_matched(build: str) -> None:
    ran = _run(build)
    if ran and ran[0] != build.upper():
        pytest.skip(f"this CPU cannot run torch's {build.upper()} build (torch ran {ran[0]})")
    assert ran == [build.upper(), "True"], ran


def test_a_capability_written_in_capitals_is_ignored() -> None:
    """torch reads ``ATEN_CPU_CAPABILITY`` in lower case only: ``DEFAULT`` names no build, so it
    runs the CPU's best, as with the variable unset, and the engine draws as it does."""
    ran = _run("DEFAULT")
    assert ran[1:] == ["True"], ran
