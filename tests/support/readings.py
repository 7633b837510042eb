"""The outside readings the unit's pages assign, and their lengths, counted once.

A page assigns a reading in a paragraph that opens with "**Read first** (N min)" and links the
sections to read. ``support.page_time`` counts each linked section by the page-time rule, from
the words and lines of code in this table (never from the N the page states), and the page's N is
held to the rule's time of its readings (``tests/site/test_guide_budget.py``).

Each length was counted in the section's source as the site shows it, with the rule's word
pattern (``support.page_time._WORD``): prose, headings, math and the outputs shown count as words;
code as lines (the PyTorch version of a page with tabs, blank lines left out). Count a section
again when it changes, or when a page assigns a new one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    """One section a page assigns: what it is, its length, and what was counted."""

    title: str
    words: int
    code_lines: int
    counted: str


_AUTOGRAD_NOTES = "https://docs.pytorch.org/docs/stable/notes/autograd.html"
_D2L_AUTOGRAD = "https://d2l.ai/chapter_preliminaries/autograd.html"

#: Every reading a page may assign, by the address its link gives.
READINGS: dict[str, Reading] = {
    f"{_AUTOGRAD_NOTES}#in-place-operations-with-autograd": Reading(
        "PyTorch, Autograd mechanics: In-place operations with autograd",
        words=168,
        code_lines=0,
        counted="the section's text up to its subsection (docs/source/notes/autograd.rst)",
    ),
    f"{_AUTOGRAD_NOTES}#in-place-correctness-checks": Reading(
        "PyTorch, Autograd mechanics: In-place correctness checks",
        words=81,
        code_lines=0,
        counted="the subsection's text, heading included",
    ),
    f"{_D2L_AUTOGRAD}#a-simple-function": Reading(
        "D2L 2.5.1 A Simple Function",
        words=292,
        code_lines=14,
        counted="265 words of prose and 27 of the cells' outputs; the PyTorch tab's 14 lines "
        "(chapter_preliminaries/autograd.md)",
    ),
    f"{_D2L_AUTOGRAD}#detaching-computation": Reading(
        "D2L 2.5.3 Detaching Computation",
        words=213,
        code_lines=9,
        counted="203 words of prose and 10 of the cells' outputs; the PyTorch tab's 9 lines",
    ),
    "https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html": Reading(
        "torch.nn.Module: register_buffer, named_parameters and state_dict",
        words=437,
        code_lines=5,
        counted="the three methods' docstrings in torch 2.13 (165, 79 and 193 words; their "
        "examples' lines, xdoctest directives left out); the page names these three",
    ),
    "https://docs.pytorch.org/docs/stable/generated/torch.nn.parameter.Parameter.html": Reading(
        "torch.nn.Parameter",
        words=149,
        code_lines=0,
        counted="the class docstring in torch 2.13",
    ),
}
