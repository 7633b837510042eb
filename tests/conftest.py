import sys
from pathlib import Path

# The differential harness lives beside the tests: make `import differential` work for every test.
sys.path.insert(0, str(Path(__file__).parent))
