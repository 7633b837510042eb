"""Every corpus script, under every engine it declares: exactly the findings its header expects.

A buggy script gets its findings with their lines (and the lines of each related role); a clean
script gets none; a script that raises keeps its exit status 1 and torch's message unchanged.
"""

from __future__ import annotations

import runpy

import pytest

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
