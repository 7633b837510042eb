"""The baseline-kernel run (``make pytest-baseline``) really holds numpy and torch to baseline
kernels: the variables it sets take effect, in this process and in a fresh one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import torch

from support import kernels

HELPER = Path(kernels.__file__)


def test_the_numpy_features_asked_off_are_off() -> None:
    on = kernels.features()
    assert [f for f in kernels.requested() if on.get(f)] == []


def test_torch_runs_the_capability_asked_for() -> None:
    asked = os.environ.get("ATEN_CPU_CAPABILITY")
    capability = torch.backends.cpu.get_cpu_capability()
    assert capability == asked.upper() if asked else capability != ""


def test_the_baseline_variables_take_effect_in_a_fresh_process() -> None:
    """What the Makefile and nox do: ask the helper, then start Python with both variables."""
    env = dict(os.environ)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    names = subprocess.run(
        [sys.executable, str(HELPER)], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    env |= {"NPY_DISABLE_CPU_FEATURES": names, "ATEN_CPU_CAPABILITY": "default"}
    code = "from support import kernels; import torch; print(kernels.dispatchable(), torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env | {"PYTHONPATH": str(HELPER.parents[1])},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["[]", "DEFAULT"], out
    assert out.stderr == ""
