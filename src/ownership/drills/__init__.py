"""Drills without end: seeded predict-then-reveal programs, classified by running them.

.. code-block:: text

    ownership drills --seed 7 --count 10 [--answers | --json | --interactive]

:func:`generate` builds ``count`` drills from a seed (the same seed gives the same drills):
short programs over views, in-place ops, ``detach``, ``.data``, accumulation, ``no_grad`` and
parameter/buffer registration, each with a question. :func:`~ownership.drills.classify.classify`
runs one in an engine and says whether it raises, computes something silently wrong (it differs
from its twin with the hazard taken out) or is correct; :func:`~ownership.drills.render.answer` words the reveal.

>>> from ownership.drills import generate
>>> [d.number for d in generate(seed=7, count=3)] == [1, 2, 3]
True
>>> generate(seed=7, count=5) == generate(seed=7, count=5)
True
"""

from __future__ import annotations

import random

from ownership.drills.classify import CLASSES, Outcome, classify
from ownership.drills.drill import Drill
from ownership.drills.render import answer, as_dict, as_text
from ownership.drills.templates import FAMILIES

__all__ = ["CLASSES", "Drill", "Outcome", "answer", "as_dict", "as_text", "classify", "generate"]


def _question(watch: tuple[str, ...]) -> str:
    names = " and ".join(f"`{w}`" for w in watch)
    verb = "are" if len(watch) > 1 else "is"
    return f"Does it raise? If it does not, what {verb} {names} at the end?"


def generate(seed: int, count: int = 10) -> list[Drill]:
    """``count`` drills from ``seed``: every family once, in a seeded order, before repeats.

    No family comes twice in a row.
    """
    rng = random.Random(seed)
    drills: list[Drill] = []
    families: list[int] = []
    last = -1
    while len(drills) < count:
        if not families:
            families = list(range(len(FAMILIES)))
            rng.shuffle(families)
            if drills and families[-1] == last:  # never the same family twice in a row
                families[0], families[-1] = families[-1], families[0]
        last = families[-1]
        topic, program, twin, question, watch = FAMILIES[families.pop()](rng)
        drills.append(
            Drill(
                number=len(drills) + 1,
                topic=topic,
                program="\n".join(program),
                twin="\n".join(twin),
                question=question or _question(watch),
                watch=watch,
            )
        )
    return drills
