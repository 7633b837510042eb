"""``torch.autograd.graph.allow_mutation_on_saved_tensors()``: inside, a tensor saved for backward
may be written in place; the write clones it first, matched by (address of element 0, version),
and backward must run inside the same block."""

from __future__ import annotations

from typing import Any

import pytest

from support.differential import grad_of, same

OUTSIDE = (
    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
    "in which the graph was originally recorded."
)


def outcome(action: Any) -> Any:
    """What ``action()`` returns, or the class and message of what it raises (any class: the
    block's own refusal is an AssertionError)."""
    try:
        return action()
    except Exception as e:  # the exception is the result compared
        return (type(e).__name__, str(e))


def leaf(t: Any) -> Any:
    return t.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)


@pytest.mark.parametrize("where", ["after", "another block", "no write", "saved value"])
def test_backward_outside_the_block(where: str) -> None:
    """Unpacking a saved tensor outside the block that saved it raises torch's AssertionError,
    whether or not the tensor was written."""

    def program(t):
        allow = t.autograd.graph.allow_mutation_on_saved_tensors
        a = leaf(t)
        with allow():
            b = a.clone()
            out = (b**2).sum()
            if where != "no write":
                b.sin_()
        if where == "another block":
            with allow():
                out.backward()
        elif where == "saved value":
            return out.grad_fn.next_functions[0][0]._saved_self
        out.backward()
        return grad_of(a)

    facts = same(program, raises="AssertionError")
    assert facts.message == OUTSIDE


def test_nesting_is_refused_and_leaves_the_outer_block_unable_to_backward() -> None:
    def program(t):
        allow = t.autograd.graph.allow_mutation_on_saved_tensors
        a = leaf(t)
        with allow():
            b = a.clone()
            out = (b**2).sum()
            nested = outcome(lambda: allow().__enter__())
            b.sin_()
            late = outcome(out.backward)
        with allow() as ctx:  # the flag is reset at exit: a new block works
            b = a.clone()
            (b**2).sum().backward()
        return [nested, late, grad_of(a), len(ctx.cloned), type(ctx).__name__]

    facts = same(program)
    assert facts[0] == ("RuntimeError", "allow_mutation_on_saved_tensors contexts cannot be nested")


WRITES = {
    "itself": lambda b: b.sin_(),
    "view_as": lambda b: b.view_as(b).sin_(),
    "row 0": lambda b: b[0].sin_(),
    "row 1": lambda b: b[1].sin_(),  # starts further on: not matched, backward reads the write
    "t()": lambda b: b.t().sin_(),
    "column 1": lambda b: b[:, 1].sin_(),
    "detach()": lambda b: b.detach().sin_(),
    ".data": lambda b: b.data.sin_(),  # its own counter at 0: matched while b is at 0
    "setitem 0": lambda b: b.__setitem__(0, 5.0),
    "setitem 1": lambda b: b.__setitem__(1, 5.0),
    "masked_fill_": lambda b: b.masked_fill_(b > 0.25, 0.0),
    "copy_": lambda b: b.copy_(b * 3),
    "zero_": lambda b: b.zero_(),
    "t_": lambda b: b.t_(),
    "unsqueeze_": lambda b: b.unsqueeze_(0),
}


@pytest.mark.parametrize("write", WRITES)
def test_a_write_clones_what_it_matches(write: str) -> None:
    """A write clones the saved tensors with its element 0's address and its version: through
    the tensor, its aliases that start where it starts, ``detach()`` and ``.data``; not through
    a view that starts further on (backward then silently reads the written values, as
    torch's). The written tensor's version still moves."""

    def program(t):
        a = leaf(t)
        with t.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = a.clone()
            out = (b**2).sum()
            WRITES[write](b)
            cloned = len(ctx.cloned)
            out.backward()
        return [grad_of(a), b._version, b.shape, cloned]

    same(program)


@pytest.mark.parametrize("row", [0, 1])
def test_a_saved_view_is_matched_only_if_it_starts_where_the_write_does(row: int) -> None:
    def program(t):
        a = leaf(t)
        with t.autograd.graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            out = (b[row] ** 2).sum()
            b.sin_()
            out.backward()
        return grad_of(a)

    same(program)


def test_saved_by_several_nodes_and_written_twice() -> None:
    """One tensor object saved at one version has one handle: cloned once, at the first write;
    a second save after a write is another version, cloned at the next write."""

    def program(t):
        a = leaf(t)
        seen = []
        with t.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = a.clone()
            out = (b**2).sum() + (b * 3).exp().sum() + (b * b).sum()
            seen.append(len(ctx.original))
            b.mul_(2)
            b.add_(1)
            seen += [len(ctx.cloned), len(ctx.original)]
            out2 = (b**2).sum()
            b.sub_(1)
            seen += [len(ctx.cloned), len(ctx.original)]
            del out2
            seen += [len(ctx.cloned), len(ctx.original)]
            out.backward()
        return [grad_of(a), b._version, seen, len(ctx.cloned), len(ctx.sid_to_tid)]

    same(program)


def test_what_the_block_keeps_goes_with_the_graph() -> None:
    """torch's test_saved_but_not_anymore: after backward frees the graph, a write clones
    nothing; a graph dropped unused drops its clones."""

    def program(t):
        seen = []
        with t.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = t.tensor([1.0, 2.0], requires_grad=True).clone()
            out = (a**2).sum()
            seen.append((len(ctx.original), len(ctx.cloned)))
            out.backward()
            seen.append((len(ctx.original), len(ctx.tid_to_weakhandle), len(ctx.sid_to_tid)))
            a.sin_()
            seen.append(len(ctx.cloned))
            out = (a**2).sum()
            a.sin_()
            seen.append((len(ctx.cloned), len(ctx.original)))
            del out
            seen.append((len(ctx.cloned), len(ctx.original)))
        return seen

    same(program)


def test_grad_mode_and_inference_mode_writes() -> None:
    """Writes under no_grad and inference mode clone too (a saved leaf included); an inference
    tensor written inside the block refuses, as its ``_version`` does."""

    def program(t):
        a = leaf(t)
        with t.inference_mode():
            frozen = t.ones(3)
        with t.autograd.graph.allow_mutation_on_saved_tensors():
            out = (a**2).sum() + (a * 2).sin().sum()
            with t.no_grad():
                a.mul_(2)
            with t.inference_mode():
                a.add_(1)
            out.backward()
            with t.inference_mode():
                refused = outcome(lambda: frozen.add_(1))
        return [grad_of(a), a._version, refused]

    same(program)


@pytest.mark.parametrize("step", ["SGD", "p -= lr * g"])
def test_optimizer_step_on_a_saved_parameter(step: str) -> None:
    """The use the block is made for: a step that writes the weights before the backward of a
    graph that saved them (an optimizer's update and the plain ``p -= lr * g`` under no_grad,
    whose quick write the engine gives up inside the block, clone first)."""

    def program(t):
        w = t.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        x = t.tensor([[1.0, 2.0]], requires_grad=True)  # so that ``x @ w`` saves w
        opt = t.optim.SGD([w], lr=0.5)
        with t.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            out = (x @ w).tanh().sum()
            if step == "SGD":
                w.grad = t.ones(2, 2)
                opt.step()
                w.grad = None
            else:
                with t.no_grad():
                    w -= 0.25 * t.ones(2, 2)
            cloned = len(ctx.cloned)
            out.backward()
        return [grad_of(x), grad_of(w), w, w._version, cloned]

    same(program)


def test_saved_tensors_hooks_inside_and_around() -> None:
    """Hooks opened inside the block take over the saves made there (no clone, no version
    check: backward reads the written values); the block inside hooks takes over from them;
    a block opened where hooks are disabled raises the disabling message."""

    def program(t):
        graph = t.autograd.graph
        results = []
        for inside in (True, False):
            a = leaf(t)
            outer = graph.allow_mutation_on_saved_tensors if inside else None
            hooks = graph.saved_tensors_hooks(lambda x: x, lambda x: x)
            first, second = (outer(), hooks) if outer else (hooks, None)
            with first:
                inner = second if second is not None else graph.allow_mutation_on_saved_tensors()
                with inner:
                    b = a.clone()
                    out = (b**2).sum()
                    b.sin_()
                    out.backward()
            results.append(grad_of(a))

        def disabled():
            with (
                graph.disable_saved_tensors_hooks("no hooks here"),
                graph.allow_mutation_on_saved_tensors(),
            ):
                pass

        return [*results, outcome(disabled)]

    same(program)


def test_the_unpacked_saved_tensor_is_the_clone() -> None:
    def program(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            y = b * b
            b.add_(1)
            saved = y.grad_fn._saved_self
            return [saved, saved._version, saved.data_ptr() == b.data_ptr(), b._version]

    same(program)


def test_retained_graph_and_double_backward() -> None:
    """A graph backpropagated twice reads its clone both times, whatever was written between;
    a gradient made with ``create_graph=True`` saves inside the block too."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.allow_mutation_on_saved_tensors():
            a = x.clone()
            out = (a**3).sum()
            a.sin_()
            (g,) = t.autograd.grad(out, x, create_graph=True, retain_graph=True)
            a.cos_()
            (h,) = t.autograd.grad(g.sum(), x)
            (again,) = t.autograd.grad(out, x)
            freed = outcome(lambda: t.autograd.grad(out, x))
        return [g, h, again, freed]

    same(program)


def test_custom_function_and_saved_output() -> None:
    """``ctx.save_for_backward`` is packed as any save; an op's saved output written in place
    is cloned too."""

    def program(t):
        class Scale(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * x

        a = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            y = Scale.apply(b)
            b.mul_(10)
            e = a.exp()
            z = e.sum() * 1
            e.mul_(2)
            (y.sum() + z).backward()
        return grad_of(a)

    same(program)


def test_an_exception_in_the_block_ends_it() -> None:
    def program(t):
        allow = t.autograd.graph.allow_mutation_on_saved_tensors

        def failing():
            with allow():
                raise ValueError("inside")

        first = outcome(failing)
        a = leaf(t)
        with allow():
            b = a.clone()
            out = (b**2).sum()
            b.sin_()
            out.backward()
        return [first, grad_of(a)]

    same(program)


def test_a_block_is_its_threads_own() -> None:
    """A write made by another thread is not seen by the block (torch's dispatch modes are a
    thread's own; backward then reads the written values), an inference tensor written there
    is not refused, and a block opened by another thread meanwhile is refused as nested."""

    def program(t):
        import threading

        def in_thread(action):
            seen = []
            thread = threading.Thread(target=lambda: seen.append(outcome(action)))
            thread.start()
            thread.join()
            return seen[0]

        def other_block():
            with t.autograd.graph.allow_mutation_on_saved_tensors():
                return "opened"

        a = t.tensor([1.0, 2.0], requires_grad=True)
        with t.inference_mode():
            frozen = t.ones(2)
        with t.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = a.clone()
            out = (b**2).sum()
            in_thread(lambda: b.mul_(10))

            def write_frozen():
                with t.inference_mode():
                    return frozen.add_(1).tolist()

            wrote = in_thread(write_frozen)
            cloned = len(ctx.cloned)
            out.backward()
        with t.autograd.graph.allow_mutation_on_saved_tensors():
            nested = in_thread(other_block)
        return [grad_of(a), b._version, cloned, wrote, nested]

    same(program)


SELF_WRITES = {
    "mul_(b)": lambda b: b.mul_(b),
    "div_(b + 1)": lambda b: b.div_(b + 1),
    "pow_(b)": lambda b: b.pow_(b),
    "add_(b * b)": lambda b: b.add_(b * b),
}


@pytest.mark.parametrize("write", SELF_WRITES)
def test_an_op_that_saves_the_tensor_it_writes(write: str) -> None:
    """What an in-place op saves is saved before its own write, so the write clones it (the
    saved operand of ``b.mul_(b)``), as torch's mode sees the op after its autograd kernel
    saved; without the block the same program is refused at backward."""

    def program(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = a.clone() * 1
            SELF_WRITES[write](b)
            counts = (len(ctx.cloned), len(ctx.original))
            b.sum().backward()
        c = a.clone() * 1
        SELF_WRITES[write](c)
        return [grad_of(a), counts, b._version, outcome(lambda: c.sum().backward())]

    same(program)


@pytest.mark.parametrize(
    "write", ["resize_ larger", "resize_ to the same size", "resize_as_", "out="]
)
def test_a_resize_or_an_out_write_clones_a_saved_tensor_first(write: str) -> None:
    """The block's mode sees every write, a resize and an ``out=`` one too: the saved tensor is
    cloned first, so backward reads the values it had when saved."""

    def program(t: Any) -> Any:
        a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with t.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            x = t.tensor([4.0, 5.0, 6.0])
            y = (a * x).sum()
            if write == "resize_ larger":
                x.resize_(5)
            elif write == "resize_ to the same size":
                x.resize_(3)
            elif write == "resize_as_":
                x.resize_as_(t.zeros(2, 2))
            else:
                t.mul(t.ones(3), 7, out=x)
            y.backward()
            return [grad_of(a), x.shape, x._version, len(ctx.cloned)]

    same(program)
