"""Drills are reproducible by seed, and each classification is the one torch gives.

Every seed the guide uses (found in its pages: ``generate(seed=N, count=K)`` and
``--seed N --count K``, with at least as many drills as the page shows) and a range of others are
generated, run under ownership and under torch, and must agree on the classification, the error
message and the values.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
import torch

import ownership
from ownership.drills import CLASSES, as_text, classify, generate

from support.inprocess import run_module

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide"
_USES = r"(?:generate\(seed=|--seed )(\d+)(?:,\s*count=|\s+--count\s+)(\d+)"
SITE_USES = {
    (int(seed), int(count))
    for page in GUIDE.glob("*.md")
    for seed, count in re.findall(_USES, page.read_text())
}
SITE_SEEDS = sorted({seed for seed, _ in SITE_USES})
COUNT = max([10, *(count for _, count in SITE_USES)])
SEEDS = sorted({*SITE_SEEDS, *range(25)})


def test_the_guide_uses_seeds() -> None:
    assert SITE_SEEDS, "no page generates drills"


def test_same_seed_same_drills_other_seed_other_drills() -> None:
    assert generate(7, 10) == generate(7, 10)
    assert generate(7, 10) != generate(8, 10)
    assert generate(7, 4) == generate(7, 10)[:4]


@pytest.mark.parametrize("seed", SEEDS)
def test_each_classification_is_torchs(seed: int) -> None:
    for drill in generate(seed, COUNT):
        mine, torchs = classify(drill, ownership), classify(drill, torch)
        assert mine == torchs, as_text(drill)
        assert mine.classification in CLASSES


def test_no_family_twice_in_a_row() -> None:
    for seed in range(25):
        families = [d.topic.split(" (")[0] for d in generate(seed, 30)]
        assert all(a != b for a, b in itertools.pairwise(families)), seed


def test_every_classification_and_topic_occurs() -> None:
    outcomes = [(d.topic, classify(d, ownership)) for s in range(12) for d in generate(s, 12)]
    assert {o.classification for _, o in outcomes} == set(CLASSES)
    topics = {t.split(" (")[0] for t, _ in outcomes}
    assert topics == {
        "saved output",
        "saved input",
        "detach",
        "accumulation",
        "update",
        "registration",
    }
    # the subjects: views, in-place ops, detach, .data, no_grad, registration kinds
    variants = {t for t, _ in outcomes}
    for variant in ("view", "in place", "detach", "data", "no_grad", "buffer", "Parameter"):
        assert any(f"({variant}" in t for t in variants), variant
    # and its questions: will backward raise? what is x.grad? what does the optimizer own?
    questions = {d.question for s in range(12) for d in generate(s, 12)}
    assert any("`backward` raise" in q and "`x.grad`" in q for q in questions)
    assert any("which tensors does the optimizer own" in q for q in questions)
    # a silently wrong drill is wrong because it differs from its twin, and says so
    wrong = [o for _, o in outcomes if o.classification == "silently wrong"]
    assert wrong and all(o.values != o.meant for o in wrong)


def test_json_gives_program_question_classification_and_answer() -> None:
    done = run_module("ownership.drills", "--seed", "3", "--count", "4", "--json")
    assert done.returncode == 0, done.stderr
    drills = json.loads(done.stdout)
    assert [d["number"] for d in drills] == [1, 2, 3, 4]
    for shown, drill in zip(drills, generate(3, 4), strict=True):
        assert shown["program"] == drill.program and shown["question"] == drill.question
        assert shown["classification"] == classify(drill, ownership).classification
        assert shown["answer"].startswith(shown["classification"])


def test_text_hides_answers_unless_asked() -> None:
    command = ("ownership.drills", "--seed", "5", "--count", "3")
    hidden = run_module(*command).stdout
    shown = run_module(*command, "--answers").stdout
    assert "Answer:" not in hidden and "--answers" in hidden
    assert shown.count("Answer:") == 3 and generate(5, 3)[0].program.splitlines()[0] in shown


#: The unit's hazards, as the hand-written drills of the completion page classify them.
UNIT_CLASSES = {
    "accumulation (retain_graph)": "silently wrong",  # the same gradient added twice
    "accumulation (graph twice)": "error",
    "registration (attribute, no_grad)": "silently wrong",  # not saved by state_dict()
    "registration (attribute, grad mode on)": "silently wrong",
    "registration (Parameter, no_grad)": "silently wrong",  # stepped by the optimizer
    "registration (buffer, no_grad)": "correct",
    "registration (buffer, grad mode on)": "correct",
    "saved output (clone)": "correct",
    "update (no_grad)": "correct",
}


def test_generated_drills_classify_hazards_as_the_unit_does() -> None:
    seen: dict[str, set[str]] = {}
    for seed in range(30):
        for drill in generate(seed, 12):
            if drill.topic in UNIT_CLASSES:
                seen.setdefault(drill.topic, set()).add(classify(drill, ownership).classification)
    assert seen == {topic: {cls} for topic, cls in UNIT_CLASSES.items()}
