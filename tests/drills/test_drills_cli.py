"""The drills' command: ``--count`` below 1 is refused; ``--interactive`` asks, reveals and scores.

Each case runs the command as ``python -m ownership.drills`` and as the ``ownership drills``
subcommand, with the learner's answers fed on standard input: in this process
(:mod:`support.inprocess`), except where a real subprocess is the point (Ctrl-C, and one run of
each form).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

import ownership
from ownership.drills import classify, generate
from ownership.drills.quiz import PROMPT, parse_prediction

from support.inprocess import run_module

FORMS = {"module": ("ownership.drills",), "subcommand": ("ownership", "drills")}
LETTER = {"error": "e", "silently wrong": "s", "correct": "c"}


def drills(
    *args: str, form: str = "module", answers: str = "", real: bool = False
) -> subprocess.CompletedProcess[str]:
    if not real:
        return run_module(*FORMS[form], *args, stdin=answers)
    return subprocess.run(
        [sys.executable, "-m", *FORMS[form], *args],
        input=answers,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("count", ["0", "-3"])
def test_a_count_below_one_is_refused(count: str, form: str) -> None:
    done = drills("--seed", "7", "--count", count, form=form)
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"error: argument --count: must be at least 1 (got {count})" in done.stderr


def test_a_count_that_is_not_a_number_is_refused() -> None:
    done = drills("--count", "many")
    assert done.returncode == 2 and "not a whole number: 'many'" in done.stderr


def _classes(seed: int, count: int) -> list[str]:
    return [classify(d, ownership).classification for d in generate(seed, count)]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_interactive_asks_reveals_and_scores_drill_by_drill(form: str) -> None:
    truth = _classes(7, 3)
    wrong = next(c for c in LETTER if c != truth[1])
    # right, then an answer that names nothing (asked again), wrong, right
    answers = f"{LETTER[truth[0]]}\nperhaps\n{LETTER[wrong]}\n{truth[2]}\n"
    done = drills("--seed", "7", "--count", "3", "-i", form=form, answers=answers)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count(PROMPT) == 4
    assert "Answer error, silently wrong or correct (e, s or c); q stops." in out
    # one drill at a time: drill 2 is shown only after drill 1's answer is revealed
    assert out.index("Drill 1") < out.index("Right. Answer: ") < out.index("Drill 2")
    assert out.index("Drill 2") < out.index(f"Not quite: you said {wrong}.") < out.index("Drill 3")
    assert out.rstrip().endswith("Score: 2/3 predicted right.")
    assert "Answers: " not in out and done.stderr == ""


def test_the_end_of_the_input_stops_with_the_score_so_far() -> None:
    truth = _classes(7, 3)
    done = drills("--seed", "7", "--count", "3", "--interactive", answers=LETTER[truth[0]] + "\n")
    assert done.returncode == 0, done.stderr
    assert "Drill 2" in done.stdout and "Drill 3" not in done.stdout
    assert done.stdout.rstrip().endswith(
        "Stopped after 1 of 3 drills.\nScore: 1/1 predicted right."
    )
    assert "Traceback" not in done.stderr


def test_q_stops_and_no_answer_is_no_score() -> None:
    done = drills("--count", "2", "-i", answers="q\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("Stopped after 0 of 2 drills.\nScore: no drill answered.")


def test_ctrl_c_stops_with_the_score_so_far() -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "ownership", "drills", "--count", "2", "-i"]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        seen = b""
        while not seen.endswith(PROMPT.encode()):  # the first drill waits for a prediction
            byte = proc.stdout.read(1)
            assert byte, f"the command ended before asking: {seen.decode()!r}"
            seen += byte
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert out.decode().rstrip().endswith("Stopped after 0 of 2 drills.\nScore: no drill answered.")
    assert b"Traceback" not in err


def test_interactive_is_its_own_mode() -> None:
    done = drills("-i", "--json")
    assert done.returncode == 2 and "not allowed with argument" in done.stderr


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("e", "error"),
        ("Error", "error"),
        ("s", "silently wrong"),
        ("silently  wrong", "silently wrong"),
        ("c", "correct"),
        (" correct ", "correct"),
        ("q", "quit"),
        ("", None),
        ("yes", None),
    ],
)
def test_parse_prediction(typed: str, meant: str | None) -> None:
    assert parse_prediction(typed) == meant


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_printed_drills_say_how_to_see_the_answers_in_the_same_form(form: str) -> None:
    done = drills("--seed", "7", "--count", "2", form=form, real=True)  # each form, for real
    assert done.returncode == 0, done.stderr
    prog = " ".join(FORMS[form]).replace("ownership.drills", "python -m ownership.drills")
    assert done.stdout.rstrip().endswith(
        f"Answers: {prog} --seed 7 --count 2 --answers (or one at a time: {prog} --seed 7 "
        "--count 2 -i)"
    )
