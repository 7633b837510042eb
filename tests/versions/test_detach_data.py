"""detach() versus .data: both alias the storage; only detach() keeps the version counter."""

from __future__ import annotations

from support.differential import same
from support.gradients import plain


def test_detach_cuts_provenance_and_shares_storage() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        d = y.detach()
        return [
            d,
            d.requires_grad,
            d.is_leaf,
            d.grad_fn,
            d._base is None,
            d._is_view(),
            d.data_ptr() == y.data_ptr(),
            d._version == y._version,
        ]

    same(program)


def test_a_write_through_detach_is_seen_and_caught() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        d = y.detach()
        d[0] = 100.0
        return [y, y._version]

    assert same(program)[1] == 1


def test_the_units_detach_trap_z_equals_x_times_u() -> None:
    """z = x * u with u = y.detach(), y = x**3: dz/dx is u, not 3x^2 + u (the detach signature)."""

    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x**3
        u = y.detach()
        z = x * u
        z.sum().backward()
        return [plain(x.grad), u, z]

    r = same(program)
    assert r[0].values.tolist() == [1.0, 8.0, 27.0]


def test_without_detach_the_full_gradient_flows() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = x * x**3
        z.sum().backward()
        return plain(x.grad)

    assert same(program).values.tolist() == [4.0, 32.0, 108.0]


def test_data_shares_storage_with_a_fresh_counter() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        d = y.data
        return [
            d,
            d.requires_grad,
            d.is_leaf,
            d.grad_fn,
            d._base is None,
            d.data_ptr() == y.data_ptr(),
            y.data is y.data,
        ]

    same(program)


def test_data_hides_a_mutation_and_the_gradient_is_silently_wrong() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        y.data.mul_(0.5)
        y.sum().backward()
        return [plain(x.grad), y, y._version]

    r = same(program)
    assert r[2] == 0


def test_data_of_a_leaf_is_how_old_code_updated_parameters() -> None:
    def program(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().backward()
        w.data.sub_(0.1 * w.grad)
        return [w, w._version, w.is_leaf, plain(w.grad)]

    assert same(program)[1] == 0


def test_data_setter_replaces_the_storage_and_keeps_identity() -> None:
    def program(t):
        a = t.ones(2, requires_grad=True)
        before = a.data_ptr()
        new = t.tensor([5.0, 6.0, 7.0])
        a.data = new
        return [
            a,
            a.requires_grad,
            a.is_leaf,
            a._version,
            a.data_ptr() == new.data_ptr(),
            a.data_ptr() == before,
            tuple(a.shape),
        ]

    same(program)


def test_data_setter_on_a_non_leaf() -> None:
    def program(t):
        y = t.ones(2, requires_grad=True) * 2
        y.data = t.zeros(3)
        return [y, y._version, y.grad_fn]

    same(program)


def test_detach_of_a_view_is_not_a_view() -> None:
    def program(t):
        x = t.arange(6.0).view(2, 3)
        d = x[0].detach()
        d.add_(10)
        return [x, d._base is None, d._version, x._version, d.storage_offset()]

    same(program)


def test_detach_inside_the_loss_is_loud_detach_in_the_middle_is_silent() -> None:
    def loud(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().detach().backward()

    def silent(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        b = t.tensor([0.5, 0.5], requires_grad=True)
        h = (w * 3).detach()
        (h * b).sum().backward()
        return [plain(w.grad), plain(b.grad)]

    assert same(loud).kind == "RuntimeError"
    assert same(silent)[0] is None


def test_detach_then_requires_grad_makes_a_new_leaf() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).detach().requires_grad_()
        (y * y).sum().backward()
        return [plain(y.grad), plain(x.grad), y.is_leaf]

    same(program)


def test_a_saved_tensor_written_through_data_of_a_view() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x.sigmoid()
        y.view(2, 2).data.zero_()
        y.sum().backward()
        return [plain(x.grad), y._version]

    same(program)


def test_the_units_reproduce_task_y_equals_x_times_x() -> None:
    """y = x * x, u = y.detach(), z = x * u: dz/dx = u = x^2, not 3x^2."""

    def program(t):
        x = t.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        u = y.detach()
        z = x * u
        z.sum().backward()
        return [plain(x.grad), u, plain(x.grad) == u, y.grad_fn, u.grad_fn]

    r = same(program)
    assert r[0].values.tolist() == [0.0, 1.0, 4.0, 9.0]


def test_the_units_accumulation_signature_two_backward_calls_sum() -> None:
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        (3 * x).sum().backward()
        summed = plain(x.grad)
        x.grad.zero_()
        (3 * x).sum().backward()
        return [summed, plain(x.grad)]

    r = same(program)
    assert r[0].values.tolist() == [5.0, 7.0] and r[1].values.tolist() == [3.0, 3.0]


def test_assigning_data_does_not_change_what_backward_saved() -> None:
    def program(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        y = w.exp()
        y.data = t.zeros(2)
        y.sum().backward()
        return [plain(w.grad), y, y._version]

    same(program)


def test_a_saved_tensor_detached_in_place_is_refused_at_backward() -> None:
    def program(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        s = (x * 2).sigmoid()
        m = s.max()
        s.detach_()
        m.backward()

    assert same(program).message.startswith(
        "Trying to use a saved tensor that has been detached in-place"
    )


def test_a_saved_tensor_detached_in_place_after_backward_is_fine() -> None:
    def program(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        s = (x * 2).sigmoid()
        s.max().backward()
        s.detach_()
        return [plain(x.grad), s, s.grad_fn]

    same(program)


def test_detach_inplace_of_a_base_releases_its_no_grad_views() -> None:
    def program(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 1
        with t.no_grad():
            v = y.view(-1)
        y.detach_()
        before = v.requires_grad
        v.add_(0.5)
        return [before, v, y, v.requires_grad, v.grad_fn, y._version]

    same(program)


def test_the_silent_wrong_gradient_of_a_data_write_is_torchs_wrong_gradient() -> None:
    """After a .data write no element equals the saved max: torch's max backward then gives 0."""

    def program(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 1
        m = y.max()
        y.data.mul_(2)
        m.backward()
        return [plain(x.grad), m, y]

    same(program)
