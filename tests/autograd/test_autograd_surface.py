"""What PyTorch's autograd tests and notes reach for, against torch: saved-tensor hooks,
increment_version, ``_is_view``, in-place view ops with their creation-meta errors, ``new_*``,
``norm``, ``equal``, ``var``/``var_mean``, ``argmin``, ``split_with_sizes``, ``F.threshold``,
and ``grad_fn=<Invalid>`` in the repr of a view whose history may not be rebuilt."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from support.differential import same


def test_saved_tensors_hooks_pack_and_unpack() -> None:
    def program(t: ModuleType) -> Any:
        log = []

        def pack(x: Any) -> Any:
            log.append(("pack", tuple(x.shape), x.requires_grad, x.grad_fn is None))
            return x.clone()

        def unpack(x: Any) -> Any:
            log.append(("unpack", tuple(x.shape)))
            return x

        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x.sin()
            z = y * y
        z.sum().backward()
        return sorted(log), x.grad

    same(program)


def test_saved_tensors_hooks_skip_the_version_check() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v):
            a = x * 2
            b = a.sin()
        a.mul_(2)  # without hooks backward would refuse: a was saved at version 0
        b.sum().backward()
        return x.grad

    same(program)


def test_saved_tensors_hooks_can_store_anything() -> None:
    def program(t: ModuleType) -> Any:
        store: dict[int, Any] = {}

        def pack(x: Any) -> int:
            store[len(store)] = x.detach().clone()
            return len(store) - 1

        x = t.tensor([0.5, -1.0], requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(pack, lambda k: store[k]):
            y = (x * x).exp()
        y.sum().backward()
        return len(store), x.grad

    same(program)


def test_disable_saved_tensors_hooks() -> None:
    def program(t: ModuleType) -> Any:
        graph = t.autograd.graph
        with (
            graph.disable_saved_tensors_hooks("not here"),
            graph.saved_tensors_hooks(lambda v: v, lambda v: v),
        ):
            pass

    same(program)


def test_increment_version() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = y.sin()
        before = y._version
        t.autograd.graph.increment_version(y)
        t.autograd.graph.increment_version([y, y])
        return before, y._version, z.sum().backward()

    same(program)


def test_is_view() -> None:
    def program(t: ModuleType) -> Any:
        x = t.arange(6.0)
        return x._is_view(), x.view(2, 3)._is_view(), x[1:]._is_view(), x.clone()._is_view()

    same(program)


INPLACE_VIEWS = {
    "t_": (lambda v: v.t_(), (2, 3)),
    "transpose_": (lambda v: v.transpose_(0, 1), (2, 3)),
    "swapdims_": (lambda v: v.swapdims_(1, 0), (2, 3)),
    "swapaxes_": (lambda v: v.swapaxes_(0, -1), (2, 3)),
    "squeeze_": (lambda v: v.squeeze_(), (1, 2, 1, 3)),
    "squeeze_ dim": (lambda v: v.squeeze_(0), (1, 2, 3)),
    "unsqueeze_": (lambda v: v.unsqueeze_(1), (2, 3)),
    "as_strided_": (lambda v: v.as_strided_((3, 2), (1, 3)), (2, 3)),
}


@pytest.mark.parametrize("case", INPLACE_VIEWS, ids=list(INPLACE_VIEWS))
def test_inplace_view_op_on_a_non_leaf(case: str) -> None:
    apply, shape = INPLACE_VIEWS[case]

    def program(t: ModuleType) -> Any:
        x = t.arange(6.0).reshape(shape).requires_grad_()
        y = x * 2
        saved = y.sin()  # saves y: the geometry change bumps its version
        r = apply(y)
        (r * t.arange(6.0).reshape(r.shape)).sum().backward()
        try:
            saved.sum().backward()
        except RuntimeError as e:
            stale = str(e)
        # x.grad's values only: whether accumulation copies a transposed gradient (and so its
        # version) is the engine's accumulation rule, tested elsewhere
        return r is y, y, y.stride(), y._version, x.grad.tolist(), stale

    same(program)


@pytest.mark.parametrize("case", INPLACE_VIEWS, ids=list(INPLACE_VIEWS))
def test_inplace_view_op_refusals_and_no_grad(case: str) -> None:
    apply, shape = INPLACE_VIEWS[case]

    def program(t: ModuleType) -> Any:
        out = []
        leaf = t.ones(shape, requires_grad=True)
        base = t.ones((2, *shape), requires_grad=True).clone()
        with t.no_grad():
            quiet = base[0]
            apply(leaf)  # allowed: nothing is recorded
        out.append((leaf.shape, leaf._version, leaf.grad_fn))
        for make in (
            lambda: t.ones(shape, requires_grad=True),
            lambda: quiet,
            lambda: t.ones((2, *shape), requires_grad=True).clone().unbind(0)[0],
        ):
            try:
                apply(make())
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))
        view = base[1]
        apply(view)
        out.append((view._base is base, view.grad_fn, view._version, base.grad_fn))
        return out

    same(program)


def test_as_strided_out_of_bounds() -> None:
    same(lambda t: t.ones(2, 3).as_strided_((4, 4), (4, 1)))


def test_new_tensor_factories() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(2, dtype=t.float64, requires_grad=True)
        return (
            x.new_zeros(2, 3),
            x.new_ones((1,)),
            x.new_full((2,), 7),
            x.new_full((2,), 7, dtype=t.int64),
            x.new_empty(3).shape,
            x.new_empty((2, 2)).dtype,
            x.new_tensor([1, 2]),
            x.new_zeros(2, requires_grad=True),
        )

    same(program)


def test_norm() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([[3.0, -4.0], [0.0, 1.0]], requires_grad=True)
        results = [
            x.norm(),
            x.norm(1),
            x.norm(float("inf")),
            x.norm(3),
            x.norm(dim=1),
            x.norm(2, dim=0, keepdim=True),
            t.norm(x),
        ]
        sum(r.sum() for r in results).backward()
        return results, x.grad

    same(program)


def test_norm_of_zeros_has_a_zero_gradient() -> None:
    def program(t: ModuleType) -> Any:
        x = t.zeros(3, requires_grad=True)
        x.norm().backward()
        return x.grad

    same(program)


def test_var_and_var_mean() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], requires_grad=True)
        v = x.var()
        vd = x.var(1, keepdim=True)
        vb = x.var(0, unbiased=False)
        vm, m = t.var_mean(x, dim=1)
        v2, m2 = t.var_mean(x, correction=0)
        (v + vd.sum() + vb.sum() + vm.sum() + 3 * m.sum() + v2 + m2).backward()
        return v, vd, vb, vm, m, v2, m2, m.output_nr, x.grad

    same(program)


def test_var_mean_with_one_output_used() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([1.0, 2.0, 4.0], requires_grad=True)
        _, m = t.var_mean(x)
        m.backward()
        return x.grad

    same(program)


def test_equal_argmin_split_with_sizes() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([[3.0, -4.0, 2.0], [0.0, 1.0, -5.0]], requires_grad=True)
        parts = x.split_with_sizes([1, 2], 1)
        (parts[1] * 2).sum().backward()
        return (
            x.equal(x.clone()),
            x.equal(x[:1]),
            t.equal(x, x * 1),
            x.argmin(),
            x.argmin(1),
            x.argmin(0, keepdim=True),
            parts,
            x.grad,
        )

    same(program)


def test_split_with_sizes_outputs_refuse_in_place() -> None:
    def program(t: ModuleType) -> Any:
        x = t.ones(3, requires_grad=True).clone()
        x.split_with_sizes([1, 2])[0].mul_(2)

    same(program)


def test_threshold() -> None:
    def program(t: ModuleType) -> Any:
        x = t.tensor([-1.0, 0.5, 1.0, 2.0], requires_grad=True)
        y = t.nn.functional.threshold(x, 0.75, -3.0)
        y.sum().backward()
        return y, x.grad

    same(program)


def test_repr_of_a_view_whose_history_may_not_be_rebuilt() -> None:
    def program(t: ModuleType) -> Any:
        base = t.ones(3, requires_grad=True).clone()
        with t.no_grad():
            inside = base[:2]
            inside.mul_(2)  # view made and modified under no_grad
        other = t.ones(3, requires_grad=True).clone()
        with t.no_grad():
            outside = other[:2]
        other.mul_(2)  # its base modified with grad mode on
        return repr(inside), repr(outside), repr(base)

    same(program)


@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu_packs_the_saved_tensors_and_skips_the_version_check(pin_memory: bool) -> None:
    def program(t: ModuleType) -> Any:
        a = t.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        with t.autograd.graph.save_on_cpu(pin_memory=pin_memory):
            y = b * b
            z = a.exp()  # saves its result
        saved = y.grad_fn._saved_self
        facts = [saved is b, saved.data_ptr() == b.data_ptr(), saved._version, saved.grad_fn]
        b.add_(1)  # pinned: backward reads the packed copy; else b as it is now
        (y.sum() + z.sum()).backward()
        hooks = t.autograd.graph.save_on_cpu()
        return facts, a.grad, isinstance(hooks, t.autograd.graph.saved_tensors_hooks)

    same(program)


def test_save_on_cpu_refuses_to_pin_for_the_cpu_device_type() -> None:
    def program(t: ModuleType) -> Any:
        a = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.save_on_cpu(True, "cpu"):
            y = a * a
        return y

    same(program)
