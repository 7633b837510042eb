"""No page gives an answer away before its reveal: the words a learner reads between a Predict
and the output that answers it (the prose, the cell's comments, its print labels) name no outcome.

A Predict's reveal is the first code cell after it: its output is folded (``hide-output``), and
until the learner opens it nothing on the way may say "no error", "the trap", "the fix", "would
be" or the like. Folded outputs themselves are checked on the built site (``tests/site``).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(
    p for folder in ("guide", "related", "recipes") for p in (DOCS / folder).glob("*.md")
)

#: Words that state an outcome: an error or its absence, a verdict, a comparison with the answer.
OUTCOME = re.compile(
    r"\bno error\b|\braises?\b|\bfails?\b|\bthe trap\b|\bthe fix\b|\bwrong\b|\bsilent(ly)?\b"
    r"|\bwould be\b|\bwent through\b|\bchanged too\b|\bstill counted\b|\bnot recorded\b"
    r"|\bcorrect(ly)?\b|^ran$|\bworks\b|\brefused\b",
    re.I,
)
_CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)\n```", re.S)
_PREDICT = re.compile(r"\*\*Predict\b")


def _code_of(cell: str) -> str:
    """A cell's source without its option lines (``:tags:``, ``:expect:``)."""
    lines = cell.splitlines()
    while lines and (lines[0].startswith(":") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def _comments(code: str) -> list[str]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError):
        return [line.split("#", 1)[1] for line in code.splitlines() if "#" in line]
    return [t.string.lstrip("# ") for t in tokens if t.type == tokenize.COMMENT]


def _labels(code: str) -> list[str]:
    """The string constants printed by the cell (``print("label:", value)``)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
            for arg in node.args:
                for sub in ast.walk(arg):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                        out.append(sub.value.strip(" :|"))
    return out


def before_reveal(text: str) -> list[tuple[str, str]]:
    """For each Predict: the prose up to its reveal cell, the cell's comments and print labels."""
    found = []
    for match in _PREDICT.finditer(text):
        cell = _CELL.search(text, match.end())
        if cell is None:
            continue
        prose = text[match.start() : cell.start()]
        code = _code_of(cell.group(1))
        found += [("prose", p) for p in re.split(r"(?<=[.?!])\s+", prose)]
        found += [("comment", c) for c in _comments(code)]
        found += [("label", label) for label in _labels(code)]
    return found


def _answers(text: str) -> list[str]:
    out = []
    for kind, words in before_reveal(text):
        # the Predict itself may ask whether something raises; only a statement answers
        if kind == "prose" and (words.rstrip().endswith("?") or "Predict" in words):
            continue
        if OUTCOME.search(words):
            out.append(f"{kind}: {words.strip()!r}")
    return out


@pytest.mark.parametrize("page", PAGES, ids=[f"{p.parent.name}/{p.name}" for p in PAGES])
def test_no_answer_between_a_predict_and_its_reveal(page: Path) -> None:
    found = _answers(page.read_text(encoding="utf-8"))
    assert not found, f"{page.name} answers a Predict before its reveal: {found}"


@pytest.mark.parametrize(
    "planted",
    [
        "h.sum().backward()  # no error ...",
        "    hidden = hidden.detach()  # the trap",
        'print("dz/dx:", x.grad, " 3x^2 would be:", 3 * x)',
        'print("y changed too:", y)',
        'print("ran")',
    ],
)
def test_the_check_finds_a_planted_answer(planted: str) -> None:
    page = f"**Predict.** What happens?\n\n```{{code-cell}} ipython3\n:tags: [hide-output]\n\n{planted}\n```\n"
    assert _answers(page), planted


def test_the_check_lets_a_question_and_neutral_labels_pass() -> None:
    page = (
        "**Predict.** Does `backward` raise? Is the gradient correct?\n\n"
        "```{code-cell} ipython3\n:tags: [hide-output]\n\n"
        'h.mul_(2)  # a write under no_grad\nprint("x.grad:", x.grad)\n```\n'
    )
    assert _answers(page) == []
