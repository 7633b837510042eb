"""Parameters, a loss and a step-by-step record shared by the optimizer tests (either engine)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

INIT = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]


def params(t: ModuleType) -> Any:
    """Three parameters: a matrix, a vector and a 0-d tensor."""
    a = t.nn.Parameter(t.tensor(INIT))
    b = t.nn.Parameter(t.tensor([0.1, -0.2]))
    c = t.nn.Parameter(t.tensor(3.0))
    return a, b, c


def loss(t: ModuleType, a: Any, b: Any, c: Any, k: int = 1) -> Any:
    """A scalar loss of the three parameters whose gradients change with ``k``."""
    return (a.sin() * k).sum() + (b * b * c).sum() + (a.sum(0)[:2] * b).sum()


def state_of(opt: Any, ps: Any) -> Any:
    """Each parameter's state as sorted ``(key, value)`` pairs (live tensors), or ``None``."""
    return [sorted(opt.state[p].items()) if p in opt.state else None for p in ps]


def snapshot(opt: Any, ps: Any) -> Any:
    """What the parameters and the optimizer's state hold *now*: copies of the values, with the
    ``_version`` of each live tensor beside it (a later step cannot change this record)."""

    def frozen(v: Any) -> Any:
        if hasattr(v, "_version"):
            return v.detach().clone(), v._version
        return v

    return [
        (
            frozen(p),
            {k: frozen(v) for k, v in sorted(opt.state[p].items())} if p in opt.state else None,
        )
        for p in ps
    ]


def resumed(
    t: ModuleType, make: Any, make_fresh: Any = None
) -> tuple[Any, Any, Any, Any, list[bool]]:
    """An optimizer ``make(t, params)`` stepped twice, then a fresh one (``make_fresh``, default
    ``make``: other options show that the load replaces them) over copies of its parameters
    given its ``state_dict()``; both step once more. Returns ``(opt, ps, fresh, twins,
    shared)``: ``shared`` says, per state entry, whether the fresh optimizer holds the very
    tensor of the first (a load must copy, as torch's does)."""
    ps = params(t)
    opt = make(t, ps)
    for k in range(2):
        opt.zero_grad()
        loss(t, *ps, k + 1).backward()
        opt.step()
    twins = [t.nn.Parameter(p.detach().clone()) for p in ps]
    fresh = (make_fresh or make)(t, twins)
    fresh.load_state_dict(opt.state_dict())
    shared = [
        fresh.state[q][key] is opt.state[p][key]
        for p, q in zip(ps, twins, strict=True)
        for key in opt.state[p]
    ]
    for o, group in ((opt, ps), (fresh, twins)):
        o.zero_grad()
        loss(t, *group, 3).backward()
        o.step()
    return opt, ps, fresh, twins, shared


def resumed_schedule(
    t: ModuleType, make_opt: Any, make_sched: Any, record: Any, steps: int = 4
) -> tuple[Any, Any, Any, Any, list[Any]]:
    """A schedule ``make_sched(opt)`` of an optimizer ``make_opt(t)`` stepped ``steps`` times,
    then a fresh pair given both ``state_dict()``s; each pair steps six more times. Returns
    ``(opt, sched, fresh, saved, seen)``: ``saved`` is the schedule's state_dict, ``seen`` what
    ``record(optimizer, schedule)`` gives for each pair after its six steps."""
    opt = make_opt(t)
    sched = make_sched(opt)
    for _ in range(steps):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    fresh_opt = make_opt(t)
    fresh_opt.load_state_dict(opt.state_dict())
    fresh = make_sched(fresh_opt)
    fresh.load_state_dict(saved)
    seen = []
    for o, s in ((opt, sched), (fresh_opt, fresh)):
        for _ in range(6):
            o.step()
            s.step()
        seen.append(record(o, s))
    return opt, sched, fresh, saved, seen
