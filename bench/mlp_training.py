"""The guide's MLP training run, as a script: a 64-32-10 network, full-batch SGD, cross-entropy.

The same loop as the "Training signatures" page, on data shaped like its digits (1,347 images of
64 pixels, 10 classes; random here, so that the script needs no dataset). ``bench/run.py`` runs it
plain and under ``python -m ownership.doctor`` to measure the doctor's overhead.

Usage: ``python bench/mlp_training.py [--engine torch|ownership] [--steps N]``.
"""

from __future__ import annotations

import argparse
import importlib

import numpy as np

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
parser.add_argument("--engine", default="torch", choices=["torch", "ownership"])
parser.add_argument("--steps", type=int, default=30)
args = parser.parse_args()
torch = importlib.import_module(args.engine)

rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((1347, 64)).astype(np.float32))
y = torch.tensor(rng.integers(0, 10, size=1347).astype(np.int64))
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(args.steps):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
