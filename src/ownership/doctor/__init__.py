"""The doctor: run a PyTorch or ownership program unchanged and name the line that broke it.

``ownership doctor [--json] [--strict] SCRIPT.py [args]`` (:mod:`~ownership.doctor.cli`, also
``python -m ownership.doctor``) runs the script, keeps its output, error
and exit status, then reports each finding with a stable code
(:data:`~ownership.doctor.findings.CODES`), the line of the user's own code it points to, and what
to do. :func:`~ownership.doctor.runner.diagnose` does the same from Python.

Layers: above the engine, ``nn`` and ``optim``; the engine never imports the doctor (it calls the
doctor through ``ownership.core.observers``), and torch is imported only when the script uses it.
"""

from __future__ import annotations

from ownership.doctor.findings import CODES, Finding, Place
from ownership.doctor.report import to_json, to_text
from ownership.doctor.runner import Diagnosis, diagnose

__all__ = ["CODES", "Diagnosis", "Finding", "Place", "diagnose", "to_json", "to_text"]
