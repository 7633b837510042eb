"""The unit's two practice exercises. Fill in both functions, then grade each one:

    ownership grade collect practice_starter.py
    ownership grade sgd practice_starter.py

(``python -m ownership.grade ...`` is the same command.) The command comes with the ownership
wheel, linked from the practice page: ``pip install ownership-<version>-py3-none-any.whl``.
Your code is run with PyTorch. To run it with ownership standing in for torch, add
``--engine ownership``.
"""

import torch


def collect_parameters(module: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    """The module's parameters with their dotted names, exactly as named_parameters() lists them.

    - Find them by recursion over what each module registered: its own parameters
      (``module._parameters``, a dict name -> Parameter or None) and its children
      (``module._modules``, a dict name -> Module or None).
    - Order: a module's own parameters first, in registration order, then each child's.
    - A parameter shared by several modules (tied) appears once, under its first name.
    - Return the Parameter objects themselves, not copies, views or detached tensors.
    - Do not call named_parameters(), parameters() or state_dict().
    """
    raise NotImplementedError


def sgd_step(model: torch.nn.Module, loss_fn, x: torch.Tensor, y: torch.Tensor, lr: float) -> float:
    """One full step of plain gradient descent on the batch (x, y); return the loss as a float.

    Zero the gradients, run the forward pass, compute loss_fn(model(x), y), call backward, then
    update every parameter in place, outside gradient tracking: p <- p - lr * p.grad.
    Step parameters only (not buffers). Return the loss computed before the update.
    """
    raise NotImplementedError
