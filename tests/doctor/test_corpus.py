"""Every corpus script, under every engine it declares: exactly the findings its header expects.

A buggy script gets its findings with their lines (and the lines of each related role); a clean
script gets none; a script that raises keeps its exit status 1 and torch's message unchanged.

A buggy script is also what a learner sees of it (``docs/_ext/learner_scripts.py``: no header,
no docstring, ``import torch`` for the engine switch; ``docs/recipes/find-the-line.md`` shows it):
that copy, run as it is, gets the same findings, at its own lines.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from learner_scripts import PREFIX, learner_copy, lines_dropped

from ownership.doctor import diagnose

from support.doctor_corpus import Script, corpus

CASES = [
    pytest.param(script, engine, id=f"{script.path.stem}-{engine}")
    for script in corpus()
    for engine in script.engines
]


def test_the_corpus_has_every_code_and_clean_scripts() -> None:
    from ownership.doctor import CODES

    declared = {e.code for s in corpus() for e in s.expected}
    assert declared == set(CODES)
    assert sum(not s.expected for s in corpus()) >= 8


@pytest.mark.parametrize(("script", "engine"), CASES)
def test_findings_match_the_header(
    script: Script, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCTOR_ENGINE", engine)
    result = diagnose(script.path)
    got = {(f.code, f.line): f for f in result.findings}
    assert set(got) == {(e.code, e.line) for e in script.expected}, result.findings
    for e in script.expected:
        finding = got[(e.code, e.line)]
        assert finding.file == str(script.path)
        for role, lines in e.roles.items():
            assert finding.lines(role) == lines, (role, finding.related)
    assert ("torch" in result.engines) == (engine == "torch")


@pytest.mark.parametrize(("script", "engine"), CASES)
def test_the_script_fails_or_succeeds_as_without_the_doctor(
    script: Script, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCTOR_ENGINE", engine)
    try:
        runpy.run_path(str(script.path), run_name="__main__")
        alone = None
    except Exception as exc:
        alone = f"{type(exc).__name__}: {exc}"
    result = diagnose(script.path)
    if alone is None:
        assert (result.exit_status, result.error) == (0, None)
    else:
        assert result.exit_status == 1
        assert result.error is not None
        assert result.error.rstrip("\n").endswith(alone)
        assert "ownership/doctor" not in result.error


BUGS = [s for s in corpus() if s.path.name.startswith(PREFIX)]


@pytest.mark.parametrize("script", BUGS, ids=lambda s: s.path.stem)
def test_the_learners_copy_gets_the_findings_at_its_own_lines(
    script: Script, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DOCTOR_ENGINE", raising=False)
    name = script.path.name.removeprefix(PREFIX)
    copy = tmp_path / name
    copy.write_text(learner_copy(name))
    shift = lines_dropped(name)
    own = copy.read_text().splitlines()
    below = own.index("import torch") + 1  # the script's own code, line for line
    assert own[below:] == script.path.read_text().splitlines()[below + shift :]
    result = diagnose(copy)
    got = {(f.code, f.line): f for f in result.findings}
    assert set(got) == {(e.code, e.line - shift) for e in script.expected}, result.findings
    for e in script.expected:
        finding = got[(e.code, e.line - shift)]
        for role, lines in e.roles.items():
            assert finding.lines(role) == [n - shift for n in lines], (role, finding.related)
