"""torch's loops split among threads (``at::parallel_for``), with the engine's split
(:func:`ownership.ops.cpu.parts`) at two threads, in a process of its own: the suite itself runs
at one thread (the root ``conftest.py``), where every loop is one part.

The thread count is read once, when each engine is imported, so the programs run in a fresh
interpreter with ``OMP_NUM_THREADS=2``, whatever the machine's cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROGRAM = """
import json
import numpy as np
import torch
import ownership
from ownership.ops import cpu

def arange(t):  # each thread's part starts its own vector blocks from the scalar formula
    return t.arange(0.3, 49_000.7, 0.7, dtype=t.float32).numpy()

threads = [torch.get_num_threads(), cpu.threads()]
ours, theirs = arange(ownership), arange(torch)
torch.set_num_threads(1)
one_part = arange(torch)

print(json.dumps({
    "threads": threads,
    "parts": cpu.parts(100_000),
    "arange": bool(np.array_equal(ours, theirs)),
    "split matters": int((theirs != one_part).sum()),
    "small": cpu.parts(1_000),
}))
"""


def test_two_threads_split_a_loop_as_torch_does() -> None:
    env = dict(os.environ, OMP_NUM_THREADS="2")
    env.pop("MKL_NUM_THREADS", None)
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, check=True
    )
    seen = json.loads(done.stdout)
    assert seen["threads"] == [2, 2]
    assert seen["parts"] == [[0, 50_000], [50_000, 100_000]]
    assert seen["small"] == [[0, 1_000]]  # below GRAIN_SIZE: one part, whatever the threads
    assert seen["split matters"] > 0, "torch's values at two threads differ from one thread's"
    assert seen["arange"], "arange's values over two threads' parts differ from torch's"
