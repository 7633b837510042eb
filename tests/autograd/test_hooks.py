"""Tensor hooks (register_hook, register_post_accumulate_grad_hook) against torch: order,
replacement, removal, retain_grad, errors; and random hook chains."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.differential import same


def test_leaf_hook_sees_the_summed_gradient_and_may_replace_it() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.clone()))
        x.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: seen.append(g.clone()))
        (x * 3 + x * x).sum().backward()
        return seen, x.grad

    same(program)


def test_non_leaf_hook_changes_what_flows_on() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, -2.0, 0.5], requires_grad=True)
        h = x.sigmoid()
        h.register_hook(lambda g: g.clamp(min=0.25))
        (h * t.tensor([1.0, -1.0, 0.1])).sum().backward()
        return x.grad

    same(program)


def test_hooks_run_before_retain_grad_whatever_the_order() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a, b = x * 2, x * 3
        a.retain_grad()
        a.register_hook(lambda g: g * 10)
        b.register_hook(lambda g: g * 10)
        b.retain_grad()
        (a + b).sum().backward()
        return a.grad, b.grad, x.grad

    same(program)


def test_removed_hooks_no_longer_run() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        calls = []
        first = x.register_hook(lambda g: calls.append("first"))
        second = x.register_hook(lambda g: g * 2)
        (x * 1).sum().backward()
        first.remove()
        first.remove()  # twice: nothing
        with second:
            pass
        (x * 1).sum().backward()
        return calls, x.grad

    same(program)


def test_a_gradient_the_hook_keeps_is_copied_into_grad() -> None:
    def program(t: ModuleType) -> Any:
        kept, fresh = [], []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: kept.append(g))
        (x * 3).sum().backward()
        y = t.tensor([1.0, 2.0], requires_grad=True)
        y.register_hook(lambda g: g * 2)
        (y * 3).sum().backward()
        z = t.tensor([1.0, 2.0], requires_grad=True)
        stored = t.tensor([7.0, 7.0])
        z.register_hook(lambda g: stored)
        (z * 3).sum().backward()
        return (
            x.grad is kept[0],
            x.grad._version,
            kept[0]._version,
            y.grad,
            y.grad._version,
            z.grad is stored,
            z.grad._version,
            fresh,
        )

    same(program)


def test_post_accumulate_grad_hook_sees_the_updated_grad() -> None:
    def program(t: ModuleType) -> Any:
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        seen = []

        def step(param: Any) -> None:
            seen.append(param.grad.clone())
            with t.no_grad():
                param.sub_(0.1 * param.grad)
            param.grad = None

        handle = p.register_post_accumulate_grad_hook(step)
        (p * p).sum().backward()
        (p * p).sum().backward()
        handle.remove()
        (p * p).sum().backward()
        return seen, p, p.grad

    same(program)


def test_hooks_also_run_for_autograd_grad() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        h = x * x
        h.register_hook(lambda g: g + 1)
        (gx,) = t.autograd.grad(h.sum(), x)
        return gx, x.grad

    same(program)


ERRORS = {
    "hook on a tensor without grad": lambda t: t.ones(2).register_hook(lambda g: g),
    "post hook on a tensor without grad": lambda t: t.ones(2).register_post_accumulate_grad_hook(
        lambda p: None
    ),
    "post hook on a non-leaf": lambda t: (
        t.ones(2, requires_grad=True) * 2
    ).register_post_accumulate_grad_hook(lambda p: None),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_registration_errors(case: str) -> None:
    same(ERRORS[case])


def _bad(t: ModuleType, result: Any) -> Any:
    x = t.ones(2, requires_grad=True)

    def returns(g: Any) -> Any:
        return result(t)

    x.register_hook(returns)
    (x * 3).sum().backward()
    return x.grad


BAD_RETURNS = {
    "size": lambda t: t.ones(3),
    "dtype": lambda t: t.ones(2, dtype=t.float64),
    "not a tensor": lambda t: 5,
}


@pytest.mark.parametrize("case", BAD_RETURNS, ids=list(BAD_RETURNS))
def test_hook_results_torch_refuses(case: str) -> None:
    same(lambda t: _bad(t, BAD_RETURNS[case]))


# -- generated: random hook chains on random tensors of a small graph -------------------------

hook = st.sampled_from(["scale", "observe", "keep", "clamp", "none"])
plan = st.lists(st.tuples(st.integers(0, 3), hook), max_size=6)


def _make_hook(t: ModuleType, kind: str, log: list[Any], k: int) -> Any:
    if kind == "scale":
        return lambda g: g * (k + 2)
    if kind == "observe":
        return lambda g: log.append(g.clone())
    if kind == "keep":
        return lambda g: log.append(g)
    if kind == "clamp":
        return lambda g: g.clamp(max=1.5)
    return lambda g: None


@settings(
    max_examples=50, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    hooks=plan, retain=st.lists(st.booleans(), min_size=3, max_size=3), removed=st.integers(-1, 5)
)
def test_random_hook_chains_match_torch(hooks: Any, retain: Any, removed: int) -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = x.sin()
        b = a * x
        c = b + a.exp()
        tensors = [x, a, b, c]
        for tensor, keep in zip(tensors[1:], retain, strict=True):
            if keep:
                tensor.retain_grad()
        log: list[Any] = []
        handles = [
            tensors[i].register_hook(_make_hook(t, kind, log, k))
            for k, (i, kind) in enumerate(hooks)
        ]
        if 0 <= removed < len(handles):
            handles[removed].remove()
        c.sum().backward()
        return log, x.grad, [u.grad if u.retains_grad else None for u in tensors[1:]]

    same(program)


def test_hooks_registered_before_and_after_an_in_place_write() -> None:
    # the autograd notes: a hook registered before the write sees the gradient of the old value
    def program(t: ModuleType) -> Any:
        w = t.tensor([1.0, 2.0], requires_grad=True)
        h = w * 1
        seen = []
        h.register_hook(lambda g: seen.append(("before", g.clone())))
        h.mul_(3)
        h.register_hook(lambda g: seen.append(("after", g.clone())))
        (h * h).sum().backward()
        return seen, w.grad

    same(program)


def _accumulation_order(t: ModuleType, case: str) -> list[Any]:
    out: list[Any] = []
    if case.startswith("cat"):
        leaves = [t.ones(2, requires_grad=True) for _ in range(int(case[3:]))]
        for i, leaf in enumerate(leaves):
            leaf.register_post_accumulate_grad_hook(lambda p, i=i: out.append(i))
        t.cat(leaves).sum().backward()
        return out
    if case == "mixed":  # leaves and ops ready together: both ranks share the queue
        parts = []
        for i in range(7):
            leaf = t.ones(2, requires_grad=True)
            leaf.register_post_accumulate_grad_hook(lambda p, i=i: out.append(f"leaf {i}"))
            if i % 3 == 1:
                leaf = leaf.exp()
                leaf.register_hook(lambda g, i=i: out.append(f"exp {i}"))
            parts.append(leaf)
        t.cat(parts).sum().backward()
        return out
    w = t.ones(2, requires_grad=True)
    x = t.ones(2, requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda p: out.append("w accumulated"))
    keep = w * 2  # noqa: F841 - w's accumulator made now, by a graph left alive
    m = x.exp()
    m.register_hook(lambda g: out.append("m's hook"))
    if case == "two roots":
        t.autograd.backward([(w * m).sum(), (x * 3).sum(), (w * m).sum()])
    else:
        (w * m).sum().backward()
    return out


@pytest.mark.parametrize(
    "case", ["cat2", "cat3", "cat4", "cat5", "cat9", "mixed", "early accumulator", "two roots"]
)
def test_leaves_accumulate_in_torchs_order(case: str) -> None:
    """torch runs a ready AccumulateGrad before any other ready node (its sequence number is
    the largest), and ties come out as ``std::priority_queue`` leaves them (0, 2, 1, 3 for
    four leaves of one ``cat``), not in creation order."""
    same(lambda t: _accumulation_order(t, case))


@pytest.mark.parametrize(
    "pattern", ["LOLOLOLOL", "OOLLLLLLOO", "LLLLLLLLLLLL", "OLOLLLOLLOLLL", "LOOOOOOL"]
)
def test_leaves_and_ops_ready_together_run_in_torchs_order(pattern: str) -> None:
    """One node makes leaves (L) and ops (O) ready at once, in the pattern's order: the
    accumulators run first, as torch's heap leaves them, then the ops by creation, latest
    first; each leaf of an op accumulates as soon as that op has run."""

    def program(t: ModuleType) -> list[str]:
        out: list[str] = []
        parts = []
        for i, kind in enumerate(pattern):
            leaf = t.ones(2, requires_grad=True)
            leaf.register_post_accumulate_grad_hook(lambda p, i=i: out.append(f"leaf {i}"))
            if kind == "O":
                leaf = leaf * (i + 1)
                leaf.register_hook(lambda g, i=i: out.append(f"op {i}"))
            parts.append(leaf)
        t.cat(parts).sum().backward()
        return out

    same(program)


@pytest.mark.parametrize("returns", ["None", "the leaf", "a number", "a tuple", "a tensor"])
def test_a_post_accumulate_grad_hook_that_returns_a_value_is_refused(returns: str) -> None:
    def program(t: ModuleType) -> Any:
        a = t.tensor([1.0, 2.0], requires_grad=True)
        seen: list[Any] = []

        def hook(p: Any) -> Any:
            seen.append(p.grad.clone())
            return {
                "None": None,
                "the leaf": p,
                "a number": 5,
                "a tuple": (p,),
                "a tensor": t.zeros(2),
            }[returns]

        a.register_post_accumulate_grad_hook(hook)
        a.register_post_accumulate_grad_hook(lambda p: seen.append(type(p).__name__))
        try:
            (a * 2).sum().backward()
        except (TypeError, RuntimeError) as e:
            seen.append((type(e).__name__, str(e)))
        return seen, a.grad

    same(program)


def test_a_post_accumulate_grad_hook_returning_another_shape_gets_the_tensor_hook_error() -> None:
    def program(t: ModuleType) -> Any:
        a = t.tensor([1.0, 2.0], requires_grad=True)

        def widen(p: Any) -> Any:
            return t.zeros(3)

        a.register_post_accumulate_grad_hook(widen)
        (a * 2).sum().backward()

    same(program)


def test_a_hook_on_an_inference_gradient_is_checked_as_any_other() -> None:
    """fuzz 900320: a backward in inference mode hands the hook an inference gradient; what the
    hook returns (here of another dtype) gets torch's checks, not the inference tensor's refusal
    to show a version."""

    def program(t: ModuleType) -> Any:
        x = t.tensor([[-1.0, -1.5], [0.25, -1.0]], requires_grad=True)
        x.register_hook(lambda g: g.double())
        with t.inference_mode():
            x.backward(t.ones_like(x))

    same(program, raises="RuntimeError")


def test_a_hook_may_return_an_inference_gradient() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 2)
        with t.inference_mode():
            x.backward(t.ones_like(x))
        return x.grad, x.grad.is_inference()

    same(program)


def test_a_views_hook_registered_before_its_stale_grad_fn_is_read_joins_the_old_node() -> None:
    """fuzz 906285, 904869: torch gives a tensor's hooks one dict, attached to its grad_fn at the
    first registration; a later registration does not read grad_fn again. So once a view's base
    is written, a hook registered before the view's grad_fn is read (and remade) stays with the
    old node and never runs, and where the grad_fn cannot be remade (a view of a multi-output
    op, written in place through another view; a view made in no_grad of a base written with
    grad mode on) the later registration does not raise; the first one did."""

    def program(t: ModuleType) -> Any:
        seen: list[Any] = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        b = x * 1
        v = b[0:1]
        v.register_hook(lambda g: seen.append(("before the write", g)))
        b.mul_(3)
        v.register_hook(lambda g: seen.append(("before the read", g)))
        v.grad_fn  # remakes the view's grad_fn
        v.register_hook(lambda g: seen.append(("after the read", g)))
        (v * 5).sum().backward()
        y = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        w = y.chunk(2)[-1][:, 1:]
        w.register_hook(lambda g: None)
        with t.no_grad():
            w.abs_()
        base = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1
        with t.no_grad():
            u = base[:, 1:]  # no grad_fn: its hooks are kept as a leaf's
        u.register_hook(lambda g: None)
        base.pow_(2)
        errors = []
        for _ in range(2):
            try:
                w.register_hook(lambda g: None)
            except RuntimeError as e:
                errors.append(str(e))
        u.register_hook(lambda g: None)  # joins its dict: grad_fn (which would raise) not read
        return seen, x.grad, errors

    same(program)


def test_a_hook_registered_after_a_refused_first_one_on_a_view_without_grad_fn() -> None:
    """fuzz 791213: torch makes a tensor's hook dict before it reads grad_fn; on a view without
    grad_fn (made while its base did not require grad, the base written and then made to
    require grad) the first registration is refused when grad_fn is read, and the second joins
    the dict without reading it, so it is not refused."""

    def program(t: ModuleType) -> Any:
        with t.no_grad():
            x = t.tensor([[-1.5, 2.0, 3.0]])
        v = x.chunk(2)[-1].transpose(0, -1)
        x.fill_(0.25)
        x.requires_grad_()
        results = []
        for _ in range(2):
            try:
                v.register_hook(lambda g: None)
                results.append("registered")
            except RuntimeError as e:
                results.append(str(e))
        return results

    same(program)
