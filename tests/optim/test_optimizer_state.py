"""The optimizer's own state: SGD's momentum buffers and Adam's moments, step by step;
``state_dict``/``load_state_dict`` in torch's structure; groups, zero_grad and refusals."""

from __future__ import annotations

import pickle
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.differential import grad_of, same
from support.optimizers import loss, params, resumed, snapshot, state_of

SGD_OPTIONS = {
    "plain": {"lr": 0.1},
    "momentum": {"lr": 0.1, "momentum": 0.9},
    "dampening": {"lr": 0.1, "momentum": 0.9, "dampening": 0.3},
    "nesterov": {"lr": 0.05, "momentum": 0.8, "nesterov": True},
    "weight decay": {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.01},
    "maximize": {"lr": 0.1, "momentum": 0.9, "maximize": True},
}


@pytest.mark.parametrize("case", SGD_OPTIONS, ids=list(SGD_OPTIONS))
def test_sgd_state_step_by_step(case: str) -> None:
    def program(t: ModuleType) -> Any:
        ps = params(t)
        opt = t.optim.SGD(ps, **SGD_OPTIONS[case])
        seen = []
        for k in range(3):
            opt.zero_grad()
            loss(t, *ps, k + 1).backward()
            opt.step()
            seen.append((snapshot(opt, ps), len(opt.state)))
        return seen

    same(program)


def test_sgd_momentum_buffer_is_a_copy_then_updated_in_place() -> None:
    def program(t: ModuleType) -> Any:
        (p,) = params(t)[:1]
        opt = t.optim.SGD([p], lr=0.1, momentum=0.9)
        (p * 2).sum().backward()
        opt.step()
        buf = opt.state[p]["momentum_buffer"]
        first = (buf.data_ptr() == p.grad.data_ptr(), buf._version, buf.requires_grad)
        (p * 2).sum().backward()
        opt.step()
        return first, buf is opt.state[p]["momentum_buffer"], buf, p._version

    same(program)


def test_parameters_without_grad_get_no_state_and_no_update() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = t.optim.SGD([a, b, c], lr=0.1, momentum=0.9)
        (a * 3).sum().backward()
        opt.step()
        return len(opt.state), a in opt.state, b in opt.state, b._version, c._version, a._version

    same(program)


def test_state_dict_structure() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = t.optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
        loss(t, a, b, c).backward()
        opt.step()
        sd = opt.state_dict()
        return (
            sorted(sd),
            sorted(sd["state"].items()),
            sd["param_groups"],
            [list(g) for g in sd["param_groups"]],
            sd["state"][0]["momentum_buffer"] is opt.state[a]["momentum_buffer"],
        )

    same(program)


@pytest.mark.parametrize("kind", ["sgd", "adam", "adam amsgrad"])
def test_load_state_dict_into_a_fresh_optimizer_continues_identically(kind: str) -> None:
    def make(t: ModuleType, ps: Any) -> Any:
        if kind == "sgd":
            return t.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True)
        return t.optim.Adam(ps, lr=0.05, amsgrad=kind.endswith("amsgrad"))

    def program(t: ModuleType) -> Any:
        _, ps, fresh, twins, shared = resumed(t, make)
        return list(ps), list(twins), state_of(fresh, twins), shared, fresh.param_groups[0]["lr"]

    same(program)


def test_load_state_dict_takes_hyper_parameters_and_keeps_params() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        saved = t.optim.SGD([a, b], lr=0.5, momentum=0.3).state_dict()
        opt = t.optim.SGD([b, c], lr=0.1)
        opt.load_state_dict(saved)
        group = opt.param_groups[0]
        return (
            group["lr"],
            group["momentum"],
            [p is q for p, q in zip(group["params"], [b, c], strict=True)],
        )

    same(program)


LOAD_ERRORS = {
    "group count": lambda t, o: o.load_state_dict(
        {"state": {}, "param_groups": [{"params": [0]}, {"params": [1]}]}
    ),
    "group size": lambda t, o: o.load_state_dict({"state": {}, "param_groups": [{"params": [0]}]}),
}


@pytest.mark.parametrize("case", LOAD_ERRORS, ids=list(LOAD_ERRORS))
def test_load_state_dict_errors(case: str) -> None:
    same(lambda t: LOAD_ERRORS[case](t, t.optim.SGD(params(t)[:2], lr=0.1)))


def test_add_param_group_per_group_lr_and_duplicates() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = t.optim.SGD([a], lr=0.1)
        opt.add_param_group({"params": [b, c], "lr": 1.0})
        loss(t, a, b, c).backward()
        opt.step()
        try:
            opt.add_param_group({"params": [c]})
        except ValueError as e:
            refused = str(e)
        return [a, b, c], [g["lr"] for g in opt.param_groups], refused, len(opt.param_groups)

    same(program)


REFUSALS = {
    "empty list": lambda t: t.optim.SGD([], lr=0.1),
    "non-leaf": lambda t: t.optim.Adam([params(t)[0] * 2]),
    "param given twice in two groups": lambda t: t.optim.Adam(
        [{"params": [params(t)[0]]}, {"params": list(params(t)[:1])}]
    ),
    "tensor not iterable": lambda t: t.optim.Adam(params(t)[0]),
    "adam negative lr": lambda t: t.optim.Adam(params(t), lr=-1.0),
    "adam negative eps": lambda t: t.optim.Adam(params(t), eps=-1.0),
    "adam beta 0": lambda t: t.optim.Adam(params(t), betas=(1.0, 0.9)),
    "adam beta 1": lambda t: t.optim.Adam(params(t), betas=(0.9, -0.1)),
    "adam weight decay": lambda t: t.optim.Adam(params(t), weight_decay=-0.1),
}


@pytest.mark.parametrize("case", REFUSALS, ids=list(REFUSALS))
def test_refusals(case: str) -> None:
    same(REFUSALS[case])


def test_same_param_twice_in_one_list_warns() -> None:
    def program(t: ModuleType) -> Any:
        a = params(t)[0]
        opt = t.optim.SGD([a, a], lr=0.1)
        return len(opt.param_groups[0]["params"])

    same(program)


def test_a_param_twice_in_one_group_saves_its_last_position() -> None:
    # torch maps a group's parameters all at once, so the later duplicate wins (fuzz_modules 19)
    def program(t: ModuleType) -> Any:
        a, b, _ = params(t)
        opt = t.optim.SGD([a, b, a], lr=0.1)
        opt.add_param_group({"params": [params(t)[2]]})
        return opt.state_dict()["param_groups"]

    same(program)


def test_two_groups_sharing_a_param_refused() -> None:
    def program(t: ModuleType) -> Any:
        a, b, _ = params(t)
        return t.optim.SGD([{"params": [a, b]}, {"params": [b]}], lr=0.1)

    same(program)


def test_zero_grad_set_to_none_false_zeroes_in_place() -> None:
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = t.optim.Adam([a, b, c])
        loss(t, a, b, c).backward()
        grad = a.grad
        before = grad._version
        opt.zero_grad(set_to_none=False)
        return a.grad is grad, grad, before, grad._version, b.grad, c.grad

    same(program)


ADAM_OPTIONS = {
    "default": {},
    "lr": {"lr": 0.1},
    "weight decay": {"lr": 0.1, "weight_decay": 0.1},
    "decoupled": {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True},
    "amsgrad": {"lr": 0.1, "amsgrad": True},
    "maximize": {"lr": 0.1, "maximize": True, "betas": (0.5, 0.75)},
}


@pytest.mark.parametrize("case", ADAM_OPTIONS, ids=list(ADAM_OPTIONS))
def test_adam_state_step_by_step(case: str) -> None:
    def program(t: ModuleType) -> Any:
        ps = params(t)
        opt = t.optim.Adam(ps, **ADAM_OPTIONS[case])
        seen = []
        for k in range(3):
            opt.zero_grad()
            loss(t, *ps, k + 1).backward()
            opt.step()
            seen.append(snapshot(opt, ps))
        sd = opt.state_dict()
        return seen, sd["param_groups"], sorted(sd["state"][1])

    same(program)


def test_optimizer_state_dict_pickles() -> None:
    def program(t: ModuleType) -> Any:
        ps = params(t)
        opt = t.optim.Adam(ps, lr=0.1)
        loss(t, *ps).backward()
        opt.step()
        back = pickle.loads(pickle.dumps(opt.state_dict()))
        # values only: the versions of unpickled tensors are tensor pickling's business
        return [(k, v.tolist()) for k, v in sorted(back["state"][0].items())], back["param_groups"]

    same(program)


# -- generated: random optimizer histories, compared step by step ---------------------------

action = st.one_of(
    st.tuples(st.just("step"), st.lists(st.booleans(), min_size=3, max_size=3)),
    st.tuples(st.just("zero"), st.booleans()),
    st.tuples(st.just("reload")),
    st.tuples(st.just("lr"), st.sampled_from([0.01, 0.2])),
)
config = st.one_of(
    st.tuples(
        st.just("SGD"),
        st.fixed_dictionaries(
            {
                "lr": st.sampled_from([0.05, 0.1]),
                "momentum": st.sampled_from([0.0, 0.5, 0.9]),
                "weight_decay": st.sampled_from([0.0, 0.1]),
                "maximize": st.booleans(),
            }
        ),
    ),
    st.tuples(
        st.just("Adam"),
        st.fixed_dictionaries(
            {
                "lr": st.sampled_from([0.01, 0.1]),
                "amsgrad": st.booleans(),
                "weight_decay": st.sampled_from([0.0, 0.1]),
            }
        ),
    ),
    st.tuples(
        st.just("AdamW"),
        st.fixed_dictionaries(
            {
                "lr": st.sampled_from([0.01, 0.1]),
                "amsgrad": st.booleans(),
                "maximize": st.booleans(),
            }
        ),
    ),
    st.tuples(
        st.just("RMSprop"),
        st.fixed_dictionaries(
            {
                "lr": st.sampled_from([0.01, 0.05]),
                "momentum": st.sampled_from([0.0, 0.5]),
                "centered": st.booleans(),
                "weight_decay": st.sampled_from([0.0, 0.1]),
            }
        ),
    ),
    st.tuples(
        st.just("Adagrad"),
        st.fixed_dictionaries(
            {
                "lr": st.sampled_from([0.01, 0.1]),
                "lr_decay": st.sampled_from([0.0, 0.1]),
                "initial_accumulator_value": st.sampled_from([0.0, 0.5]),
            }
        ),
    ),
)


@settings(
    max_examples=50, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(cfg=config, history=st.lists(action, min_size=1, max_size=6))
def test_random_optimizer_histories_match_torch(cfg: Any, history: Any) -> None:
    name, options = cfg

    def program(t: ModuleType) -> Any:
        ps = params(t)
        opt = getattr(t.optim, name)(ps, **options)
        seen = []
        for act in history:
            if act[0] == "step":
                for p, use in zip(ps, act[1], strict=True):
                    if use:
                        (p.sin() * (p.numel() + 1)).sum().backward()
                opt.step()
            elif act[0] == "zero":
                opt.zero_grad(set_to_none=act[1])
            elif act[0] == "lr":
                for g in opt.param_groups:
                    g["lr"] = act[1]
            else:
                fresh = getattr(t.optim, name)(ps, **options)
                fresh.load_state_dict(opt.state_dict())
                opt = fresh
            seen.append((snapshot(opt, ps), [grad_of(p) for p in ps]))
        return seen

    same(program)


STEP_COUNTED = ["Adam", "AdamW", "RMSprop", "Adagrad"]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("name", STEP_COUNTED)
def test_a_loaded_number_step_becomes_a_tensor_again(name: str, default: str) -> None:
    def program(t: ModuleType) -> Any:
        t.set_default_dtype(getattr(t, default))
        try:
            p = t.nn.Parameter(t.tensor([1.0, -2.0]))
            first = getattr(t.optim, name)([p], lr=0.1)
            p.grad = t.tensor([0.5, 1.0])
            first.step()
            saved = first.state_dict()
            saved["state"][0]["step"] = 1.0  # an older checkpoint's number
            second = getattr(t.optim, name)([p], lr=0.1)
            second.load_state_dict(saved)
            loaded = second.state[p]["step"].clone()
            second.step()
            fresh = getattr(t.optim, name)([t.nn.Parameter(t.ones(1))])
            fresh.param_groups[0]["params"][0].grad = t.ones(1)
            fresh.step()
            return loaded, second.state[p]["step"], p, next(iter(fresh.state.values()))["step"]
        finally:
            t.set_default_dtype(t.float32)

    same(program)


@pytest.mark.parametrize("lr", ["two", "empty", "one in a matrix", "two, foreach"])
@pytest.mark.parametrize("name", [*STEP_COUNTED, "SGD"])
def test_a_tensor_lr_of_more_than_one_element_is_refused(name: str, lr: str) -> None:
    def program(t: ModuleType) -> Any:
        value = {
            "two": t.tensor([0.1, 0.2]),
            "empty": t.tensor([]),
            "one in a matrix": t.tensor([[0.1]]),
            "two, foreach": t.tensor([0.1, 0.2]),
        }[lr]
        extra = {"foreach": True} if lr.endswith("foreach") and name.startswith("Adam") else {}
        opt = getattr(t.optim, name)([t.nn.Parameter(t.ones(2))], lr=value, **extra)
        return opt.param_groups[0]["lr"]

    same(program)


@pytest.mark.parametrize("options", [{"momentum": 0.9}, {"momentum": 0.9, "weight_decay": 0.1}])
def test_sgd_param_twice_in_a_group_starts_a_buffer_at_each_listing(
    options: dict[str, Any],
) -> None:
    # module fuzzer 105: torch reads the momentum buffers before it updates any parameter
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = t.optim.SGD([a, b, a], lr=0.25, **options)
        out = []
        for _ in range(2):
            opt.zero_grad()
            loss(t, a, b, c).backward()
            opt.step()
            out.append((a.detach().clone(), opt.state[a]["momentum_buffer"].clone()))
        return out

    same(program)


@pytest.mark.parametrize("kind", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
@pytest.mark.parametrize("source", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_load_state_dict_of_another_optimizer_gains_the_missing_options(
    kind: str, source: str
) -> None:
    # module fuzzer 3410: torch's __setstate__ gives a loaded group the options it lacks
    def program(t: ModuleType) -> Any:
        a, b, _ = params(t)
        opt = getattr(t.optim, kind)([a, b], lr=0.1)
        opt.load_state_dict(getattr(t.optim, source)([a, b], lr=0.5).state_dict())
        return opt.state_dict()["param_groups"]

    same(program)


def test_adam_step_with_a_gradient_of_another_shape_names_the_moment_first() -> None:
    # module fuzzer 3644: lerp_ broadcasts the moment (self) against the gradient
    def program(t: ModuleType) -> Any:
        a = t.nn.Parameter(t.zeros(2, 3))
        a.grad = t.ones(2, 3)
        a.data = t.zeros(5)
        t.optim.Adam([a], lr=0.5).step()

    same(program)


@pytest.mark.parametrize("kind", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_a_failed_step_leaves_the_state_torch_made_before_its_updates(kind: str) -> None:
    # module fuzzer (second generator) 56: torch makes a group's state first (SGD stores its new
    # momentum buffers last), so an update that fails leaves all of the first, none of the last
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        loss(t, a, b, c).backward()
        options = {"momentum": 0.9} if kind == "SGD" else {}
        opt = getattr(t.optim, kind)([a, b, c], lr=0.1, **options)
        b.data = t.zeros(7)
        try:
            opt.step()
        except RuntimeError as e:
            error = str(e)
        return error, {i: sorted(s) for i, s in opt.state_dict()["state"].items()}, a

    same(program)


@pytest.mark.parametrize("kind", ["Adam", "AdamW"])
def test_adam_step_after_the_parameter_became_double_is_refused_by_lerp(kind: str) -> None:
    # module fuzzer 22468: the moments stay float32; torch's lerp_ refuses a float64 gradient
    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        opt = getattr(t.optim, kind)([a, b], lr=0.5)
        for _ in range(2):
            loss(t, a, b, c).backward()
            try:
                opt.step()
            except RuntimeError as e:
                return str(e), a, a._version, opt.state_dict()["state"]
            a.data = a.data.double()
            a.grad = None
        return None

    same(program)


@pytest.mark.parametrize("kind", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
@pytest.mark.parametrize("source", ["SGD", "Adam", "RMSprop", "Adagrad"])
@pytest.mark.parametrize("with_grad", [True, False])  # with a gradient, from an Adagrad: its
# state (made at construction) is read by torch's _init_group key by key, before the options
def test_a_step_reads_the_options_a_loaded_group_lacks(
    kind: str, source: str, with_grad: bool
) -> None:
    # module fuzzer 30277: torch's step reads each group's options, gradients or not

    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        if with_grad:
            loss(t, a, b, c).backward()
        opt = getattr(t.optim, kind)([a, b], lr=0.1)
        opt.load_state_dict(getattr(t.optim, source)([a, b], lr=0.5).state_dict())
        try:
            opt.step()
        except KeyError as e:
            return repr(e), opt.state_dict()["state"]
        return a, b, opt.state_dict()["state"]

    same(program)


STATE_KEYS = {
    "Adam": ({}, ["exp_avg", "exp_avg_sq", "step"]),
    "Adam, amsgrad": ({"amsgrad": True}, ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]),
    "RMSprop": ({}, ["square_avg", "step"]),
    "RMSprop, momentum": ({"momentum": 0.5}, ["square_avg", "step", "momentum_buffer"]),
    "RMSprop, centered": ({"centered": True}, ["square_avg", "step", "grad_avg"]),
}


@pytest.mark.parametrize("case", STATE_KEYS)
def test_a_step_reads_each_state_key_before_it_writes(case: str) -> None:
    # torch's _init_group reads each parameter's state key by key: a loaded state without one
    # raises its KeyError before the step writes anything (not even ``step``)
    options, keys = STATE_KEYS[case]
    kind = case.split(",")[0]

    def program(t: ModuleType) -> Any:
        a, b, c = params(t)
        loss(t, a, b, c).backward()
        first = getattr(t.optim, kind)([a, b], lr=0.1, **options)
        first.step()
        out = []
        for key in keys:
            saved = first.state_dict()
            saved["state"][1] = {k: v.clone() for k, v in saved["state"][1].items() if k != key}
            opt = getattr(t.optim, kind)([a, b], lr=0.1, **options)
            try:
                opt.load_state_dict(saved)  # torch's Adam reads the loaded 'step' here
                opt.step()
            except KeyError as e:
                out.append((repr(e), opt.state_dict()["state"], a._version))
        return out, a, b

    same(program)
