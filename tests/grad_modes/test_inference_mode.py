"""inference_mode against torch: the switch (context, decorator, nesting), inference tensors
(no version counter, never saved for backward, no in-place or requires_grad outside), and views
of normal tensors taken inside it."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def values(t: Any) -> Any:
    """An inference tensor's facts a learner can see (its ``_version`` raises)."""
    return t.tolist(), t.requires_grad, t.is_leaf, t.grad_fn, t.is_inference()


def test_switch_as_context_and_decorator() -> None:
    def program(t: ModuleType) -> Any:
        seen = []
        with t.inference_mode():
            seen.append((t.is_inference_mode_enabled(), t.is_grad_enabled()))
            with t.inference_mode(False):
                seen.append((t.is_inference_mode_enabled(), t.is_grad_enabled()))
                seen.append(t.ones(1).is_inference())
            seen.append(t.ones(1).is_inference())
        seen.append((t.is_inference_mode_enabled(), t.is_grad_enabled()))
        with t.no_grad(), t.inference_mode(False):
            seen.append(t.is_grad_enabled())

        @t.inference_mode()
        def called() -> Any:
            return t.is_inference_mode_enabled(), t.ones(1).is_inference()

        @t.inference_mode
        def bare() -> Any:
            return t.is_inference_mode_enabled()

        seen += [called(), bare(), t.is_inference_mode_enabled(), t.autograd.inference_mode]
        return seen[:-1]

    same(program)


def test_restored_after_an_exception() -> None:
    def program(t: ModuleType) -> Any:
        try:
            with t.inference_mode():
                raise KeyError("x")
        except KeyError:
            pass
        return t.is_inference_mode_enabled(), t.is_grad_enabled()

    same(program)


def test_inference_tensors_and_what_derives_from_them() -> None:
    def program(t: ModuleType) -> Any:
        w = t.ones(3, requires_grad=True)
        with t.inference_mode():
            a = t.ones(3)
            y = w * 2  # not recorded
            a.add_(1)  # allowed inside
        return (
            values(a),
            values(y),
            a.detach().is_inference(),
            a.data.is_inference(),
            a[1:].is_inference(),
            a.clone().is_inference(),
            a.clone()._version,
            a.to(t.float64)._version,
            a.sin().is_inference(),
            (a + 1).is_inference(),
            repr(a),
        )

    same(program)


def reading_version(t: ModuleType) -> Any:
    with t.inference_mode():
        a = t.ones(2)
    return a._version


def writing_outside(t: ModuleType) -> Any:
    with t.inference_mode():
        a = t.ones(2)
    try:
        a.mul_(3)
    except RuntimeError as e:
        return str(e), a.tolist()  # torch writes first, then refuses the version bump
    return None


def requiring_grad(t: ModuleType) -> Any:
    with t.inference_mode():
        a = t.ones(2)
    a.requires_grad_()


def saved_for_backward(t: ModuleType) -> Any:
    with t.inference_mode():
        a = t.ones(2)
    return t.ones(2, requires_grad=True) * a


def view_written_in_normal_mode(t: ModuleType) -> Any:
    base = t.ones(3, requires_grad=True).clone()
    with t.inference_mode():
        view = base[:2]
    view.add_(1)


def view_without_grad_written_in_normal_mode(t: ModuleType) -> Any:
    base = t.ones(3)
    with t.inference_mode():
        view = base[:2]
        base.add_(1)
    view.add_(1)
    return view, base, view.is_inference(), view.grad_fn


CASES = {
    "reading _version": reading_version,
    "in place outside": writing_outside,
    "requires_grad outside": requiring_grad,
    "saved for backward": saved_for_backward,
    "view written in normal mode": view_written_in_normal_mode,
    "view without grad written in normal mode": view_without_grad_written_in_normal_mode,
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_inference_tensor_rules(case: str) -> None:
    same(CASES[case])


def test_no_grad_versus_inference_mode() -> None:
    def program(t: ModuleType) -> Any:
        w = t.ones(2, requires_grad=True)
        with t.no_grad():
            a = w * 2
        with t.inference_mode():
            b = w * 2
        a.add_(1)  # a normal tensor: versioned, may join a graph later
        return a._version, (a * w).grad_fn, a.is_inference(), b.is_inference(), values(b)

    same(program)


def test_enable_grad_inside_inference_mode_still_records_nothing() -> None:
    def program(t: ModuleType) -> Any:
        w = t.ones(2, requires_grad=True)
        with t.inference_mode(), t.enable_grad():
            enabled = t.is_grad_enabled()
            y = w * 2
            v = w[:1]
            facts = (enabled, values(y), v.requires_grad, v.grad_fn, v.is_inference())
        return facts, error_of(lambda: v.mul_(2))

    same(program)


def error_of(action: Any) -> Any:
    try:
        action()
    except RuntimeError as e:
        return str(e)
    return None


def test_the_mode_is_per_thread_while_another_thread_is_in_it() -> None:
    """One thread inside inference mode leaves every other thread's tensors normal and its ops
    recorded, and its own tensors are inference tensors (the engine reads a thread's mode only
    while some thread is in inference mode: both sides of that shortcut)."""

    def program(t: ModuleType) -> Any:
        import threading

        inside, done = threading.Event(), threading.Event()
        seen: dict[str, Any] = {}

        def worker() -> None:
            with t.inference_mode():
                seen["worker"] = t.ones(2).is_inference(), t.is_inference_mode_enabled()
                inside.set()
                done.wait(10)
                with t.inference_mode(False):
                    seen["worker_off"] = t.ones(2).is_inference()
            seen["worker_after"] = t.ones(2).is_inference(), t.is_inference_mode_enabled()

        thread = threading.Thread(target=worker)
        thread.start()
        inside.wait(10)
        x = t.ones(2, requires_grad=True)
        y = (x * 2 + 1).relu()
        main = (
            t.is_inference_mode_enabled(),
            x.is_inference(),
            y.is_inference(),
            y.grad_fn.name(),
            y[0].is_inference(),
            y._version,
        )
        done.set()
        thread.join()
        return main, sorted(seen.items())

    same(program)


@pytest.mark.parametrize("op", ["mul_", "div_", "imul", "mul_ through a view"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_an_inplace_write_of_an_inference_tensor_by_a_tensor_requiring_grad(
    op: str, dtype: str
) -> None:
    """Outside inference mode torch saves the written tensor's value before the write (a clone,
    a normal tensor), writes, and refuses at the version bump: the values are written and the
    error is the in-place one, not 'cannot be saved for backward'."""

    def program(t):
        with t.inference_mode():
            x = t.tensor([1.0, -2.0, 0.5])
        w = t.tensor(2.0, dtype=getattr(t, dtype), requires_grad=True)
        try:
            if op == "mul_":
                x.mul_(w)
            elif op == "div_":
                x.div_(w)
            elif op == "imul":
                x *= w
            else:
                x[1:].mul_(w)
        except RuntimeError as e:
            return [str(e), values(x)]
        return ["no error", values(x)]

    same(program)


INFERENCE_ALIASES: dict[str, Any] = {
    "detach()._version": lambda f, inside: f.detach()._version,
    ".data._version": lambda f, inside: f.data._version,
    "_version": lambda f, inside: f._version,
    ".data.fill_": lambda f, inside: (f.data.fill_(0.5), f),
    "detach().add_ twice": lambda f, inside: (lambda d: (d.add_(1), d.add_(1), d._version, f))(
        f.detach()
    ),
    "detach() of a detach()": lambda f, inside: (lambda d: (d.detach().add_(1), d._version))(
        f.detach()
    ),
    "a view of detach()": lambda f, inside: f.detach().view(2)._version,
    "a view of detach() written": lambda f, inside: f.detach()[0].mul_(2),
    "is_inference": lambda f, inside: (f.detach().is_inference(), f.data[0].is_inference()),
    "requires_grad_": lambda f, inside: f.detach().requires_grad_(),
    "clone": lambda f, inside: (lambda c: (c._version, c.is_inference()))(f.detach().clone()),
    "detach() made inside, written": lambda f, inside: inside[0].fill_(1),
    ".data made inside, _version": lambda f, inside: inside[1]._version,
}


@pytest.mark.parametrize("case", INFERENCE_ALIASES)
def test_an_inference_tensors_alias_made_outside_the_mode_counts_its_writes(case: str) -> None:
    """``detach()`` and ``.data`` of an inference tensor made outside inference mode get a
    version counter of their own (from 0), so they can be written in place, writing the inference
    tensor's memory; they are still inference tensors, whose views count nothing. Made inside the
    mode, they have no counter."""

    def program(t: Any) -> Any:
        with t.inference_mode():
            f = t.tensor([1.0, 2.0]) * 2
            inside = (f.detach(), f.data)
        return INFERENCE_ALIASES[case](f, inside)

    same(program)


MULTI_OUTPUT_VIEWS: dict[str, Any] = {
    "unbind of a view made in the block (fuzz program 30064)": lambda t, v: v.mT.unbind(0)[-1],
    "unbind of it": lambda t, v: v.unbind(0)[0],
    "split of it": lambda t, v: v.split(1)[0],
    "chunk of a view of it": lambda t, v: v[:, :1].chunk(2)[1],
}


@pytest.mark.parametrize("views", MULTI_OUTPUT_VIEWS.values(), ids=MULTI_OUTPUT_VIEWS.keys())
@pytest.mark.parametrize("block", ["inference_mode", "no_grad"])
def test_a_multiple_output_view_of_a_view_made_in_a_block_written_in_place(
    views: Any, block: str
) -> None:
    """torch's ``propagate_creation_meta``: a view of a view made in inference mode keeps that
    mark (its error wins over the multiple outputs'); one made under ``no_grad`` takes the
    multiple outputs' mark."""

    def program(t: Any) -> Any:
        x = t.tensor([[0.5, -1.0, 1.0], [-1.5, 0.25, 1.5]], requires_grad=True)
        with getattr(t, block)():
            v = x.select(1, 1)[None].expand(3, 2)
        out = views(t, v)
        try:
            out.sigmoid_()
        except RuntimeError as e:
            return str(e)
        return out

    same(program)


@pytest.mark.parametrize("alias", ["data", "detach"])
def test_writes_to_an_inference_tensors_alias_count_outside_the_block_only(alias: str) -> None:
    """``.data`` or ``detach()`` of an inference tensor, made outside inference mode, has a
    version of its own but is an inference tensor: its writes inside the block go uncounted
    (fuzz 91754: ``sigmoid_`` there left ``_version`` at 0), those outside it count."""

    def program(t):
        with t.inference_mode():
            f = t.arange(4.0).view(4)
        a = f.data if alias == "data" else f.detach()
        seen = [a.is_inference(), a._version]
        with t.inference_mode():
            a.sigmoid_()
            a.add_(1)
            seen.append(a._version)
        seen.append(a._version)
        a.mul_(2)
        return [*seen, a._version, a, f]

    same(program)


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad", "inference_mode"])
def test_a_view_of_a_view_made_in_inference_mode_stays_one(mode: str) -> None:
    """Fuzz program 317562: torch's ``propagate_creation_meta`` keeps ``INFERENCE_MODE`` for a
    view of such a view, also one taken under no_grad (whose own meta would be ``NO_GRAD_MODE``),
    so the rebase error names inference mode."""

    def program(t: Any) -> Any:
        t1 = t.tensor([-1.5, 2.0])
        with t.inference_mode():
            t1.requires_grad_()
            t2 = t1.reshape(-1).squeeze()
        with getattr(t, mode)():
            t3 = t2.t()
            t4 = t2.unbind()[0]
        t2.detach().add_(1)
        return [t3.is_leaf, t3.grad_fn, t4.grad_fn]

    same(program)
