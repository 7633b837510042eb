"""ownership: a numpy engine with PyTorch's contracts for aliasing, mutation and module ownership."""

__version__ = "0.1.0"
