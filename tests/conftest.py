import sys
from pathlib import Path

# The differential harness lives beside the tests: make `import differential` work for every test.
sys.path.insert(0, str(Path(__file__).parent))


def pytest_report_header() -> str:
    """The SIMD kernels numpy and torch run in this session (see tests/kernels.py)."""
    import kernels

    return kernels.summary()
