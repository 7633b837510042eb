"""The four state_dict hooks: when each runs, what it is given, what its return does, handles."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from support.differential import same


def tree(t: ModuleType) -> Any:
    """Sequential(Linear(2, 2), Sequential(BatchNorm1d(2))): a root, a leaf child, a nested one."""
    nn = t.nn
    return nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.BatchNorm1d(2)))


def record_save_hooks(t: ModuleType, model: Any, log: list[Any]) -> list[Any]:
    """Register a state_dict pre- and post-hook on every module, each logging what it is given."""
    handles = []
    for name, module in model.named_modules():

        def pre(mod: Any, prefix: str, keep_vars: bool, name: str = name) -> None:
            log.append(("pre", name, mod is model.get_submodule(name), prefix, keep_vars))

        def post(mod: Any, sd: Any, prefix: str, meta: Any, name: str = name) -> None:
            log.append(("post", name, type(sd).__name__, list(sd), prefix, dict(meta)))

        handles.append(module.register_state_dict_pre_hook(pre))
        handles.append(module.register_state_dict_post_hook(post))
    return handles


def test_state_dict_hooks_run_around_each_module_in_order_with_torchs_arguments() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)
        log: list[Any] = []
        record_save_hooks(t, model, log)
        model.state_dict(prefix="net.", keep_vars=True)
        return log

    same(program)


def test_a_state_dict_post_hook_changes_the_dict_in_place_and_sees_the_metadata() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)

        def rename(mod: Any, sd: Any, prefix: str, meta: Any) -> None:
            sd[prefix + "mean"] = sd.pop(prefix + "0.running_mean")
            meta["renamed"] = True

        model[1].register_state_dict_post_hook(rename)
        sd = model.state_dict()
        return list(sd), dict(sd._metadata), sd["1.mean"] is model[1][0].running_mean

    same(program)


def test_a_state_dict_post_hook_that_returns_a_value_is_refused() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)
        model[0].register_state_dict_post_hook(lambda mod, sd, prefix, meta: {})
        return model.state_dict()

    same(program, raises="RuntimeError")


def test_registering_a_post_hook_marks_it_and_a_bound_method_cannot_be_marked() -> None:
    def program(t: ModuleType) -> Any:
        def hook(mod: Any, sd: Any, prefix: str, meta: Any) -> None:
            return None

        t.nn.Linear(1, 1).register_state_dict_post_hook(hook)
        return hook._from_public_api  # type: ignore[attr-defined]

    assert same(program) is True

    def bound(t: ModuleType) -> Any:
        class Saver:
            def hook(self, mod: Any, sd: Any, prefix: str, meta: Any) -> None:
                return None

        t.nn.Linear(1, 1).register_state_dict_post_hook(Saver().hook)

    same(bound, raises="AttributeError")


def test_removed_state_dict_hooks_no_longer_run() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)
        log: list[Any] = []
        handles = record_save_hooks(t, model, log)
        for handle in handles[::2]:
            handle.remove()
        handles[0].remove()  # removing twice does nothing
        model.state_dict()
        with handles[1]:
            pass  # a handle is also a context manager that removes on exit
        model.state_dict()
        return [(entry[0], entry[1]) for entry in log]

    same(program)


def test_a_state_dict_pre_hook_may_write_before_the_values_are_taken() -> None:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(2, 1)

        def zero_bias(mod: Any, prefix: str, keep_vars: bool) -> Any:
            with t.no_grad():
                mod.bias.zero_()
            return "ignored"

        lin.register_state_dict_pre_hook(zero_bias)
        sd = lin.state_dict()
        return sd["bias"], sd["bias"]._version

    same(program)


def test_positional_state_dict_arguments_warn_as_torch() -> None:
    def program(t: ModuleType) -> Any:
        from collections import OrderedDict

        into: Any = OrderedDict()
        out = t.nn.Linear(2, 1).state_dict(into, "lin.", True)
        return out is into, list(out), type(out["lin.weight"]).__name__

    same(program)


def record_load_hooks(t: ModuleType, model: Any, log: list[Any]) -> None:
    """Register a load pre- and post-hook on every module, each logging what it is given."""
    for name, module in model.named_modules():

        def pre(
            mod: Any, sd: Any, prefix: str, meta: Any, strict: bool, *lists: Any, n=name
        ) -> None:
            log.append(("pre", n, type(sd).__name__, sorted(sd), prefix, meta, strict, lists))

        def post(mod: Any, keys: Any, n: str = name) -> None:
            log.append(("post", n, mod is model.get_submodule(n), keys._fields, repr(keys)))

        module.register_load_state_dict_pre_hook(pre)
        module.register_load_state_dict_post_hook(post)


def test_load_hooks_run_around_each_module_in_order_with_torchs_arguments() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)
        sd = model.state_dict()
        del sd["0.bias"]
        sd["extra"] = t.zeros(1)
        log: list[Any] = []
        record_load_hooks(t, model, log)
        result = model.load_state_dict(sd, strict=False)
        return log, result

    same(program)


def test_a_load_pre_hook_renames_old_keys_before_the_module_loads() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)
        old = {k.replace("running_", "moving_"): v + 1 for k, v in model.state_dict().items()}

        def upgrade(mod: Any, sd: Any, prefix: str, *rest: Any) -> None:
            for key in [k for k in sd if "moving_" in k]:
                sd[key.replace("moving_", "running_")] = sd.pop(key)

        model.register_load_state_dict_pre_hook(upgrade)
        keys = model.load_state_dict(old)
        return keys, model[1][0].running_mean, model[1][0].running_var._version, sorted(old)

    same(program)


def test_a_load_pre_hook_may_record_an_error() -> None:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(2, 1)

        def refuse(mod: Any, sd: Any, prefix: str, meta: Any, strict: bool, *lists: Any) -> None:
            lists[2].append("this checkpoint is from another model")

        lin.register_load_state_dict_pre_hook(refuse)
        lin.load_state_dict(lin.state_dict(), strict=False)

    same(program, raises="RuntimeError")


def test_a_load_post_hook_may_forgive_or_add_keys_in_place() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)
        sd = model.state_dict()
        del sd["1.0.running_var"]

        def forgive(mod: Any, keys: Any) -> None:
            keys.missing_keys.clear()

        model.register_load_state_dict_post_hook(forgive)
        forgiven = model.load_state_dict(sd)

        other = tree(t)
        other[0].register_load_state_dict_post_hook(
            lambda mod, keys: keys.unexpected_keys.append("made.up")
        )
        return forgiven, other.load_state_dict(other.state_dict(), strict=False)

    same(program)


def test_a_strict_load_fails_on_keys_a_post_hook_adds() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)
        model[1].register_load_state_dict_post_hook(
            lambda mod, keys: keys.missing_keys.append("invented")
        )
        model.load_state_dict(model.state_dict())

    same(program, raises="RuntimeError")


def test_a_load_post_hook_that_returns_a_value_is_refused() -> None:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(2, 1)
        lin.register_load_state_dict_post_hook(lambda mod, keys: keys)
        lin.load_state_dict(lin.state_dict())

    same(program, raises="AssertionError")


def test_removed_load_hooks_no_longer_run() -> None:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(2, 1)
        log: list[str] = []
        pre = lin.register_load_state_dict_pre_hook(lambda *args: log.append("pre"))
        post = lin.register_load_state_dict_post_hook(lambda mod, keys: log.append("post"))
        lin.load_state_dict(lin.state_dict())
        pre.remove()
        post.remove()
        lin.load_state_dict(lin.state_dict())
        return log

    assert same(program) == ["pre", "post"]


def test_the_private_state_dict_hook_may_return_a_new_dict_at_the_root_only() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)

        def replace(mod: Any, sd: Any, prefix: str, meta: Any) -> Any:
            return {prefix + "replaced": len(sd)}

        model[1]._register_state_dict_hook(replace)  # a child's returned dict is dropped
        child = sorted(model.state_dict())
        handle = model._register_state_dict_hook(replace)
        root = model.state_dict()
        handle.remove()
        return child, root, hasattr(replace, "_from_public_api"), sorted(model.state_dict())

    same(program)


def test_the_private_state_dict_hook_refuses_a_hook_registered_publicly() -> None:
    def program(t: ModuleType) -> Any:
        lin = t.nn.Linear(1, 1)

        def hook(mod: Any, sd: Any, prefix: str, meta: Any) -> None:
            return None

        lin.register_state_dict_post_hook(hook)
        lin._register_state_dict_hook(hook)

    same(program, raises="RuntimeError")


def test_the_private_load_pre_hook_gets_the_module_only_when_asked() -> None:
    def program(t: ModuleType) -> Any:
        model = tree(t)
        log: list[Any] = []

        def without(sd: Any, prefix: str, meta: Any, strict: bool, *lists: Any) -> None:
            log.append(("without", type(sd).__name__, prefix, strict, lists))

        def with_module(mod: Any, sd: Any, prefix: str, *rest: Any) -> None:
            log.append(("with", mod is model[1][0], prefix, len(rest)))

        model[1]._register_load_state_dict_pre_hook(without)
        handle = model[1][0]._register_load_state_dict_pre_hook(with_module, with_module=True)
        model[0].register_load_state_dict_pre_hook(with_module)
        hooks = list(model[1][0]._load_state_dict_pre_hooks.values())
        keys = model.load_state_dict(model.state_dict())
        handle.remove()
        model.load_state_dict(model.state_dict())
        return log, keys, [type(h).__name__ for h in hooks], hooks[0].with_module

    same(program)


def test_a_load_pre_hook_of_a_dead_module_raises_torchs_error() -> None:
    def program(t: ModuleType) -> Any:
        import gc

        owner = t.nn.Linear(1, 1)
        other = t.nn.Linear(1, 1)
        handle = owner.register_load_state_dict_pre_hook(lambda *args: None)
        other._load_state_dict_pre_hooks[handle.id] = owner._load_state_dict_pre_hooks[handle.id]
        del owner
        gc.collect()
        other.load_state_dict(other.state_dict())

    same(program, raises="RuntimeError")


def test_a_copied_module_keeps_its_load_pre_hook_bound_to_the_copy() -> None:
    def program(t: ModuleType) -> Any:
        import copy

        seen: list[Any] = []
        lin = t.nn.Linear(1, 1)
        lin.register_load_state_dict_pre_hook(lambda mod, *rest: seen.append(mod))
        twin = copy.deepcopy(lin)
        twin.load_state_dict(twin.state_dict())
        lin.load_state_dict(lin.state_dict())
        return [m is twin for m in seen], [m is lin for m in seen]

    same(program)
