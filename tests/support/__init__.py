"""Helpers shared by the tests, imported as ``support`` (``pyproject.toml`` puts ``tests`` on
pytest's ``pythonpath``): ``from support.differential import same``. What each module holds, and
where a test goes, is in ``tests/README.md``."""
