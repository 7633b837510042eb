"""Checks of the built site: they need ``_build/html`` (``make html``) and skip without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.sitepages import SKIP_REASON, site_dir, site_exists


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site's folder; the test is skipped when there is none."""
    if not site_exists():
        pytest.skip(SKIP_REASON.format(path=site_dir()))
    return site_dir()
