"""The MLP step's backward agrees with torch: what a hook sees of a gradient (its values,
view-ness, version, history) and the order the nodes run in, every node made ready going through
the ready queue (see ``test_backward_fast_paths`` for the queue's order).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from support.differential import grad_of, same


def _seen_gradients(t: Any, create_graph: bool) -> list[Any]:
    """The bench's MLP step with a hook on every tensor of the graph: the order the hooks run
    in and what each sees (value, view-ness, version, history), then the leaves' gradients."""
    rng = np.random.default_rng(5)
    w1, b1, w2, b2 = (
        t.tensor(rng.standard_normal(s).astype(np.float32).tolist(), requires_grad=True)
        for s in ((4, 3), (3,), (3, 2), (2,))
    )
    x = t.tensor(rng.standard_normal((2, 4)).astype(np.float32).tolist())
    y = t.tensor([1, 0])
    seen: list[Any] = []

    def watch(name: str, v: Any) -> Any:
        v.register_hook(lambda g: seen.append([name, g.detach().clone(), g._is_view(), g._version]))
        return v

    for name, p in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)):
        watch(name, p)
    pre = watch("pre", x @ w1 + b1)
    hidden = watch("hidden", t.nn.functional.relu(pre))
    logits = watch("logits", hidden @ w2 + b2)
    logp = watch("logp", t.nn.functional.log_softmax(logits, 1))
    value = t.nn.functional.nll_loss(logp, y)
    value.backward(create_graph=create_graph)
    grads = [grad_of(p) for p in (w1, b1, w2, b2)]
    return [seen, grads, [p.grad.grad_fn for p in (w1, b1, w2, b2)]]


@pytest.mark.parametrize("create_graph", [False, True])
def test_the_mlp_steps_gradients_and_their_order_are_torchs(create_graph: bool) -> None:
    # torch warns that create_graph makes a reference cycle (a known gap, not this test's)
    same(lambda t: _seen_gradients(t, create_graph), warnings=not create_graph)


def _micrograd_order(t: Any) -> list[str]:
    """micrograd's step (``nn.Linear`` layers, a margin loss and an L2 penalty summed in Python,
    so that many nodes wait in the ready queue): the order in which the hooks of every
    intermediate tensor and the leaves' post-accumulate hooks run."""
    t.manual_seed(0)
    rng = np.random.default_rng(1)
    x = t.tensor(rng.standard_normal((6, 2)).astype(np.float32).tolist())
    y = t.tensor(rng.choice([-1.0, 1.0], size=(6, 1)).astype(np.float32).tolist())
    model = t.nn.Sequential(t.nn.Linear(2, 4), t.nn.ReLU(), t.nn.Linear(4, 1))
    out: list[str] = []
    for i, p in enumerate(model.parameters()):
        p.register_post_accumulate_grad_hook(lambda p, i=i: out.append(f"leaf {i}"))

    def watch(name: str, v: Any) -> Any:
        v.register_hook(lambda g: out.append(name))
        return v

    scores = watch("scores", model(x))
    data = watch("data", (1 - y * scores).relu().mean())
    squares = [watch(f"square {i}", (p * p).sum()) for i, p in enumerate(model.parameters())]
    penalty = watch("penalty", sum(squares))
    (data + 1e-4 * penalty).backward()
    return out


def test_nodes_made_ready_one_at_a_time_run_in_torchs_order() -> None:
    same(_micrograd_order)
