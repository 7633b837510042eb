"""The module fuzzer: random programs that build, edit, save, load and train ``nn`` modules.

:class:`ModuleGenerator` writes the statements a learner's program makes about modules and
optimizers (the unit's "who owns what"): it defines a custom ``Net`` in the prelude (a parameter,
a submodule, a persistent and a non-persistent buffer, a plain tensor attribute), builds modules
(``Linear``, ``Sequential``, ``ModuleList``, ``ModuleDict``, ``BatchNorm1d``, ``Net``), assigns
Parameters, tensors, modules and ``None`` to names that already hold each kind (torch's
``__setattr__`` rules and refusals), registers and deletes, reads ``parameters()``,
``named_buffers()``, ``children()``, ``state_dict()`` (and whether its values share the
parameters' memory), loads state dicts with missing, unexpected and mis-shaped keys, switches
modes and dtypes, runs a forward and a backward, and makes optimizers (SGD with its options, Adam,
AdamW, RMSprop, Adagrad) that step, zero gradients, save and load their state, and gain groups;
parameters are also written in place under ``no_grad``, through ``.data``, and lose their
``.grad``. A statement that makes a module seeds torch's generator first, on the same line, so
that its initial values are the same draws in every run (the ``random`` unit's bit-for-bit
contract).

The programs run in :class:`support.fuzz.Lockstep`, as the tensor fuzzer's do; after each
statement every module is compared through its facts (its modules' types and ``training``, its
parameters', buffers' and plain tensor attributes' names, its ``state_dict`` keys) and every
tensor it holds (values under :mod:`support.fuzz_bounds`, dtype, shape, ``requires_grad``,
``.grad``, the changes of ``_version``, which other variable's memory it shares), and every
optimizer through its ``state_dict()``: its groups and each state tensor
(:func:`support.fuzz.variables`). ``python -m support.fuzz_modules --seed S --count N`` runs
programs ``S .. S+N-1``, printing each failing one shrunk to a plain torch program.
"""

from __future__ import annotations

import random
from typing import Any

import torch

from support.fuzz import main as fuzz_main
from support.fuzz import reach
from support.fuzz_statements import FLOATS, Generator, Statement, literal

PRELUDE = """class Net(torch.nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.fc = torch.nn.Linear(n, 2)
        self.scale = torch.nn.Parameter(torch.ones(2))
        self.register_buffer("count", torch.zeros(()))
        self.register_buffer("cache", torch.zeros(2), persistent=False)
        self.offset = torch.tensor([0.5, -0.5])

    def forward(self, x):
        self.count += 1
        return self.fc(x) * self.scale + self.offset"""
"""The program's custom module: a submodule, a parameter, two buffers, a plain tensor."""

MODULES = (
    "torch.nn.Linear(3, 2)",
    "torch.nn.Linear(3, 2, bias=False)",
    "torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))",
    "torch.nn.Sequential(torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2))",
    "torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.Linear(3, 2)])",
    "torch.nn.ModuleDict({'a': torch.nn.Linear(3, 2), 'b': torch.nn.Tanh()})",
    "torch.nn.BatchNorm1d(3)",
    "Net()",
    "Net(2)",
)
OPTIONS = {
    "SGD": ("momentum=0.9", "dampening=0.5", "nesterov=True", "weight_decay=0.1", "maximize=True"),
    "Adam": ("betas=(0.5, 0.75)", "weight_decay=0.1", "amsgrad=True", "maximize=True"),
    "AdamW": ("betas=(0.5, 0.75)", "weight_decay=0.1", "amsgrad=True", "maximize=True"),
    "RMSprop": ("momentum=0.5", "centered=True", "alpha=0.5", "weight_decay=0.1"),
    "Adagrad": ("lr_decay=0.1", "initial_accumulator_value=0.5", "weight_decay=0.1"),
}
"""Each optimizer's options, each given (after ``lr``) with probability 0.3."""
NEW_NAMES = ("extra", "w2", "fc", "weight")
BAD_NAMES = ("'a.b'", "''", "1", "'training'")


def _is_module(v: Any) -> bool:
    return isinstance(v, torch.nn.Module)


class ModuleGenerator(Generator):
    """Random module and optimizer statements for a program whose torch namespace is ``ns``."""

    length = (6, 20)

    def __init__(self, rng: random.Random, ns: dict[str, Any]) -> None:
        super().__init__(rng, ns)
        self.prelude = False
        self.seeds = 0
        self.templates = [
            (1.5, self.module),
            (1.5, self.input),
            (4.0, self.forward),
            (2.5, self.backward_of_loss),
            (3.5, self.assign),
            (2.0, self.register),
            (1.0, self.delete),
            (3.0, self.read),
            (2.0, self.state_dict),
            (2.0, self.load),
            (2.0, self.mode),
            (1.5, self.module_zero_grad),
            (3.5, self.optimizer),
            (6.0, self.step),
            (1.5, self.optimizer_state),
            (2.0, self.edit),
            (1.5, self.container),
            (2.5, self.clip),
            (1.0, self.vector),
            (1.5, self.apply),
        ]
        self.weights = [w for w, _ in self.templates]

    def statement(self, depth: int = 0) -> Statement:
        """The prelude first (the custom ``Net``), then random statements (a template that
        cannot read what the program made of its modules, a ``ModuleList`` without its ``'0'``,
        gives way to another)."""
        if not self.prelude:
            self.prelude = True
            return Statement("prelude", PRELUDE)
        while True:
            try:
                return super().statement(depth)
            except (LookupError, AttributeError, TypeError, RuntimeError):
                continue

    # -- what the program holds -----------------------------------------------------------
    def names(self, where: Any) -> list[str]:
        return [k for k, v in self.ns.items() if k[:1] in "mo" and k[1:].isdigit() and where(v)]

    def modules(self) -> list[str]:
        return self.names(_is_module)

    def optimizers(self) -> list[str]:
        return self.names(lambda v: isinstance(v, torch.optim.Optimizer))

    def submodule(self) -> str | None:
        """A module variable or one of its submodules, as source."""
        modules = self.modules()
        if not modules:
            return None
        m = self.rng.choice(modules)
        paths = [p for p, _ in self.ns[m].named_modules() if p]
        if paths and self.rng.random() < 0.3:
            return reach(m, self.rng.choice(paths))
        return m

    def callables(self) -> list[tuple[str, int]]:
        """(source, input width) of each module a forward can call."""
        out = []
        for m in self.modules():
            v = self.ns[m]
            expr = m
            if isinstance(v, torch.nn.ModuleList) and len(v):
                expr, v = f"{m}[0]", v[0]
            elif isinstance(v, torch.nn.ModuleDict) and len(v):
                key = next(iter(v))
                expr, v = f"{m}[{key!r}]", v[key]
            widths = [
                getattr(s, "in_features", None) or getattr(s, "num_features", None)
                for s in v.modules()
            ]
            width = next((w for w in widths if w), 3)
            out.append((expr, width))
        return out

    def parameters(self) -> list[str]:
        """Each parameter of each module variable, as source."""
        return [
            reach(m, p)
            for m in self.modules()
            for p, _ in self.ns[m].named_parameters(remove_duplicate=False)
        ]

    def seeded(self, source: str) -> str:
        """``source`` after seeding torch's generator, on the same line (a shrunk program never
        loses the seed of its draws)."""
        self.seeds += 1
        return f"torch.manual_seed({self.seeds}); {source}"

    # -- statements ---------------------------------------------------------------------
    def module(self) -> Statement:
        """A new module, or a deep copy of one (its tied parameters stay tied, to each other)."""
        modules = self.modules()
        if modules and self.rng.random() < 0.15:
            return Statement(
                "deepcopy", f"{self.new('m')} = copy.deepcopy({self.rng.choice(modules)})"
            )
        return Statement("module", self.seeded(f"{self.new('m')} = {self.rng.choice(MODULES)}"))

    def container(self) -> Statement | None:
        """An edit of a ``Sequential``, ``ModuleList`` or ``ModuleDict``: append, insert, extend,
        set, delete, pop, update, slice."""
        boxes = self.names(
            lambda v: isinstance(v, (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict))
        )
        if not boxes:
            return None
        rng = self.rng
        m = rng.choice(boxes)
        if isinstance(self.ns[m], torch.nn.ModuleDict):
            key = rng.choice([*self.ns[m].keys(), "c"])
            forms = [
                f"{m}[{key!r}] = torch.nn.ReLU()",
                f"del {m}[{key!r}]",
                f"{self.new('r')} = type({m}.pop({key!r})).__name__",
                f"{m}.update({{'c': torch.nn.Tanh(), {key!r}: torch.nn.ReLU()}})",
                f"{self.new('r')} = list({m}.keys())",
            ]
        else:
            i = rng.randint(-len(self.ns[m]) - 1, len(self.ns[m]))
            forms = [
                f"{m}.append(torch.nn.ReLU())",
                f"{m}.insert({i}, torch.nn.Tanh())",
                f"{m}.extend([torch.nn.ReLU(), torch.nn.Tanh()])",
                f"{m}[{i}] = torch.nn.ReLU()",
                f"del {m}[{i}]",
                f"del {m}[1:]",
                f"{self.new('m')} = {m}[1:]",
                f"{self.new('r')} = len({m})",
            ]
            if isinstance(self.ns[m], torch.nn.ModuleList):
                forms.append(f"{self.new('r')} = type({m}.pop({i})).__name__")
        return Statement("container", rng.choice(forms))

    def input(self) -> Statement:
        rng = self.rng
        widths = [w for _, w in self.callables()] or [3]
        shape = (rng.choice([1, 2, 4]), rng.choice(widths))
        dtype = "float64" if rng.random() < 0.1 else "float32"
        grad = ", requires_grad=True" if rng.random() < 0.2 else ""
        args = f"{literal(rng, shape, dtype)}, dtype=torch.{dtype}{grad}"
        return Statement("input", f"{self.new()} = torch.tensor({args})")

    def forward(self) -> Statement | None:
        fits = self.callables()
        if not fits:
            return None
        rng = self.rng
        m, width = rng.choice(fits)
        inputs = self.tensors(lambda v: v.ndim == 2 and v.shape[1] == width) or self.tensors(
            lambda v: v.ndim == 2
        )
        if not inputs:
            return None
        x = rng.choice(inputs)
        forms = [
            (f"{self.new('l')}", f"{m}({x}).sum()"),
            (f"{self.new('l')}", f"(({m}({x}) - 1) ** 2).mean()"),
            (f"{self.new('l')}", f"{m}({x}).pow(2).sum()"),
            (f"{self.new()}", f"{m}({x})"),
        ]
        target, source = rng.choice(forms)
        if rng.random() < 0.15:
            return Statement("forward", f"with torch.no_grad():\n    {target} = {source}")
        return Statement("forward", f"{target} = {source}")

    def backward_of_loss(self) -> Statement | None:
        losses = [k for k, v in self.ns.items() if k[0] == "l" and isinstance(v, torch.Tensor)]
        if not losses:
            fits = self.callables()
            if not fits:
                return None
            m, width = self.rng.choice(fits)
            x = literal(self.rng, (2, width), "float32")
            return Statement("backward", f"{m}(torch.tensor({x})).sum().backward()")
        retain = self.rng.choice(["", "", "retain_graph=True"])
        return Statement("backward", f"{self.rng.choice(losses)}.backward({retain})")

    def modules_outside(self, target: str) -> list[str]:
        """The module variables that do not hold ``target`` (nor are it): no module may hold
        itself (torch's recursion errors are Python's words, not torch's)."""
        held = eval(target, {}, dict(self.ns))
        return [m for m in self.modules() if all(s is not held for s in self.ns[m].modules())]

    def value(self, target: str, shape: tuple[int, ...]) -> str:
        """A value to assign to an attribute: a Parameter, a plain tensor, a module, ``None`` ..."""
        rng = self.rng
        dims = ", ".join(map(str, shape)) if shape else ""
        size = f"({dims},)" if shape else "()"
        options = [
            f"torch.nn.Parameter(torch.ones({size}))",
            f"torch.nn.Parameter(torch.ones({size}), requires_grad=False)",
            f"torch.zeros({size})",
            f"torch.zeros({size}, requires_grad=True)",
            f"torch.nn.Buffer(torch.ones({size}))",
            "torch.nn.Linear(2, 2)",
            "torch.nn.ReLU()",
            "None",
            "1.5",
        ]
        options += self.parameters()[:4] + self.modules_outside(target)[:2]
        return rng.choice(options)

    def _attribute_names(self, target: str) -> list[str]:
        v = eval(target, {}, dict(self.ns))
        held = [*v._parameters, *v._buffers, *v._modules]
        plain = [k for k in vars(v) if not k.startswith("_") and torch.is_tensor(vars(v)[k])]
        return [*held, *plain, *NEW_NAMES]

    def _shape_of_attribute(self, target: str, name: str) -> tuple[int, ...]:
        try:
            v = getattr(eval(target, {}, dict(self.ns)), name)
        except Exception:
            return (2,)
        return tuple(v.shape) if torch.is_tensor(v) else (2,)

    def assign(self) -> Statement | None:
        """``target.name = value`` for a name that holds a parameter, a buffer, a module, a plain
        tensor or nothing yet."""
        target = self.submodule()
        if target is None:
            return None
        name = self.rng.choice(self._attribute_names(target))
        value = self.value(target, self._shape_of_attribute(target, name))
        source = (
            f"{target}.{name} = {value}"
            if name.isidentifier()
            else f"setattr({target}, {name!r}, {value})"
        )
        if value.startswith(("torch.nn.Linear", "torch.nn.ReLU")):
            source = self.seeded(source)
        return Statement("setattr", source)

    def register(self) -> Statement | None:
        target = self.submodule()
        if target is None:
            return None
        rng = self.rng
        names = [repr(n) for n in self._attribute_names(target)] + list(BAD_NAMES)
        name = rng.choice(names)
        kind = rng.choice(["register_buffer", "register_parameter", "add_module"])
        if kind == "register_buffer":
            held = [  # a buffer of a module variable: one tensor held under two names
                reach(m, b) for m in self.modules() for b, _ in self.ns[m].named_buffers()
            ]
            value = rng.choice(
                ["torch.zeros(2)", "None", "torch.nn.Parameter(torch.ones(2))", "3", *held[:2]]
            )
            persistent = rng.choice(["", ", persistent=False"])
            return Statement(kind, f"{target}.register_buffer({name}, {value}{persistent})")
        if kind == "register_parameter":
            value = rng.choice(
                [
                    "torch.nn.Parameter(torch.ones(2))",
                    "None",
                    "torch.ones(2)",
                    *self.parameters()[:2],
                ]
            )
            return Statement(kind, f"{target}.register_parameter({name}, {value})")
        outside = self.modules_outside(target)[:2]
        value = rng.choice(["torch.nn.Tanh()", "None", "torch.ones(2)", *outside])
        return Statement(kind, f"{target}.add_module({name}, {value})")

    def delete(self) -> Statement | None:
        target = self.submodule()
        if target is None:
            return None
        name = self.rng.choice(self._attribute_names(target))
        if not name.isidentifier():
            return Statement("delattr", f"delattr({target}, {name!r})")
        return Statement("delattr", f"del {target}.{name}")

    def read(self) -> Statement | None:
        target = self.submodule()
        if target is None:
            return None
        rng, r = self.rng, self.new("r")
        recurse = rng.choice(
            [
                "",
                "recurse=False",
                "remove_duplicate=False",
                "recurse=False, remove_duplicate=False",
                "prefix='top', recurse=False",
            ]
        )
        forms = [
            f"[n for n, _ in {target}.named_parameters({recurse})]",
            f"[tuple(p.shape) for p in {target}.parameters()]",
            f"[n for n, _ in {target}.named_buffers({recurse})]",
            f"[b.dtype for b in {target}.buffers()]",
            f"[type(c).__name__ for c in {target}.children()]",
            f"[n for n, _ in {target}.named_children()]",
            f"[n for n, _ in {target}.named_modules()]",
            f"[n for n, _ in {target}.named_modules(remove_duplicate=False)]",
            f"[p.requires_grad for p in {target}.parameters()]",
            f"[n for n, _ in {target}.named_parameters(prefix='top')]",
            f"[tuple(p.shape) for p in {target}.parameters(recurse=False)]",
            f"[b.dtype for b in {target}.buffers(recurse=False)]",
            f"[n for n, p in {target}.named_parameters() if p.requires_grad]",
            f"{target}.training",
            f"[s.training for s in {target}.modules()]",
            f"str({target})",
        ]
        paths = [p for p, _ in eval(target, {}, dict(self.ns)).named_modules() if p]
        if paths:  # a submodule held by a second name: its tensors are the module's
            forms.append(f"{target}.get_submodule({rng.choice(paths)!r})")
        return Statement("read", f"{r} = {rng.choice(forms)}")

    def state_dict(self) -> Statement | None:
        target = self.submodule()
        if target is None:
            return None
        rng = self.rng
        keys = list(eval(target, {}, dict(self.ns)).state_dict())
        forms = [
            f"{self.new('r')} = {target}.state_dict()",
            f"{self.new('r')} = {target}.state_dict(keep_vars=True)",
            f"{self.new('r')} = {target}.state_dict(prefix='p.')",
        ]
        if keys:
            key = rng.choice(keys)
            forms += [
                f"{self.new()} = {target}.state_dict()[{key!r}]",
                f"{self.new()} = {target}.state_dict(keep_vars=True)[{key!r}]",
            ]
        return Statement("state_dict", rng.choice(forms))

    def load(self) -> Statement | None:
        modules = self.modules()
        if not modules:
            return None
        rng = self.rng
        m = rng.choice(modules)
        source = rng.choice(modules)
        keys = list(self.ns[source].state_dict())
        sd = f"{source}.state_dict()"
        edits = [sd, f"{{**{sd}, 'extra': torch.ones(1)}}"]
        if keys:
            key = rng.choice(keys)
            edits += [
                f"{{k: v for k, v in {sd}.items() if k != {key!r}}}",
                f"{{**{sd}, {key!r}: torch.zeros(5)}}",
                f"{{k: v * 2 for k, v in {sd}.items()}}",
                f"{{k: v.double() for k, v in {sd}.items()}}",
            ]
        strict = rng.choice(["", ", strict=False", ", strict=True", ", assign=True"])
        call = f"{m}.load_state_dict({rng.choice(edits)}{strict})"
        if rng.random() < 0.3:
            return Statement("load_state_dict", f"{self.new('r')} = str({call})")
        return Statement("load_state_dict", f"{self.new('r')} = {call}")

    def mode(self) -> Statement | None:
        target = self.submodule()
        if target is None:
            return None
        forms = [
            f"{target}.requires_grad_(False)",
            f"{target}.requires_grad_()",
            f"{target}.train()",
            f"{target}.eval()",
            f"{target}.train(False)",
            f"{target}.training = False",
            f"{target}.train('no')",
            f"{self.new('r')} = {target}.train() is {target}",
            f"{target}.double()",
            f"{target}.float()",
            f"{target}.to(torch.float64)",
            f"{target}.to(dtype=torch.float32)",
        ]
        return Statement("mode", self.rng.choice(forms))

    def module_zero_grad(self) -> Statement | None:
        target = self.submodule()
        if target is None:
            return None
        forms = [f"{target}.zero_grad()", f"{target}.zero_grad(set_to_none=False)"]
        return Statement("module_zero_grad", self.rng.choice(forms))

    def optimizer(self) -> Statement | None:
        modules = self.modules()
        if not modules:
            return None
        rng = self.rng
        m = rng.choice(modules)
        params = self.parameters()
        groups = [f"{m}.parameters()", f"{m}.parameters()", f"list({m}.parameters())", "[]"]
        groups.append(f"filter(lambda p: p.requires_grad, {m}.parameters())")
        if params:
            p = rng.choice(params)
            groups += [f"[{p}]", f"[{p}, {p}]", f"[{{'params': [{p}], 'lr': 0.25}}]"]
        group = rng.choice(groups)
        lr = rng.choice(["0.5", "0.1", "0.25", "0.5", "0.1", "0.25", "-0.1"])
        kind = rng.choice(["SGD", "SGD", *OPTIONS])  # SGD three times in seven
        options = [f"lr={lr}", *(o for o in OPTIONS[kind] if rng.random() < 0.3)]
        source = f"{self.new('o')} = torch.optim.{kind}({group}, {', '.join(options)})"
        return Statement(f"optimizer_{kind}", source)

    def step(self) -> Statement | None:
        optimizers = self.optimizers()
        if not optimizers:
            return None
        o = self.rng.choice(optimizers)
        kind = type(self.ns[o]).__name__
        forms = [f"{o}.step()", f"{o}.step()", f"{o}.zero_grad()", f"{o}.zero_grad(False)"]
        source = self.rng.choice(forms)
        return Statement(f"step_{kind}" if "step" in source else "optimizer_zero_grad", source)

    def optimizer_state(self) -> Statement | None:
        optimizers = self.optimizers()
        if not optimizers:
            return None
        rng = self.rng
        o, other = rng.choice(optimizers), rng.choice(optimizers)
        params = self.parameters()
        forms = [
            f"{self.new('r')} = {o}.state_dict()",
            f"{o}.load_state_dict({other}.state_dict())",
            f"{o}.load_state_dict({{'state': {{}}, 'param_groups': []}})",
            f"{self.new('r')} = [g['lr'] for g in {o}.param_groups]",
            f"{o}.param_groups[0]['lr'] = 0.125",
        ]
        if params:
            p = rng.choice(params)
            forms += [
                f"{o}.add_param_group({{'params': [{p}], 'lr': 0.5}})",
                f"{o}.add_param_group({{'params': {p}}})",
            ]
        return Statement("optimizer_state", rng.choice(forms))

    def edit(self) -> Statement | None:
        params = self.parameters()
        if not params:
            return None
        rng = self.rng
        p = rng.choice(params)
        shape = tuple(eval(p, {}, dict(self.ns)).shape)
        size = ", ".join(map(str, shape))
        forms = [
            ("no_grad_edit", f"with torch.no_grad():\n    {p}.mul_(0.5)"),
            ("no_grad_edit", f"with torch.no_grad():\n    {p}.add_({rng.choice(FLOATS)})"),
            ("no_grad_edit", f"with torch.no_grad():\n    {p}[0] = 0.25"),
            ("no_grad_edit", f"with torch.no_grad():\n    {p}.copy_(torch.ones({size}))"),
            ("inplace_edit", f"{p}.add_(1)"),
            ("data_edit", f"{p}.data = torch.zeros({size})"),
            ("data_edit", f"{p}.data = torch.zeros(5)"),
            ("data_edit", f"{p}.data.fill_(0.5)"),
            ("grad_none", f"{p}.grad = None"),
            ("grad_set", f"{p}.grad = torch.ones({size})"),
            ("grad_set", f"{p}.grad = torch.ones(5)"),
            ("grad_set", f"{p}.grad = torch.full({shape}, float('inf'))"),
            ("grad_set", f"{p}.grad = torch.full({shape}, float('nan'))"),
            (
                "grad_set",
                f"{p}.grad = torch.full({shape}, {rng.choice(['1e30', '-1e20', '1e-30'])})",
            ),
            ("param_requires_grad", f"{p}.requires_grad = False"),
            ("param_requires_grad", f"{p}.requires_grad_(False)"),
            ("param_alias", f"{self.new()} = {p}"),
            ("param_alias", f"{self.new()} = {p}.detach()"),
        ]
        tag, source = rng.choice(forms)
        return Statement(tag, source)

    def clip(self) -> Statement | None:
        """``clip_grad_norm_`` or ``clip_grad_value_`` of a module's parameters, a list, one
        parameter or nothing (some without a ``.grad``), with torch's options; or the
        ``get_total_norm`` of a module's gradients, or ``clip_grads_with_norm_`` by a norm. Mostly of a module some of whose parameters
        have gradients (a backward ran), as a learner's clipping is."""
        rng = self.rng
        target, params = self.submodule(), self.parameters()
        if target is None:
            return None
        graded = [
            m for m in self.modules() if any(p.grad is not None for p in self.ns[m].parameters())
        ]
        if graded and rng.random() < 0.85:
            target = rng.choice(graded)
            params = [
                reach(target, n)
                for n, p in self.ns[target].named_parameters()
                if p.grad is not None
            ]
        chosen = [f"{target}.parameters()", f"list({target}.parameters())", "[]"]
        chosen += ["(p for p in [])", f"filter(lambda p: p.requires_grad, {target}.parameters())"]
        if params:
            p, q = rng.choice(params), rng.choice(params)
            chosen += [p, f"[{p}]", f"[{p}, {q}]", f"[{p}, {p}]"]
        which = rng.choice(chosen)
        foreach = rng.choice(["", "", ", foreach=True", ", foreach=False", ", foreach=None"])
        if rng.random() < 0.35:
            value = rng.choice(["0.5", "1.0", "0.25", "0.0", "-0.5", "2", "1e-3"])
            source = f"{self.new('r')} = torch.nn.utils.clip_grad_value_({which}, {value}{foreach})"
            return Statement("clip_grad_value", source)
        max_norm = rng.choice(["1.0", "0.5", "0.1", "10.0", "0.0", "-1.0", "2"])
        norm = rng.choice(
            ["", "", ", norm_type=1", ", norm_type=2.0", ", norm_type='inf'",
             ", norm_type=float('inf')", ", norm_type=3", ", norm_type=0.5", ", norm_type=0",
             ", norm_type=-1.0", ", norm_type=-float('inf')", ", norm_type='fro'"]
        )  # fmt: skip
        strict = ", error_if_nonfinite=True" if rng.random() < 0.3 else ""
        if rng.random() < 0.15:
            norms = self.tensors(lambda v: v.ndim == 0 and v.dtype.is_floating_point)
            norm = rng.choice([*norms[-2:], "torch.tensor(2.0)", "torch.tensor(0.5)"])
            source = f"torch.nn.utils.clip_grads_with_norm_({which}, {max_norm}, {norm}{foreach})"
            return Statement("clip_grads_with_norm", f"{self.new('r')} = {source}")
        if rng.random() < 0.2:
            grads = f"[p.grad for p in {target}.parameters() if p.grad is not None]"
            source = f"torch.nn.utils.get_total_norm({grads}{norm}{strict}{foreach})"
            return Statement("get_total_norm", f"{self.new()} = {source}")
        source = f"torch.nn.utils.clip_grad_norm_({which}, {max_norm}{norm}{strict}{foreach})"
        return Statement("clip_grad_norm", f"{self.new()} = {source}")

    def vector(self) -> Statement | None:
        """``parameters_to_vector`` (a new tensor in the graph) or ``vector_to_parameters`` (the
        parameters then alias the vector), of a fitting, a short or a long vector."""
        target = self.submodule()
        if target is None:
            return None
        rng = self.rng
        n = sum(p.numel() for p in eval(target, {}, dict(self.ns)).parameters())
        flat = f"torch.nn.utils.parameters_to_vector({target}.parameters())"
        if rng.random() < 0.4:
            return Statement("parameters_to_vector", f"{self.new()} = {flat}")
        vectors = self.tensors(lambda v: v.ndim == 1 and v.numel() == n) or [f"torch.zeros({n})"]
        fits = [f"{flat} * 0.5", f"torch.arange({n}.0)", rng.choice(vectors)]
        misfits = [f"torch.ones({n + 1})", f"torch.ones({max(n - 1, 0)})", "[1.0]"]
        vec = rng.choice([*fits, *fits, *misfits, f"torch.ones({n}, dtype=torch.float64)"])
        source = f"torch.nn.utils.vector_to_parameters({vec}, {target}.parameters())"
        return Statement("vector_to_parameters", source)

    def apply(self) -> Statement | None:
        """``module.apply(fn)``: children first, then the module; ``fn`` records, switches modes,
        freezes or initialises."""
        target = self.submodule()
        if target is None:
            return None
        r = self.new("r")
        linear = "isinstance(s, torch.nn.Linear)"
        forms = [
            f"{r} = []; {target}.apply(lambda s: {r}.append(type(s).__name__))",
            f"{r} = {target}.apply(lambda s: s.train(False)) is {target}",
            f"{target}.apply(lambda s: s.requires_grad_(False))",
            f"{target}.apply(lambda s: torch.nn.init.zeros_(s.weight) if {linear} else None)",
            f"{target}.apply(lambda s: torch.nn.init.constant_(s.bias, 0.5) if {linear} else None)",
            f"{target}.apply(None)",
            f"{r} = []; {target}.apply(lambda s: {r}.append(tuple(s.weight.shape)))",
            f"{r} = []; {target}.apply(lambda s: {r}.append(s.training))",
        ]
        return Statement("apply", self.rng.choice(forms))


def main(argv: list[str] | None = None) -> int:
    """Run module programs SEED .. SEED+COUNT-1 (``support.fuzz.main``'s options)."""
    return fuzz_main(argv, ModuleGenerator, "support.fuzz_modules")


if __name__ == "__main__":
    raise SystemExit(main())
