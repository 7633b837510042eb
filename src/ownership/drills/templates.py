"""The drill families: each builds one drill's program and twin from a seeded ``random.Random``.

Families: a saved output mutated (in place, through a view, a ``detach``, ``.data``, a
``clone``, or under ``no_grad``); a saved input mutated; a detached value reused, logged, cut
from a hidden layer or from the loss; gradients accumulated over two ``backward`` calls;
a parameter update with or without ``no_grad``; and a module's running state registered as a
buffer, a Parameter or a plain attribute. Values are small round numbers, so answers stay
readable.
"""

from __future__ import annotations

import random
from collections.abc import Callable

__all__ = ["FAMILIES", "OWNERSHIP_FACTS", "Parts"]

# (topic, program lines, twin lines, question ('' for the default), watched expressions)
Parts = tuple[str, list[str], list[str], str, tuple[str, ...]]

_VALUES = (-1.0, -0.5, 0.5, 1.0, 1.5, 2.0)
_GRAD_QUESTION = "Does `backward` raise? If it does not, what is `{}`?"
#: Shown in the answer of the registration drills, never compared with the twin.
OWNERSHIP_FACTS = (
    "[name for name, _ in model.named_parameters()]",
    "list(model.state_dict())",
)


def _x(rng: random.Random, name: str = "x") -> str:
    values = ", ".join(str(v) for v in rng.sample(_VALUES, 3))
    return f"{name} = torch.tensor([{values}], requires_grad=True)"


def saved_output(rng: random.Random) -> Parts:
    """``h = x.op()`` saves its output ``h``; then ``h`` is changed one way or another."""
    op, k = rng.choice(["exp", "sigmoid", "tanh"]), rng.choice([2, 3])
    way = rng.choice(["in place", "view", "detach", "data", "clone", "no_grad"])
    head = [_x(rng), f"h = x.{op}()"]
    tail = ["h.sum().backward()"]
    mutate, out = f"h.mul_({k})", f"h = h.mul({k})"
    if way == "in place":
        mutate, out = rng.choice([(mutate, out), (f"h.add_({k})", f"h = h.add({k})")])
        body, twin = [mutate], [out]
    elif way == "view":
        body = ["v = h[:2]", f"v.mul_({k})"]
        twin = [f"h = torch.cat([h[:2].mul({k}), h[2:]])"]
    elif way == "detach":
        body, twin = ["d = h.detach()", "d.zero_()"], ["h = h.mul(0)"]
    elif way == "data":
        body, twin = [f"h.data.mul_({k})"], [out]
    elif way == "clone":
        body, twin = ["g = h.clone()", f"g.mul_({k})"], ["g = h.clone()", f"g = g.mul({k})"]
        tail = ["(h.sum() + g.sum()).backward()"]
    else:
        body = ["with torch.no_grad():", f"    h.mul_({k})"]
        twin = ["with torch.no_grad():", f"    h2 = h.mul({k})"]
    return (
        f"saved output ({way})",
        head + body + tail,
        head + twin + tail,
        _GRAD_QUESTION.format("x.grad"),
        ("x.grad",),
    )


def saved_input(rng: random.Random) -> Parts:
    """``y = f(a)`` may save its input ``a``; then ``a`` is changed in place."""
    f = rng.choice(["a.pow(2)", "a * a", "a.sin()", "a.exp()", "a + 1", "a * 3"])
    k = rng.choice([1, 2])
    head = [_x(rng), rng.choice(["a = x * 1", "a = x.clone()"]), f"y = {f}"]
    tail = ["y.sum().backward()"]
    return (
        "saved input",
        [*head, f"a.add_({k})", *tail],
        [*head, f"a = a.add({k})", *tail],
        _GRAD_QUESTION.format("x.grad"),
        ("x.grad",),
    )


def detached(rng: random.Random) -> Parts:
    """A ``detach`` reused in the computation, kept for logging, in a hidden layer, or the loss."""
    way = rng.choice(["reuse", "log", "hidden", "loss"])
    if way in ("reuse", "log"):
        y = rng.choice(["x * x", "x.exp()", "x.sin()"])
        head = [_x(rng), f"y = {y}", "u = y.detach()"]
        twin_head = [head[0], head[1], "u = y"]
        if way == "reuse":
            tail = [rng.choice(["z = x * u", "z = u * u", "z = u + x"]), "z.sum().backward()"]
        else:
            tail = ["loss = (y * x).sum()", "logged = u.sum().item()", "loss.backward()"]
        return (f"detach ({way})", head + tail, twin_head + tail, "", ("x.grad",))
    w1 = [_x(rng, "w1"), "w2 = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)"]
    inputs = "x = torch.tensor([1.0, 2.0, -1.0])"
    if way == "hidden":
        body = ["h = torch.tanh(x * w1).detach()", "loss = (h * w2).sum()", "loss.backward()"]
        twin = ["h = torch.tanh(x * w1)", "loss = (h * w2).sum()", "loss.backward()"]
        watch: tuple[str, ...] = ("w1.grad", "w2.grad")
    else:
        body = ["loss = (torch.tanh(x * w1) * w2).sum().detach()", "loss.backward()"]
        twin = ["loss = (torch.tanh(x * w1) * w2).sum()", "loss.backward()"]
        watch = ("w1.grad",)
    head = [*w1, inputs]
    return (f"detach ({way})", head + body, head + twin, "", watch)


def accumulation(rng: random.Random) -> Parts:
    """Two ``backward`` calls into one ``.grad``: zeroed between, or not, or one graph twice."""
    way = rng.choice(["two batches", "zeroed", "retain_graph", "graph twice"])
    a, b = rng.sample([1.0, 2.0, 3.0, -1.0], 2)
    head = [_x(rng, "w")]
    first = f"(w * {a}).sum().backward()"
    second = f"(w * w * {b}).sum().backward()"
    if way == "two batches":
        body, twin = [first, second], [first, second]
    elif way == "zeroed":
        body = [first, "w.grad.zero_()", second]
        twin = [first, "w.grad = torch.zeros_like(w.grad)", second]
    else:  # one loss, meant to be back-propagated once
        keep = "retain_graph=True" if way == "retain_graph" else ""
        body = [f"loss = (w * w * {b}).sum()", f"loss.backward({keep})", "loss.backward()"]
        twin = [f"loss = (w * w * {b}).sum()", "loss.backward()"]
    return (f"accumulation ({way})", head + body, head + twin, "", ("w.grad",))


def update(rng: random.Random) -> Parts:
    """One hand-written SGD update of a leaf: under ``no_grad``, without it, or through .data."""
    way = rng.choice(["no_grad", "tracked", "data"])
    lr = rng.choice([0.1, 0.5])
    head = [
        _x(rng, "w")
        .replace("torch.tensor(", "torch.nn.Parameter(torch.tensor(")
        .replace(", requires_grad=True)", "))"),
        "loss = (w * w).sum()",
        "loss.backward()",
    ]
    if way == "no_grad":
        body = ["with torch.no_grad():", f"    w -= {lr} * w.grad"]
    elif way == "tracked":
        body = [f"w -= {lr} * w.grad"]
    else:
        body = [f"w.data -= {lr} * w.grad"]
    twin = ["with torch.no_grad():", f"    w -= {lr} * w.grad"]
    question = "Does the update raise? If it does not, what is `w` afterwards?"
    return (f"update ({way})", head + body, head + twin, question, ("w",))


def registration(rng: random.Random) -> Parts:
    """A layer keeping a running mean of its inputs: as a buffer, a Parameter or an attribute."""
    kind = rng.choice(["buffer", "Parameter", "attribute"])
    guarded = rng.random() < 0.5
    momentum = rng.choice([0.1, 0.5])
    register = {
        "buffer": 'self.register_buffer("mean", torch.zeros(2))',
        "Parameter": "self.mean = torch.nn.Parameter(torch.zeros(2))",
        "attribute": "self.mean = torch.zeros(2)",
    }
    write = f"self.mean.mul_({1 - momentum}).add_({momentum} * x.mean(0))"
    step = (
        ["        with torch.no_grad():", f"            {write}"]
        if guarded
        else [f"        {write}"]
    )

    rng_values = rng.sample(_VALUES, 2)

    def program(how: str, lines: list[str]) -> list[str]:
        return [
            "class Normalize(torch.nn.Module):",
            "    def __init__(self):",
            "        super().__init__()",
            "        self.linear = torch.nn.Linear(2, 1)",
            "        torch.nn.init.constant_(self.linear.weight, 0.5)",
            f"        {how}",
            "    def forward(self, x):",
            *lines,
            "        return self.linear(x - self.mean)",
            "",
            "model = Normalize()",
            "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
            f"model(torch.tensor([[1.0, 2.0], [{rng_values[0]}, {rng_values[1]}]])).sum().backward()",
            "opt.step()",
        ]

    twin_step = ["        with torch.no_grad():", f"            {write}"]
    question = (
        "Does the step raise? If it does not, which tensors does the optimizer own, which are "
        "saved in `state_dict()`, and what is `model.mean` after the step?"
    )
    return (
        f"registration ({kind}, {'no_grad' if guarded else 'grad mode on'})",
        program(register[kind], step),
        program(register["buffer"], twin_step),
        question,
        ("model.mean",),
    )


FAMILIES: tuple[Callable[[random.Random], Parts], ...] = (
    saved_output,
    saved_input,
    detached,
    accumulation,
    update,
    registration,
)
