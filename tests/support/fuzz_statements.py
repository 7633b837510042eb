"""The statements of the fuzzer's random programs: plain torch source, one line (or block) each.

:class:`Generator` writes one statement at a time, looking at the tensors that the program made so
far under torch (their shape, dtype, ``requires_grad``, whether they are leaves, inference tensors
or hold a ``.grad``), so that most statements are valid and some are deliberately not. A statement
is plain torch source (``t3 = t1[:, [1, 0]]``, a ``with torch.no_grad():`` block ...) run with
``torch`` (and ``copy``) in its namespace: a failing program prints as itself. Variables are named
``t<n>`` (tensors), ``l<n>`` (losses), ``g<n>`` (gradients, whose ``_version`` is no contract:
see ``support.gradients``), ``h<n>`` (hook handles) and ``s<n>`` (lists that hooks record into:
a tensor's, a ``grad_fn``'s or a saved tensor's shape and dtype, labelled by the hook's handle,
so the list says which hooks ran, in which order, on what). Each statement carries a tag (what kind of statement, for grouping
differences into causes); how closely its results must agree is not the statement's to say, but
follows the ops torch runs for it (:mod:`support.fuzz_bounds`).

Used by :mod:`support.fuzz`, which runs the programs under both engines.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import torch

from support.programs import broadcasts_to

NAME = re.compile(r"\b[tlgsmor]\d+\b")
"""A variable of a generated program whose value the fuzzer compares (``s<n>``: a list that
hooks append what they see to; ``m``, ``o``, ``r``: the module fuzzer's modules, optimizers and
other results, :mod:`support.fuzz_modules`). Hook handles, ``h<n>``, are not compared."""
HANDLE = re.compile(r"h\d+")

FLOATS = (-2.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
SHAPES: tuple[tuple[int, ...], ...] = ((), (3,), (2, 3), (3, 2), (2, 1, 3), (1, 3), (4,), (2, 2))
EMPTY_SHAPES: tuple[tuple[int, ...], ...] = ((0,), (2, 0))
DTYPES = ("float32", "float32", "float32", "float64", "int64", "bool")


@dataclass(frozen=True)
class Statement:
    """One statement of a program: its tag and its torch source."""

    tag: str
    source: str
    signed_zeros: bool = True  # False: the sign of a zero it makes depends on the CPU (fuzz.py)

    def names(self) -> set[str]:
        """The program's variables this statement reads or writes."""
        return set(NAME.findall(self.source))


def literal(rng: random.Random, shape: tuple[int, ...], dtype: str) -> str:
    """A nested Python list literal of ``shape`` with values fit for ``dtype``."""
    if not shape:
        if dtype == "bool":
            return repr(rng.random() < 0.5)
        if dtype == "int64":
            return repr(rng.randint(-3, 3))
        return repr(rng.choice(FLOATS))
    return "[" + ", ".join(literal(rng, shape[1:], dtype) for _ in range(shape[0])) + "]"


def _holds(where: Callable[[torch.Tensor], bool], v: torch.Tensor) -> bool:
    """``where(v)``, false when reading ``v`` raises (a stale view's ``is_leaf`` or ``grad``)."""
    try:
        return where(v)
    except RuntimeError:
        return False


def _dims(shape: Iterable[int]) -> str:
    return ", ".join(str(n) for n in shape)


def _lines(statements: Iterable[Statement]) -> list[str]:
    return [line for s in statements for line in s.source.splitlines()]


def _block(header: str, body: list[str]) -> list[str]:
    """The lines of ``with header:`` around ``body``."""
    return [f"with {header}:", *("    " + line for line in body)]


def _signed(statements: Iterable[Statement]) -> bool:
    return all(s.signed_zeros for s in statements)


class Generator:
    """Random statements for a program whose torch namespace is ``ns`` (read, never written)."""

    length = (4, 16)
    """How many statements a program has, at least and at most."""

    def __init__(self, rng: random.Random, ns: dict[str, Any]) -> None:
        self.rng = rng
        self.ns = ns
        self.count = 0
        self.used: set[str] = set()  # the tensors a backward statement started from
        self.depth = 0  # of the statement being written (1: in a block)
        self.templates: list[tuple[float, Callable[[], Statement | None]]] = [
            (3.0, self.create),
            (4.0, self.view),
            (2.0, self.advanced_read),
            (2.0, self.advanced_write),
            (4.0, self.inplace),
            (3.0, self.pointwise),
            (1.5, self.reduction),
            (2.0, self.detach_data),
            (1.0, self.requires_grad),
            (3.0, self.loss),
            (4.0, self.backward),
            (1.0, self.grad_read),
            (1.5, self.mode_block),
            (0.7, self.invalid),
            (2.0, self.tensor_hook),
            (1.0, self.post_accumulate_hook),
            (1.2, self.node_hook),
            (0.6, self.remove_hook),
            (1.0, self.saved_tensors_block),
        ]
        self.blocks = (self.mode_block, self.saved_tensors_block)
        self.weights = [w for w, _ in self.templates]

    # -- what the program holds -------------------------------------------------------------
    def new(self, prefix: str = "t") -> str:
        """A fresh variable name."""
        self.count += 1
        return f"{prefix}{self.count}"

    def tensors(self, where: Callable[[torch.Tensor], bool] = lambda v: True) -> list[str]:
        """The names of the program's tensors that satisfy ``where``."""
        return [k for k, v in self.ns.items() if isinstance(v, torch.Tensor) and _holds(where, v)]

    def pick(self, where: Callable[[torch.Tensor], bool] = lambda v: True) -> str | None:
        names = self.tensors(where)
        return self.rng.choice(names) if names else None

    def partner(self, a: str) -> str:
        """Another tensor for a binary op with ``a``: mostly one that broadcasts to it."""
        shape = tuple(self.ns[a].shape)
        fits = self.tensors(lambda v: broadcasts_to(tuple(v.shape), shape))
        if fits and self.rng.random() < 0.85:
            return self.rng.choice(fits)
        return self.pick() or a

    # -- statements ---------------------------------------------------------------------------
    def statement(self, depth: int = 0) -> Statement:
        """One random statement (a block only at ``depth`` 0)."""
        while True:
            _, make = self.rng.choices(self.templates, self.weights)[0]
            if depth and make in self.blocks:
                continue
            self.depth = depth
            made = make()
            if made is not None:
                compile(made.source, "<program>", "exec")  # a generator's slip fails here
                return made

    def create(self) -> Statement:
        rng, name = self.rng, self.new()
        dtype = rng.choice(DTYPES)
        shape = rng.choice(EMPTY_SHAPES) if rng.random() < 0.05 else rng.choice(SHAPES)
        floating = dtype.startswith("float")
        grad = ", requires_grad=True" if floating and rng.random() < 0.6 else ""
        kind = rng.random()
        if kind < 0.7 and 0 not in shape:
            args = f"{literal(rng, shape, dtype)}, dtype=torch.{dtype}{grad}"
            return Statement("create", f"{name} = torch.tensor({args})")
        if kind < 0.85 and floating and shape:
            n = 1
            for s in shape:
                n *= s
            return Statement(
                "create", f"{name} = torch.arange({n}.0, dtype=torch.{dtype}).view({_dims(shape)})"
            )
        fn = rng.choice(["zeros", "ones"])
        size = f"({_dims(shape)},)" if shape else "()"
        return Statement("create", f"{name} = torch.{fn}({size}, dtype=torch.{dtype}{grad})")

    def _view_of(self, a: str) -> str | None:
        """Source of a random view of ``a`` (or ``None`` when none fits its shape)."""
        rng, shape = self.rng, tuple(self.ns[a].shape)
        n = len(shape)
        options: list[str] = [
            f"{a}.unsqueeze({rng.randint(-n - 1, n)})",
            f"{a}.view(-1)",
            f"{a}.reshape(-1)",
            f"{a}.flatten()",
            f"{a}.expand(2, {_dims(shape)})" if shape else f"{a}.expand(3)",
            f"{a}.detach()",
            f"{a}.squeeze()",
            f"{a}[None]",
            f"{a}.view_as({a})",
        ]
        if n >= 1:
            d, size = rng.randrange(n), shape[0]
            options += [
                f"{a}[1:]",
                f"{a}[::2]",
                f"{a}[..., :1]",
                f"{a}.narrow({d}, 0, {min(1, shape[d])})",
                f"{a}.unbind(0)[-1]" if size else f"{a}[:0]",
                f"{a}.split(1)[{size - 1}]" if size else f"{a}.split(1)[0]",
                f"{a}.chunk(2)[-1]" if size else f"{a}[:]",
                f"{a}.squeeze({d})",
                f"{a}.view({_dims(shape)}, 1)",
            ]
            if shape[d]:
                options.append(f"{a}.select({d}, {rng.randrange(shape[d]) - (rng.random() < 0.3)})")
            if size:
                options.append(f"{a}[{rng.randrange(size)}]")
        if n >= 2:
            options += [
                f"{a}.transpose(0, -1)",
                f"{a}.permute({_dims(reversed(range(n)))})",
                f"{a}.swapaxes(0, 1)",
                f"{a}[:, 1:]",
                f"{a}[:, ::2]",
                f"{a}.diagonal()",
                f"{a}.diagonal(offset=1)",
                f"{a}.mT",
            ]
        if n <= 2:
            options.append(f"{a}.t()")
        ones = [i for i, s in enumerate(shape) if s == 1]
        if ones:
            grown = list(shape)
            grown[rng.choice(ones)] = 3
            options.append(f"{a}.expand({_dims(grown)})")
        return rng.choice(options)

    def view(self) -> Statement | None:
        """A view, or a view of a view (up to three deep)."""
        a = self.pick()
        if a is None:
            return None
        source = self._view_of(a)
        assert source is not None
        for _ in range(self.rng.choice([0, 0, 1, 2])):
            shape = self._shape_of(source)
            if shape is None:
                break
            inner = self._view_of_shape(source, shape)
            source = inner
        return Statement("view", f"{self.new()} = {source}")

    def _shape_of(self, source: str) -> tuple[int, ...] | None:
        """The shape ``source`` has under torch, or ``None`` if it raises."""
        try:
            value = eval(source, {"torch": torch}, dict(self.ns))
        except Exception:
            return None
        return tuple(value.shape) if isinstance(value, torch.Tensor) else None

    def _view_of_shape(self, source: str, shape: tuple[int, ...]) -> str:
        # A view of an expression: write it through a placeholder name, then substitute.
        self.ns["__v"] = torch.empty(shape)
        try:
            inner = self._view_of("__v")
        finally:
            del self.ns["__v"]
        assert inner is not None
        return inner.replace("__v", f"({source})")

    def advanced_read(self) -> Statement | None:
        a = self.pick(lambda v: v.ndim >= 1 and v.shape[0] >= 2)
        if a is None:
            return None
        shape = tuple(self.ns[a].shape)
        keys = ["[[1, 0]]", "[[0, 0]]", f"[{a} > 0]", "[torch.tensor([0, -1])]", "[..., [0]]"]
        keys.append("[torch.tensor([True, False" + ", True" * (shape[0] - 2) + "])]")
        if len(shape) >= 2 and shape[1] >= 2:
            keys += ["[:, [1, 0]]", "[[0, 1], [1, 0]]", "[[1], :]", "[1:, [0, 1]]"]
        if self.rng.random() < 0.2:
            return Statement(
                "index_select", f"{self.new()} = {a}.index_select(0, torch.tensor([1, 0]))"
            )
        return Statement("advanced_read", f"{self.new()} = {a}{self.rng.choice(keys)}")

    def advanced_write(self) -> Statement | None:
        a = self.pick(lambda v: v.ndim >= 1 and v.shape[0] >= 2)
        if a is None:
            return None
        rng, shape = self.rng, tuple(self.ns[a].shape)
        value = "True" if self.ns[a].dtype == torch.bool else rng.choice(["0.5", "-1", "2"])
        options = [
            f"{a}[[1, 0]] = {value}",
            f"{a}[{a} < 0] = {value}" if self.ns[a].dtype != torch.bool else f"{a}[{a}] = False",
            f"{a}[[0]] += 1",
            f"{a}[torch.tensor([0])] = torch.tensor({value})",
            f"{a}.masked_fill_({a} > 0, {value})",
            f"{a}[torch.tensor([0, 0])] = {value}",
        ]
        if len(shape) >= 2 and shape[1] >= 2:
            options.append(f"{a}[:, [1, 0]] = {self.partner(a)}[..., :1]")
        return Statement("advanced_write", rng.choice(options))

    def inplace(self) -> Statement | None:
        """An in-place op on a tensor, directly or through a fresh view of it: half the time on a
        tensor with a history, if any (a view of it gets ``CopySlices``)."""
        a = self.pick(lambda v: v.grad_fn is not None) if self.rng.random() < 0.5 else None
        a = a or self.pick()
        if a is None:
            return None
        rng = self.rng
        target = a
        if rng.random() < 0.4:
            view = self._view_of(a)
            assert view is not None
            target = view
        b = self.partner(a)
        exact_ops = [
            "add_(0.5)",
            f"add_({b})",
            "mul_(2)",
            f"mul_({b})",
            f"sub_({b}.sum())",
            f"copy_({b})",
            "zero_()",
            "fill_(0.25)",
            "relu_()",
            "clamp_(-0.5, 0.5)",
            "neg_()",
            "abs_()",
            "pow_(2)",
        ]
        rounding_ops = ["div_(3)", "exp_()", "sigmoid_()", "tanh_()", "sqrt_()"]
        if rng.random() < 0.2:
            forms = [
                f"{target}[0] = 2.0",
                f"{target}[...] = {b}",
                f"{a} += 1",
                f"{a} *= {b}",
            ]
            return Statement("setitem", rng.choice(forms))
        if rng.random() < 0.3:
            op = rng.choice(rounding_ops)
            return Statement(op.split("(")[0], f"{target}.{op}")
        op = rng.choice(exact_ops)
        return Statement(op.split("(")[0], f"{target}.{op}")

    def pointwise(self) -> Statement | None:
        a = self.pick()
        if a is None:
            return None
        rng, name = self.rng, self.new()
        b = self.partner(a)
        exact = [
            f"{a} + {b}",
            f"{a} - {b}",
            f"{a} * {b}",
            f"{a} * 2",
            f"{a} + 1",
            f"-{a}",
            f"{a}.abs()",
            f"{a}.relu()",
            f"torch.relu({a})",
            f"{a}.clamp(min=0)",
            f"torch.where({a} > 0, {a}, {b})",
            f"torch.maximum({a}, {b})",
            f"{a} > {b}",
            f"{a} == {b}",
            f"{a}.float()",
            f"{a}.double()",
            f"{a}.long()",
            f"{a}.bool()",
            f"{a}.clone()",
            f"{a}.contiguous()",
            f"torch.cat([{a}, {b}])",
            f"torch.stack([{a}, {a}])",
            f"{a} ** 2",
            f"{a}.sign()",
            f"{a}.masked_fill({a} > 0, 1.5)",
            f"copy.copy({a})",
            f"{a}.floor()",
        ]
        rounding = [
            f"{a} / {b}",
            f"{a}.exp()",
            f"{a}.sigmoid()",
            f"{a}.tanh()",
            f"{a}.sqrt()",
            f"{a}.softmax(-1)",
            f"{a} @ {b}.mT" if self.ns[a].ndim >= 2 else f"{a} @ {b}",
            f"1 / {a}",
        ]
        if rng.random() < 0.3:
            return Statement("pointwise_rounding", f"{name} = {rng.choice(rounding)}")
        return Statement("pointwise", f"{name} = {rng.choice(exact)}")

    def reduction(self) -> Statement | None:
        a = self.pick()
        if a is None:
            return None
        exact = ["max()", "min()", "argmax()", "all()", "any()", "amax(-1)", "max(0).values"]
        rounding = [
            "sum()",
            "sum(0)",
            "mean()",
            "prod()",
            "sum(0, keepdim=True)",
            "norm()",
            "cumsum(0)",
        ]
        if self.rng.random() < 0.6:
            return Statement("reduction", f"{self.new()} = {a}.{self.rng.choice(rounding)}")
        op = self.rng.choice(exact)
        signed = not op.startswith(("amax", "amin"))  # fuzz.py's _agree says why
        return Statement("reduction", f"{self.new()} = {a}.{op}", signed_zeros=signed)

    def detach_data(self) -> Statement | None:
        a = self.pick()
        if a is None:
            return None
        rng = self.rng
        b = self.partner(a)
        options = [
            ("detach", f"{self.new()} = {a}.detach()"),
            ("data", f"{self.new()} = {a}.data"),
            ("detach_", f"{a}.detach_()"),
            ("data_assign", f"{a}.data = {b}"),
            ("data_write", f"{a}.data.mul_(2)"),
            ("data_write", f"{a}.data[0] = 5" if self.ns[a].ndim else f"{a}.data.fill_(5)"),
            ("detach_write", f"{a}.detach().add_(1)"),
        ]
        tag, source = rng.choice(options)
        return Statement(tag, source)

    def requires_grad(self) -> Statement | None:
        a = self.pick()
        if a is None:
            return None
        forms = [f"{a}.requires_grad_()", f"{a}.requires_grad_(False)", f"{a}.retain_grad()"]
        return Statement("requires_grad", self.rng.choice(forms))

    def loss(self) -> Statement | None:
        a = self.pick(lambda v: v.requires_grad) or self.pick()
        if a is None:
            return None
        b = self.partner(a)
        forms = [
            f"{a}.sum()",
            f"({a} * {a}).sum()",
            f"({a} * {b}).sum()",
            f"{a}.sigmoid().sum()",
            f"({a}.exp() * 2).sum()",
            f"({a} * {b}).mean()",
        ]
        return Statement("loss", f"{self.new('l')} = {self.rng.choice(forms)}")

    def backward(self) -> Statement | None:
        """A backward or an ``autograd.grad``: half the time of a loss already used (a second
        backward, refused or retained), if any."""
        rng = self.rng
        again = [n for n in self.used if n in self.ns]
        loss = rng.choice(again) if again and rng.random() < 0.5 else None
        loss = loss or self.pick(lambda v: v.requires_grad and v.ndim == 0)
        loss = loss or self.pick(lambda v: v.requires_grad)
        if loss is None:
            return None
        self.used.add(loss)
        leaves = self.tensors(lambda v: v.requires_grad)
        chosen = rng.sample(leaves, min(len(leaves), rng.randint(1, 2)))
        retain = rng.choice(["", "retain_graph=True"])
        if chosen and rng.random() < 0.35:
            outs = ", ".join(self.new("g") for _ in chosen) + ","
            extra = ", ".join(x for x in [retain, rng.choice(["", "allow_unused=True"])] if x)
            args = f"{loss}, [{', '.join(chosen)}]" + (f", {extra}" if extra else "")
            return Statement("autograd_grad", f"{outs} = torch.autograd.grad({args})")
        if self.ns[loss].ndim:
            return Statement("backward", f"{loss}.backward(torch.ones_like({loss}))")
        return Statement("backward", f"{loss}.backward({retain})")

    def grad_read(self) -> Statement | None:
        a = self.pick(lambda v: v.is_leaf and v.grad is not None)
        if a is None:
            return None
        options = [
            f"{self.new('g')} = {a}.grad",
            f"{a}.grad = None",
            f"{a}.grad.zero_()",
            f"{a}.grad[1:] = 1.5" if self.ns[a].ndim else f"{a}.grad.fill_(1.5)",
        ]
        return Statement("grad", self.rng.choice(options))

    def mode_block(self) -> Statement | None:
        rng = self.rng
        mode = rng.choice(
            ["torch.no_grad()", "torch.inference_mode()", "torch.inference_mode()",
             "torch.enable_grad()", "torch.set_grad_enabled(False)"]
        )  # fmt: skip
        inner = self._inner()
        body = _lines(inner)
        if mode == "torch.no_grad()" and rng.random() < 0.3:  # enable_grad inside no_grad
            body = _block("torch.enable_grad()", body)
        tag = "inference_mode" if "inference" in mode else "grad_mode"
        return Statement(tag, "\n".join(_block(mode, body)), _signed(inner))

    def _inner(self) -> list[Statement]:
        """One to three statements for the body of a block."""
        return [self.statement(depth=1) for _ in range(self.rng.randint(1, 3))]

    def invalid(self) -> Statement | None:
        a = self.pick()
        if a is None:
            return None
        options = [
            f"{self.new()} = {a}.view(7)",
            f"{self.new()} = {a}.expand(5, 5)",
            f"{self.new()} = {a} + torch.ones(5)",
            f"{a}.add_(torch.ones(2, 2, 2))",
            f"{self.new()} = {a}[10]",
            f"{a}.backward()",
            f"{self.new()} = torch.tensor([1, 2]).exp_()",
            f"{self.new()} = torch.tensor([1, 2], requires_grad=True)",
            f"{a}.requires_grad_()",
            f"{self.new()} = {a}.view(-1)",
        ]
        return Statement("invalid", self.rng.choice(options))

    # -- hooks ---------------------------------------------------------------------------------
    def _recorder(self) -> tuple[str, str]:
        """A list for hooks to record into: (its name, the statement making it, or "")."""
        lists = [k for k, v in self.ns.items() if NAME.fullmatch(k) and isinstance(v, list)]
        if lists and self.rng.random() < 0.7:
            return self.rng.choice(lists), ""
        name = self.new("s")
        return name, f"{name} = []\n"

    def _hooked(self) -> str | None:
        """A tensor to hook: a leaf, a non-leaf or a view that requires grad (else, now and
        then, one that does not: refused). In a block, no view: torch 2.13 crashes in
        ``register_hook`` on a view whose base the block wrote first, its stale grad_fn not
        read in between (fuzz 917941; between statements the fuzzer reads every grad_fn)."""
        kinds: list[Callable[[torch.Tensor], bool]] = [
            lambda v: v.is_leaf,
            lambda v: not v.is_leaf and v._base is None,
            lambda v: v._base is not None,
        ]
        kind = self.rng.choice(kinds)
        fits = (lambda v: v._base is None) if self.depth else (lambda v: True)
        a = self.pick(lambda v: v.requires_grad and kind(v) and fits(v))
        a = a or self.pick(lambda v: v.requires_grad and fits(v))
        return a or (self.pick(fits) if self.rng.random() < 0.2 else None)

    def tensor_hook(self) -> Statement | None:
        """``register_hook`` on a tensor: a hook that scales, returns None, records what it sees,
        or returns a gradient of another size or dtype (torch's refusal); then maybe a
        ``retain_grad`` (whose gradient is the hooked one, whatever the order)."""
        a = self._hooked()
        if a is None:
            return None
        rng, handle = self.rng, self.new("h")
        seen, made = self._recorder()
        hooks = [
            "lambda g: g * 2",
            "lambda g: g + 1",
            "lambda g: None",
            f"lambda g: {seen}.append(('{handle}', tuple(g.shape), str(g.dtype)))",
            f"lambda g: {seen}.append(('{handle}', tuple(g.shape), str(g.dtype)))",
            "lambda g: g.sum()",
            "lambda g: g.double()",
        ]
        hook = rng.choice(hooks)
        source = f"{made if seen in hook else ''}{handle} = {a}.register_hook({hook})"
        if rng.random() < 0.25:
            source += f"\n{a}.retain_grad()"
        return Statement("tensor_hook", source + self._backward_through(a))

    def post_accumulate_hook(self) -> Statement | None:
        """``register_post_accumulate_grad_hook`` on a leaf (refused on a non-leaf): a hook that
        writes ``p.grad`` in place, drops it, records it, or returns a value (refused)."""
        a = self.pick(lambda v: v.is_leaf and v.requires_grad)
        a = a or (self.pick() if self.rng.random() < 0.2 else None)
        if a is None:
            return None
        handle = self.new("h")
        seen, made = self._recorder()
        hooks = [
            "lambda p: (p.grad.mul_(2), None)[1]",
            "lambda p: setattr(p, 'grad', None)",
            f"lambda p: {seen}.append(('{handle}', tuple(p.grad.shape), p.grad.requires_grad))",
            "lambda p: p.grad.add_(1)",
        ]
        hook = self.rng.choice(hooks)
        source = f"{handle} = {a}.register_post_accumulate_grad_hook({hook})"
        source = (made if seen in hook else "") + source + self._backward_through(a)
        return Statement("post_accumulate_hook", source)

    def node_hook(self) -> Statement | None:
        """A pre-hook or a hook on a tensor's ``grad_fn``: returning None, doubled gradients,
        recording what it sees, or (pre-hook) the wrong number of gradients (refused)."""
        a = self.pick(lambda v: v.grad_fn is not None)
        if a is None:
            return None
        handle = self.new("h")
        seen, made = self._recorder()
        shapes = "tuple(None if g is None else tuple(g.shape) for g in {})"
        doubled = "tuple(None if g is None else g * 2 for g in {})"
        pre_hooks = [
            "lambda gs: None",
            f"lambda gs: {doubled.format('gs')}",
            f"lambda gs: {seen}.append(('{handle}', {shapes.format('gs')}))",
            "lambda gs: gs + gs",
        ]
        post_hooks = [
            "lambda gi, go: None",
            f"lambda gi, go: {doubled.format('gi')}",
            f"lambda gi, go: {seen}.append(('{handle}', {shapes.format('gi')}, len(go)))",
        ]
        kind, hooks = self.rng.choice(
            [("register_prehook", pre_hooks), ("register_hook", post_hooks)]
        )
        hook = self.rng.choice(hooks)
        source = f"{handle} = {a}.grad_fn.{kind}({hook})"
        source = (made if seen in hook else "") + source + self._backward_through(a)
        return Statement("node_hook", source)

    def _backward_through(self, a: str, write: str = "") -> str:
        """Half the time, lines that run a backward through ``a`` (so that its hooks run), after
        ``write``, if any."""
        if self.rng.random() < 0.5:
            return ""
        loss = self.new("l")
        self.used.add(loss)
        return f"\n{loss} = ({a} * {a}).sum()\n{write}{loss}.backward(retain_graph=True)"

    def remove_hook(self) -> Statement | None:
        handles = [k for k in self.ns if HANDLE.fullmatch(k)]
        if not handles:
            return None
        return Statement("remove_hook", f"{self.rng.choice(handles)}.remove()")

    def saved_tensors_block(self) -> Statement | None:
        """Statements under ``saved_tensors_hooks`` (packing the saved tensor itself, so that no
        version check is made, a clone, or recording it), or under
        ``disable_saved_tensors_hooks``, around such a block or not (refused); the first saves a
        tensor that requires grad, if any, and a backward through it may follow, maybe after a
        write to what it saved."""
        rng = self.rng
        a = self.pick(lambda v: v.requires_grad and v.dtype.is_floating_point)
        seen, made = self._recorder()
        packs = [
            "lambda x: x",
            "lambda x: x.clone()",
            f"lambda x: {seen}.append((tuple(x.shape), str(x.dtype))) or x",
        ]
        pack = rng.choice(packs)
        hooks = f"torch.autograd.graph.saved_tensors_hooks({pack}, lambda x: x)"
        saving = self.new()
        if a is not None:
            op = rng.choice([f"{a} * {self.partner(a)}", f"{a}.exp()", f"{a}.sigmoid()"])
            inner = [Statement("pointwise", f"{saving} = {op}"), *self._inner()[1:]]
        else:
            inner = self._inner()
        body = _block(hooks, _lines(inner))
        if rng.random() < 0.25:
            disable = 'torch.autograd.graph.disable_saved_tensors_hooks("no saved-tensor hooks")'
            body = _block(disable, body if rng.random() < 0.5 else _lines(inner))
        source = (made if seen in pack else "") + "\n".join(body)
        if a is not None:
            write = f"{a}.detach().mul_(2)\n" if rng.random() < 0.4 else ""
            source += self._backward_through(saving, write)
        return Statement("saved_tensors_hooks", source, _signed(inner))
