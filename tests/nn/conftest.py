import sys
from pathlib import Path

# `import nn_models` (the shared model builders) from the nn, optim and audit tests.
sys.path.insert(0, str(Path(__file__).parent))
